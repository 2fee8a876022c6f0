#include "precis/kernels/token_ids.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/dispatch.h"

namespace precis {

InvalidId first_invalid_id(const Tensor& ids, int64_t limit, std::optional<int32_t> allowed) {
  const Device d = op_device("token id check", {&ids});
  switch (d.kind) {
    case DeviceKind::CPU: {
      const int32_t* id = ids.i32();
      int64_t i =
          cpu::first_invalid_id(id, ids.numel(), limit, allowed.has_value(), allowed.value_or(0));
      return i < 0 ? InvalidId{} : InvalidId{i, id[i]};
    }
    case DeviceKind::CUDA:
      break;
  }
  no_backend("token id check", d);
}

}  // namespace precis
