#include "precis/train/tensorboard_writer.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>

#include "precis/core/error.h"
#include "precis/train/tensorboard_event.h"

namespace precis::train {
namespace fs = std::filesystem;

namespace {

std::string hostname(const std::string& given) {
  if (!given.empty()) return given;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

double unix_seconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

// Distinguishes two writers opened by one process in the same second (TensorBoard's writer
// keeps the same kind of counter).
std::atomic<int> writers_opened{0};

std::string io_error(const fs::path& path, const char* what) {
  return path.string() + ": cannot " + what + " TensorBoard events (" + std::strerror(errno) + ")";
}

}  // namespace

TensorBoardWriter::TensorBoardWriter(fs::path log_dir, const std::string& host)
    : file_(nullptr, &std::fclose) {
  std::error_code ec;
  fs::create_directories(log_dir, ec);
  check(!ec, log_dir.string() + ": cannot create the TensorBoard log directory (" + ec.message() + ")");
  const auto now = std::chrono::system_clock::now();
  char name[512];
  std::snprintf(name, sizeof name, "events.out.tfevents.%010lld.%s.%d.%d",
                (long long)std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count(),
                hostname(host).c_str(), int(getpid()), writers_opened.fetch_add(1));
  path_ = log_dir / name;
  file_.reset(std::fopen(path_.c_str(), "wb"));
  check(file_ != nullptr, io_error(path_, "open for"));
  write_event(tensorboard::file_version_event(unix_seconds(now)));
  flush();
}

TensorBoardWriter::~TensorBoardWriter() = default;
TensorBoardWriter::TensorBoardWriter(TensorBoardWriter&&) noexcept = default;
TensorBoardWriter& TensorBoardWriter::operator=(TensorBoardWriter&&) noexcept = default;

void TensorBoardWriter::write_event(const std::string& event) {
  check(file_ != nullptr, "TensorBoardWriter: used after being moved from");
  const std::string record = tensorboard::tfrecord(event);
  check(std::fwrite(record.data(), 1, record.size(), file_.get()) == record.size(), io_error(path_, "write"));
}

void TensorBoardWriter::add_scalar(const std::string& tag, double value, int64_t step) {
  write_event(tensorboard::scalar_event(unix_seconds(std::chrono::system_clock::now()), step, tag, value));
}

void TensorBoardWriter::add_text(const std::string& tag, const std::string& text, int64_t step) {
  write_event(tensorboard::text_event(unix_seconds(std::chrono::system_clock::now()), step,
                                      tag + "/text_summary", text));
}

void TensorBoardWriter::log(const nlohmann::json& logs, int64_t step) {
  for (const auto& [tag, value] : tensorboard_scalars(logs)) add_scalar(tag, value, step);
  flush();
}

void TensorBoardWriter::flush() {
  if (file_) check(std::fflush(file_.get()) == 0, io_error(path_, "flush"));
}

fs::path default_logging_dir(const fs::path& output_dir, std::chrono::system_clock::time_point now,
                             const std::string& host) {
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm local{};
  localtime_r(&t, &local);
  char stamp[64];
  std::strftime(stamp, sizeof stamp, "%b%d_%H-%M-%S", &local);
  return output_dir / "runs" / (std::string(stamp) + "_" + hostname(host));
}

std::string tensorboard_tag(const std::string& log_key) {
  if (log_key.rfind("eval_", 0) == 0) return "eval/" + log_key.substr(5);
  if (log_key.rfind("test_", 0) == 0) return "test/" + log_key.substr(5);
  return "train/" + log_key;
}

std::vector<std::pair<std::string, double>> tensorboard_scalars(const nlohmann::json& logs) {
  check(logs.is_object(), "TensorBoard log entry: expected a JSON object, found " + logs.dump());
  std::vector<std::pair<std::string, double>> scalars;
  for (auto it = logs.begin(); it != logs.end(); ++it) {
    if (it.key() == "step") continue;
    const nlohmann::json& v = it.value();
    if (v.is_boolean()) {
      scalars.emplace_back(tensorboard_tag(it.key()), v.get<bool>() ? 1.0 : 0.0);
    } else if (v.is_number()) {
      scalars.emplace_back(tensorboard_tag(it.key()), v.get<double>());
    }
  }
  return scalars;
}

}  // namespace precis::train
