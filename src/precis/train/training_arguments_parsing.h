// The parts of parse_training_arguments (training_arguments.h), one file each, shared between
// those files and nothing else: the option table (training_arguments_options.cpp), turning a
// JSON, YAML or SageMaker string value into a field (_coercion.cpp), the nearest known name
// for an unknown one (_suggestions.cpp), reading name/value settings from the config file and
// the command line (_sources.cpp), and HF's derived defaults and checks (_validation.cpp).
// training_arguments.cpp ties them together: sources -> coercion into the table's fields ->
// validation.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "precis/core/enum_names.h"
#include "precis/train/training_arguments.h"

namespace precis::train::parsing {

// The names of the strategy and schedule values, for reading options and writing them back.
inline constexpr EnumName<IntervalStrategy> kIntervalStrategyNames[] = {
    {IntervalStrategy::kNo, "no"},
    {IntervalStrategy::kSteps, "steps"},
    {IntervalStrategy::kEpoch, "epoch"},
};
inline constexpr EnumName<SchedulerType> kSchedulerTypeNames[] = {
    {SchedulerType::kLinear, "linear"},
    {SchedulerType::kCosine, "cosine"},
    {SchedulerType::kConstant, "constant"},
    {SchedulerType::kConstantWithWarmup, "constant_with_warmup"},
};

using Args = TrainingArguments;
using json = nlohmann::json;

// ---- The option table: every field of TrainingArguments by its HF name ----

using Member = std::variant<bool Args::*, int64_t Args::*, double Args::*, std::string Args::*,
                            std::optional<bool> Args::*, std::optional<int64_t> Args::*,
                            std::optional<double> Args::*, std::optional<std::string> Args::*,
                            IntervalStrategy Args::*, SchedulerType Args::*>;

enum class Group { kModel, kData, kTraining, kPrecis };

struct Option {
  std::string_view name;
  Member member;
  Group group;
  std::string_view help;
};

const std::vector<Option>& options();
const Option* find_option(std::string_view name);
bool is_bool_option(const Option& option);

// HF options accepted for compatibility. `hf_default` is the value TrainingArguments.to_dict()
// (or run_summarization's dataclasses) hold by default, as JSON text.
enum class Kind { kBool, kInt, kFloat, kString, kList, kAny };

struct IgnoredOption {
  std::string_view name;
  Kind kind;
  std::string_view hf_default;
};

const std::vector<IgnoredOption>& ignored_options_table();

// A note in args.warnings (once) when `name` is one that transformers 5 removed, naming what
// replaces it (training_arguments_eras.cpp).
void note_era(Args& args, std::string_view name);
const IgnoredOption* find_ignored(std::string_view name);

// ---- Values: JSON types or strings (SageMaker passes every hyperparameter as a string) ----

// Where a value came from, for messages: "--learning_rate" or "job.json:3: learning_rate".
struct Origin {
  std::string label;
};

// A value as a message quotes it (invalid UTF-8 replaced).
std::string found_text(const json& v);
std::string lower(std::string_view s);
std::string trim(std::string_view s);
std::string join(const std::vector<std::string>& items, std::string_view sep);

// Sets one field of `args` from `v`; throws precis::Error naming `at` when `v` does not fit.
void assign(Args& args, const Option& option, const json& v, const Origin& at);
// An ignored option's value, checked for its type and normalised ("True" -> true).
json normalise_ignored(const IgnoredOption& option, const json& v, const Origin& at);

// ---- Unknown options ----

// The known name (option or ignored option) closest to `unknown`, when close enough to be a
// typo.
std::optional<std::string> suggestion(std::string_view unknown);

// ---- Sources: name/value pairs from the config file and the command line, in order ----

struct Setting {
  std::string name;  // as written, dashes turned into underscores
  json value;
  Origin origin;
  bool from_file = false;
};

std::string normalise_name(std::string_view name);  // dashes to underscores
std::vector<Setting> read_config_file(const std::string& path);
// Splits the command line into settings; the config file's path comes out separately.
std::vector<Setting> read_command_line(const std::vector<std::string>& argv,
                                       std::optional<std::string>& config_path);

// ---- Validation ----

// HF's derived defaults and checks (TrainingArguments.__post_init__, run_summarization) and
// precis's own, once every setting is applied. `given`: the options set explicitly.
void validate(Args& a, const std::set<std::string>& given);

}  // namespace precis::train::parsing
