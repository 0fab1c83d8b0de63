//===- HostMemory.h - zeroed host buffers, huge pages when large -*- C++
//-*-===//
//
// The host buffers of HostTensor and of the CPU reference executor. A buffer
// of at least kHugePageBytes is mapped on its own, aligned to 2 MiB and
// advised for transparent huge pages (MADV_HUGEPAGE): giving a process fresh
// 4 KiB pages one fault at a time is what a run that writes gigabytes spends
// its time on (8 GiB: 8-31 s of system time on a 2-core VM, 2 s with huge
// pages). A mapping is zero already, so nothing is written to clear it.
// Smaller buffers come from the C allocator, cleared when asked.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLING_HOSTMEMORY_H
#define KILN_TOOLING_HOSTMEMORY_H

#include <cstddef>

namespace kiln::tooling {

/// The size from which a buffer gets its own huge-page mapping (4 MiB).
constexpr size_t kHugePageBytes = size_t(4) << 20;

/// `bytes` of memory aligned to `alignment` (a power of two of at most
/// 4096; 0 means the C allocator's), or null when the system has none. A
/// large buffer is always zero; a small one is cleared only with `zero`
/// (code that writes before it reads passes false).
void *allocateHost(size_t bytes, size_t alignment, bool zero = true);
/// Releases what allocateHost(bytes, ...) returned (null is a no-op).
void freeHost(void *p, size_t bytes);

} // namespace kiln::tooling

#endif // KILN_TOOLING_HOSTMEMORY_H
