// Test tool for tests/oracle/test_kernels.py: runs one precis op (forward and backward) on
// tensors from a safetensors file and writes what it computed to another, so Python can
// compare with torch autograd.
//
//   kernel_probe OP IN.safetensors OUT.safetensors
//
// Float tensors are read as F32, integer ones as I32; scalar settings come from the input
// file's __metadata__ (strings). Per OP, inputs -> outputs:
//   linear         x, weight, bias, dy                  -> y, dx, dweight, dbias
//   layernorm      x, weight, bias, dy; eps             -> y, dx, dweight, dbias
//   activation     x, dy; kind (HF name)                -> y, dx
//   embedding      ids, table, dout; scale, padding_idx -> out, dtable
//   attention      q, k, v, dout, [key_padding]; heads, scale, causal, past, dropout_p,
//                  seed, stream                         -> out, probs, keep, dq, dk, dv
//   cross_entropy  logits, labels; label_smoothing     -> losses, loss, dlogits
//                  (loss = Σ / counted; dlogits with loss_scale = 1 / counted)
//   adamw          params, grad_1..grad_S; lr, beta1, beta2, eps, weight_decay, steps
//                                                       -> params, exp_avg, exp_avg_sq
//   sum_of_squares x                                    -> sum_of_squares (F32)
//   rms_norm       x, weight, dy; eps                   -> y, dx, dweight
//   relative_position
//                  table, d_scores; bidirectional, num_buckets, max_distance,
//                  first_query                          -> bias, dtable
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "precis/core/arena.h"
#include "precis/kernels/activation.h"
#include "precis/kernels/attention.h"
#include "precis/kernels/cross_entropy.h"
#include "precis/kernels/dropout.h"
#include "precis/kernels/embedding.h"
#include "precis/kernels/grad_norm.h"
#include "precis/kernels/layernorm.h"
#include "precis/kernels/linear.h"
#include "precis/kernels/optimizer.h"
#include "precis/kernels/relative_position.h"
#include "precis/kernels/rms_norm.h"
#include "precis/io/safetensors.h"

using namespace precis;

namespace {

class Probe {
 public:
  Probe(const std::string& in_path) : file_(SafetensorsReader::open(in_path)), arena_(256 << 20) {}

  bool has(const std::string& name) const { return file_.contains(name); }
  Tensor input(const std::string& name) {
    std::string dt = file_.dtype(name);
    bool is_float = dt == "F32" || dt == "F16" || dt == "BF16" || dt == "F64";
    Tensor t = arena_.alloc(file_.shape(name), is_float ? DType::F32 : DType::I32);
    file_.read(name, t);
    return t;
  }
  Tensor zeros(Shape s) { return arena_.zeros(s); }
  Tensor copy_of(const Tensor& t) {
    Tensor c = arena_.alloc(t.shape, t.dtype);
    std::memcpy(c.ptr, t.ptr, t.nbytes());
    return c;
  }
  std::string setting(const std::string& key) const {
    auto it = file_.metadata().find(key);
    check(it != file_.metadata().end(), "kernel_probe: metadata \"" + key + "\" missing");
    return it->second;
  }
  double number(const std::string& key) const { return std::stod(setting(key)); }
  uint64_t integer(const std::string& key) const { return std::stoull(setting(key)); }
  void output(const std::string& name, const Tensor& t) { out_.push_back({name, t}); }
  Tensor scalar(float v) {
    Tensor t = arena_.alloc(Shape{});
    *t.f32() = v;
    return t;
  }
  void write(const std::string& path) { write_safetensors(path, out_); }

 private:
  SafetensorsReader file_;
  Arena arena_;
  std::vector<NamedTensor> out_;
};

void run_linear(Probe& p) {
  Tensor x = p.input("x"), w = p.input("weight"), b = p.input("bias"), dy = p.input("dy");
  Tensor y = p.zeros(dy.shape), dx = p.zeros(x.shape), dw = p.zeros(w.shape), db = p.zeros(b.shape);
  linear_forward(x, w, b, y);
  linear_backward(dy, x, w, dx, dw, db);
  p.output("y", y), p.output("dx", dx), p.output("dweight", dw), p.output("dbias", db);
}

void run_layernorm(Probe& p) {
  Tensor x = p.input("x"), w = p.input("weight"), b = p.input("bias"), dy = p.input("dy");
  int64_t rows = x.numel() / w.numel();
  Tensor y = p.zeros(x.shape), mean = p.zeros({rows}), rstd = p.zeros({rows});
  Tensor dx = p.zeros(x.shape), dw = p.zeros(w.shape), db = p.zeros(b.shape);
  layernorm_forward(x, w, b, float(p.number("eps")), y, mean, rstd);
  layernorm_backward(dy, x, w, mean, rstd, dx, dw, db);
  p.output("y", y), p.output("dx", dx), p.output("dweight", dw), p.output("dbias", db);
}

void run_activation(Probe& p) {
  Tensor x = p.input("x"), dy = p.input("dy");
  Activation kind = activation_from_name(p.setting("kind"));
  Tensor y = p.zeros(x.shape), dx = p.zeros(x.shape);
  activation_forward(kind, x, y);
  activation_backward(kind, x, dy, dx);
  p.output("y", y), p.output("dx", dx);
}

void run_embedding(Probe& p) {
  Tensor ids = p.input("ids"), table = p.input("table"), dout = p.input("dout");
  float scale = float(p.number("scale"));
  Tensor out = p.zeros(dout.shape), dtable = p.zeros(table.shape);
  embedding_forward(ids, table, scale, out);
  embedding_backward(dout, ids, scale, std::stoll(p.setting("padding_idx")), dtable);
  p.output("out", out), p.output("dtable", dtable);
}

void run_attention(Probe& p) {
  Tensor q = p.input("q"), k = p.input("k"), v = p.input("v"), dout = p.input("dout");
  int64_t heads = int64_t(p.integer("heads"));
  AttentionMask mask;
  if (p.has("key_padding")) mask.key_padding = p.input("key_padding");
  mask.causal = p.setting("causal") == "1";
  mask.past = int64_t(p.integer("past"));
  DropoutSpec dropout{float(p.number("dropout_p")), p.integer("seed"), p.integer("stream")};
  float scale = float(p.number("scale"));
  Shape plane{q.size(0), heads, q.size(1), k.size(1)};
  Tensor out = p.zeros(q.shape), probs = p.zeros(plane);
  Tensor dq = p.zeros(q.shape), dk = p.zeros(k.shape), dv = p.zeros(v.shape);
  attention_forward(q, k, v, heads, scale, mask, out, probs, dropout);
  attention_backward(dout, q, k, v, probs, heads, scale, dropout, dq, dk, dv);
  // The mask the op drew, as keep/(1-p) factors: dropout of ones over the same index space.
  Tensor keep = p.zeros(plane);
  for (int64_t i = 0; i < keep.numel(); ++i) keep.f32()[i] = 1.0f;
  dropout_forward(keep, dropout, keep);
  p.output("out", out), p.output("probs", probs), p.output("keep", keep);
  p.output("dq", dq), p.output("dk", dk), p.output("dv", dv);
}

void run_cross_entropy(Probe& p) {
  Tensor logits = p.input("logits"), labels = p.input("labels");
  float eps = float(p.number("label_smoothing"));
  int64_t vocab = logits.shape[-1], n = logits.numel() / vocab;
  Tensor losses = p.zeros({n}), dlogits = p.copy_of(logits);
  CrossEntropyResult r = cross_entropy_forward(logits, labels, losses, eps);
  // In place, as the trainer will do with the logits buffer.
  cross_entropy_backward(dlogits, labels, eps, float(1.0 / double(r.counted)), dlogits);
  p.output("losses", losses), p.output("loss", p.scalar(float(r.mean())));
  p.output("dlogits", dlogits);
}

void run_adamw(Probe& p) {
  Tensor params = p.input("params");
  Tensor m = p.zeros(params.shape), v = p.zeros(params.shape);
  int64_t steps = int64_t(p.integer("steps"));
  for (int64_t t = 1; t <= steps; ++t)
    adamw_update(params, p.input("grad_" + std::to_string(t)), m, v, p.number("lr"), p.number("beta1"),
                 p.number("beta2"), p.number("eps"), p.number("weight_decay"), t);
  p.output("params", params), p.output("exp_avg", m), p.output("exp_avg_sq", v);
}

void run_rms_norm(Probe& p) {
  Tensor x = p.input("x"), w = p.input("weight"), dy = p.input("dy");
  Tensor y = p.zeros(x.shape), rstd = p.zeros({x.numel() / w.numel()});
  Tensor dx = p.zeros(x.shape), dw = p.zeros(w.shape);
  rms_norm_forward(x, w, float(p.number("eps")), y, rstd);
  rms_norm_backward(dy, x, w, rstd, dx, dw);
  p.output("y", y), p.output("dx", dx), p.output("dweight", dw);
}

void run_relative_position(Probe& p) {
  Tensor table = p.input("table"), d_scores = p.input("d_scores");
  RelativePositionBuckets b{p.setting("bidirectional") == "1", int64_t(p.integer("num_buckets")),
                            int64_t(p.integer("max_distance"))};
  const int64_t first_query = int64_t(p.integer("first_query"));
  Tensor bias = p.zeros({table.size(1), d_scores.size(2), d_scores.size(3)});
  Tensor dtable = p.zeros(table.shape);
  relative_position_bias_forward(table, b, first_query, bias);
  relative_position_bias_backward(d_scores, b, first_query, dtable);
  p.output("bias", bias), p.output("dtable", dtable);
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, void (*)(Probe&)> ops{
      {"linear", run_linear},       {"layernorm", run_layernorm},
      {"activation", run_activation}, {"embedding", run_embedding},
      {"attention", run_attention}, {"cross_entropy", run_cross_entropy},
      {"adamw", run_adamw},         {"rms_norm", run_rms_norm},
      {"relative_position", run_relative_position},
      {"sum_of_squares",
       [](Probe& p) { p.output("sum_of_squares", p.scalar(float(sum_of_squares(p.input("x"))))); }},
  };
  try {
    auto op = argc == 4 ? ops.find(argv[1]) : ops.end();
    if (op == ops.end()) {
      std::fprintf(stderr, "usage: kernel_probe OP IN.safetensors OUT.safetensors (OP: ");
      for (const auto& [name, fn] : ops) std::fprintf(stderr, "%s ", name.c_str());
      std::fprintf(stderr, ")\n");
      return 2;
    }
    Probe probe(argv[2]);
    op->second(probe);
    probe.write(argv[3]);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kernel_probe: error: %s\n", e.what());
    return 1;
  }
}
