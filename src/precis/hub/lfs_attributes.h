// Which files of a model repository go through Git LFS: the .gitattributes the Hugging Face Hub
// puts in every new model repository, so a repository precis publishes looks like one the Hub
// created (weights, archives and TensorBoard event files as LFS objects, text files in git).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace precis::hub {

// The Hub's default model-repository .gitattributes, one "<pattern> filter=lfs diff=lfs
// merge=lfs -text" line per pattern (*.safetensors, *.bin, *.pt, *tfevents*, ...).
std::string_view hub_default_gitattributes();

// `existing` (a repository's .gitattributes, possibly empty) with every line of the Hub's
// default that it lacks appended, and an LFS line for each path in `extra_lfs_paths` (files too
// large for the Hub outside LFS that no pattern catches). Lines already there are kept as they
// are, in their order. Throws precis::Error for a path .gitattributes cannot name literally.
std::string merge_gitattributes(std::string_view existing, const std::vector<std::string>& extra_lfs_paths = {});

// The Hub refuses files above 10 MB that are not LFS objects.
inline constexpr std::uintmax_t kHubMaxNonLfsBytes = 10 * 1000 * 1000;

}  // namespace precis::hub
