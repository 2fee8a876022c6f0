#include "precis/dist/mpi_communicator.h"

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <set>
#include <signal.h>
#include <thread>
#include <unistd.h>

#include "precis/core/error.h"

namespace precis::dist {

namespace {

using Clock = std::chrono::steady_clock;

int count_of(size_t n, const char* what) {
  check(n <= size_t(INT_MAX), std::string(what) + ": " + std::to_string(n) +
                                  " elements exceed one MPI call's limit (2^31-1)");
  return int(n);
}

std::vector<int> displacements(std::span<const int64_t> counts, std::vector<int>& sizes) {
  std::vector<int> displ;
  int64_t offset = 0;
  for (int64_t c : counts) {
    sizes.push_back(count_of(size_t(c), "segment"));
    displ.push_back(count_of(size_t(offset), "segment offset"));
    offset += c;
  }
  return displ;
}

template <class T>
void scale(std::span<T> data, double factor) {
  for (T& x : data) x = T(x * factor);
}

// The host floats of a buffer: MPI moves host memory, and precis all-reduces fp32 (gradients
// and master weights are fp32 also when the compute copy is 16-bit).
std::span<float> host_floats(const Tensor& data, const char* what) {
  check(data.device.is_cpu(), std::string(what) + ": the MPI communicator moves host memory; " +
                                  data.describe() + " needs the GPU's communicator (NCCL)");
  check(data.dtype == DType::F32,
        std::string(what) + ": the MPI communicator reduces F32 buffers, not " + data.describe());
  return {data.f32(), size_t(data.numel())};
}

}  // namespace

MpiCommunicator::MpiCommunicator(double timeout_s, const std::string& host_name)
    : timeout_s_(timeout_s) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
  // Who runs where: the hosts for instance-seconds, the pids to tell which local rank died.
  char host[256] = {};
  if (host_name.empty()) gethostname(host, sizeof host - 1);
  const std::string here = host_name.empty() ? std::string(host) : host_name;
  std::vector<std::string> all = all_gather_bytes(here + "\n" + std::to_string(getpid()));
  std::set<std::string> distinct;
  for (const std::string& s : all) {
    size_t nl = s.find('\n');
    host_of_rank_.push_back(s.substr(0, nl));
    pid_of_rank_.push_back(std::stol(s.substr(nl + 1)));
    distinct.insert(host_of_rank_.back());
  }
  hosts_ = int(distinct.size());
}

MpiCommunicator::~MpiCommunicator() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void MpiCommunicator::checked(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(code, text, &len);
  std::fprintf(stderr, "precis: rank %d: %s failed: %s (a rank of the job has died?)\n", rank_, what, text);
  abort(1);
}

std::vector<int> MpiCommunicator::dead_ranks() const {
  std::vector<int> dead;
  const std::string& host = host_of_rank_[size_t(rank_)];
  for (int r = 0; r < size_; ++r)
    if (r != rank_ && host_of_rank_[size_t(r)] == host && kill(pid_t(pid_of_rank_[size_t(r)]), 0) != 0 && errno == ESRCH)
      dead.push_back(r);
  return dead;
}

[[noreturn]] void MpiCommunicator::timed_out(const char* what) {
  std::string dead;
  for (int r : dead_ranks()) dead += (dead.empty() ? "" : ", ") + std::to_string(r);
  std::fprintf(stderr,
               "precis: rank %d: %s did not complete within --ddp_timeout %.0f s: %s; ending the job\n",
               rank_, what, timeout_s_,
               dead.empty() ? "another rank stopped answering (on another host, or stuck)"
                            : ("rank " + dead + " has died").c_str());
  abort(1);
}

void MpiCommunicator::complete(MPI_Request& request, const char* what) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s_);
  int done = 0;
  for (int spins = 0;; ++spins) {
    checked(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
    if (spins > 1000) {
      // Past the first microseconds, poll gently: ranks share cores with the computation.
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      if (Clock::now() > deadline) timed_out(what);
    }
  }
}

void MpiCommunicator::all_reduce(const Tensor& buffer, ReduceOp op, Stream) {
  std::span<float> data = host_floats(buffer, "all_reduce");
  MPI_Request r;
  checked(MPI_Iallreduce(MPI_IN_PLACE, data.data(), count_of(data.size(), "all_reduce"), MPI_FLOAT, MPI_SUM,
                         comm_, &r), "all_reduce");
  complete(r, "all_reduce");
  if (op == ReduceOp::Average) scale(data, 1.0 / size_);
}

void MpiCommunicator::all_reduce(std::span<double> data, ReduceOp op) {
  MPI_Request r;
  checked(MPI_Iallreduce(MPI_IN_PLACE, data.data(), count_of(data.size(), "all_reduce"), MPI_DOUBLE, MPI_SUM,
                         comm_, &r), "all_reduce");
  complete(r, "all_reduce");
  if (op == ReduceOp::Average) scale(data, 1.0 / size_);
}

void MpiCommunicator::reduce_scatter(const Tensor& buffer, std::span<const int64_t> counts, ReduceOp op,
                                     Stream) {
  std::span<float> data = host_floats(buffer, "reduce_scatter");
  check(int(counts.size()) == size_, "reduce_scatter: one count per rank");
  std::vector<int> sizes;
  std::vector<int> displ = displacements(counts, sizes);
  // In place: the reduced segment lands at the start of the receive buffer; move it home.
  std::vector<float> mine(static_cast<size_t>(sizes[size_t(rank_)]));
  MPI_Request r;
  checked(MPI_Ireduce_scatter(data.data(), mine.data(), sizes.data(), MPI_FLOAT, MPI_SUM, comm_, &r),
          "reduce_scatter");
  complete(r, "reduce_scatter");
  if (op == ReduceOp::Average) scale(std::span<float>(mine), 1.0 / size_);
  std::copy(mine.begin(), mine.end(), data.begin() + displ[size_t(rank_)]);
}

void MpiCommunicator::all_gather(const Tensor& buffer, std::span<const int64_t> counts, Stream) {
  std::span<float> data = host_floats(buffer, "all_gather");
  check(int(counts.size()) == size_, "all_gather: one count per rank");
  std::vector<int> sizes;
  std::vector<int> displ = displacements(counts, sizes);
  MPI_Request r;
  checked(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data.data(), sizes.data(), displ.data(), MPI_FLOAT,
                          comm_, &r), "all_gather");
  complete(r, "all_gather");
}

std::vector<std::string> MpiCommunicator::all_gather_bytes(const std::string& mine) {
  int n = count_of(mine.size(), "all_gather_bytes");
  std::vector<int> sizes(static_cast<size_t>(size_)), displ(static_cast<size_t>(size_));
  MPI_Request r;
  checked(MPI_Iallgather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm_, &r), "all_gather");
  complete(r, "all_gather");
  int64_t total = 0;
  for (int i = 0; i < size_; ++i) displ[size_t(i)] = count_of(size_t(total), "all_gather_bytes"), total += sizes[size_t(i)];
  std::string all(size_t(total), '\0');
  checked(MPI_Iallgatherv(mine.data(), n, MPI_CHAR, all.data(), sizes.data(), displ.data(), MPI_CHAR, comm_, &r),
          "all_gather");
  complete(r, "all_gather");
  std::vector<std::string> out;
  for (int i = 0; i < size_; ++i) out.push_back(all.substr(size_t(displ[size_t(i)]), size_t(sizes[size_t(i)])));
  return out;
}

void MpiCommunicator::broadcast(std::span<std::byte> data, int root) {
  MPI_Request r;
  checked(MPI_Ibcast(data.data(), count_of(data.size(), "broadcast"), MPI_BYTE, root, comm_, &r), "broadcast");
  complete(r, "broadcast");
}

void MpiCommunicator::barrier() {
  MPI_Request r;
  checked(MPI_Ibarrier(comm_, &r), "barrier");
  complete(r, "barrier");
}

Communicator::Handle MpiCommunicator::all_reduce_async(const Tensor& buffer, ReduceOp op, Stream) {
  std::span<float> data = host_floats(buffer, "all_reduce");
  Pending p{MPI_REQUEST_NULL, data, op};
  checked(MPI_Iallreduce(MPI_IN_PLACE, data.data(), count_of(data.size(), "all_reduce"), MPI_FLOAT, MPI_SUM,
                         comm_, &p.request), "all_reduce");
  Handle h = next_handle_++;
  pending_.emplace(h, p);
  return h;
}

void MpiCommunicator::progress() {
  for (auto& [h, p] : pending_) {
    int done = 0;
    if (p.request != MPI_REQUEST_NULL) checked(MPI_Test(&p.request, &done, MPI_STATUS_IGNORE), "all_reduce");
  }
}

double MpiCommunicator::wait(Handle handle) {
  auto it = pending_.find(handle);
  check(it != pending_.end(), "wait: unknown collective handle " + std::to_string(handle));
  const auto start = Clock::now();
  if (it->second.request != MPI_REQUEST_NULL) complete(it->second.request, "all_reduce");
  const double blocked = std::chrono::duration<double>(Clock::now() - start).count();
  if (it->second.op == ReduceOp::Average) scale(it->second.data, 1.0 / size_);
  pending_.erase(it);
  return blocked;
}

void MpiCommunicator::abort(int code) {
  std::fflush(stderr);
  MPI_Abort(comm_ != MPI_COMM_NULL ? comm_ : MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace precis::dist
