// precis publish: push a model directory to a Hugging Face Hub repository (or any git remote)
// with git and git-lfs; prints "<remote> <branch> <commit>" on success.
#include <cstdio>
#include <memory>
#include <string>

#include "command.h"
#include "hf_semantics_option.h"
#include "precis/hub/publish.h"

namespace {

struct PublishCliOptions {
  std::string model;
  bool create_pr = false;
  precis::hub::PublishOptions publish;
};

PRECIS_COMMAND(
    "publish", "Push a model directory to a Hugging Face Hub repository (or any git remote) with git + git-lfs",
    [](CLI::App& app) {
      auto o = std::make_shared<PublishCliOptions>();
      app.add_option("--model", o->model, "The model directory (precis train's output_dir)")->required();
      app.add_option("--repo", o->publish.repo,
                     "Where to: https://huggingface.co/USER/NAME, a Hub id USER/NAME, or any git remote (URL, "
                     "ssh, local path)")
          ->required();
      app.add_option("--branch", o->publish.branch, "Branch to commit to (created from the default branch if new)")
          ->default_val("main");
      app.add_option("--commit_message", o->publish.commit_message,
                     "Commit message (default: \"Upload <directory name> with precis\")");
      app.add_option("--token_env", o->publish.token_env,
                     "Environment variable holding the access token (a Hub write token); the token is never "
                     "written anywhere")
          ->default_val("HF_TOKEN");
      app.add_option("--create_pr", o->create_pr, "Open a pull request instead of pushing (not supported)")
          ->default_val(false);
      precis::cli::add_hf_semantics_option(app);
      app.callback([o] {
        precis::hub::PublishOptions options = o->publish;
        options.model_dir = o->model;
        options.create_pr = o->create_pr;
        options.progress = [](std::string_view line) {
          std::fprintf(stderr, "%.*s\n", int(line.size()), line.data());
        };
        const precis::hub::PublishResult r = precis::hub::publish(options);
        std::fprintf(stderr, "precis: %s %zu files (%zu in the repository as LFS objects) to %s, branch %s\n",
                     r.pushed ? "published" : "nothing to push: the branch already holds these", r.files.size(),
                     r.lfs_files.size(), r.remote.c_str(), r.branch.c_str());
        std::printf("%s %s %s\n", r.remote.c_str(), r.branch.c_str(), r.commit.c_str());
      });
    });

}  // namespace
