// Where memory lives and work runs: a Device (kind and index), a Stream (an ordered queue of
// work on one device) and the current execution context of a thread.
//
// Model code names its device once, by setting the context (ScopedExecutionContext), as
// CTranslate2's ScopedDeviceSetter does: arenas made without a device allocate on the current
// device, and ops launch on the current stream. Ops themselves run on the device their tensors
// are on (kernels/dispatch.h); the context only says where new memory and new work go.
//
// On the CPU a stream is empty (no handle): ops run when called, in order. The CUDA backend
// gives a stream its cudaStream_t.
#pragma once

#include <cstdint>
#include <string>

namespace precis {

enum class DeviceKind : uint8_t { CPU, CUDA };

struct Device {
  DeviceKind kind = DeviceKind::CPU;
  int index = 0;  // which GPU; always 0 on the CPU

  static constexpr Device cpu() { return {}; }
  static constexpr Device cuda(int index) { return {DeviceKind::CUDA, index}; }
  bool is_cpu() const { return kind == DeviceKind::CPU; }
  bool operator==(const Device&) const = default;
  std::string name() const;  // "cpu", "cuda:0"
};

struct Stream {
  Device device;
  void* handle = nullptr;  // cudaStream_t on CUDA (null: the device's default stream)
};

struct ExecutionContext {
  Device device;
  Stream stream;
};

// This thread's context; the CPU unless a ScopedExecutionContext says otherwise. OpenMP
// workers keep the default: kernels read the context before they fan out, never inside.
const ExecutionContext& current_context();
inline Device current_device() { return current_context().device; }
inline Stream current_stream() { return current_context().stream; }

// Makes `device` (and `stream`, by default that device's default stream) current until the end
// of the scope, then restores the context it replaced; scopes nest.
class ScopedExecutionContext {
 public:
  explicit ScopedExecutionContext(Device device);
  ScopedExecutionContext(Device device, Stream stream);
  ~ScopedExecutionContext();
  ScopedExecutionContext(const ScopedExecutionContext&) = delete;
  ScopedExecutionContext& operator=(const ScopedExecutionContext&) = delete;

 private:
  ExecutionContext saved_;
};

}  // namespace precis
