// Reading a whole file into memory: the one place precis turns a path into its bytes, so
// that every reader treats a missing file and a failed read the same way. Callers say what a
// missing file means for them (an error naming the file, or a default).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace precis {

// The file's bytes; nullopt when it cannot be opened. Throws precis::Error
// "<path>: read error" when it opens but reading fails part way.
std::optional<std::string> read_file_bytes(const std::filesystem::path& path);

// The file's bytes; throws precis::Error `cannot_open` when it cannot be opened.
std::string read_existing_file(const std::filesystem::path& path, const std::string& cannot_open);

}  // namespace precis
