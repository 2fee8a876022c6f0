#include "precis/train/trainer.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "precis/core/hf_semantics.h"
#include "precis/dist/gpu_communicator.h"
#include "precis/dist/host_threads.h"
#include "precis/dist/launch_environment.h"
#include "precis/kernels/device_choice.h"
#include "precis/kernels/matmul_precision.h"
#include "precis/model/families.h"
#include "precis/train/job_clock.h"
#include "precis/train/seq2seq_trainer.h"

namespace precis::train {

namespace {

// The model family: model_name_or_path's config.json, or config_name's family ("" when neither
// is given: validate_job says what to give).
std::string model_type_for(const TrainingArguments& a) {
  if (!a.model_name_or_path.empty()) return checkpoint_model_type(a.model_name_or_path);
  return a.config_name ? config_model_type(*a.config_name) : "";
}

// HF's --ddp_timeout (default 1800 s): the deadline of every collective, host or device.
double ddp_timeout_s(const TrainingArguments& a) { return double(a.ddp_timeout.value_or(1800)); }

void run_job(const TrainingArguments& a, dist::Communicator& host_comm, JobClock::time_point job_start,
             const RankErrorReport& on_rank_error = {}) {
  // The tokenizer, the evaluation's generate() and the checkpoints follow the run's release.
  set_hf_semantics(parse_hf_semantics(a.hf_semantics, "--hf_semantics"));
  const std::string model_type = model_type_for(a);
  validate_job(a, model_type);
  const std::string warning = ignored_options_warning(a);
  if (!warning.empty() && host_comm.is_main())
    std::fprintf(stderr, "precis: warning: %s\n", warning.c_str());
  // Everything the job allocates, the model, its optimizer state and every batch, lives on
  // the device; the host reads it only through copies (checkpoints, logs, predictions).
  const Device device = choose_device(a.device, host_comm.local_rank(), host_comm.world_size());
  // Ranks on GPUs move the device's buffers through NCCL, the host's values through MPI.
  std::unique_ptr<dist::Communicator> gpu_comm;
  if (!device.is_cpu() && host_comm.world_size() > 1)
    gpu_comm = std::make_unique<dist::GpuCommunicator>(host_comm, device, ddp_timeout_s(a),
                                                       on_rank_error);
  dist::Communicator& comm = gpu_comm ? *gpu_comm : host_comm;
  check(!a.fp16 || !device.is_cpu(),
        "--fp16 needs a GPU (--device cuda): the CPU trains in fp32 (drop --fp16)");
  check(!a.fp16 || a.zero_stage == 0,
        "--fp16 with --zero_stage 1: ZeRO-1's sharded step does not unscale the loss yet");
  if (comm.is_main() && !device.is_cpu())
    std::fprintf(stderr, "precis: training on %s%s\n", device.name().c_str(),
                 a.bf16 ? " in bf16 mixed precision" : a.fp16 ? " in fp16 mixed precision" : "");
  // --bf16 on the CPU is HF's CPU autocast where it counts: linear's and attention's products take
  // bf16 operands and sum in fp32 (AMX where the CPU has it); every other op, the weights,
  // gradients and optimizer stay fp32 (kernels/matmul_precision.h).
  const bool cpu_bf16 = device.is_cpu() && a.bf16;
  if (comm.is_main() && cpu_bf16)
    std::fprintf(stderr, "precis: --bf16 on the CPU: %s\n", cpu_bf16_matmul_description().c_str());
  ScopedCpuMatmulPrecision precision(cpu_bf16 ? MatmulPrecision::kBf16 : MatmulPrecision::kFp32);
  ScopedExecutionContext on(device);
  with_model_family(model_type, "the model", [&]<class Model>(std::type_identity<Model>) {
    Seq2SeqTrainer<Model>(a, comm, job_start).run();
  });
}

}  // namespace

void run_training_job(const TrainingArguments& a, const RankErrorReport& on_rank_error) {
  const auto job_start = JobClock::now();
  // Under mpirun / srun with more than one process: data parallelism over MPI.
  std::unique_ptr<dist::Communicator> comm =
      dist::make_communicator(ddp_timeout_s(a), a.host_name);
  if (comm->world_size() == 1) return run_job(a, *comm, job_start);
  if (int threads = dist::share_host_cores(comm->local_size());
      threads > 0 && comm->local_rank() == 0)
    std::fprintf(stderr,
                 "precis: %d ranks share this host: %d OpenMP thread%s each (OMP_NUM_THREADS "
                 "overrides)\n",
                 comm->local_size(), threads, threads == 1 ? "" : "s");
  // Every rank's error reaches the user, named by its rank; then the whole job ends, so no
  // rank waits forever in a collective for one that has given up.
  try {
    run_job(a, *comm, job_start, on_rank_error);
    // Wait for rank 0's last writes here, polling gently, rather than in MPI_Finalize, whose
    // busy polling would take the core rank 0 is saving with.
    comm->barrier();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "precis: rank %d: error: %s\n", comm->rank(), e.what());
    std::fflush(stderr);
    if (on_rank_error) on_rank_error(comm->rank(), e.what());
    // Ranks usually fail at the same point (a missing file, a bad option): a moment lets the
    // others print their own error before the abort ends them all.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    comm->abort(1);
  }
}

}  // namespace precis::train
