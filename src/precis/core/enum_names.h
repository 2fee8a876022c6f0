// An enum's names as configuration files spell them. One table serves both directions,
// reading a name and writing a value, so the two cannot drift apart. Where several names read
// as one value (an alias, such as "swish" for "silu"), the first in the table is the one
// written.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace precis {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

template <class E, size_t N>
std::optional<E> enum_from_name(const EnumName<E> (&table)[N], std::string_view name) {
  for (const EnumName<E>& entry : table)
    if (entry.name == name) return entry.value;
  return std::nullopt;
}

// `fallback` for a value outside the table (only a corrupted enum can be).
template <class E, size_t N>
std::string_view enum_name(const EnumName<E> (&table)[N], E value, std::string_view fallback) {
  for (const EnumName<E>& entry : table)
    if (entry.value == value) return entry.name;
  return fallback;
}

}  // namespace precis
