// generation_config.json and the legacy generation keys of config.json, as from_pretrained +
// generate() read a checkpoint directory, then resolve() (generate()'s validation). Input:
// config.json, separator, generation_config.json; a missing second part means no
// generation_config.json, so config.json's own keys are used.
#include "fuzz_support.h"
#include "precis/generate/generation_config.h"
#include "precis/model/bart/bart_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace precis::fuzz;
  const std::string_view input = as_text(data, size);
  const bool has_generation_config = input.find(kFileSeparator) != std::string_view::npos;
  const auto parts = split_files(input, 2);
  const std::filesystem::path dir = fresh_dir("model");
  write_file(dir / "config.json", parts[0]);
  if (has_generation_config) write_file(dir / "generation_config.json", parts[1]);

  precis::BartConfig model;  // the defaults when config.json is not a valid BART config
  try {
    model = precis::BartConfig::from_file(dir / "config.json");
  } catch (const precis::Error&) {
  }
  expect_only_precis_errors([&] {
    const precis::SpecialTokens tokens = precis::special_tokens(model);
    auto config = precis::generate::GenerationConfig::from_model_directory(dir, tokens);
    precis::generate::resolve(config, tokens);
  });
  return 0;
}
