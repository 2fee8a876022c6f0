// Which transformers precis follows where its releases compute differently: 5 (5.23.0, the
// default: what users install today) or 4.44 (4.44.2, the tutorial's era). The differences and
// the tests that tell them apart are listed in docs/hf-semantics.md.
//
// Like the installed transformers in Python, the choice is the process's: each command sets it
// once from --hf_semantics (or a training run's hf_semantics argument), falling back on the
// environment variable PRECIS_HF_SEMANTICS, then on 5. Code that decides reads it into its own
// state (ResolvedGeneration, the tokenizer's settings, the training plan) when that is made.
#pragma once

#include <string>
#include <string_view>

namespace precis {

enum class HfSemantics { kV5, kV4_44 };

// "5" or "4.44" (also "5.23", "5.23.0", "4.44.2"). Throws precis::Error naming `where` and the
// accepted values.
HfSemantics parse_hf_semantics(std::string_view value, std::string_view where);

std::string_view hf_semantics_name(HfSemantics s);        // "5", "4.44"
std::string_view transformers_version_of(HfSemantics s);  // "5.23.0", "4.44.2"

// The process's choice: set_hf_semantics's, else PRECIS_HF_SEMANTICS's, else kV5.
HfSemantics hf_semantics();
void set_hf_semantics(HfSemantics s);

// set_hf_semantics for a scope (tests, a Python call), the one in effect before restored after.
class ScopedHfSemantics {
 public:
  explicit ScopedHfSemantics(HfSemantics s) : before_(hf_semantics()) { set_hf_semantics(s); }
  ~ScopedHfSemantics() { set_hf_semantics(before_); }
  ScopedHfSemantics(const ScopedHfSemantics&) = delete;
  ScopedHfSemantics& operator=(const ScopedHfSemantics&) = delete;

 private:
  HfSemantics before_;
};

}  // namespace precis
