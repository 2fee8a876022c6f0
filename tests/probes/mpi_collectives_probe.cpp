// Run under mpirun: every Communicator collective of MpiCommunicator against the value
// computed locally from what each rank contributes (rank r's element i is r*1000 + i, exact
// in float). Prints "collectives ok" on rank 0; exits non-zero naming the first mismatch.
// With "die-rank R": rank R kills itself (SIGKILL) before an all-reduce; with "hang-rank R"
// it sleeps instead: the others must end within the timeout (argument 3, seconds).
#include <chrono>
#include <csignal>
#include <thread>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "precis/dist/mpi_communicator.h"

using precis::dist::MpiCommunicator;
using precis::dist::ReduceOp;

namespace {

// A host vector as the flat buffer the collectives take.
precis::Tensor host(std::vector<float>& v) {
  return precis::Tensor{v.data(), precis::Shape{int64_t(v.size())}, precis::DType::F32, precis::Device::cpu()};
}

int failures = 0;

void expect(bool ok, const std::string& what, int rank) {
  if (ok) return;
  std::fprintf(stderr, "rank %d: %s\n", rank, what.c_str());
  ++failures;
}

float contribution(int rank, int64_t i) { return float(rank * 1000 + i); }

}  // namespace

int main(int argc, char** argv) {
  double timeout = argc > 3 ? std::stod(argv[3]) : 30.0;
  MpiCommunicator comm(timeout);
  const int rank = comm.rank(), n = comm.world_size();
  if (argc > 2 && (std::strcmp(argv[1], "die-rank") == 0 || std::strcmp(argv[1], "hang-rank") == 0)) {
    if (rank == std::stoi(argv[2])) {
      if (argv[1][0] == 'd') raise(SIGKILL);
      std::this_thread::sleep_for(std::chrono::hours(1));
    }
    std::vector<float> x(10, 1.0f);
    comm.all_reduce(host(x), ReduceOp::Sum, {});
    return 0;
  }
  const int64_t size = 1003;  // not a multiple of the world size
  auto sum_over_ranks = [&](int64_t i) {
    float s = 0;
    for (int r = 0; r < n; ++r) s += contribution(r, i);
    return s;
  };
  std::vector<float> x(size);
  for (int64_t i = 0; i < size; ++i) x[size_t(i)] = contribution(rank, i);
  comm.all_reduce(host(x), ReduceOp::Sum, {});
  for (int64_t i = 0; i < size; ++i) expect(x[size_t(i)] == sum_over_ranks(i), "all_reduce sum at " + std::to_string(i), rank);

  // Device memory and 16-bit buffers are refused by name, before any rank communicates.
  for (precis::Tensor wrong : {precis::Tensor{x.data(), precis::Shape{size}, precis::DType::F32, precis::Device::cuda(0)},
                               precis::Tensor{x.data(), precis::Shape{size}, precis::DType::BF16, precis::Device::cpu()}}) {
    std::string message;
    try {
      comm.all_reduce(wrong, ReduceOp::Sum, {});
    } catch (const std::exception& e) {
      message = e.what();
    }
    expect(message.find("all_reduce: the MPI communicator") != std::string::npos &&
               message.find(wrong.describe()) != std::string::npos,
           "refusing " + wrong.describe() + ": got '" + message + "'", rank);
  }

  std::vector<double> d = {double(rank), 1.0};
  comm.all_reduce(std::span<double>(d), ReduceOp::Average);
  expect(d[0] == double(n - 1) / 2 && d[1] == 1.0, "all_reduce average (double)", rank);

  auto counts = precis::dist::even_segments(size, n);
  for (int64_t i = 0; i < size; ++i) x[size_t(i)] = contribution(rank, i);
  comm.reduce_scatter(host(x), counts, ReduceOp::Sum, {});
  int64_t begin = 0;
  for (int r = 0; r < rank; ++r) begin += counts[size_t(r)];
  for (int64_t i = begin; i < begin + counts[size_t(rank)]; ++i)
    expect(x[size_t(i)] == sum_over_ranks(i), "reduce_scatter at " + std::to_string(i), rank);

  // all_gather: each rank's segment holds its own contribution.
  for (int64_t i = begin; i < begin + counts[size_t(rank)]; ++i) x[size_t(i)] = contribution(rank, i);
  comm.all_gather(host(x), counts, {});
  int64_t at = 0;
  for (int r = 0; r < n; ++r)
    for (int64_t k = 0; k < counts[size_t(r)]; ++k, ++at)
      expect(x[size_t(at)] == contribution(r, at), "all_gather at " + std::to_string(at), rank);

  auto bytes = comm.all_gather_bytes(std::string(size_t(rank), char('a' + rank)));
  for (int r = 0; r < n; ++r) expect(bytes[size_t(r)] == std::string(size_t(r), char('a' + r)), "all_gather_bytes", rank);

  int64_t value = rank == n - 1 ? 4242 : -1;
  comm.broadcast_value(value, n - 1);
  expect(value == 4242, "broadcast", rank);

  // Several all-reduces in flight at once, completed out of order.
  std::vector<std::vector<float>> buckets(3, std::vector<float>(257));
  std::vector<MpiCommunicator::Handle> handles;
  for (size_t b = 0; b < buckets.size(); ++b) {
    for (int64_t i = 0; i < 257; ++i) buckets[b][size_t(i)] = contribution(rank, i + int64_t(b));
    handles.push_back(comm.all_reduce_async(host(buckets[b]), b == 1 ? ReduceOp::Average : ReduceOp::Sum, {}));
    comm.progress();
  }
  for (size_t b = buckets.size(); b-- > 0;) comm.wait(handles[b]);
  for (size_t b = 0; b < buckets.size(); ++b)
    for (int64_t i = 0; i < 257; ++i) {
      float want = sum_over_ranks(i + int64_t(b));
      if (b == 1) want = float(want * (1.0 / n));
      expect(buckets[b][size_t(i)] == want, "async all_reduce bucket " + std::to_string(b), rank);
    }
  comm.barrier();
  if (rank == 0 && failures == 0) std::printf("collectives ok on %d ranks\n", n);
  return failures ? 1 : 0;
}
