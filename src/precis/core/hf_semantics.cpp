#include "precis/core/hf_semantics.h"

#include <atomic>
#include <cstdlib>

#include "precis/core/error.h"

namespace precis {
namespace {

// -1: not set; else the HfSemantics value.
std::atomic<int> chosen{-1};

}  // namespace

HfSemantics parse_hf_semantics(std::string_view value, std::string_view where) {
  if (value == "5" || value == "5.23" || value == "5.23.0") return HfSemantics::kV5;
  if (value == "4.44" || value == "4.44.2") return HfSemantics::kV4_44;
  throw Error(std::string(where) +
              ": hf_semantics should be 5 or 4.44 (the transformers "
              "release to follow), not \"" +
              std::string(value) + "\"");
}

std::string_view hf_semantics_name(HfSemantics s) {
  return s == HfSemantics::kV4_44 ? "4.44" : "5";
}

std::string_view transformers_version_of(HfSemantics s) {
  return s == HfSemantics::kV4_44 ? "4.44.2" : "5.23.0";
}

HfSemantics hf_semantics() {
  const int set = chosen.load();
  if (set >= 0) return HfSemantics(set);
  if (const char* env = std::getenv("PRECIS_HF_SEMANTICS"); env && *env)
    return parse_hf_semantics(env, "PRECIS_HF_SEMANTICS");
  return HfSemantics::kV5;
}

void set_hf_semantics(HfSemantics s) { chosen.store(int(s)); }

}  // namespace precis
