#include "precis/hub/training_data_example.h"

#include "precis/core/error.h"
#include "precis/data/dataset.h"

namespace precis::hub {
namespace {

// training_args.json's string `key`; "" when absent or null.
std::string training_arg(const nlohmann::json& args, const char* key,
                         const std::filesystem::path& source) {
  if (!args.is_object() || !args.contains(key) || args[key].is_null()) return "";
  check(args[key].is_string(), source.string() + ": \"" + key + "\" should be a string, found " +
                                   std::string(args[key].type_name()));
  return args[key].get<std::string>();
}

}  // namespace

std::optional<std::string> training_data_example(const nlohmann::json& training_args,
                                                 const std::filesystem::path& source) {
  const auto arg = [&](const char* key) { return training_arg(training_args, key, source); };
  data::ReadOptions read =
      data::columns_for(arg("dataset_name"), arg("text_column"), arg("summary_column"));
  read.max_samples = 1;
  for (const char* key : {"test_file", "validation_file"}) {
    const std::string file = arg(key);
    if (file.empty() || !std::filesystem::exists(file)) continue;
    try {
      data::Dataset d = data::read_dataset(file, read);
      if (!d.records.empty() && !d.records.front().text.empty()) return d.records.front().text;
    } catch (const Error&) {
      // A file changed since training: go without an example rather than fail.
    }
  }
  return std::nullopt;
}

}  // namespace precis::hub
