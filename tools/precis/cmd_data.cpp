// precis data: datasets that ship with precis. `precis data debian` builds a
// description -> synopsis summarization dataset from apt's package lists.
#include <chrono>
#include <cstdio>

#include "command.h"
#include "precis/data/debian_descriptions.h"

namespace {

void setup_debian(CLI::App& data) {
  auto* app = data.add_subcommand(
      "debian",
      "Debian package descriptions (long description -> synopsis) from apt's lists, split "
      "by source package into train/validation/test JSON lines");
  auto output = std::make_shared<std::string>();
  auto options = std::make_shared<precis::data::DebianOptions>();
  auto lists = std::make_shared<std::string>(options->lists_dir.string());
  app->add_option("--output", *output, "Directory for train.jsonl, validation.jsonl, test.jsonl")
      ->required();
  app->add_option("--lists", *lists,
                  "Apt lists directory holding *_i18n_Translation-en[.lz4] and *_Packages[.lz4]")
      ->capture_default_str();
  app->add_option("--seed", options->seed, "Seed of the hash that assigns sources to splits")
      ->capture_default_str();
  app->add_option("--validation_percent", options->validation_percent,
                  "Share of source packages in validation")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  app->add_option("--test_percent", options->test_percent, "Share of source packages in test")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  app->callback([output, options, lists] {
    options->lists_dir = *lists;
    auto start = std::chrono::steady_clock::now();
    auto s = precis::data::write_debian_dataset(*output, *options);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "read %zu description stanzas from %zu Translation-en list(s); sources from %zu "
        "Packages list(s) for %zu records\n"
        "dropped: %zu without a long description, %zu duplicate descriptions, %zu malformed\n"
        "train %zu, validation %zu, test %zu records -> %s (%.1f s)\n",
        s.stanzas, s.translation_files, s.packages_files, s.source_from_lists, s.empty_dropped,
        s.duplicates_dropped, s.invalid_dropped, s.train, s.validation, s.test, output->c_str(),
        seconds);
  });
}

}  // namespace

PRECIS_COMMAND("data", "Build the datasets that come with precis (see `precis data debian`)",
               [](CLI::App& app) {
                 app.require_subcommand(1);
                 setup_debian(app);
               });
