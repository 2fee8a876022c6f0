#include "precis/kernels/token_ids.h"

#include "precis/kernels/copy.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cuda/kernels_cuda.h"
#include "precis/kernels/dispatch.h"
#include "precis/kernels/op_profile.h"

namespace precis {

InvalidId first_invalid_id(const Tensor& ids, int64_t limit, std::optional<int32_t> allowed) {
  OpTimer op_timer("token id check");
  const Device d = op_device("token id check", {&ids});
  switch (d.kind) {
    case DeviceKind::CPU: {
      const int32_t* id = ids.i32();
      int64_t i =
          cpu::first_invalid_id(id, ids.numel(), limit, allowed.has_value(), allowed.value_or(0));
      return i < 0 ? InvalidId{} : InvalidId{i, id[i]};
    }
    case DeviceKind::CUDA: {
      const int64_t i = cuda::twin(&cuda::Kernels::first_invalid_id, "token id check", d)(
          ids.i32(), ids.numel(), limit, allowed.has_value(), allowed.value_or(0), op_stream(d));
      if (i < 0) return InvalidId{};
      // The message names the id itself: one element back from the device.
      InvalidId bad{i, 0};
      copy(ids.view(Shape{ids.numel()}).slice(i, i + 1),
           Tensor{&bad.id, Shape{1}, DType::I32, Device::cpu()});
      return bad;
    }
  }
  no_backend("token id check", d);
}

}  // namespace precis
