#include "precis/kernels/token_ids.h"

#include "precis/kernels/copy.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/op_dispatch.h"

namespace precis {

InvalidId first_invalid_id(const Tensor& ids, int64_t limit, std::optional<int32_t> allowed) {
  return dispatch_op(
      "token id check", {&ids},
      [&] {
        const int32_t* id = ids.i32();
        int64_t i =
            cpu::first_invalid_id(id, ids.numel(), limit, allowed.has_value(), allowed.value_or(0));
        return i < 0 ? InvalidId{} : InvalidId{i, id[i]};
      },
      [&](const CudaOp& gpu) {
        const int64_t i = gpu.run(&cuda::Kernels::first_invalid_id, ids.i32(), ids.numel(), limit,
                                  allowed.has_value(), allowed.value_or(0));
        if (i < 0) return InvalidId{};
        // The message names the id itself: one element back from the device.
        InvalidId bad{i, 0};
        copy(ids.view(Shape{ids.numel()}).slice(i, i + 1),
             Tensor{&bad.id, Shape{1}, DType::I32, Device::cpu()});
        return bad;
      });
}

}  // namespace precis
