// NCCL's collectives over MPI for the kernel emulator (nccl.h). A collective gathers every
// rank's input to every rank (or to the root) and reduces it in rank order, element by element
// in fp32, each partial sum rounded to the buffer's type as NCCL's 16-bit reductions round
// each step: the same bits on every rank, and for two fp32 ranks the bits of the MPI
// communicator's sum. The emulated device memory is read and written inside
// DeviceMemoryAccess scopes (device_memory.h), and MPI itself moves host copies.
#include "nccl.h"

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "precis/kernels/convert_math.h"

#include "device_memory.h"

struct ncclComm {
  MPI_Comm mpi = MPI_COMM_NULL;
  int rank = 0, size = 1;
  // Set by ncclCommAbort, from any thread (the trainer's watchdog): a collective waiting for a
  // rank that never comes returns instead, as NCCL's abort ends its kernels.
  std::atomic<bool> aborted{false};
};

namespace {

size_t element_bytes(ncclDataType_t t) {
  return t == ncclFloat64 ? 8 : t == ncclFloat32 || t == ncclInt32 ? 4 : 2;
}

bool known(ncclDataType_t t) {
  return t == ncclFloat64 || t == ncclFloat32 || t == ncclInt32 || t == ncclBfloat16 ||
         t == ncclFloat16;
}

float load(const char* p, ncclDataType_t t) {
  if (t == ncclFloat32) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  uint16_t bits;
  std::memcpy(&bits, p, 2);
  return t == ncclBfloat16 ? precis::convert_math::from_bf16(bits)
                           : precis::convert_math::from_f16(bits);
}

void store(char* p, float v, ncclDataType_t t) {
  if (t == ncclFloat32) return void(std::memcpy(p, &v, 4));
  const uint16_t bits = precis::convert_math::to_16(v, t == ncclBfloat16);
  std::memcpy(p, &bits, 2);
}

// The device bytes at p, read on the host.
std::vector<char> read_device(const void* p, size_t bytes) {
  std::vector<char> host(bytes);
  precis::cuda_emulation::DeviceMemoryAccess access;
  if (bytes) std::memcpy(host.data(), p, bytes);
  return host;
}

void write_device(void* p, const char* host, size_t bytes) {
  precis::cuda_emulation::DeviceMemoryAccess access;
  if (bytes) std::memmove(p, host, bytes);
}

// out (count elements) = op over the `ranks` inputs that follow each other in `all`, in rank
// order.
void reduce_in_rank_order(const std::vector<char>& all, int ranks, size_t count, ncclDataType_t t,
                          ncclRedOp_t op, char* out) {
  const size_t eb = element_bytes(t), stride = count * eb;
  for (size_t i = 0; i < count; ++i) {
    if (t == ncclInt32) {
      int64_t sum = 0;
      for (int r = 0; r < ranks; ++r) {
        int32_t v;
        std::memcpy(&v, all.data() + size_t(r) * stride + i * eb, 4);
        sum += v;
      }
      const int32_t v = int32_t(op == ncclAvg ? sum / ranks : sum);
      std::memcpy(out + i * eb, &v, 4);
      continue;
    }
    if (t == ncclFloat64) {
      double sum;
      std::memcpy(&sum, all.data() + i * eb, 8);
      for (int r = 1; r < ranks; ++r) {
        double v;
        std::memcpy(&v, all.data() + size_t(r) * stride + i * eb, 8);
        sum += v;
      }
      if (op == ncclAvg) sum /= ranks;
      std::memcpy(out + i * eb, &sum, 8);
      continue;
    }
    // Each partial rounded to the type, as a ring of 16-bit adds rounds each step.
    char partial[4];
    std::memcpy(partial, all.data() + i * eb, eb);
    for (int r = 1; r < ranks; ++r)
      store(partial, load(partial, t) + load(all.data() + size_t(r) * stride + i * eb, t), t);
    if (op == ncclAvg) store(partial, load(partial, t) / float(ranks), t);
    std::memcpy(out + i * eb, partial, eb);
  }
}

bool fits_mpi(size_t bytes) { return bytes <= size_t(INT32_MAX); }

ncclResult_t usable(ncclComm_t comm, ncclDataType_t t, ncclRedOp_t op, size_t bytes) {
  if (comm == nullptr || comm->mpi == MPI_COMM_NULL) return ncclInvalidArgument;
  if (comm->aborted) return ncclInvalidUsage;
  if (!known(t) || (op != ncclSum && op != ncclAvg)) return ncclInvalidArgument;
  if (!fits_mpi(bytes * size_t(comm->size))) return ncclInvalidArgument;
  return ncclSuccess;
}

// Waits for `request`, polling gently, until it completes or the communicator is aborted.
ncclResult_t complete(ncclComm_t comm, MPI_Request& request) {
  for (int spins = 0;; ++spins) {
    int done = 0;
    if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return ncclSystemError;
    if (done) return ncclSuccess;
    if (comm->aborted) return ncclRemoteError;
    if (spins > 1000) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

// Every rank's `bytes` from `send`, in rank order, on every rank.
ncclResult_t gather_all(ncclComm_t comm, const void* send, size_t bytes, std::vector<char>& all) {
  std::vector<char> mine = read_device(send, bytes);
  all.resize(bytes * size_t(comm->size));
  MPI_Request request;
  if (MPI_Iallgather(mine.data(), int(bytes), MPI_BYTE, all.data(), int(bytes), MPI_BYTE,
                     comm->mpi, &request) != MPI_SUCCESS)
    return ncclSystemError;
  return complete(comm, request);
}

}  // namespace

const char* ncclGetErrorString(ncclResult_t result) {
  switch (result) {
    case ncclSuccess:
      return "no error";
    case ncclSystemError:
      return "unhandled system error (the emulator's MPI call failed)";
    case ncclInvalidArgument:
      return "invalid argument";
    case ncclInvalidUsage:
      return "invalid usage (the communicator was aborted)";
    case ncclRemoteError:
      return "remote process exited or there was a network error (aborted while it waited)";
    default:
      return "unhandled error";
  }
}

ncclResult_t ncclGetUniqueId(ncclUniqueId* unique_id) {
  std::memset(unique_id->internal, 0, NCCL_UNIQUE_ID_BYTES);
  // Different on every rank that makes one: ranks that skip the broadcast cannot agree.
  const std::string id = "precis-emulated-nccl " + std::to_string(getpid());
  std::memcpy(unique_id->internal, id.data(), id.size());
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId comm_id, int rank) {
  int size = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (nranks != size || rank != me) return ncclInvalidArgument;
  // Every rank must bring rank 0's id, as NCCL's rendezvous requires.
  std::vector<char> ids(size_t(size) * NCCL_UNIQUE_ID_BYTES);
  MPI_Allgather(comm_id.internal, NCCL_UNIQUE_ID_BYTES, MPI_BYTE, ids.data(), NCCL_UNIQUE_ID_BYTES,
                MPI_BYTE, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r)
    if (std::memcmp(ids.data(), ids.data() + size_t(r) * NCCL_UNIQUE_ID_BYTES,
                    NCCL_UNIQUE_ID_BYTES))
      return ncclInvalidArgument;
  auto* c = new ncclComm;
  MPI_Comm_dup(MPI_COMM_WORLD, &c->mpi);
  c->rank = rank;
  c->size = size;
  *comm = c;
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (comm == nullptr) return ncclInvalidArgument;
  if (comm->mpi != MPI_COMM_NULL) MPI_Comm_free(&comm->mpi);
  delete comm;
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (comm == nullptr) return ncclInvalidArgument;
  // The other ranks may be gone: no collective call (MPI_Comm_free) here.
  comm->aborted = true;
  return ncclSuccess;
}

// Each call of a group runs when made, in the order made, which is the same on every rank.
ncclResult_t ncclGroupStart() { return ncclSuccess; }
ncclResult_t ncclGroupEnd() { return ncclSuccess; }

ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t) {
  const size_t bytes = count * element_bytes(datatype);
  if (ncclResult_t r = usable(comm, datatype, op, bytes); r != ncclSuccess) return r;
  std::vector<char> all;
  if (ncclResult_t r = gather_all(comm, sendbuff, bytes, all); r != ncclSuccess) return r;
  std::vector<char> out(bytes);
  reduce_in_rank_order(all, comm->size, count, datatype, op, out.data());
  write_device(recvbuff, out.data(), bytes);
  return ncclSuccess;
}

ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                               ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t) {
  const size_t eb = element_bytes(datatype), bytes = recvcount * eb * size_t(comm ? comm->size : 1);
  if (ncclResult_t r = usable(comm, datatype, op, bytes); r != ncclSuccess) return r;
  std::vector<char> all;
  if (ncclResult_t r = gather_all(comm, sendbuff, bytes, all); r != ncclSuccess) return r;
  // This rank's segment of each rank's input, in rank order, then reduced.
  std::vector<char> segments(recvcount * eb * size_t(comm->size));
  for (int r = 0; r < comm->size; ++r)
    std::memcpy(segments.data() + size_t(r) * recvcount * eb,
                all.data() + size_t(r) * bytes + size_t(comm->rank) * recvcount * eb,
                recvcount * eb);
  std::vector<char> out(recvcount * eb);
  reduce_in_rank_order(segments, comm->size, recvcount, datatype, op, out.data());
  write_device(recvbuff, out.data(), out.size());
  return ncclSuccess;
}

ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                           ncclDataType_t datatype, ncclComm_t comm, cudaStream_t) {
  const size_t bytes = sendcount * element_bytes(datatype);
  if (ncclResult_t r = usable(comm, datatype, ncclSum, bytes); r != ncclSuccess) return r;
  std::vector<char> all;
  if (ncclResult_t r = gather_all(comm, sendbuff, bytes, all); r != ncclSuccess) return r;
  write_device(recvbuff, all.data(), all.size());
  return ncclSuccess;
}

ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                        ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t) {
  const size_t bytes = count * element_bytes(datatype);
  if (ncclResult_t r = usable(comm, datatype, op, bytes); r != ncclSuccess) return r;
  if (root < 0 || root >= comm->size) return ncclInvalidArgument;
  std::vector<char> mine = read_device(sendbuff, bytes);
  std::vector<char> all(comm->rank == root ? bytes * size_t(comm->size) : 0);
  MPI_Request request;
  if (MPI_Igather(mine.data(), int(bytes), MPI_BYTE, all.data(), int(bytes), MPI_BYTE, root,
                  comm->mpi, &request) != MPI_SUCCESS)
    return ncclSystemError;
  if (ncclResult_t r = complete(comm, request); r != ncclSuccess) return r;
  if (comm->rank != root) return ncclSuccess;  // recvbuff is the root's alone
  std::vector<char> out(bytes);
  reduce_in_rank_order(all, comm->size, count, datatype, op, out.data());
  write_device(recvbuff, out.data(), bytes);
  return ncclSuccess;
}

ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t) {
  const size_t bytes = count * element_bytes(datatype);
  if (ncclResult_t r = usable(comm, datatype, ncclSum, bytes); r != ncclSuccess) return r;
  if (root < 0 || root >= comm->size) return ncclInvalidArgument;
  std::vector<char> data =
      comm->rank == root ? read_device(sendbuff, bytes) : std::vector<char>(bytes);
  MPI_Request request;
  if (MPI_Ibcast(data.data(), int(bytes), MPI_BYTE, root, comm->mpi, &request) != MPI_SUCCESS)
    return ncclSystemError;
  if (ncclResult_t r = complete(comm, request); r != ncclSuccess) return r;
  write_device(recvbuff, data.data(), bytes);
  return ncclSuccess;
}
