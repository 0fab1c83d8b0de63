//===- Crc32.h - CRC-32 of byte ranges --------------------------*- C++ -*-===//
//
// The checksum of plan files: the common CRC-32 (reflected, polynomial
// 0xEDB88320, initial value and final xor 0xFFFFFFFF), as in zlib, PNG and
// Ethernet. crc32("123456789") is 0xCBF43926. Internal to the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_SRC_PLAN_CRC32_H
#define KILN_RUNTIME_SRC_PLAN_CRC32_H

#include <cstddef>
#include <cstdint>

namespace kiln::rt::detail {

/// Continues a CRC-32 over `size` more bytes; start with `crc` = 0.
uint32_t crc32(const void *data, std::size_t size, uint32_t crc = 0);

} // namespace kiln::rt::detail

#endif // KILN_RUNTIME_SRC_PLAN_CRC32_H
