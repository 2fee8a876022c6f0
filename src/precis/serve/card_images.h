// The pictures a model card shows from its own directory (precis card's loss_curve.svg), as
// data: URIs: the page stays one document that loads nothing else, and the server needs no
// route to the model's files. Browsers run no script in an <img>, so an SVG shown this way
// cannot act on the page.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace precis::serve {

inline constexpr size_t kMaxCardImageBytes = size_t{2} << 20;

// `target` as the card writes it ("loss_curve.svg" or "./loss_curve.svg") -> a data: URI of
// that file. nullopt (the image stays a link) unless it names a regular file directly in
// `model_dir` (no folder, no symlink: a repository cloned from elsewhere cannot point the page
// at another file), of at most kMaxCardImageBytes, whose bytes are the image its extension
// says: .svg, .png, .jpg/.jpeg, .gif or .webp.
std::optional<std::string> card_image_data_uri(const std::filesystem::path& model_dir,
                                               std::string target);

}  // namespace precis::serve
