// Base64 (RFC 4648, standard alphabet, '=' padding), as data: URIs carry bytes in a page.
#pragma once

#include <string>
#include <string_view>

namespace precis {

std::string base64_encode(std::string_view bytes);

}  // namespace precis
