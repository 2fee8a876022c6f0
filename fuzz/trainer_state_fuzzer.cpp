// What resume reads from a checkpoint directory besides the weights: trainer_state.json on
// arbitrary bytes (TrainerState::load), and the checkpoint-N discovery that picks the
// checkpoint (get_last_checkpoint's rules) in an output directory holding it.
#include "fuzz_support.h"
#include "precis/train/checkpoints.h"
#include "precis/train/trainer_state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace precis::fuzz;
  const std::filesystem::path output_dir = fresh_dir("output");
  const std::filesystem::path checkpoint = output_dir / "checkpoint-12";
  std::filesystem::create_directories(checkpoint);
  std::filesystem::create_directories(output_dir / "checkpoint-7.tmp-abc123");
  write_file(checkpoint / "trainer_state.json", as_text(data, size));
  write_file(checkpoint / "model.safetensors", "");

  expect_only_precis_errors([&] {
    precis::train::TrainerState state = precis::train::TrainerState::load(checkpoint / "trainer_state.json");
    // Saving what was loaded must work too (a resumed run writes it back).
    state.to_json().dump(2);
  });
  if (precis::train::last_checkpoint(output_dir) != checkpoint) std::abort();
  if (precis::train::remove_abandoned_staging(output_dir) != 1) std::abort();
  // The bytes as a directory name (when they make one).
  const std::string name(as_text(data, std::min<size_t>(size, 64)));
  if (name.find('/') == std::string::npos && name.find('\0') == std::string::npos)
    precis::train::checkpoint_step_of(output_dir / name);
  return 0;
}
