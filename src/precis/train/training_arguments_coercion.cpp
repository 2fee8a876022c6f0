// Values of `precis train` options as they arrive: JSON and YAML types, or strings, since
// SageMaker passes every hyperparameter as a string ("5e-5", "True", "None"). Each is coerced
// to its field's type, or refused naming where it came from and what was expected.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include "precis/core/error.h"
#include "precis/train/training_arguments_parsing.h"

namespace precis::train::parsing {

std::string found_text(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

namespace {

[[noreturn]] void bad_value(const Origin& at, const std::string& expected, const json& found) {
  throw Error(at.label + ": expected " + expected + ", found " + found_text(found));
}

// Python's None as SageMaker or a YAML file may spell it, for Optional numbers and booleans.
bool is_none_text(const json& v) {
  if (!v.is_string()) return false;
  std::string s = trim(v.get<std::string>());
  return s.empty() || s == "None" || s == "none" || s == "null" || s == "Null" || s == "NULL" ||
         s == "~";
}

bool to_bool(const json& v, const Origin& at) {
  static const char* kExpected = "true or false";
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer() || v.is_number_unsigned()) {
    auto i = v.get<int64_t>();
    if (i == 0 || i == 1) return i == 1;
  }
  if (v.is_string()) {
    // HfArgumentParser's string_to_bool
    std::string s = lower(trim(v.get<std::string>()));
    if (s == "yes" || s == "true" || s == "t" || s == "y" || s == "1") return true;
    if (s == "no" || s == "false" || s == "f" || s == "n" || s == "0") return false;
  }
  bad_value(at, kExpected, v);
}

// A number written as text, as from_chars reads it, with surrounding space and one leading
// '+' allowed; nullopt unless the whole text is the number.
template <class T>
std::optional<T> number_in_text(const std::string& text) {
  std::string s = trim(text);
  const char* b = s.data();
  const char* e = b + s.size();
  if (b != e && *b == '+') ++b;
  T out = 0;
  auto [p, ec] = std::from_chars(b, e, out);
  if (ec == std::errc() && p == e && b != e) return out;
  return std::nullopt;
}

int64_t to_int(const json& v, const Origin& at) {
  static const char* kExpected = "an integer";
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_unsigned()) {
    auto u = v.get<uint64_t>();
    if (u <= uint64_t(INT64_MAX)) return int64_t(u);
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) return int64_t(d);
  }
  if (v.is_string()) {
    if (auto n = number_in_text<int64_t>(v.get<std::string>())) return *n;
  }
  bad_value(at, kExpected, v);
}

double to_double(const json& v, const Origin& at) {
  static const char* kExpected = "a number";
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    auto x = number_in_text<double>(v.get<std::string>());
    if (x && std::isfinite(*x)) return *x;
  }
  bad_value(at, kExpected, v);
}

std::string to_text(const json& v, const Origin& at) {
  if (v.is_string()) return v.get<std::string>();
  // A YAML or JSON scalar where text is expected (run_name: 7) reads as its text.
  if (v.is_number() || v.is_boolean()) return v.dump();
  bad_value(at, "a string", v);
}

IntervalStrategy to_interval_strategy(const json& v, const Origin& at) {
  std::string s = v.is_string() ? trim(v.get<std::string>()) : "";
  if (auto strategy = enum_from_name(kIntervalStrategyNames, s)) return *strategy;
  bad_value(at, "one of no, steps, epoch", v);
}

SchedulerType to_scheduler_type(const json& v, const Origin& at) {
  std::string s = v.is_string() ? trim(v.get<std::string>()) : "";
  if (auto type = enum_from_name(kSchedulerTypeNames, s)) return *type;
  static const std::set<std::string> kHfOnly = {"cosine_with_restarts", "polynomial",
                                                "inverse_sqrt",         "reduce_lr_on_plateau",
                                                "cosine_with_min_lr",   "warmup_stable_decay"};
  if (kHfOnly.count(s))
    throw Error(at.label +
                ": precis implements the schedules linear, cosine, constant and "
                "constant_with_warmup, not \"" +
                s + "\"");
  bad_value(at, "one of linear, cosine, constant, constant_with_warmup", v);
}

std::string to_choice(const json& v, const Origin& at, const std::vector<std::string>& choices,
                      std::string_view refusal = {}) {
  std::string s = to_text(v, at);
  if (std::find(choices.begin(), choices.end(), s) != choices.end()) return s;
  if (!refusal.empty() && v.is_string())
    throw Error(at.label + ": " + std::string(refusal) + ", not \"" + s + "\"");
  bad_value(at, "one of " + join(choices, ", "), v);
}

// A bool, integer or floating-point option's value.
template <class T>
T to_scalar(const json& v, const Origin& at) {
  if constexpr (std::is_same_v<T, bool>)
    return to_bool(v, at);
  else if constexpr (std::is_same_v<T, int64_t>)
    return to_int(v, at);
  else
    return to_double(v, at);
}

template <class T>
constexpr bool kIsOptional = false;
template <class T>
constexpr bool kIsOptional<std::optional<T>> = true;

}  // namespace

// Sets one field of `args` from `v`.
void assign(Args& args, const Option& option, const json& v, const Origin& at) {
  std::visit(
      [&](auto member) {
        using Field = std::remove_reference_t<decltype(args.*member)>;
        Field& field = args.*member;
        if constexpr (std::is_same_v<Field, bool> || std::is_same_v<Field, int64_t> ||
                      std::is_same_v<Field, double>) {
          field = to_scalar<Field>(v, at);
        } else if constexpr (std::is_same_v<Field, std::string>) {
          if (option.name == "optim")
            field =
                to_choice(v, at, {"adamw_torch", "adamw_torch_fused", "adamw_hf"},
                          "precis implements AdamW: adamw_torch, adamw_torch_fused or adamw_hf");
          else if (option.name == "device")
            field = to_choice(v, at, {"auto", "cpu", "cuda"});
          else
            field = to_text(v, at);
        } else if constexpr (std::is_same_v<Field, std::optional<std::string>>) {
          if (v.is_null())
            field.reset();
          else
            field = to_text(v, at);
        } else if constexpr (kIsOptional<Field>) {
          // An optional bool or number: null and "None" leave it unset (text above: "None"
          // may be a name).
          if (v.is_null() || is_none_text(v))
            field.reset();
          else
            field = to_scalar<typename Field::value_type>(v, at);
        } else if constexpr (std::is_same_v<Field, IntervalStrategy>) {
          field = to_interval_strategy(v, at);
        } else if constexpr (std::is_same_v<Field, SchedulerType>) {
          field = to_scheduler_type(v, at);
        }
      },
      option.member);
}

// An ignored option's value, checked for its type and normalised ("True" -> true).
json normalise_ignored(const IgnoredOption& option, const json& v, const Origin& at) {
  // A list keeps "none" as written: report_to "none" (no integration) is not None ("all").
  bool none = v.is_null() ||
              (option.kind != Kind::kString && option.kind != Kind::kList && is_none_text(v));
  if (none) return nullptr;
  switch (option.kind) {
    case Kind::kBool:
      return to_bool(v, at);
    case Kind::kInt:
      return to_int(v, at);
    case Kind::kFloat:
      return to_double(v, at);
    case Kind::kString:
      return to_text(v, at);
    case Kind::kList:
      if (v.is_array()) return v;
      return json::array({to_text(v, at)});
    case Kind::kAny:
      // HF json.loads() dict-valued options given as a string starting with "{".
      if (v.is_string() && trim(v.get<std::string>()).starts_with("{")) {
        try {
          return json::parse(v.get<std::string>());
        } catch (const json::exception&) {
          bad_value(at, "a JSON object", v);
        }
      }
      return v;
  }
  return v;
}

}  // namespace precis::train::parsing
