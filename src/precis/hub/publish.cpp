#include "precis/hub/publish.h"

#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "precis/core/error.h"
#include "precis/core/subprocess.h"
#include "precis/hub/git_credentials.h"
#include "precis/hub/lfs_attributes.h"

namespace precis::hub {
namespace fs = std::filesystem;

namespace {

constexpr const char* kWeightFiles[] = {"model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                                        "pytorch_model.bin.index.json"};

// A temporary folder removed with its contents when it goes out of scope.
class TempFolder {
 public:
  TempFolder() {
    std::string pattern = (fs::temp_directory_path() / "precis-publish-XXXXXX").string();
    check(mkdtemp(pattern.data()) != nullptr, "cannot create a temporary folder in " +
                                                  fs::temp_directory_path().string());
    path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Splits streamed output into lines (on '\n' or '\r', git's progress separator) and hands each
// one, redacted, to `sink`: a token can never straddle two calls.
class LineRedactor {
 public:
  LineRedactor(std::function<void(std::string_view)> sink, std::string secret)
      : sink_(std::move(sink)), secret_(std::move(secret)) {}
  void feed(std::string_view chunk) {
    for (char c : chunk) {
      if (c == '\n' || c == '\r') {
        emit();
      } else {
        line_ += c;
      }
    }
  }
  void finish() { emit(); }

 private:
  void emit() {
    if (!line_.empty() && sink_) sink_(redact(line_, secret_));
    line_.clear();
  }
  std::function<void(std::string_view)> sink_;
  std::string secret_;
  std::string line_;
};

// git in one working directory, with publish's environment; every output it returns is redacted.
class Git {
 public:
  Git(GitEnvironment env, fs::path dir) : env_(std::move(env)), dir_(std::move(dir)) {}

  ProcessResult run(const std::vector<std::string>& args, LineRedactor* stream = nullptr) const {
    std::vector<std::string> argv = {"git"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessOptions options;
    options.working_dir = dir_;
    options.environment = env_.variables;
    if (stream) options.on_output = [stream](std::string_view chunk) { stream->feed(chunk); };
    ProcessResult result = run_process(argv, options);
    if (stream) stream->finish();
    result.output = redact(result.output, env_.token);
    return result;
  }

  // Runs git and throws "<what>: <git's output>" when it fails; returns the output.
  std::string must(const std::vector<std::string>& args, const std::string& what) const {
    ProcessResult r = run(args);
    check(r.exit_code == 0, what + ": " + trimmed(r.output));
    return r.output;
  }

  const GitEnvironment& environment() const { return env_; }

  static std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s.empty() ? "(git printed nothing)" : s;
  }

 private:
  GitEnvironment env_;
  fs::path dir_;
};

void check_tools() {
  check(find_program("git").has_value(),
        "publish needs git, which is not on PATH: install Debian's git package (apt-get install git)");
  check(find_program("git-lfs").has_value(),
        "publish needs Git LFS (the Hub stores weights as LFS objects), and git-lfs is not on PATH: install "
        "Debian's git-lfs package (apt-get install git-lfs)");
}

bool is_hub_url(const std::string& url) {
  const char* endpoint = std::getenv("HF_ENDPOINT");
  const std::string hub = endpoint && *endpoint ? endpoint : "https://huggingface.co";
  return url.rfind(hub + "/", 0) == 0;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  check(bool(out), p.string() + ": cannot write");
}

// The published files above the Hub's size limit for plain git that .gitattributes does not
// already send through LFS.
std::vector<std::string> large_files_outside_lfs(const Git& git, const fs::path& work,
                                                 const std::vector<std::string>& files) {
  std::vector<std::string> large;
  for (const auto& f : files)
    if (fs::file_size(work / f) > kHubMaxNonLfsBytes) large.push_back(f);
  if (large.empty()) return {};
  std::vector<std::string> args = {"check-attr", "-z", "filter", "--"};
  args.insert(args.end(), large.begin(), large.end());
  const std::string out = git.must(args, "git check-attr failed");
  // -z output: path NUL attribute NUL value NUL, per path.
  std::vector<std::string> fields;
  std::string field;
  for (char c : out) {
    if (c == '\0') {
      fields.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  std::vector<std::string> outside;
  for (size_t i = 0; i + 2 < fields.size(); i += 3)
    if (fields[i + 2] != "lfs") outside.push_back(fields[i]);
  return outside;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace

std::string resolve_remote(const std::string& repo) {
  check(!repo.empty(), "--repo: expected a git URL, a local path or a Hub id (user/name)");
  if (repo.find("://") != std::string::npos) return repo;
  std::error_code ec;
  if (fs::exists(repo, ec)) return fs::absolute(repo).lexically_normal().string();
  // scp-like syntax: a colon before any slash (git@hf.co:user/name).
  const size_t colon = repo.find(':'), slash = repo.find('/');
  if (colon != std::string::npos && (slash == std::string::npos || colon < slash)) return repo;
  static const std::regex hub_id(R"([A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*)");
  check(std::regex_match(repo, hub_id), "--repo " + repo +
                                            ": not a URL, an existing path, or a Hub id (user/name)");
  const char* endpoint = std::getenv("HF_ENDPOINT");
  std::string hub = endpoint && *endpoint ? endpoint : "https://huggingface.co";
  while (!hub.empty() && hub.back() == '/') hub.pop_back();
  return hub + "/" + repo;
}

void check_model_directory(const fs::path& model_dir) {
  check(fs::is_directory(model_dir), "--model " + model_dir.string() + ": not a directory");
  check(fs::is_regular_file(model_dir / "config.json"),
        model_dir.string() + ": not a model directory: config.json is missing (precis train writes it to "
                             "its output_dir)");
  const bool has_weights = std::any_of(std::begin(kWeightFiles), std::end(kWeightFiles), [&](const char* name) {
    return fs::is_regular_file(model_dir / name);
  });
  check(has_weights, model_dir.string() + ": no weights: expected model.safetensors (or "
                                          "model.safetensors.index.json with its shards, or pytorch_model.bin)");
}

std::vector<std::string> publishable_files(const fs::path& model_dir) {
  std::vector<std::string> files;
  auto unfinished = [](const std::string& name) {
    return name.find(".tmp-") != std::string::npos || name.find(".old-") != std::string::npos;
  };
  for (auto it = fs::recursive_directory_iterator(model_dir); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    const bool top = it.depth() == 0;
    const bool skip = name == ".git" || unfinished(name) ||
                      (top && (name[0] == '_' || (it->is_directory() && name.rfind("checkpoint-", 0) == 0)));
    if (skip) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files.push_back(it->path().lexically_relative(model_dir).generic_string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

PublishResult publish(const PublishOptions& options) {
  check_model_directory(options.model_dir);
  check(!options.create_pr,
        "--create_pr yes: not supported; the Hub opens pull requests only through its HTTP API. Push to a "
        "branch (--branch NAME) and open the pull request from the repository's page");
  check_tools();
  const std::string url = resolve_remote(options.repo);
  GitEnvironment env = git_environment(options.token_env);
  const std::string shown_url = redact(url, env.token);
  if (!env.token.empty() && url.find(env.token) != std::string::npos)
    throw Error("--repo: the URL holds the token itself; give the plain URL and the token in $" + options.token_env);

  PublishResult result;
  result.remote = shown_url;
  result.branch = options.branch;
  result.files = publishable_files(options.model_dir);
  if (!fs::exists(options.model_dir / "README.md") && options.progress)
    options.progress("precis: warning: no model card (README.md); `precis card --model DIR` writes one");

  TempFolder temp;
  const fs::path work = temp.path() / "repo";
  Git outside(env, temp.path());
  outside.must({"check-ref-format", "--branch", options.branch},
               "--branch " + options.branch + ": not a valid branch name");
  outside.must({"init", "-q", "--initial-branch=" + options.branch, work.string()}, "git init failed");
  Git git(env, work);
  // Hooks from the repository itself only (a global core.hooksPath must not receive git-lfs's
  // hooks, nor run its own); LFS contents of files already in the repository are not downloaded.
  git.must({"config", "core.hooksPath", ".git/hooks"}, "git config failed");
  git.must({"lfs", "install", "--local", "--skip-smudge"}, "git lfs install failed");
  git.must({"remote", "add", "origin", url}, "git remote add failed");

  ProcessResult refs = git.run({"ls-remote", "origin"});
  if (refs.exit_code != 0) {
    std::string hint;
    if (is_hub_url(url) && env.token.empty())
      hint = " (no token in $" + options.token_env + "; the Hub needs a write token to push)";
    throw Error("cannot reach " + shown_url + hint + ": " + Git::trimmed(refs.output));
  }
  std::string base;
  for (const auto& line : lines(refs.output)) {
    const std::string ref = line.substr(line.find('\t') + 1);
    if (ref == "refs/heads/" + options.branch) base = ref;
    if (ref == "HEAD" && base.empty()) base = "HEAD";  // a new branch starts from the default one
  }
  if (!base.empty()) {
    git.must({"fetch", "-q", "--depth=1", "origin", base}, "cannot fetch " + base + " from " + shown_url);
    git.must({"checkout", "-q", "-B", options.branch, "FETCH_HEAD"}, "git checkout failed");
  }

  for (const auto& f : result.files) {
    const fs::path to = work / f;
    fs::create_directories(to.parent_path());
    std::error_code ec;
    fs::copy_file(options.model_dir / f, to, fs::copy_options::overwrite_existing, ec);
    check(!ec, "cannot copy " + (options.model_dir / f).string() + " into the repository: " + ec.message());
  }
  const fs::path attributes = work / ".gitattributes";
  const std::string existing = fs::exists(attributes) ? read_text(attributes) : "";
  write_text(attributes, merge_gitattributes(existing));
  const std::vector<std::string> outside_lfs = large_files_outside_lfs(git, work, result.files);
  if (!outside_lfs.empty()) write_text(attributes, merge_gitattributes(existing, outside_lfs));

  git.must({"add", "-A"}, "git add failed");
  const bool unchanged = !base.empty() && git.run({"diff", "--cached", "--quiet"}).exit_code == 0;
  if (!unchanged) {
    std::vector<std::string> commit;
    // Without a configured identity, commits are signed as precis (git would refuse otherwise).
    if (git.run({"config", "user.name"}).exit_code != 0 && !std::getenv("GIT_AUTHOR_NAME"))
      commit.insert(commit.end(), {"-c", "user.name=precis"});
    if (git.run({"config", "user.email"}).exit_code != 0 && !std::getenv("GIT_AUTHOR_EMAIL") && !std::getenv("EMAIL"))
      commit.insert(commit.end(), {"-c", "user.email=precis@localhost"});
    std::string message = options.commit_message;
    if (message.empty()) {
      fs::path dir = fs::absolute(options.model_dir).lexically_normal();
      if (!dir.has_filename()) dir = dir.parent_path();
      message = "Upload " + dir.filename().string() + " with precis";
    }
    commit.insert(commit.end(), {"commit", "-q", "--no-verify", "-m", message});
    git.must(commit, "git commit failed");

    LineRedactor stream(options.progress, env.token);
    ProcessResult push = git.run({"push", "origin", "HEAD:refs/heads/" + options.branch}, &stream);
    if (push.exit_code != 0) {
      std::string hint;
      if (is_hub_url(url) && env.token.empty()) hint = " (no token in $" + options.token_env + ")";
      throw Error("push to " + shown_url + " (branch " + options.branch + ") rejected" + hint + ": " +
                  Git::trimmed(push.output));
    }
    result.pushed = true;
  }
  result.commit = Git::trimmed(git.must({"rev-parse", "HEAD"}, "git rev-parse failed"));
  result.lfs_files = lines(git.must({"lfs", "ls-files", "--name-only"}, "git lfs ls-files failed"));
  return result;
}

}  // namespace precis::hub
