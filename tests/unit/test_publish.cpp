// The parts of `precis publish` that need no remote: which files go, where --repo points, the
// .gitattributes merge, redaction, and the credential helper answering git as git asks it (the
// oracle test pushes to a real bare repository and an HTTP server).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "precis/core/subprocess.h"
#include "precis/hub/git_credentials.h"
#include "precis/hub/lfs_attributes.h"
#include "precis/hub/publish.h"
#include "test_support.h"

namespace {

using precis::testing::error_of;
using precis::testing::TempDir;
using precis::testing::write_all;
namespace fs = std::filesystem;
namespace hub = precis::hub;

TEST(Publish, FilesLeaveOutCheckpointsPrivateNamesAndUnfinishedWrites) {
  TempDir dir;
  fs::create_directories(dir / "runs/May31_12-00-00_host");
  fs::create_directories(dir / "checkpoint-10");
  fs::create_directories(dir / ".git");
  for (const char* f : {"config.json", "model.safetensors", "runs/May31_12-00-00_host/events.out.tfevents.1.h",
                        "checkpoint-10/model.safetensors", "_private.txt", ".git/config",
                        ".model.safetensors.tmp-abc123", "README.md"})
    write_all(dir / f, "x");
  EXPECT_EQ(hub::publishable_files(dir.path()),
            (std::vector<std::string>{"README.md", "config.json", "model.safetensors",
                                      "runs/May31_12-00-00_host/events.out.tfevents.1.h"}));
}

TEST(Publish, ModelDirectoryMustHoldConfigAndWeights) {
  TempDir dir;
  EXPECT_CONTAINS(error_of([&] { hub::check_model_directory(dir / "absent"); }), "not a directory");
  EXPECT_CONTAINS(error_of([&] { hub::check_model_directory(dir.path()); }), "config.json is missing");
  write_all(dir / "config.json", "{}");
  EXPECT_CONTAINS(error_of([&] { hub::check_model_directory(dir.path()); }), "no weights");
  write_all(dir / "model.safetensors", "x");
  hub::check_model_directory(dir.path());
}

TEST(Publish, RepoResolution) {
  TempDir dir;
  unsetenv("HF_ENDPOINT");
  EXPECT_EQ(hub::resolve_remote("https://huggingface.co/me/bart"), "https://huggingface.co/me/bart");
  EXPECT_EQ(hub::resolve_remote("me/bart-samsum"), "https://huggingface.co/me/bart-samsum");
  EXPECT_EQ(hub::resolve_remote("git@hf.co:me/bart"), "git@hf.co:me/bart");
  EXPECT_EQ(hub::resolve_remote("file:///srv/x.git"), "file:///srv/x.git");
  EXPECT_EQ(hub::resolve_remote(dir.path().string()), dir.path().string());
  EXPECT_CONTAINS(error_of([] { hub::resolve_remote("not a repo"); }), "Hub id");
  setenv("HF_ENDPOINT", "http://hub.local:8080/", 1);
  EXPECT_EQ(hub::resolve_remote("me/bart"), "http://hub.local:8080/me/bart");
  unsetenv("HF_ENDPOINT");
}

TEST(Publish, GitattributesKeepExistingLinesAndAddTheHubs) {
  const std::string existing = "*.json text\n*.bin filter=lfs diff=lfs merge=lfs -text";
  const std::string merged = hub::merge_gitattributes(existing, {"logs/train_log.jsonl"});
  EXPECT_EQ(merged.rfind("*.json text\n*.bin filter=lfs diff=lfs merge=lfs -text\n", 0), 0u);
  // The Hub's lines, each once (the existing *.bin line is not repeated).
  EXPECT_EQ(merged.find("*.bin filter"), merged.rfind("*.bin filter"));
  EXPECT_CONTAINS(merged, "*.safetensors filter=lfs diff=lfs merge=lfs -text\n");
  EXPECT_CONTAINS(merged, "*tfevents* filter=lfs diff=lfs merge=lfs -text\n");
  EXPECT_CONTAINS(merged, "/logs/train_log.jsonl filter=lfs diff=lfs merge=lfs -text\n");
  EXPECT_EQ(hub::merge_gitattributes(merged), merged);
  EXPECT_CONTAINS(error_of([] { hub::merge_gitattributes("", {"my log.txt"}); }), "my log.txt");
}

TEST(Publish, RedactsTokenAndUrlPasswords) {
  EXPECT_EQ(hub::redact("auth hf_abc failed for hf_abc", "hf_abc"), "auth *** failed for ***");
  EXPECT_EQ(hub::redact("fatal: https://me:s3cret@huggingface.co/x", ""), "fatal: https://me:***@huggingface.co/x");
  EXPECT_EQ(hub::redact("nothing here", ""), "nothing here");
}

// git credential fill runs the configured helpers exactly as git push and git-lfs do.
std::string credential_fill(const hub::GitEnvironment& env, const std::string& request) {
  precis::ProcessOptions options;
  options.environment = env.variables;
  options.input = request;
  precis::ProcessResult r = precis::run_process({"git", "credential", "fill"}, options);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.output;
}

TEST(Publish, CredentialHelperAnswersWithTheTokenFromTheEnvironment) {
  if (!precis::find_program("git")) SKIP_OR_FAIL_IN_CI("git not installed");
  setenv("PRECIS_TEST_TOKEN", "hf_unit_test_token", 1);
  const hub::GitEnvironment env = hub::git_environment("PRECIS_TEST_TOKEN");
  EXPECT_EQ(env.token, "hf_unit_test_token");
  for (const auto& [name, value] : env.variables) EXPECT_EQ(value.find("hf_unit_test_token"), std::string::npos);
  const std::string answer = credential_fill(env, "protocol=https\nhost=huggingface.co\n\n");
  EXPECT_CONTAINS(answer, "username=hf_user\n");
  EXPECT_CONTAINS(answer, "password=hf_unit_test_token\n");
  const std::string named = credential_fill(env, "protocol=https\nhost=example.org\nusername=me\n\n");
  EXPECT_CONTAINS(named, "username=me\n");
  EXPECT_CONTAINS(named, "password=hf_unit_test_token\n");
  unsetenv("PRECIS_TEST_TOKEN");
  EXPECT_TRUE(hub::git_environment("PRECIS_TEST_TOKEN").token.empty());
  EXPECT_CONTAINS(error_of([] { hub::git_environment("HF TOKEN; rm -rf"); }), "--token_env");
}

TEST(Subprocess, ArgumentsArriveVerbatimAndStatusIsReported) {
  precis::ProcessResult r = precis::run_process({"printf", "%s|", "a b", "$HOME", "'q'"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, "a b|$HOME|'q'|");
  EXPECT_EQ(precis::run_process({"false"}).exit_code, 1);
  EXPECT_CONTAINS(error_of([] { precis::run_process({"precis-no-such-program"}); }), "cannot run");
}

}  // namespace
