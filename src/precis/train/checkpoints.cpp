#include "precis/train/checkpoints.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace precis::train {

namespace fs = std::filesystem;

namespace {
std::optional<int64_t> checkpoint_step(const fs::path& dir) {
  std::string name = dir.filename().string();
  std::string prefix = kCheckpointPrefix;
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) return std::nullopt;
  std::string digits = name.substr(prefix.size());
  if (digits.size() > 18 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoll(digits);
}
}  // namespace

std::vector<fs::path> list_checkpoints(const fs::path& output_dir) {
  std::vector<std::pair<int64_t, fs::path>> found;
  std::error_code ec;
  if (!fs::is_directory(output_dir, ec)) return {};
  for (const auto& entry : fs::directory_iterator(output_dir, ec))
    if (entry.is_directory())
      if (auto step = checkpoint_step(entry.path())) found.push_back({*step, entry.path()});
  std::sort(found.begin(), found.end());
  std::vector<fs::path> paths;
  for (auto& f : found) paths.push_back(f.second);
  return paths;
}

int64_t checkpoint_step_of(const fs::path& dir) { return checkpoint_step(dir).value_or(-1); }

bool is_complete_checkpoint(const fs::path& dir) {
  return fs::exists(dir / "trainer_state.json") &&
         (fs::exists(dir / "model.safetensors") || fs::exists(dir / "model.safetensors.index.json"));
}

std::optional<fs::path> last_checkpoint(const fs::path& output_dir) {
  auto all = list_checkpoints(output_dir);
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (is_complete_checkpoint(*it)) return *it;
    std::fprintf(stderr, "precis: warning: %s is incomplete; looking at an older checkpoint\n",
                 it->string().c_str());
  }
  return std::nullopt;
}

int remove_abandoned_staging(const fs::path& output_dir) {
  int removed = 0;
  std::error_code ec;
  if (!fs::is_directory(output_dir, ec)) return 0;
  std::vector<fs::path> abandoned;
  for (const auto& entry : fs::directory_iterator(output_dir, ec)) {
    const std::string name = entry.path().filename().string();
    const size_t tmp = name.find(".tmp-");
    if (entry.is_directory() && tmp != std::string::npos && checkpoint_step(output_dir / name.substr(0, tmp)))
      abandoned.push_back(entry.path());
  }
  for (const auto& dir : abandoned) {
    fs::remove_all(dir, ec);
    removed += !ec;
  }
  return removed;
}

void rotate_checkpoints(const fs::path& output_dir, int64_t limit, const std::optional<fs::path>& keep) {
  if (limit <= 0) return;
  auto all = list_checkpoints(output_dir);
  // As HF: with a best checkpoint to keep and limit 1, keep 2 so the newest survives too.
  if (keep && limit == 1 && !all.empty() && all.back() != *keep) limit = 2;
  int64_t excess = int64_t(all.size()) - limit;
  for (const auto& dir : all) {
    if (excess <= 0) break;
    if (keep && fs::equivalent(dir, *keep)) continue;
    fs::remove_all(dir);
    --excess;
  }
}

void keep_only_best_checkpoint(const fs::path& output_dir, const fs::path& best) {
  if (!fs::exists(best)) return;
  for (const auto& dir : list_checkpoints(output_dir))
    if (!fs::equivalent(dir, best)) fs::remove_all(dir);
}

}  // namespace precis::train
