#include "precis/tokenize/added_token_json.h"

#include <cstdint>
#include <utility>

#include "precis/core/error.h"
#include "precis/tokenize/utf8.h"

namespace precis::tokenize {

namespace {

// The content and flags of an entry; the caller sets the id.
AddedToken read_content_and_flags(const nlohmann::json& entry, const std::string& where) {
  check(entry.is_object() && entry.contains("content") && entry["content"].is_string(),
        where + " should be an object with a string \"content\", found " +
            entry.dump().substr(0, 200));
  AddedToken token;
  token.content = entry["content"];
  check(!token.content.empty() && find_invalid_utf8(token.content) == std::string::npos,
        where + ": \"content\" should be non-empty UTF-8");
  for (auto [field, flag] : {std::pair<const char*, bool*>{"single_word", &token.single_word},
                             {"lstrip", &token.lstrip},
                             {"rstrip", &token.rstrip},
                             {"normalized", &token.normalized},
                             {"special", &token.special}}) {
    if (!entry.contains(field) || entry[field].is_null()) continue;
    check(entry[field].is_boolean(),
          where + ": \"" + field + "\" should be true or false, found " + entry[field].dump());
    *flag = entry[field];
  }
  return token;
}

}  // namespace

AddedToken read_added_token(const nlohmann::json& entry, const std::string& where) {
  AddedToken token = read_content_and_flags(entry, where);
  const nlohmann::json* id = entry.contains("id") ? &entry["id"] : nullptr;
  check(id && id->is_number_integer() &&
            (id->is_number_unsigned() ? id->get<uint64_t>() <= INT32_MAX
                                      : id->get<int64_t>() >= 0 && id->get<int64_t>() <= INT32_MAX),
        where + " needs a non-negative integer \"id\" below 2^31, found " +
            (id ? id->dump() : std::string("none")));
  token.id = id->get<int32_t>();
  return token;
}

AddedToken read_keyed_added_token(const std::string& key, const nlohmann::json& entry,
                                  const std::string& where) {
  AddedToken token = read_content_and_flags(entry, where + "[\"" + key + "\"]");
  int64_t id = 0;
  bool digits = !key.empty() && key.size() <= 10;
  for (char c : key) {
    digits = digits && c >= '0' && c <= '9';
    if (digits) id = id * 10 + (c - '0');
  }
  check(digits && id <= INT32_MAX,
        where + ": key \"" + key + "\" should be a token id, an integer in [0, 2^31)");
  token.id = int32_t(id);
  return token;
}

}  // namespace precis::tokenize
