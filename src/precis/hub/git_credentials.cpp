#include "precis/hub/git_credentials.h"

#include <cstdlib>
#include <regex>

#include "precis/core/error.h"

namespace precis::hub {
namespace {

bool is_variable_name(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

GitEnvironment git_environment(const std::string& token_env) {
  check(is_variable_name(token_env), "--token_env " + token_env +
                                         ": expected the name of an environment variable (letters, digits, _)");
  GitEnvironment env;
  // A missing credential fails with git's own message instead of waiting for typing.
  env.variables = {{"GIT_TERMINAL_PROMPT", "0"}, {"GCM_INTERACTIVE", "never"}};
  const char* token = std::getenv(token_env.c_str());
  if (!token || !*token) return env;
  env.token = token;

  // Config entries given through the environment come after any the caller already passes
  // that way (GIT_CONFIG_COUNT), which stay in force.
  int count = 0;
  if (const char* c = std::getenv("GIT_CONFIG_COUNT")) count = std::atoi(c);
  auto add_config = [&](const std::string& key, const std::string& value) {
    env.variables.emplace_back("GIT_CONFIG_KEY_" + std::to_string(count), key);
    env.variables.emplace_back("GIT_CONFIG_VALUE_" + std::to_string(count), value);
    ++count;
  };
  add_config("credential.helper", "");  // an empty helper resets the list: no stored copies
  // git runs a helper starting with '!' through the shell with the action as $1 and the request
  // on stdin. Answer "get" only; keep a username the URL gave.
  add_config("credential.helper",
             "!f() { test \"$1\" = get || { cat >/dev/null; return 0; }; has_user=; "
             "while IFS= read -r line && test -n \"$line\"; do "
             "case \"$line\" in username=*) has_user=1;; esac; done; "
             "test -n \"$has_user\" || echo username=hf_user; "
             "printf 'password=%s\\n' \"$" +
                 token_env + "\"; }; f");
  env.variables.emplace_back("GIT_CONFIG_COUNT", std::to_string(count));
  return env;
}

std::string redact(std::string text, std::string_view secret) {
  if (!secret.empty()) {
    for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 3))
      text.replace(at, secret.size(), "***");
  }
  static const std::regex userinfo_password(R"(([A-Za-z][A-Za-z0-9+.-]*://[^/@:\s]*):[^/@\s]*@)");
  return std::regex_replace(text, userinfo_password, "$1:***@");
}

}  // namespace precis::hub
