#include "precis/tokenize/post_processor.h"

#include <cstdint>

#include "precis/core/error.h"

namespace precis::tokenize {
namespace {

using nlohmann::json;

// ["</s>", 2] as RobertaProcessing stores its tokens.
int32_t token_pair_id(const json& j, const std::string& where, const char* field) {
  check(j.is_array() && j.size() == 2 && j[1].is_number_integer() && j[1].get<int64_t>() >= 0 &&
            j[1].get<int64_t>() <= INT32_MAX,
        where + ": post_processor." + field + " should be [token, id], found " + j.dump());
  return j[1].get<int32_t>();
}

void add_processor(const json& c, const std::string& where, PostProcessor& p) {
  if (c.is_null()) return;
  check(c.is_object() && c.contains("type") && c["type"].is_string(),
        where + ": post_processor should be an object with a \"type\"");
  std::string type = c["type"];
  if (type == "RobertaProcessing" || type == "BertProcessing") {
    check(c.contains("cls") && c.contains("sep"), where + ": " + type + " needs cls and sep");
    p.prefix.push_back(token_pair_id(c["cls"], where, "cls"));
    p.suffix.insert(p.suffix.begin(), token_pair_id(c["sep"], where, "sep"));
  } else if (type == "ByteLevel") {
    // Trims offsets only; ids are unchanged.
  } else if (type == "TemplateProcessing") {
    check(c.contains("single") && c["single"].is_array(),
          where + ": TemplateProcessing needs a \"single\" list");
    const json& specials = c.value("special_tokens", json::object());
    bool seen_sequence = false;
    for (const json& item : c["single"]) {
      if (item.contains("Sequence")) {
        check(
            item["Sequence"].value("id", "A") == "A",
            where + ": TemplateProcessing.single may only hold sequence $A, found " + item.dump());
        seen_sequence = true;
      } else if (item.contains("SpecialToken")) {
        std::string name = item["SpecialToken"].value("id", "");
        check(specials.contains(name) && specials[name].contains("ids"),
              where + ": TemplateProcessing special token '" + name +
                  "' missing from special_tokens");
        auto& side = seen_sequence ? p.suffix : p.prefix;
        for (const json& id : specials[name]["ids"]) {
          check(id.is_number_integer() && id.get<int64_t>() >= 0 && id.get<int64_t>() <= INT32_MAX,
                where + ": TemplateProcessing special token '" + name + "' ids should be token ids, found " +
                    id.dump());
          side.push_back(id.get<int32_t>());
        }
      } else {
        throw Error(where + ": unknown TemplateProcessing item " + item.dump());
      }
    }
  } else if (type == "Sequence") {
    check(c.contains("processors") && c["processors"].is_array(),
          where + ": post_processor Sequence needs \"processors\"");
    for (const json& sub : c["processors"]) add_processor(sub, where, p);
  } else {
    throw Error(where + ": unsupported post_processor type '" + type + "'");
  }
}

}  // namespace

PostProcessor PostProcessor::from_json(const json& config, const std::string& where) {
  PostProcessor p;
  try {
    add_processor(config, where, p);
  } catch (const json::exception& e) {
    throw Error(where + ": bad post_processor: " + e.what());
  }
  p.config = config;
  return p;
}

}  // namespace precis::tokenize
