// parse_training_arguments: the settings of the config file, then the command line's, each
// applied to its field (or kept as an ignored HF option, or refused with the nearest known
// name), then validated. The parts live in training_arguments_*.cpp (see
// training_arguments_parsing.h).
#include "precis/train/training_arguments.h"

#include <cmath>
#include <set>

#include "precis/core/error.h"
#include "precis/train/training_arguments_parsing.h"

namespace precis::train {
namespace parsing {
namespace {

// One setting into its field; a later setting of the same name overrides an earlier one.
void apply(Args& args, const Setting& s, std::set<std::string>& given) {
  std::string name = normalise_name(s.name);
  note_era(args, name);
  if (name == "evaluation_strategy") name = "eval_strategy";  // HF's deprecated alias
  if (const Option* option = find_option(name)) {
    assign(args, *option, s.value, s.origin);
    given.insert(name);
    return;
  }
  if (const IgnoredOption* ignored = find_ignored(name)) {
    args.ignored_options[name] = normalise_ignored(*ignored, s.value, s.origin);
    return;
  }
  if (s.from_file && name.starts_with("sagemaker_")) return;  // SageMaker's own bookkeeping
  auto near = suggestion(name);
  if (s.from_file) {
    // s.origin.label is "file:line: key"; keep the location, quote the key.
    std::string where = s.origin.label.substr(0, s.origin.label.size() - s.name.size() - 2);
    throw Error(where + ": unknown option \"" + s.name + "\"" +
                (near ? " (did you mean \"" + *near + "\"?)" : ""));
  }
  throw Error("unknown option --" + name +
              (near ? " (did you mean --" + *near + "?)" : " (see precis train --help)"));
}

}  // namespace
}  // namespace parsing

std::string to_string(IntervalStrategy strategy) {
  return std::string(enum_name(parsing::kIntervalStrategyNames, strategy, "no"));
}

std::string to_string(SchedulerType type) {
  return std::string(enum_name(parsing::kSchedulerTypeNames, type, "linear"));
}

TrainingArguments parse_training_arguments(const std::vector<std::string>& argv_after_subcommand) {
  return parse_training_arguments(argv_after_subcommand, PlatformSettings{});
}

TrainingArguments parse_training_arguments(const std::vector<std::string>& argv_after_subcommand,
                                           const PlatformSettings& platform) {
  std::optional<std::string> config_path;
  std::vector<parsing::Setting> command_line =
      parsing::read_command_line(argv_after_subcommand, config_path);
  std::vector<parsing::Setting> hyperparameters;
  for (const auto& [name, value] : platform.hyperparameters) {
    if (parsing::normalise_name(name) == "config") {
      // The command line's --config wins over the platform's.
      if (!config_path) config_path = value.is_string() ? value.get<std::string>() : value.dump();
      continue;
    }
    hyperparameters.push_back({name, value, {platform.source + ": " + name}, true});
  }
  std::vector<parsing::Setting> settings;
  if (config_path) settings = parsing::read_config_file(*config_path);
  settings.insert(settings.end(), hyperparameters.begin(), hyperparameters.end());
  settings.insert(settings.end(), command_line.begin(), command_line.end());

  TrainingArguments args;
  std::set<std::string> given;
  for (const parsing::Setting& s : settings) parsing::apply(args, s, given);
  for (const auto& [name, value] : platform.defaults)
    if (!given.count(parsing::normalise_name(name)))
      parsing::apply(args, {name, value, {platform.defaults_source + ": " + name}, true}, given);
  parsing::validate(args, given);
  return args;
}

TrainingArguments parse_training_arguments(const nlohmann::json& settings, const std::string& origin) {
  check(settings.is_object(), origin + ": expected a mapping of option names to values");
  TrainingArguments args;
  std::set<std::string> given;
  for (const auto& [key, value] : settings.items()) {
    // TrainingArguments.to_dict() keeps the deprecated alias, None when unused.
    if (key == "evaluation_strategy" && value.is_null()) continue;
    parsing::apply(args, {key, value, {origin + ": " + key}, true}, given);
  }
  parsing::validate(args, given);
  return args;
}

std::string ignored_options_warning(const TrainingArguments& args) {
  std::vector<std::string> names;
  for (const auto& o : parsing::ignored_options_table())
    // report_to is honoured for TensorBoard (the trainer reads it), other integrations are not;
    // train_sampling_strategy and average_tokens_across_devices are read (validation).
    if (args.ignored_options.count(std::string(o.name)) &&
        o.name != std::string_view("report_to") &&
        o.name != std::string_view("train_sampling_strategy") &&
        o.name != std::string_view("average_tokens_across_devices"))
      names.emplace_back(o.name);
  std::vector<std::string> lines = args.warnings;
  if (!names.empty())
    lines.push_back("precis ignores these Hugging Face options: " + parsing::join(names, ", "));
  return parsing::join(lines, "\nprecis: warning: ");
}

int64_t interval_steps(double steps, int64_t max_steps) {
  if (steps < 1) return int64_t(std::ceil(double(max_steps) * steps));
  return int64_t(steps);
}

}  // namespace precis::train
