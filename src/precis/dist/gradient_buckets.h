// Data parallelism's gradient all-reduce, overlapped with the backward (PyTorch DDP's
// buckets): the flat gradient buffer is cut into buckets of about 25 MB (the first, which
// becomes final soonest, smaller) walking from the end of the buffer, which is the order in
// which bart_backward finishes layers. As each backward stage ends, every bucket whose
// gradients are all final starts its asynchronous all-reduce; the backward goes on while
// MPI moves the bytes, and finish() waits for what is left.
//
// Buckets start in the order they become final (ties: buffer order), the same on every
// rank, as MPI requires. Gradients are summed (the loss is already normalised by the global
// token count).
#pragma once

#include "precis/dist/communicator.h"
#include "precis/dist/flat_layout.h"

namespace precis::dist {

struct GradientBucket {
  int64_t begin, end;  // floats in the flat buffer
  int ready_stage;     // the backward stage after which all its gradients are final
};

// Buckets of at most `bucket_floats` (the first at most `first_bucket_floats`), walking the
// layout from its end. A bucket never mixes tensors whose stages are far apart (each tensor's
// stage is the model's, FlatTensor::stage).
std::vector<GradientBucket> plan_buckets(const FlatLayout& layout, int64_t bucket_floats,
                                         int64_t first_bucket_floats);

class GradientAllReduce {
 public:
  // grads: model/common/flat_parameters.h's flat_gradients of the model's gradients.
  GradientAllReduce(const FlatGradients& grads, Communicator& comm, int64_t bucket_bytes = 25 << 20,
                    int64_t first_bucket_bytes = 1 << 20);

  // Backward stage `stage` has ended: start the buckets it completes, let the others progress.
  void stage_done(int stage);
  // The seconds a step spent in communication calls: the all-reduce time the backward did not
  // hide. With MPI on CPU the transfers and sums advance inside those calls (there is no
  // progress thread), so on CPU little is hidden; NCCL's streams hide what they overlap.
  struct ExposedTime {
    double in_backward_s = 0;     // inside stage_done, so inside the backward's own clock too
    double after_backward_s = 0;  // inside finish
  };
  // Starts what is left and waits for everything.
  ExposedTime finish();

  const std::vector<GradientBucket>& buckets() const { return buckets_; }
  const Tensor& flat() const { return flat_; }

 private:
  Communicator& comm_;
  Tensor flat_;                          // the flat gradient (model/common/flat_parameters.h)
  std::vector<GradientBucket> buckets_;  // in start order
  std::vector<Communicator::Handle> handles_;
  size_t started_ = 0;
  int final_stage_;
  double in_calls_s_ = 0;  // this step's time inside stage_done
};

}  // namespace precis::dist
