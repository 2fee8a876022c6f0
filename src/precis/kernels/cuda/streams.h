// Streams and events beyond the default stream, for work that must overlap the computation:
// the GPU communicator's collectives run on a stream of their own, started by an event the
// compute stream records and waited for by the compute stream through an event, so neither
// the host nor the other stream blocks. runtime.cu implements them with the CUDA runtime; the
// kernel emulator (tests/emulator/runtime_emulated.cpp) runs all work at once, so there
// its events are always complete and its waits return.
#pragma once

#include "precis/core/device.h"

namespace precis::cuda {

// A stream of its own on `device` that does not synchronise with the default stream
// (cudaStreamNonBlocking); destroy_stream ends it.
Stream create_stream(Device device);
void destroy_stream(Stream s);

struct Event {
  Device device;
  void* handle = nullptr;  // cudaEvent_t (timing disabled)
};
Event create_event(Device device);
void destroy_event(Event e);
// e completes when the work queued on s so far has.
void record_event(Event e, Stream s);
// Work queued on s from now on starts after e completes (the host does not wait).
void stream_wait_event(Stream s, Event e);
// Whether e has completed (the host does not wait).
bool event_done(Event e);

}  // namespace precis::cuda
