// config.json on arbitrary bytes, through both model loaders (BART and T5) and the family
// registry's model_type check that picks between them (model/families.h). A config that loads must
// describe a model whose sizes are in range: the loaders refuse absurd widths, depths and
// vocabularies before anything is allocated, so the checks below hold for every accepted config.
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "fuzz_support.h"
#include "precis/model/bart/bart_config.h"
#include "precis/model/families.h"
#include "precis/model/t5/t5_config.h"

namespace {

void require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "precis fuzz: accepted config violates: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace precis::fuzz;
  const std::filesystem::path dir = fresh_dir("model");
  write_file(dir / "config.json", as_text(data, size));
  expect_only_precis_errors([&] { precis::checkpoint_model_type(dir); });
  expect_only_precis_errors([&] {
    precis::BartConfig c = precis::BartConfig::from_file(dir / "config.json");
    require(c.d_model > 0 && c.d_model <= (1 << 16), "bart d_model in range");
    require(c.encoder_head_dim() * c.encoder_attention_heads == c.d_model, "bart heads divide d_model");
    require(c.vocab_size > 0 && c.pad_token_id < c.vocab_size, "bart pad token in the vocabulary");
    c.to_json().dump();
  });
  expect_only_precis_errors([&] {
    precis::T5Config c = precis::T5Config::from_file(dir / "config.json");
    require(c.d_model > 0 && c.inner_dim() > 0 && c.inner_dim() <= (1 << 20), "t5 widths in range");
    require(c.relative_attention_num_buckets >= 4, "t5 buckets");
    c.to_json().dump();
  });
  return 0;
}
