// precis publish: a model directory pushed to a Hugging Face Hub repository (or any git remote)
// with git and git-lfs, the way the Hub expects: the Hub's .gitattributes, weights and
// TensorBoard event files as LFS objects, one commit on the chosen branch.
//
// The work happens in a temporary clone (removed afterwards): the branch is fetched (only its
// tip, and without downloading LFS contents), the model directory's files are copied over it
// (files already in the repository and not in the model directory stay, as with
// huggingface_hub's upload_folder), committed and pushed. The access token comes from an
// environment variable only (see git_credentials.h) and is redacted from everything shown.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace precis::hub {

struct PublishOptions {
  std::filesystem::path model_dir;
  std::string repo;            // a git URL, an scp-like "host:path", a local path, or a Hub id "user/name"
  std::string branch = "main";
  std::string commit_message;  // empty: "Upload <model directory name> with precis"
  std::string token_env = "HF_TOKEN";
  bool create_pr = false;  // not supported (the Hub opens pull requests through its HTTP API only)
  // Receives git's push output line by line, token redacted (LFS upload progress); may be empty.
  std::function<void(std::string_view)> progress;
};

struct PublishResult {
  std::string remote;  // the URL pushed to, redacted
  std::string branch;
  std::string commit;             // the branch's head after publishing
  bool pushed = false;            // false: the branch already held exactly these files
  std::vector<std::string> files;      // the model directory's files published (relative, sorted)
  std::vector<std::string> lfs_files;  // the repository's files stored as LFS objects
};

PublishResult publish(const PublishOptions& options);

// The git remote --repo names: a URL ("scheme://...") or scp-like "[user@]host:path" as given; an
// existing local path, absolute; a Hub id "user/name" as https://huggingface.co/user/name (the
// host from $HF_ENDPOINT when set, as huggingface_hub does). Anything else is an error.
std::string resolve_remote(const std::string& repo);

// The files of a model directory that are published, as sorted relative paths: everything
// except .git, `checkpoint-*` folders and top-level names starting with '_' (what
// Trainer.push_to_hub leaves out) and unfinished atomic writes (*.tmp-*, *.old-*).
std::vector<std::string> publishable_files(const std::filesystem::path& model_dir);

// Checks that `model_dir` holds a model: config.json and weights (model.safetensors, a sharded
// index, or pytorch_model.bin). Throws precis::Error naming what is missing.
void check_model_directory(const std::filesystem::path& model_dir);

}  // namespace precis::hub
