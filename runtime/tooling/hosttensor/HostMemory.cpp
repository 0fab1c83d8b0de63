//===- HostMemory.cpp - zeroed host buffers, huge pages when large -*- C++ -*-//
//
// Large buffers: an anonymous mapping 2 MiB larger than asked, trimmed to a
// 2 MiB-aligned range so that whole huge pages back it, then advised.
//
//===----------------------------------------------------------------------===//

#include "kiln/tooling/HostMemory.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

namespace kiln::tooling {

static constexpr size_t kHugePage = size_t(2) << 20;

static size_t roundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

void *allocateHost(size_t bytes, size_t alignment, bool zero) {
  if (bytes >= kHugePageBytes) {
    size_t length = roundUp(bytes, kHugePage);
    size_t mapped = length + kHugePage;
    void *base = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
      return nullptr;
    uintptr_t start = roundUp(reinterpret_cast<uintptr_t>(base), kHugePage);
    size_t head = start - reinterpret_cast<uintptr_t>(base);
    if (head)
      munmap(base, head);
    if (size_t tail = mapped - head - length)
      munmap(reinterpret_cast<void *>(start + length), tail);
    void *p = reinterpret_cast<void *>(start);
    // Advice only: without transparent huge pages the mapping still works.
    (void)madvise(p, length, MADV_HUGEPAGE);
    return p;
  }
  size_t size = bytes ? bytes : 1;
  void *p = alignment > alignof(std::max_align_t)
                ? std::aligned_alloc(alignment, roundUp(size, alignment))
                : std::malloc(size);
  if (p && zero)
    std::memset(p, 0, size);
  return p;
}

void freeHost(void *p, size_t bytes) {
  if (!p)
    return;
  if (bytes >= kHugePageBytes)
    munmap(p, roundUp(bytes, kHugePage));
  else
    std::free(p);
}

} // namespace kiln::tooling
