#include "precis/core/progress.h"

#include <unistd.h>

#include <cstdio>

namespace precis {

namespace {
std::string clock_text(double seconds) {
  if (!(seconds >= 0) || seconds > 1e7) return "?";
  long s = long(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}
}  // namespace

Progress::Progress(std::string label, int64_t total, std::string unit, double log_interval_s)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      total_(total),
      log_interval_s_(log_interval_s),
      terminal_(isatty(STDERR_FILENO)),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

Progress::~Progress() { finish(); }

void Progress::advance(int64_t n, const std::string& note) {
  done_ += n;
  note_ = note;
  auto now = std::chrono::steady_clock::now();
  double since = std::chrono::duration<double>(now - last_print_).count();
  if ((terminal_ && since >= 0.2) || since >= log_interval_s_) {
    last_print_ = now;
    print(false);
  }
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (done_ > 0) print(true);
}

void Progress::print(bool final) {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double rate = elapsed > 0 ? double(done_) / elapsed : 0.0;
  double eta = rate > 0 ? double(total_ - done_) / rate : -1.0;
  char line[512];
  std::snprintf(line, sizeof line, "%s %lld/%lld %s | %.2f %s/s | elapsed %s | ETA %s%s%s",
                label_.c_str(), (long long)done_, (long long)total_, unit_.c_str(), rate,
                unit_.c_str(), clock_text(elapsed).c_str(), final ? "0:00" : clock_text(eta).c_str(),
                note_.empty() ? "" : " | ", note_.c_str());
  if (terminal_)
    std::fprintf(stderr, "\r\033[K%s%s", line, final ? "\n" : "");
  else
    std::fprintf(stderr, "%s\n", line);
  std::fflush(stderr);
}

}  // namespace precis
