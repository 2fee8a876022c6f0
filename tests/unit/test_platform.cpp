// The platform layer (src/precis/platform/): SageMaker's hyperparameters in both estimator
// encodings, its config files and the errors that name file and field, the failure file,
// mpirun's command line for a multi-host job, and mpirun's report of which rank failed.
// The whole jobs run in tests/oracle/test_sagemaker.py and test_sagemaker_hosts.py.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "precis/platform/failure_file.h"
#include "precis/platform/mpi_launcher.h"
#include "precis/platform/mpirun_report.h"
#include "precis/platform/sagemaker_files.h"
#include "precis/platform/sagemaker_hyperparameters.h"
#include "precis/platform/sagemaker_job.h"
#include "precis/train/training_arguments.h"
#include "test_support.h"

// A named namespace, not an anonymous one: a unity batch shares one translation unit with
// the other test files.
namespace platform_tests {

namespace fs = std::filesystem;
using nlohmann::json;
using precis::platform::decode_hyperparameter;
using precis::testing::TempDir;

// Sets (or unsets) an environment variable for one test, restoring it afterwards.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedVariable() {
    if (old_)
      setenv(name_.c_str(), old_->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// A fake /opt/ml with input/config/ and the given config files.
struct FakeSageMaker {
  TempDir dir{"precis-sagemaker"};
  precis::platform::SageMakerPaths paths{dir.path() / "opt" / "ml"};
  FakeSageMaker() { fs::create_directories(paths.config()); }
  void config(const std::string& name, const std::string& text) const {
    precis::testing::write_all(paths.config() / name, text);
  }
  fs::path file(const std::string& name) const { return paths.config() / name; }
};

// ----- hyperparameters.json -----

TEST(SageMakerHyperparameters, JsonDumpsEncodingDecodesToWhatTheOptionsCoerce) {
  // json.dumps of 5e-05, True, "facebook/bart-large-cnn", ["tensorboard"], {"a": 1}
  EXPECT_EQ(decode_hyperparameter("5e-05"), json("5e-05"));
  EXPECT_EQ(decode_hyperparameter("true"), json("true"));
  EXPECT_EQ(decode_hyperparameter("3"), json("3"));
  EXPECT_EQ(decode_hyperparameter("\"facebook/bart-large-cnn\""), json("facebook/bart-large-cnn"));
  EXPECT_EQ(decode_hyperparameter("\"/opt/ml/model\""), json("/opt/ml/model"));
  EXPECT_EQ(decode_hyperparameter("[\"tensorboard\"]"), json::array({"tensorboard"}));
  EXPECT_EQ(decode_hyperparameter("{\"num_beams\": 4}"), json({{"num_beams", 4}}));
  // A JSON string holding a number stays a string: the option's coercion reads it.
  EXPECT_EQ(decode_hyperparameter("\"5e-05\""), json("5e-05"));
}

TEST(SageMakerHyperparameters, StrEncodingDecodesToTheSameValues) {
  // str() of the same values
  EXPECT_EQ(decode_hyperparameter("5e-05"), json("5e-05"));
  EXPECT_EQ(decode_hyperparameter("True"), json("True"));
  EXPECT_EQ(decode_hyperparameter("facebook/bart-large-cnn"), json("facebook/bart-large-cnn"));
  EXPECT_EQ(decode_hyperparameter("['tensorboard']"), json::array({"tensorboard"}));
  EXPECT_EQ(decode_hyperparameter("['tensorboard', 'wandb']"), json::array({"tensorboard", "wandb"}));
  // A str()'d dict is not decoded (Python's repr is not JSON): it stays the text.
  EXPECT_EQ(decode_hyperparameter("{'num_beams': 4}"), json("{'num_beams': 4}"));
}

TEST(SageMakerHyperparameters, TextThatOnlyLooksEncodedStaysAsItIs) {
  EXPECT_EQ(decode_hyperparameter("\"unterminated"), json("\"unterminated"));
  EXPECT_EQ(decode_hyperparameter("[not json"), json("[not json"));
  // A list whose items hold a quote is not swapped: the swap could change an item.
  EXPECT_EQ(decode_hyperparameter("['it\"s']"), json("['it\"s']"));
  EXPECT_EQ(decode_hyperparameter("[1, 'a']"), json("[1, 'a']"));
  EXPECT_EQ(decode_hyperparameter(""), json(""));
}

TEST(SageMakerHyperparameters, FileSkipsTheServiceKeysAndReadsTheDataParallelSwitches) {
  FakeSageMaker sm;
  sm.config("hyperparameters.json",
            json({{"learning_rate", "5e-05"},
                  {"model_name_or_path", "\"facebook/bart-large-cnn\""},
                  {"sagemaker_program", "\"train.py\""},
                  {"sagemaker_mpi_enabled", "True"},
                  {"sagemaker_mpi_num_of_processes_per_host", "\"8\""},
                  {"do_train", "true"}})
                .dump());
  const auto h = precis::platform::read_hyperparameters(sm.file("hyperparameters.json"));
  std::vector<std::pair<std::string, json>> expected = {
      {"do_train", "true"}, {"learning_rate", "5e-05"}, {"model_name_or_path", "facebook/bart-large-cnn"}};
  EXPECT_EQ(h.options, expected);
  EXPECT_TRUE(h.data_parallel);
  EXPECT_EQ(h.processes_per_host, 8);
}

TEST(SageMakerHyperparameters, EitherSwitchInEitherEncodingAsksForDataParallelism) {
  for (const char* key : {"sagemaker_mpi_enabled", "sagemaker_distributed_dataparallel_enabled"})
    for (const char* on : {"true", "True", "\"true\""}) {
      FakeSageMaker sm;
      sm.config("hyperparameters.json", json({{key, on}}).dump());
      EXPECT_TRUE(precis::platform::read_hyperparameters(sm.file("hyperparameters.json")).data_parallel)
          << key << " = " << on;
    }
  FakeSageMaker sm;
  sm.config("hyperparameters.json", json({{"sagemaker_mpi_enabled", "False"}}).dump());
  EXPECT_FALSE(precis::platform::read_hyperparameters(sm.file("hyperparameters.json")).data_parallel);
  EXPECT_FALSE(precis::platform::read_hyperparameters(sm.file("absent.json")).data_parallel);
}

TEST(SageMakerHyperparameters, MalformedValuesAreRefusedNamingFileAndKey) {
  FakeSageMaker sm;
  const std::string file = sm.file("hyperparameters.json").string();
  auto error = [&](const std::string& text) {
    sm.config("hyperparameters.json", text);
    return precis::testing::error_of(
        [&] { precis::platform::read_hyperparameters(sm.file("hyperparameters.json")); });
  };
  std::string e = error(json({{"sagemaker_mpi_enabled", "yes"}}).dump());
  EXPECT_STARTS_WITH(e, file + ": sagemaker_mpi_enabled: expected true or false");
  e = error(json({{"sagemaker_mpi_num_of_processes_per_host", "eight"}}).dump());
  EXPECT_STARTS_WITH(e, file + ": sagemaker_mpi_num_of_processes_per_host: expected a positive integer");
  EXPECT_CONTAINS(e, "eight");
  e = error(json({{"sagemaker_mpi_num_of_processes_per_host", "0"}}).dump());
  EXPECT_CONTAINS(e, "sagemaker_mpi_num_of_processes_per_host: expected a positive integer");
  e = error(json({{"sagemaker_mpi_num_of_processes_per_host", "8 ranks"}}).dump());
  EXPECT_CONTAINS(e, "sagemaker_mpi_num_of_processes_per_host: expected a positive integer");
  EXPECT_STARTS_WITH(error("[\"learning_rate\"]"), file + ": expected a JSON object of hyperparameters");
  EXPECT_STARTS_WITH(error("{\"learning_rate\": "), file);
}

TEST(SageMakerHyperparameters, ABadOptionValueIsNamedByFileAndKey) {
  // The training options' own checks see where a hyperparameter came from.
  FakeSageMaker sm;
  sm.config("hyperparameters.json", json({{"learning_rate", "\"fast\""}}).dump());
  const precis::platform::SageMakerJob job = precis::platform::read_sagemaker_job(sm.paths);
  const std::string e = precis::testing::error_of(
      [&] { precis::train::parse_training_arguments({}, job.settings); });
  EXPECT_CONTAINS(e, sm.file("hyperparameters.json").string() + ": learning_rate");
  EXPECT_CONTAINS(e, "fast");
}

TEST(SageMakerHyperparameters, BothEncodingsGiveTheSameTrainingArguments) {
  // {"learning_rate": 3e-05, "do_train": True, "num_train_epochs": 7, "report_to": ["tensorboard"],
  //  "output_dir": "/opt/ml/model", "model_name_or_path": "/models/bart",
  //  "train_file": "/data/train.jsonl"}, json.dumps'd and str()'d value by value.
  const json dumped = {{"learning_rate", "3e-05"}, {"do_train", "true"}, {"num_train_epochs", "7"},
                       {"report_to", "[\"tensorboard\"]"}, {"output_dir", "\"/opt/ml/model\""},
                       {"model_name_or_path", "\"/models/bart\""}, {"train_file", "\"/data/train.jsonl\""}};
  const json str = {{"learning_rate", "3e-05"}, {"do_train", "True"}, {"num_train_epochs", "7"},
                    {"report_to", "['tensorboard']"}, {"output_dir", "/opt/ml/model"},
                    {"model_name_or_path", "/models/bart"}, {"train_file", "/data/train.jsonl"}};
  std::vector<json> args;
  for (const json& file : {dumped, str}) {
    FakeSageMaker sm;
    sm.config("hyperparameters.json", file.dump());
    const auto job = precis::platform::read_sagemaker_job(sm.paths);
    const auto a = precis::train::parse_training_arguments({}, job.settings);
    EXPECT_EQ(a.learning_rate, 3e-05);
    EXPECT_TRUE(a.do_train);
    EXPECT_EQ(a.num_train_epochs, 7);
    EXPECT_EQ(a.output_dir, (sm.paths.base / "model").string());  // /opt/ml follows the base
    json j = precis::train::to_json(a);
    j.erase("output_dir");
    j.erase("checkpoint_dir");
    j.erase("logging_dir");
    j.erase("run_name");  // output_dir's default
    args.push_back(j);
  }
  EXPECT_EQ(args[0], args[1]);
}

// ----- resourceconfig.json, checkpointconfig.json, inputdataconfig.json -----

TEST(SageMakerFiles, PathsOnlyWhereTheConfigFolderIs) {
  TempDir dir;
  ScopedVariable base("SAGEMAKER_BASE_DIR", dir.path().c_str());
  EXPECT_FALSE(precis::platform::sagemaker_paths().has_value());
  fs::create_directories(dir.path() / "input" / "config");
  const auto paths = precis::platform::sagemaker_paths();
  ASSERT_TRUE(paths.has_value());
  EXPECT_EQ(paths->base, dir.path());
  EXPECT_EQ(paths->failure(), dir.path() / "output" / "failure");
  EXPECT_EQ(paths->output_data(), dir.path() / "output" / "data");
  EXPECT_EQ(paths->channel("train"), dir.path() / "input" / "data" / "train");
}

TEST(SageMakerFiles, ResourceConfigSortsTheHostsAndNamesTheInterface) {
  FakeSageMaker sm;
  sm.config("resourceconfig.json",
            R"({"current_host": "algo-2", "hosts": ["algo-2", "algo-3", "algo-1"],
                "network_interface_name": "ethwe", "current_group_name": "homogeneousCluster",
                "current_instance_type": "ml.p4d.24xlarge"})");
  const auto rc = precis::platform::read_resource_config(sm.paths);
  EXPECT_EQ(rc.current_instance_type, "ml.p4d.24xlarge");
  EXPECT_EQ(rc.current_host, "algo-2");
  EXPECT_EQ(rc.hosts, (std::vector<std::string>{"algo-1", "algo-2", "algo-3"}));
  EXPECT_EQ(rc.network_interface_name, "ethwe");
  EXPECT_FALSE(rc.is_first_host());
}

TEST(SageMakerFiles, ResourceConfigDefaults) {
  FakeSageMaker sm;
  auto rc = precis::platform::read_resource_config(sm.paths);  // absent: a local run of the image
  EXPECT_EQ(rc.current_host, "algo-1");
  EXPECT_EQ(rc.hosts, std::vector<std::string>{"algo-1"});
  EXPECT_EQ(rc.network_interface_name, "eth0");
  EXPECT_EQ(rc.current_instance_type, "");
  EXPECT_TRUE(rc.is_first_host());
  sm.config("resourceconfig.json", R"({"current_host": "algo-1", "hosts": ["algo-1"]})");
  rc = precis::platform::read_resource_config(sm.paths);
  EXPECT_EQ(rc.network_interface_name, "eth0");
}

TEST(SageMakerFiles, MalformedResourceConfigNamesFileAndField) {
  FakeSageMaker sm;
  const std::string file = sm.file("resourceconfig.json").string();
  auto error = [&](const std::string& text) {
    sm.config("resourceconfig.json", text);
    return precis::testing::error_of([&] { precis::platform::read_resource_config(sm.paths); });
  };
  EXPECT_EQ(error(R"({"hosts": ["algo-1"]})"), file + ": expected \"current_host\" to be a non-empty string");
  EXPECT_EQ(error(R"({"current_host": 1, "hosts": ["algo-1"]})"),
            file + ": expected \"current_host\" to be a non-empty string");
  EXPECT_STARTS_WITH(error(R"({"current_host": "algo-1", "hosts": "algo-1"})"),
                     file + ": expected \"hosts\" to be a non-empty list");
  EXPECT_STARTS_WITH(error(R"({"current_host": "algo-1", "hosts": []})"),
                     file + ": expected \"hosts\" to be a non-empty list");
  EXPECT_EQ(error(R"({"current_host": "algo-1", "hosts": ["algo-1", 2]})"),
            file + ": expected \"hosts\" to hold host names, found 2");
  EXPECT_EQ(error(R"({"current_host": "algo-3", "hosts": ["algo-1", "algo-2"]})"),
            file + ": current_host \"algo-3\" is not one of \"hosts\"");
  EXPECT_EQ(error(R"({"current_host": "algo-1", "hosts": ["algo-1"], "network_interface_name": ""})"),
            file + ": expected \"network_interface_name\" to be a non-empty string");
  EXPECT_EQ(error(R"({"current_host": "algo-1", "hosts": ["algo-1"], "current_instance_type": 4})"),
            file + ": expected \"current_instance_type\" to be a non-empty string");
  EXPECT_EQ(error(R"(["algo-1"])"), file + ": expected a JSON object");
  EXPECT_STARTS_WITH(error(R"({"current_host": )"), file);
}

TEST(SageMakerFiles, CheckpointConfigLocalPath) {
  FakeSageMaker sm;
  EXPECT_EQ(precis::platform::checkpoint_local_path(sm.paths), sm.paths.base / "checkpoints");
  sm.config("checkpointconfig.json", R"({"S3Uri": "s3://bucket/ckpt"})");
  EXPECT_EQ(precis::platform::checkpoint_local_path(sm.paths), sm.paths.base / "checkpoints");
  sm.config("checkpointconfig.json", R"({"LocalPath": "/opt/ml/spot", "S3Uri": "s3://bucket/ckpt"})");
  EXPECT_EQ(precis::platform::checkpoint_local_path(sm.paths), fs::path("/opt/ml/spot"));
  sm.config("checkpointconfig.json", R"({"LocalPath": 7})");
  EXPECT_EQ(precis::testing::error_of([&] { precis::platform::checkpoint_local_path(sm.paths); }),
            sm.file("checkpointconfig.json").string() + ": expected \"LocalPath\" to be a non-empty string");
  sm.config("checkpointconfig.json", "[]");
  EXPECT_EQ(precis::testing::error_of([&] { precis::platform::checkpoint_local_path(sm.paths); }),
            sm.file("checkpointconfig.json").string() + ": expected a JSON object");
}

TEST(SageMakerFiles, StreamedChannelsAreRefusedByName) {
  FakeSageMaker sm;
  EXPECT_NO_THROW(precis::platform::refuse_streamed_channels(sm.paths));  // absent
  sm.config("inputdataconfig.json",
            R"({"train": {"TrainingInputMode": "File", "S3DistributionType": "FullyReplicated"},
                "test": {"S3DistributionType": "FullyReplicated"}})");
  EXPECT_NO_THROW(precis::platform::refuse_streamed_channels(sm.paths));
  for (const char* mode : {"Pipe", "FastFile"}) {
    sm.config("inputdataconfig.json", json({{"train", {{"TrainingInputMode", "File"}}},
                                            {"validation", {{"TrainingInputMode", mode}}}})
                                          .dump());
    const std::string e =
        precis::testing::error_of([&] { precis::platform::refuse_streamed_channels(sm.paths); });
    EXPECT_STARTS_WITH(e, sm.file("inputdataconfig.json").string() + ": channel \"validation\" is in " +
                              mode + " mode");
    EXPECT_CONTAINS(e, "input_mode=\"File\"");
  }
}

TEST(SageMakerFiles, AChannelIsItsOneDataFile) {
  TempDir dir;
  const fs::path channel = dir / "train";
  fs::create_directories(channel);
  EXPECT_CONTAINS(precis::testing::error_of([&] { precis::platform::channel_data_file(channel); }),
                  channel.string() + ": expected one data file in the channel, found none");
  precis::testing::write_all(channel / ".manifest", "{}");
  precis::testing::write_all(channel / "train.jsonl", "{}\n");
  EXPECT_EQ(precis::platform::channel_data_file(channel), channel / "train.jsonl");
  EXPECT_EQ(precis::platform::channel_data_file(channel / "train.jsonl"), channel / "train.jsonl");
  precis::testing::write_all(channel / "more.jsonl", "{}\n");
  EXPECT_CONTAINS(precis::testing::error_of([&] { precis::platform::channel_data_file(channel); }),
                  "found 2 (more.jsonl, train.jsonl)");
}

TEST(SageMakerJob, FoldersFillTheUnsetOptionsAndHyperparametersWin) {
  FakeSageMaker sm;
  sm.config("hyperparameters.json", json({{"output_dir", "\"/opt/ml/model/bart\""}, {"do_train", "true"}}).dump());
  sm.config("checkpointconfig.json", json({{"LocalPath", (sm.paths.base / "spot").string()}}).dump());
  fs::create_directories(sm.paths.channel("train"));
  precis::testing::write_all(sm.paths.channel("train") / "samsum.jsonl", "{}\n");
  fs::create_directories(sm.paths.channel("model"));
  const auto job = precis::platform::read_sagemaker_job(sm.paths);
  const auto a = precis::train::parse_training_arguments({"--seed", "3"}, job.settings);
  EXPECT_EQ(a.output_dir, (sm.paths.base / "model" / "bart").string());
  EXPECT_EQ(a.checkpoint_dir, (sm.paths.base / "spot").string());
  EXPECT_EQ(a.logging_dir, (sm.paths.base / "output" / "data" / "tensorboard").string());
  EXPECT_EQ(a.train_file, (sm.paths.channel("train") / "samsum.jsonl").string());
  EXPECT_FALSE(a.validation_file.has_value());
  EXPECT_EQ(a.model_name_or_path, sm.paths.channel("model").string());
  EXPECT_TRUE(a.save_on_interrupt);
  EXPECT_EQ(a.seed, 3);
}

TEST(SageMakerJob, RanksPerHost) {
  precis::platform::SageMakerHyperparameters h;
  EXPECT_EQ(precis::platform::ranks_per_host(0, h, 8), 1);  // no data parallelism asked for
  h.data_parallel = true;
  EXPECT_EQ(precis::platform::ranks_per_host(0, h, 8), 8);  // one per GPU
  EXPECT_EQ(precis::platform::ranks_per_host(0, h, 0), 1);  // a host without GPUs
  EXPECT_EQ(precis::platform::ranks_per_host(2, h, 8), 2);  // --ranks_per_host
  h.processes_per_host = 4;
  EXPECT_EQ(precis::platform::ranks_per_host(0, h, 8), 4);
  EXPECT_EQ(precis::platform::ranks_per_host(3, h, 8), 3);
}

// ----- output/failure -----

TEST(FailureFile, ReasonNamesHostAndRank) {
  EXPECT_EQ(precis::platform::failure_reason("algo-2", 1, "killed by signal 9 (Killed)"),
            "algo-2, rank 1: killed by signal 9 (Killed)");
}

TEST(FailureFile, CreatedOnceTheFirstWriterWins) {
  TempDir dir;
  const fs::path file = dir / "output" / "failure";  // the folder need not exist
  EXPECT_TRUE(precis::platform::write_failure_once(file, "algo-2, rank 1: killed by signal 9"));
  EXPECT_FALSE(precis::platform::write_failure_once(file, "algo-1, rank 0: MPI_Abort"));
  EXPECT_EQ(precis::testing::read_all(file), "algo-2, rank 1: killed by signal 9");
}

TEST(FailureFile, OfWritersRacingExactlyOneWritesItWhole) {
  TempDir dir;
  const fs::path file = dir / "failure";
  std::atomic<int> created{0};
  std::vector<std::thread> writers;
  const std::string long_cause(900, 'x');
  for (int rank = 0; rank < 8; ++rank)
    writers.emplace_back([&, rank] {
      if (precis::platform::write_failure_once(file, precis::platform::failure_reason("algo-1", rank, long_cause)))
        ++created;
    });
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(created.load(), 1);
  const std::string text = precis::testing::read_all(file);
  EXPECT_EQ(text.size(), std::string("algo-1, rank 0: ").size() + long_cause.size());
  EXPECT_STARTS_WITH(text, "algo-1, rank ");
}

TEST(FailureFile, AtMost1024BytesCutOnACharacterBoundary) {
  TempDir dir;
  const std::string exact(1024, 'a');
  EXPECT_TRUE(precis::platform::write_failure_once(dir / "exact", exact));
  EXPECT_EQ(precis::testing::read_all(dir / "exact"), exact);
  EXPECT_TRUE(precis::platform::write_failure_once(dir / "long", std::string(5000, 'a')));
  EXPECT_EQ(precis::testing::read_all(dir / "long"), exact);
  // "é" is 2 bytes: at bytes 1023-1024 it would be cut in half, so it goes whole.
  const std::string accented = std::string(1023, 'a') + "\xc3\xa9" + "tail";
  EXPECT_TRUE(precis::platform::write_failure_once(dir / "utf8", accented));
  EXPECT_EQ(precis::testing::read_all(dir / "utf8"), std::string(1023, 'a'));
  // failure_reason cuts the same way.
  const std::string reason = precis::platform::failure_reason("algo-1", 0, std::string(2000, 'c'));
  EXPECT_EQ(reason.size(), precis::platform::kFailureReasonBytes);
  EXPECT_STARTS_WITH(reason, "algo-1, rank 0: ccc");
}

// ----- the mpirun command -----

precis::platform::MpiLaunch two_hosts(int ranks_per_host, const std::string& interface) {
  precis::platform::MpiLaunch launch;
  launch.resources = {"algo-1", {"algo-1", "algo-2"}, interface, ""};
  launch.ranks_per_host = ranks_per_host;
  launch.train_arguments = {"--max_steps", "5"};
  return launch;
}

// The value after `flag` (and after `name` for "-mca NAME VALUE"), or "" when absent.
std::string argument(const std::vector<std::string>& cmd, const std::string& flag,
                     const std::string& name = "") {
  for (size_t i = 0; i + 1 < cmd.size(); ++i) {
    if (cmd[i] != flag) continue;
    if (name.empty()) return cmd[i + 1];
    if (cmd[i + 1] == name && i + 2 < cmd.size()) return cmd[i + 2];
  }
  return "";
}

bool exports(const std::vector<std::string>& cmd, const std::string& variable) {
  for (size_t i = 0; i + 1 < cmd.size(); ++i)
    if (cmd[i] == "-x" && cmd[i + 1] == variable) return true;
  return false;
}

TEST(MpirunCommand, OneRankPerGpuOnEveryHostInOrder) {
  const auto cmd = precis::platform::mpirun_command(two_hosts(8, "eth0"), "/usr/local/bin/precis");
  EXPECT_EQ(cmd.front(), "mpirun");
  EXPECT_EQ(argument(cmd, "--host"), "algo-1:8,algo-2:8");
  EXPECT_EQ(argument(cmd, "-np"), "16");
  EXPECT_EQ(argument(cmd, "--map-by"), "slot");  // ranks 0-7 on algo-1, 8-15 on algo-2
  EXPECT_NE(std::find(cmd.begin(), cmd.end(), "--tag-output"), cmd.end());  // MpirunReport reads it
  EXPECT_EQ(argument(cmd, "-mca", "orte_abort_on_non_zero_status"), "1");
  const std::vector<std::string> tail(cmd.end() - 4, cmd.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"/usr/local/bin/precis", "train", "--max_steps", "5"}));
}

TEST(MpirunCommand, RanksPerHostAndTheHostsAsGiven) {
  precis::platform::MpiLaunch launch = two_hosts(2, "eth0");
  launch.resources.hosts = {"algo-1", "algo-2", "algo-3"};
  auto cmd = precis::platform::mpirun_command(launch, "precis");
  EXPECT_EQ(argument(cmd, "--host"), "algo-1:2,algo-2:2,algo-3:2");
  EXPECT_EQ(argument(cmd, "-np"), "6");
  // One host: its ranks are started by mpirun itself, whatever the host is called.
  launch.resources.hosts = {"algo-1"};
  cmd = precis::platform::mpirun_command(launch, "precis");
  EXPECT_EQ(argument(cmd, "--host"), "localhost:2");
  EXPECT_EQ(argument(cmd, "-np"), "2");
}

TEST(MpirunCommand, MpiAndNcclTrafficBoundToTheInterface) {
  const auto cmd = precis::platform::mpirun_command(two_hosts(1, "ethwe"), "precis");
  EXPECT_EQ(argument(cmd, "-mca", "btl_tcp_if_include"), "ethwe");
  EXPECT_EQ(argument(cmd, "-mca", "oob_tcp_if_include"), "ethwe");
  EXPECT_TRUE(exports(cmd, "NCCL_SOCKET_IFNAME=ethwe"));
  EXPECT_FALSE(exports(cmd, "NCCL_SOCKET_IFNAME=eth0"));
}

// A host's RDMA devices as the kernel lists them: each a folder whose device/driver links
// to its driver.
void add_rdma_device(const fs::path& devices, const std::string& name, const std::string& driver) {
  fs::create_directories(devices / name / "device");
  fs::create_symlink("../../../bus/pci/drivers/" + driver, devices / name / "device" / "driver");
}

TEST(Efa, PresentWhereAnRdmaDeviceIsEfaAndDeviceRdmaOnTheTypesThatReadGpuMemory) {
  TempDir dir;
  const fs::path devices = dir.path() / "infiniband";
  using precis::platform::detect_efa;
  EXPECT_FALSE(detect_efa("ml.p4d.24xlarge", devices).present);  // no such folder: no EFA
  add_rdma_device(devices, "mlx5_0", "mlx5_core");
  EXPECT_FALSE(detect_efa("ml.p4d.24xlarge", devices).present);  // InfiniBand, not EFA
  add_rdma_device(devices, "rdmap16s27", "efa");
  for (const char* type : {"ml.p4d.24xlarge", "ml.p4de.24xlarge", "ml.p5.48xlarge", "ml.p5e.48xlarge",
                           "ml.p5en.48xlarge", "p5.48xlarge", "ml.p6-b200.48xlarge"}) {
    const auto efa = detect_efa(type, devices);
    EXPECT_TRUE(efa.present && efa.device_rdma) << type;
  }
  // EFA without GPUDirect RDMA (g5, the CPU instances) or an unknown type: the provider only.
  for (const char* type : {"ml.g5.48xlarge", "ml.c5n.18xlarge", "", "ml.p3dn.24xlarge", "ml.p4.x"}) {
    const auto efa = detect_efa(type, devices);
    EXPECT_TRUE(efa.present && !efa.device_rdma) << type;
  }
}

TEST(MpirunCommand, EfaSettingsWhereTheHostsHaveEfaUnlessSetHere) {
  auto launch = two_hosts(8, "eth0");
  EXPECT_FALSE(exports(precis::platform::mpirun_command(launch, "precis"), "FI_PROVIDER=efa"));
  launch.efa = {true, false};
  auto cmd = precis::platform::mpirun_command(launch, "precis");
  EXPECT_TRUE(exports(cmd, "FI_PROVIDER=efa"));
  EXPECT_FALSE(exports(cmd, "FI_EFA_USE_DEVICE_RDMA=1"));
  launch.efa = {true, true};
  EXPECT_TRUE(exports(precis::platform::mpirun_command(launch, "precis"), "FI_EFA_USE_DEVICE_RDMA=1"));
  // The user's own choice goes to the ranks as it is.
  ScopedVariable rdma("FI_EFA_USE_DEVICE_RDMA", "0");
  cmd = precis::platform::mpirun_command(launch, "precis");
  EXPECT_FALSE(exports(cmd, "FI_EFA_USE_DEVICE_RDMA=1"));
  EXPECT_TRUE(exports(cmd, "FI_EFA_USE_DEVICE_RDMA"));
  EXPECT_TRUE(exports(cmd, "FI_PROVIDER=efa"));
}

TEST(MpirunCommand, PassesNcclSettingsButNotAnInterfaceOtherThanSageMakers) {
  ScopedVariable debug("NCCL_DEBUG", "INFO");
  ScopedVariable iface("NCCL_SOCKET_IFNAME", "lo");
  const auto cmd = precis::platform::mpirun_command(two_hosts(8, "eth0"), "precis");
  EXPECT_TRUE(exports(cmd, "NCCL_DEBUG"));
  EXPECT_TRUE(exports(cmd, "NCCL_SOCKET_IFNAME=eth0"));
  EXPECT_FALSE(exports(cmd, "NCCL_SOCKET_IFNAME"));  // as set here: SageMaker's interface wins
}

TEST(MpirunCommand, PassesThreadCountsAndTestHooksButNotTheHostsBase) {
  ScopedVariable hook("PRECIS_TEST_STOP_AT", "micro:2:0");
  ScopedVariable threads("OMP_NUM_THREADS", "1");
  ScopedVariable base("SAGEMAKER_BASE_DIR", "/tmp/algo-1/opt/ml");
  const auto cmd = precis::platform::mpirun_command(two_hosts(1, "eth0"), "precis");
  EXPECT_TRUE(exports(cmd, "PRECIS_TEST_STOP_AT"));
  EXPECT_TRUE(exports(cmd, "OMP_NUM_THREADS"));
  EXPECT_FALSE(exports(cmd, "SAGEMAKER_BASE_DIR"));  // each host's ranks read their own /opt/ml
}

// ----- mpirun's report (OpenMPI 4.1's wording) -----

// What mpirun's report makes of `lines`, in one line a test can state whole: "rank R on HOST:
// CAUSE" (HOST "?" when no line named it), or "none" when no rank failed.
std::string failure_in(const std::vector<std::string>& lines) {
  precis::platform::MpirunReport report;
  for (const std::string& line : lines) report.read_line(line);
  const auto f = report.failure();
  if (!f) return "none";
  return "rank " + std::to_string(f->rank) + " on " + (f->host.empty() ? "?" : f->host) + ": " +
         f->cause;
}

TEST(MpirunReport, NothingWhenNoRankFailed) {
  EXPECT_EQ(failure_in({"[1,0]<stderr>:precis: step 1/5 loss 4.12",
                        "[1,1]<stderr>:precis: 2 ranks share this host"}),
            "none");
}

TEST(MpirunReport, ARankKilledByASignalIsNamedWithItsHost) {
  EXPECT_EQ(
      failure_in(
          {"--------------------------------------------------------------------------",
           "mpirun noticed that process rank 1 with PID 4242 on node algo-2 exited on signal 9 (Killed).",
           "--------------------------------------------------------------------------"}),
      "rank 1 on algo-2: killed by signal 9 (Killed)");
  EXPECT_EQ(failure_in({"mpirun noticed that process rank 12 with PID 0 on node algo-3 exited on signal 6."}),
            "rank 12 on algo-3: killed by signal 6");
}

TEST(MpirunReport, TheSignalOutranksTheErrorsItCaused) {
  // The survivors' errors (a peer gone from a collective) come first in the output.
  EXPECT_EQ(
      failure_in(
          {"[1,0]<stderr>:precis: rank 0: error: all_reduce did not complete within --ddp_timeout 20 s",
           "[1,0]<stderr>:MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD",
           "mpirun noticed that process rank 1 with PID 77 on node algo-2 exited on signal 9 (Killed)."}),
      "rank 1 on algo-2: killed by signal 9 (Killed)");
}

TEST(MpirunReport, TheFirstRankErrorOutranksAnAbort) {
  // No host: the launcher maps the rank to its host.
  EXPECT_EQ(failure_in({"[1,1]<stderr>:MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD",
                        "[1,1]<stderr>:precis: rank 1: error: /opt/ml/input/data/train/x.jsonl: cannot open",
                        "[1,0]<stderr>:precis: rank 0: error: a later consequence"}),
            "rank 1 on ?: /opt/ml/input/data/train/x.jsonl: cannot open");
}

TEST(MpirunReport, AnAbortAloneNamesItsRank) {
  EXPECT_EQ(failure_in({"MPI_ABORT was invoked on rank 3 in communicator MPI_COMM_WORLD",
                        "with errorcode 1."}),
            "rank 3 on ?: MPI_Abort");
}

}  // namespace platform_tests
