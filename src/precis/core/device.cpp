#include "precis/core/device.h"

#include "precis/core/error.h"

namespace precis {

namespace {

thread_local ExecutionContext this_thread_context;

}  // namespace

std::string Device::name() const {
  return kind == DeviceKind::CPU ? "cpu" : "cuda:" + std::to_string(index);
}

const ExecutionContext& current_context() { return this_thread_context; }

ScopedExecutionContext::ScopedExecutionContext(Device device)
    : ScopedExecutionContext(device, Stream{device, nullptr}) {}

ScopedExecutionContext::ScopedExecutionContext(Device device, Stream stream)
    : saved_(this_thread_context) {
  check(stream.device == device, "a stream on " + stream.device.name() +
                                     " cannot be the current stream of " + device.name());
  this_thread_context = ExecutionContext{device, stream};
}

ScopedExecutionContext::~ScopedExecutionContext() { this_thread_context = saved_; }

}  // namespace precis
