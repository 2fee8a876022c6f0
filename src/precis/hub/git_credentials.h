// How publish gives git (and git-lfs, which asks git for credentials) an access token that lives
// only in an environment variable: never on a command line, in a file, in .git/config or in
// output.
//
// Every git process gets, through GIT_CONFIG_COUNT/KEY/VALUE environment variables (config that
// exists only for that process), a credential helper that first clears the user's helpers (so
// none of them stores the token, e.g. in ~/.git-credentials) and then answers "get" with
// `password=$<TOKEN_ENV>` - the helper's text names the variable, never the token. The token
// reaches the helper because the helper inherits git's environment.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace precis::hub {

struct GitEnvironment {
  std::vector<std::pair<std::string, std::string>> variables;  // to set in each git process
  std::string token;  // the token's value, for redaction; empty when there is none
};

// The environment for git processes: never prompt on a terminal; with a token in `token_env`,
// the credential helper above (username "hf_user" unless the URL names one). An unset or empty
// variable gives no token: git then uses the user's own credentials (ssh keys, helpers).
// `token_env` must be a shell variable name.
GitEnvironment git_environment(const std::string& token_env);

// `text` with every occurrence of `secret` and every password in a URL's user-info
// ("https://user:pass@host") replaced by "***".
std::string redact(std::string text, std::string_view secret);

}  // namespace precis::hub
