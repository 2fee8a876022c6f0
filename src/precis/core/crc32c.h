// CRC-32C (Castagnoli), the checksum of TFRecord files such as TensorBoard's event files.
// Reflected polynomial 0x82F63B78, initial value and final xor 0xFFFFFFFF: crc32c("123456789")
// is 0xE3069283 (RFC 3720, appendix B.4, gives more vectors).
#pragma once

#include <cstdint>
#include <string_view>

namespace precis {

uint32_t crc32c(std::string_view bytes);

// TFRecord's "masked" CRC: rotated right by 15 bits plus a constant, so that a CRC stored inside
// data that is itself checksummed does not weaken the outer checksum.
uint32_t masked_crc32c(std::string_view bytes);

}  // namespace precis
