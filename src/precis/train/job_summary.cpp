#include "precis/train/job_summary.h"

#include <algorithm>
#include <cstdio>

namespace precis::train {

StepTimes& StepTimes::operator+=(const StepTimes& o) {
  batch_s += o.batch_s;
  forward_s += o.forward_s;
  backward_s += o.backward_s;
  allreduce_wait_s += o.allreduce_wait_s;
  optimizer_s += o.optimizer_s;
  other_s += o.other_s;
  return *this;
}

StepTimes StepTimes::scaled(double f) const {
  return {batch_s * f, forward_s * f, backward_s * f, allreduce_wait_s * f, optimizer_s * f, other_s * f};
}

nlohmann::json StepTimes::to_json() const {
  return {{"batch", 1e3 * batch_s},          {"forward", 1e3 * forward_s},
          {"backward", 1e3 * backward_s},    {"allreduce_wait", 1e3 * allreduce_wait_s},
          {"optimizer", 1e3 * optimizer_s},  {"other", 1e3 * other_s}};
}

double JobSummary::hidden_fraction() const {
  if (allreduce_blocking_s <= 0) return 0;
  return std::clamp(1.0 - allreduce_exposed_s / allreduce_blocking_s, 0.0, 1.0);
}

nlohmann::json JobSummary::to_json() const {
  nlohmann::json j = {{"world_size", world_size},
                      {"hosts", hosts},
                      {"zero_stage", zero_stage},
                      {"wall_s", wall_s},
                      {"train_s", train_s},
                      {"steps", steps},
                      {"samples", samples},
                      {"tokens", tokens},
                      {"samples_per_second", train_s > 0 ? double(samples) / train_s : 0.0},
                      {"tokens_per_second", train_s > 0 ? double(tokens) / train_s : 0.0},
                      {"step_s", steps > 0 ? train_s / double(steps) : 0.0},
                      {"instance_seconds", instance_seconds()},
                      {"optimizer_state_bytes_per_rank", optimizer_state_bytes_per_rank},
                      {"step_ms", step_times.to_json()},
                      {"blas", {{"library", blas.library}, {"core", blas.core}, {"chosen_by", blas.chose}}},
                      {"cpu", blas.cpu.model}};
  if (price_per_hour > 0) {
    j["price_per_hour"] = price_per_hour;
    j["cost"] = instance_seconds() / 3600.0 * price_per_hour;
  }
  if (world_size > 1) {
    j["allreduce_blocking_s"] = allreduce_blocking_s;
    j["allreduce_exposed_s_per_step"] = allreduce_exposed_s;
    j["allreduce_hidden_fraction"] = hidden_fraction();
    j["allreduce_buckets"] = gradient_buckets;
  }
  return j;
}

std::string JobSummary::text() const {
  char buf[640];
  int n = std::snprintf(buf, sizeof buf,
                        "precis: job summary: %d rank%s on %d host%s%s, wall %.1f s, training %.1f s (%lld steps, "
                        "%.1f ms/step), %.2f samples/s, %.1f tokens/s, %.1f instance-seconds",
                        world_size, world_size == 1 ? "" : "s", hosts, hosts == 1 ? "" : "s",
                        zero_stage ? ", ZeRO-1" : "", wall_s, train_s, (long long)steps,
                        steps ? 1e3 * train_s / double(steps) : 0.0, train_s > 0 ? double(samples) / train_s : 0.0,
                        train_s > 0 ? double(tokens) / train_s : 0.0, instance_seconds());
  std::string s(buf, size_t(std::max(0, std::min<int>(n, int(sizeof buf) - 1))));
  if (price_per_hour > 0) {
    std::snprintf(buf, sizeof buf, ", cost %.4f at %.4g per host-hour", instance_seconds() / 3600.0 * price_per_hour,
                  price_per_hour);
    s += buf;
  }
  const StepTimes& t = step_times;
  std::snprintf(buf, sizeof buf,
                "\nprecis: per step: batch %.1f ms, forward %.1f ms, backward %.1f ms, all-reduce wait %.1f "
                "ms, optimizer %.1f ms, other %.1f ms",
                1e3 * t.batch_s, 1e3 * t.forward_s, 1e3 * t.backward_s, 1e3 * t.allreduce_wait_s,
                1e3 * t.optimizer_s, 1e3 * t.other_s);
  s += buf;
  if (world_size > 1) {
    std::snprintf(buf, sizeof buf,
                  "\nprecis: gradient all-reduce in %lld bucket%s: %.2f ms blocking, %.2f ms per step left "
                  "after overlap (%.0f%% hidden behind the backward)",
                  (long long)gradient_buckets, gradient_buckets == 1 ? "" : "s", 1e3 * allreduce_blocking_s,
                  1e3 * allreduce_exposed_s, 100.0 * hidden_fraction());
    s += buf;
  }
  if (!blas.library.empty()) s += "\nprecis: BLAS: " + blas.text();
  return s;
}

}  // namespace precis::train
