//===- Crc32.cpp - CRC-32 of byte ranges ------------------------*- C++ -*-===//
//
// A table-driven CRC-32 (reflected polynomial 0xEDB88320), one byte at a
// time. Plans are read once per engine, so this needs no faster variant.
//
//===----------------------------------------------------------------------===//

#include "plan/Crc32.h"

#include <array>

namespace kiln::rt::detail {

namespace {
std::array<uint32_t, 256> makeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit)
      c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}
} // namespace

uint32_t crc32(const void *data, std::size_t size, uint32_t crc) {
  static const std::array<uint32_t, 256> table = makeTable();
  const auto *bytes = static_cast<const unsigned char *>(data);
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i)
    crc = table[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

} // namespace kiln::rt::detail
