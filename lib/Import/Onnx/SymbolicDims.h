//===- SymbolicDims.h - run-time dimensions as expressions ------*- C++ -*-===//
//
// Run-time shapes (issue 32) in the ONNX importer. A dimension that varies
// at run time is a polynomial (DimExpr) in the model's symbols: the dynamic
// dimensions of the graph's inputs, numbered as kiln's shape maps number
// them (SymbolicShapes.h). The importer learns the dimensions of the values
// it builds by probing: it infers each new op's result types at three
// assignments of distinct primes to the symbols, and reads a `?` back as a
// monomial (c * s0 * s1 ...) or as a + b * s. The integer tensors that
// exporters compute from shapes (Shape -> Gather -> Concat -> Reshape) are
// kept as lists of DimExpr, so that Reshape, Expand, ConstantOfShape and
// Range get symbolic result shapes. Private to the importer.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_IMPORT_ONNX_SYMBOLICDIMS_H
#define KILN_LIB_IMPORT_ONNX_SYMBOLICDIMS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::kiln::onnx_import {

/// A polynomial with integer coefficients in the symbols s0, s1, ...
class DimExpr {
public:
  DimExpr(int64_t constant = 0);
  static DimExpr symbol(unsigned position);

  std::optional<int64_t> constant() const;
  bool operator==(const DimExpr &other) const {
    return terms == other.terms && overflow == other.overflow;
  }
  bool operator!=(const DimExpr &other) const { return !(*this == other); }
  DimExpr operator+(const DimExpr &other) const;
  DimExpr operator-(const DimExpr &other) const;
  DimExpr operator*(const DimExpr &other) const;
  /// this / divisor when every term divides exactly by the divisor, a
  /// single non-zero term; else nullopt.
  std::optional<DimExpr> divideExactly(const DimExpr &divisor) const;
  /// The value at `symbols`, or nullopt (a missing symbol, an overflow).
  std::optional<int64_t> evaluate(ArrayRef<int64_t> symbols) const;
  AffineExpr toAffine(MLIRContext *ctx) const;
  /// "s0*s1*12 + 3", for messages.
  std::string str() const;
  /// Whether every coefficient is positive (the value grows with each
  /// symbol).
  bool isMonotone() const;
  /// Whether an operation on the way overflowed 64 bits or made the
  /// expression too large to follow (kMaxTerms terms, kMaxDegree factors):
  /// a hostile model's shape arithmetic; callers refuse it.
  bool overflowed() const { return overflow; }
  static constexpr size_t kMaxTerms = 64, kMaxDegree = 16;

private:
  /// Adds c * monomial, noting an overflow.
  void accumulate(const std::vector<unsigned> &monomial, int64_t c);

  /// Sorted symbol positions (with repeats) -> non-zero coefficient.
  std::map<std::vector<unsigned>, int64_t> terms;
  bool overflow = false;
};

/// The dimensions of the values the importer builds, and the integer
/// tensors it computes from them.
class SymbolicDims {
public:
  /// Numbers the dynamic dimensions of `body`'s arguments as the symbols;
  /// `maxima` holds each one's largest value (its profile's max), in order.
  void setSymbols(Block &body, ArrayRef<int64_t> minima,
                  ArrayRef<int64_t> maxima);
  /// The pairs of symbols taken to be equal (SymbolicDims::joinSymbols),
  /// as (kept, joined); the importer records them on the function, and
  /// they are checked when shapes are known.
  SmallVector<std::pair<unsigned, unsigned>> joined() const;
  /// The smallest value of `e` under the profiles, when every coefficient
  /// is positive.
  std::optional<int64_t> minimum(const DimExpr &e) const;
  /// The largest value of `e` under the profiles, when every coefficient is
  /// positive (so the maximum is at the symbols' maxima).
  std::optional<int64_t> maximum(const DimExpr &e) const;
  unsigned numSymbols() const { return symbolOf.size(); }
  /// Probes the result types of `op`, just built.
  void record(Operation *op);
  /// The dimensions of `v`: constants where static, an expression where a
  /// `?` could be followed, nullopt where not.
  SmallVector<std::optional<DimExpr>> dims(Value v);
  /// A shape map for a type whose dimensions are `dims`.
  AffineMap shapeMap(MLIRContext *ctx, ArrayRef<DimExpr> dims) const;

  /// An integer tensor (rank 0 or 1) computed from run-time dimensions: a
  /// placeholder value whose elements are `elements`. No kiln op may use a
  /// placeholder; the importer refuses a node that would.
  struct ShapeValue {
    SmallVector<DimExpr> elements;
    bool scalar = false;
  };
  llvm::DenseMap<Value, ShapeValue> shapeValues;
  /// The tensors computed at run time for shape values, by placeholder, and
  /// the set of them (for messages).
  llvm::DenseMap<Value, Value> materialized;
  llvm::DenseSet<Value> materializedValues;
  const ShapeValue *shapeValue(Value v) const {
    auto it = shapeValues.find(v);
    return it == shapeValues.end() ? nullptr : &it->second;
  }

private:
  static constexpr unsigned kProbes = 3;
  using Probe = std::array<SmallVector<int64_t>, kProbes>;
  /// The shape of `v` at probe `j`, or nullptr when unknown.
  const SmallVector<int64_t> *probe(Value v, unsigned j);
  int64_t prime(unsigned j, unsigned symbol) const;
  /// Probes `op`; false when its inference fails at a probe.
  bool probeOp(Operation *op);
  /// After `op` failed at a probe: where two of its operands meet at a
  /// dimension that is a different symbol in each, the symbols are taken
  /// to be equal (kiln's broadcasting: `?` with `?` is equal at run time,
  /// checked when shapes are known). True when any were joined.
  bool joinSymbols(Operation *op);
  unsigned find(unsigned symbol) const;

  /// (argument, dimension) -> symbol.
  llvm::DenseMap<std::pair<unsigned, unsigned>, unsigned> symbolOf;
  std::vector<std::array<int64_t, kProbes>> primes;
  SmallVector<int64_t> minima, maxima;
  llvm::DenseMap<Value, Probe> probes;
  /// The ops probed, in order, to probe again after symbols are joined.
  std::vector<Operation *> recorded;
  /// Union-find of symbols known to be equal.
  SmallVector<unsigned> parent;
  SmallVector<int64_t> scratch;
};

} // namespace mlir::kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_SYMBOLICDIMS_H
