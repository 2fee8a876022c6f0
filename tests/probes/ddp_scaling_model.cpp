// The scaling model of data-parallel BART training in BENCHMARKS.md, made executable: the
// gradient buckets precis plans for the model (plan_buckets, the trainer's own), the
// backward's stages timed in proportion to their matmul FLOPs, and the bucketed ring
// all-reduce simulated on one channel against the backward. Prints the predicted step time
// and scaling efficiency against one GPU doing the same global batch by accumulation.
//
//   ddp_scaling_model [preset=bart-large] [vocab=50265] [per_gpu_batch=4] [source_len=256]
//                     [target_len=48] [gpus_per_node=8] [nodes=2] [tflops=110]
//                     [nvlink_GBps=200] [optimizer_ms=8]
// Bandwidths swept between nodes: 100, 200, 400 Gbit/s at 80 % of line rate.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "precis/dist/gradient_buckets.h"
#include "precis/model/bart/bart_init.h"
#include "precis/model/common/flat_parameters.h"

using namespace precis;

int main(int argc, char** argv) {
  auto arg = [&](int i, double d) { return argc > i ? std::stod(argv[i]) : d; };
  const std::string preset = argc > 1 ? argv[1] : "bart-large";
  BartConfig c = bart_config_from(preset);
  c.vocab_size = int64_t(arg(2, 50265));
  const double B = arg(3, 4), S = arg(4, 256), T = arg(5, 48);
  const int per_node = int(arg(6, 8)), nodes = int(arg(7, 2)), p = per_node * nodes;
  const double flops = arg(8, 110) * 1e12, nvlink = arg(9, 200) * 1e9, optimizer_s = arg(10, 8) * 1e-3;
  const double d = double(c.d_model), V = double(c.vocab_size);

  // Forward matmul FLOPs per backward stage (the backward costs twice its forward).
  const double enc_layer = 2 * B * S * (4 * d * d + 2 * d * double(c.encoder_ffn_dim)) + 4 * B * S * S * d;
  const double dec_layer = 2 * B * T * (4 * d * d + 2 * d * d + 2 * d * double(c.decoder_ffn_dim)) +
                           2 * B * S * 2 * d * d + 4 * B * T * T * d + 4 * B * T * S * d;
  const double lm_head = 2 * B * T * V * d;
  const int m = int(c.decoder_layers), n = int(c.encoder_layers);
  std::vector<double> stage_end;  // seconds into the backward at which each stage ends
  double t = 2 * lm_head / flops;
  for (int i = 0; i < m; ++i) stage_end.push_back(t += 2 * dec_layer / flops);
  stage_end.push_back(t += 2 * 2 * B * T * d / flops);  // decoder embeddings: negligible
  for (int i = 0; i < n; ++i) stage_end.push_back(t += 2 * enc_layer / flops);
  stage_end.push_back(t += 2 * 2 * B * S * d / flops);
  const double backward = t, forward = backward / 2;

  Arena measure = Arena::measuring();
  BartParams grads;
  allocate_parameters(c, grads, measure);
  Arena arena(measure.used());
  allocate_parameters(c, grads, arena);
  dist::FlatLayout layout = flat_layout(c, grads);
  auto buckets = dist::plan_buckets(layout, (25 << 20) / 4, (1 << 20) / 4);
  const double grad_bytes = double(layout.size) * 4;
  double last_stage_bytes = 0;
  for (auto& b : buckets)
    if (b.ready_stage == final_backward_stage(c)) last_stage_bytes += double(b.end - b.begin) * 4;

  std::printf("model %s: %.1f M trainable parameters, %.2f GB of fp32 gradients in %zu buckets; %.0f MB final only "
              "at the backward's last stage (token embeddings)\n",
              preset.c_str(), double(parameter_count(c)) / 1e6, grad_bytes / 1e9, buckets.size(), last_stage_bytes / 1e6);
  std::printf("per GPU: batch %.0f, source %.0f, target %.0f tokens: forward %.1f ms, backward %.1f ms at %.0f TFLOP/s; "
              "optimizer %.1f ms\n",
              B, S, T, 1e3 * forward, 1e3 * backward, flops / 1e12, 1e3 * optimizer_s);
  const double one_gpu = p * (forward + backward) + optimizer_s;  // global batch by accumulation
  std::printf("1 GPU, global batch %.0f by %d accumulation steps: %.1f ms per step\n", B * p, p, 1e3 * one_gpu);
  std::printf("%-28s %12s %12s %12s %12s %10s\n", "interconnect", "allreduce", "exposed", "hidden", "step", "efficiency");
  struct Link {
    const char* name;
    double bus_Bps;
    int ranks;
  };
  std::vector<Link> links = {{"NVLink, 1 node x 8", nvlink, per_node}};
  for (double gbit : {100.0, 200.0, 400.0}) {
    static char names[3][64];
    static int k = 0;
    std::snprintf(names[k], sizeof names[k], "%d nodes x %d, %.0f Gbit/s", nodes, per_node, gbit);
    // Ring all-reduce across nodes: NCCL's rings share the node's NICs, so the bus bandwidth
    // is the node's line rate (80 % of it achieved); inside a node NVLink is far faster.
    links.push_back({names[k++], 0.8 * gbit / 8 * 1e9, p});
  }
  for (const Link& l : links) {
    const double factor = 2.0 * (l.ranks - 1) / l.ranks, latency = 30e-6;  // per bucket
    double channel = 0, total = 0;
    for (auto& b : buckets) {
      const double cost = latency + factor * double(b.end - b.begin) * 4 / l.bus_Bps;
      channel = std::max(channel, stage_end[size_t(b.ready_stage)]) + cost;
      total += cost;
    }
    const double exposed = std::max(0.0, channel - backward);
    const double step = forward + backward + exposed + optimizer_s;
    const double ranks_one_gpu = l.ranks * (forward + backward) + optimizer_s;
    std::printf("%-28s %9.1f ms %9.1f ms %11.0f%% %9.1f ms %9.0f%%\n", l.name, 1e3 * total, 1e3 * exposed,
                100.0 * (1 - exposed / total), 1e3 * step, 100.0 * ranks_one_gpu / (l.ranks * step));
  }
  return 0;
}
