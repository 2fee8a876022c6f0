// checkpoint-N/ directories: what Trainer._save_checkpoint writes (weights, config,
// tokenizer, optimizer and scheduler state, trainer_state.json, training_args.json), each
// directory appearing whole or not at all, rotated by save_total_limit.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

namespace precis::train {

constexpr const char* kCheckpointPrefix = "checkpoint-";

// checkpoint-N directories in `output_dir`, by N ascending.
std::vector<std::filesystem::path> list_checkpoints(const std::filesystem::path& output_dir);

// N of a checkpoint-N directory (-1 for another name).
int64_t checkpoint_step_of(const std::filesystem::path& dir);

// Whether a checkpoint directory holds trainer_state.json and the weights.
bool is_complete_checkpoint(const std::filesystem::path& dir);

// The newest checkpoint that is complete (has trainer_state.json and weights), as
// get_last_checkpoint finds it; nullopt when there is none.
std::optional<std::filesystem::path> last_checkpoint(const std::filesystem::path& output_dir);

// Deletes the staging folders (checkpoint-N.tmp-XXXXXX) a killed run left behind; returns
// how many.
int remove_abandoned_staging(const std::filesystem::path& output_dir);

// Deletes the oldest checkpoints beyond `limit`, never `keep` (the best model's checkpoint).
void rotate_checkpoints(const std::filesystem::path& output_dir, int64_t limit,
                        const std::optional<std::filesystem::path>& keep);

// At the end of training with save_total_limit 1 and a best checkpoint: deletes every other
// checkpoint, as HF 4.44's Trainer does (rotation kept the newest beside the best until then).
void keep_only_best_checkpoint(const std::filesystem::path& output_dir, const std::filesystem::path& best);

}  // namespace precis::train
