// Reading config.json fields with range checks and errors that name the file and field.
// Shared by the model configs (BART, T5). A missing or null key leaves the default.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "precis/core/error.h"

namespace precis {

struct ConfigFieldReader {
  const nlohmann::json& j;
  const std::string& source;

  std::string where(const char* key) const { return source + ": field \"" + key + "\""; }

  void integer(const char* key, int64_t& out, int64_t lo, int64_t hi) const {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return;
    check(it->is_number_integer(), where(key) + " must be an integer, found " + it->dump());
    int64_t v = it->get<int64_t>();
    check(v >= lo && v <= hi, where(key) + " must be in [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "], found " + std::to_string(v));
    out = v;
  }
  void token(const char* key, int32_t& out) const {
    int64_t v = out;
    integer(key, v, 0, int64_t(1) << 24);
    out = int32_t(v);
  }
  void optional_token(const char* key, std::optional<int32_t>& out) const {
    auto it = j.find(key);
    if (it == j.end()) return;
    if (it->is_null()) {
      out.reset();
      return;
    }
    int32_t v = 0;
    token(key, v);
    out = v;
  }
  void real(const char* key, double& out, double lo, double hi) const {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return;
    check(it->is_number(), where(key) + " must be a number, found " + it->dump());
    double v = it->get<double>();
    check(v >= lo && v <= hi, where(key) + " must be in [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "], found " + it->dump());
    out = v;
  }
  void boolean(const char* key, bool& out) const {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return;
    check(it->is_boolean(), where(key) + " must be true or false, found " + it->dump());
    out = it->get<bool>();
  }
};


}  // namespace precis
