// Progress of long work: on a terminal one line redrawn in place (done/total, rate, ETA);
// otherwise a plain log line at most every `log_interval` seconds. Written to stderr.
#pragma once

#include <chrono>
#include <string>

namespace precis {

class Progress {
 public:
  Progress(std::string label, int64_t total, std::string unit = "it", double log_interval_s = 10.0);
  ~Progress();
  // Adds `n` units of work done; `note` (e.g. "loss 2.31") is shown after the counts.
  void advance(int64_t n = 1, const std::string& note = "");
  void finish();
  // The work turned out to be `total` units in all (an estimate was refined).
  void set_total(int64_t total) { total_ = total; }

 private:
  void print(bool final);
  std::string label_, unit_, note_;
  int64_t total_, done_ = 0;
  double log_interval_s_;
  bool terminal_, finished_ = false;
  std::chrono::steady_clock::time_point start_, last_print_;
};

}  // namespace precis
