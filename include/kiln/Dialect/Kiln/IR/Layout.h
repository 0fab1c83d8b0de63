//===- Layout.h - channels-first and channels-last permutations -*- C++ -*-===//
//
// The permutations between the two layouts of kiln.convolution, kiln.pool
// and kiln.global_pool (KilnAttrs.td, Kiln_Layout), as kiln.transpose
// permutations: result dimension i is input dimension perm[i].
//   activations: N x C x D1..Dk  <->  N x D1..Dk x C
//   filters:     K x C/g x R1..Rk <-> R1..Rk x C/g x K
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_LAYOUT_H
#define KILN_DIALECT_KILN_IR_LAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::kiln {

/// N x C x D1..Dk -> N x D1..Dk x C: (0, 2, ..., rank - 1, 1).
inline llvm::SmallVector<int64_t> getToChannelsLast(int64_t rank) {
  llvm::SmallVector<int64_t> perm = {0};
  for (int64_t i = 2; i < rank; ++i)
    perm.push_back(i);
  perm.push_back(1);
  return perm;
}

/// N x D1..Dk x C -> N x C x D1..Dk: (0, rank - 1, 1, ..., rank - 2).
inline llvm::SmallVector<int64_t> getToChannelsFirst(int64_t rank) {
  llvm::SmallVector<int64_t> perm = {0, rank - 1};
  for (int64_t i = 1; i + 1 < rank; ++i)
    perm.push_back(i);
  return perm;
}

/// K x C/g x R1..Rk -> R1..Rk x C/g x K: (2, ..., rank - 1, 1, 0).
inline llvm::SmallVector<int64_t> getFilterToChannelsLast(int64_t rank) {
  llvm::SmallVector<int64_t> perm;
  for (int64_t i = 2; i < rank; ++i)
    perm.push_back(i);
  perm.append({1, 0});
  return perm;
}

/// R1..Rk x C/g x K -> K x C/g x R1..Rk: (rank - 1, rank - 2, 0, ...).
inline llvm::SmallVector<int64_t> getFilterToChannelsFirst(int64_t rank) {
  llvm::SmallVector<int64_t> perm = {rank - 1, rank - 2};
  for (int64_t i = 0; i + 2 < rank; ++i)
    perm.push_back(i);
  return perm;
}

/// `values` permuted: result[i] = values[perm[i]].
template <typename T>
llvm::SmallVector<T> permute(llvm::ArrayRef<T> values,
                             llvm::ArrayRef<int64_t> perm) {
  llvm::SmallVector<T> out;
  for (int64_t p : perm)
    out.push_back(values[p]);
  return out;
}

/// The inverse permutation: permute(permute(v, perm), inverse) == v.
inline llvm::SmallVector<int64_t> invert(llvm::ArrayRef<int64_t> perm) {
  llvm::SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = static_cast<int64_t>(i);
  return inverse;
}

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_LAYOUT_H
