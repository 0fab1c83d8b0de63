//===- EinsumHandler.cpp - ONNX Einsum as kiln ops --------------*- C++ -*-===//
//
// Einsum (12) as transposes, reshapes, sums and batched matmuls: each
// operand first takes its diagonals (a label repeated within a term: a
// product with an identity mask, summed) and sums away the labels no other
// operand and not the output has; then the operands contract left to right,
// each pair as one matmul of (batch, free, contracted) by (batch,
// contracted, free); last, the result is transposed to the output's order.
// "..." stands for the same leading dimensions in every operand (numpy's
// broadcasting of differing sizes is refused).
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include "llvm/ADT/STLExtras.h"

#include <map>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::onnx_import;

namespace {

/// A label is a letter (0..51) or one of the dimensions "..." stands for
/// (100 + its position among them, counted from the right).
using Labels = SmallVector<int>;

struct Operand {
  Value value;
  Labels labels;
  ArrayRef<int64_t> shape() const {
    return cast<RankedTensorType>(value.getType()).getShape();
  }
};

int letterLabel(char c) {
  if (c >= 'a' && c <= 'z')
    return c - 'a';
  if (c >= 'A' && c <= 'Z')
    return 26 + (c - 'A');
  return -1;
}

/// Parses one term for an operand of `rank` (or the output, rank -1: the
/// ellipsis then stands for `ellipsisRank` dimensions).
FailureOr<Labels> parseTerm(NodeContext &nc, StringRef term, int64_t rank,
                            int64_t ellipsisRank) {
  Labels labels;
  size_t dots = term.find("...");
  if (dots != StringRef::npos && term.find("...", dots + 1) != StringRef::npos)
    return nc.fail("term '" + term + "' has more than one '...'");
  int64_t letters =
      static_cast<int64_t>(term.size()) - (dots == StringRef::npos ? 0 : 3);
  int64_t ellipsis = rank < 0 ? ellipsisRank : rank - letters;
  if (rank >= 0 && (dots == StringRef::npos ? letters != rank : ellipsis < 0))
    return nc.fail("term '" + term + "' does not fit an operand of rank " +
                   Twine(rank));
  for (size_t i = 0; i < term.size(); ++i) {
    if (i == dots) {
      for (int64_t e = ellipsis; e > 0; --e)
        labels.push_back(100 + static_cast<int>(e - 1));
      i += 2;
      continue;
    }
    int label = letterLabel(term[i]);
    if (label < 0)
      return nc.fail("term '" + term + "' has '" + Twine(term[i]) +
                     "', which is not a letter");
    labels.push_back(label);
  }
  return labels;
}

FailureOr<Value> sumAxes(NodeContext &nc, Value v, ArrayRef<int64_t> axes) {
  if (axes.empty())
    return v;
  return nc.create<ReduceOp>(
      {v}, {nc.named("kind",
                     ReduceKindAttr::get(nc.b.getContext(), ReduceKind::Sum)),
            nc.named("axes", nc.i64s(axes))});
}

/// Takes the diagonal of each label repeated within `op`.
LogicalResult takeDiagonals(NodeContext &nc, Operand &op) {
  for (size_t p = 0; p < op.labels.size(); ++p)
    for (size_t q = p + 1; q < op.labels.size(); ++q) {
      if (op.labels[p] != op.labels[q])
        continue;
      ArrayRef<int64_t> shape = op.shape();
      int64_t n = shape[p];
      if (shape[q] != n)
        return nc.fail("a repeated label spans dimensions of " + Twine(n) +
                       " and " + Twine(shape[q]));
      SmallVector<int64_t> maskShape(shape.size(), 1);
      maskShape[p] = maskShape[q] = n;
      auto element =
          cast<RankedTensorType>(op.value.getType()).getElementType();
      // The mask is an n x n identity: a constant up to
      // kMaxGeneratedConstantBytes, else (index p == index q) computed at
      // run time.
      if (failed(nc.checkBudget("the diagonal mask", maskShape, element)))
        return failure();
      auto maskType = RankedTensorType::get(maskShape, element);
      Value mask;
      if (NodeContext::isSmallGenerated(maskType)) {
        mask = nc.generatedConstant(
            maskType, [&](int64_t e) { return e / n == e % n ? 1.0 : 0.0; });
      } else {
        SmallVector<int64_t> pShape(shape.size(), 1), qShape(shape.size(), 1);
        pShape[p] = qShape[q] = n;
        Type i64 = nc.b.getI64Type();
        FailureOr<Value> eq =
            nc.binary(BinaryKind::Equal,
                      nc.iota(RankedTensorType::get(pShape, i64), p, 0, 1),
                      nc.iota(RankedTensorType::get(qShape, i64), q, 0, 1));
        FailureOr<Value> cast = failed(eq) ? eq : nc.castTo(*eq, element);
        if (failed(cast))
          return failure();
        mask = *cast;
      }
      FailureOr<Value> masked = nc.binary(BinaryKind::Mul, op.value, mask);
      if (failed(masked) ||
          failed(masked = sumAxes(nc, *masked, {static_cast<int64_t>(q)})))
        return failure();
      op.value = *masked;
      op.labels.erase(op.labels.begin() + q);
      --q;
    }
  return success();
}

/// Sums away the labels of `op` not in `keep`.
LogicalResult sumUnneeded(NodeContext &nc, Operand &op,
                          const llvm::SmallDenseSet<int> &keep) {
  SmallVector<int64_t> axes;
  Labels kept;
  for (auto [i, label] : llvm::enumerate(op.labels)) {
    if (keep.contains(label))
      kept.push_back(label);
    else
      axes.push_back(static_cast<int64_t>(i));
  }
  FailureOr<Value> summed = sumAxes(nc, op.value, axes);
  if (failed(summed))
    return failure();
  op.value = *summed;
  op.labels = kept;
  return success();
}

/// Contracts `a` and `b` over their shared labels not in `keep`, as a
/// matmul of (batch, a's free, contracted) by (batch, contracted, b's free).
FailureOr<Operand> contract(NodeContext &nc, const Operand &a, const Operand &b,
                            const llvm::SmallDenseSet<int> &keep) {
  Labels batch, contracted, aFree, bFree;
  for (int label : a.labels) {
    if (!llvm::is_contained(b.labels, label))
      aFree.push_back(label);
    else if (keep.contains(label))
      batch.push_back(label);
    else
      contracted.push_back(label);
  }
  for (int label : b.labels)
    if (!llvm::is_contained(a.labels, label))
      bFree.push_back(label);
  auto sizeOf = [](const Operand &op, int label) {
    return op.shape()[llvm::find(op.labels, label) - op.labels.begin()];
  };
  for (int label : llvm::concat<int>(batch, contracted))
    if (sizeOf(a, label) != sizeOf(b, label))
      return nc.fail("a label spans dimensions of " + Twine(sizeOf(a, label)) +
                     " and " + Twine(sizeOf(b, label)) +
                     " (broadcasting is not supported)");
  auto arrange = [&](const Operand &op, ArrayRef<Labels> groups,
                     SmallVector<int64_t> &sizes) -> FailureOr<Value> {
    SmallVector<int64_t> perm;
    for (const Labels &group : groups) {
      int64_t size = 1;
      for (int label : group) {
        perm.push_back(llvm::find(op.labels, label) - op.labels.begin());
        size *= sizeOf(op, label);
      }
      sizes.push_back(size);
    }
    FailureOr<Value> t = nc.transpose(op.value, perm);
    return failed(t) ? t : nc.reshape(*t, sizes);
  };
  SmallVector<int64_t> aSizes, bSizes;
  FailureOr<Value> lhs = arrange(a, {batch, aFree, contracted}, aSizes);
  FailureOr<Value> rhs =
      failed(lhs) ? lhs : arrange(b, {batch, contracted, bFree}, bSizes);
  if (failed(rhs))
    return failure();
  FailureOr<Value> product = nc.create<MatmulOp>({*lhs, *rhs});
  if (failed(product))
    return failure();
  Operand result;
  SmallVector<int64_t> shape;
  for (int label : batch)
    shape.push_back(sizeOf(a, label));
  for (int label : aFree)
    shape.push_back(sizeOf(a, label));
  for (int label : bFree)
    shape.push_back(sizeOf(b, label));
  FailureOr<Value> reshaped = nc.reshape(*product, shape);
  if (failed(reshaped))
    return failure();
  result.value = *reshaped;
  result.labels = batch;
  llvm::append_range(result.labels, aFree);
  llvm::append_range(result.labels, bFree);
  return result;
}

LogicalResult einsum(NodeContext &nc) {
  if (nc.numInputs() == 0 || failed(nc.requireInputs(nc.numInputs())))
    return nc.fail("expects at least one input");
  std::string equation = nc.getString("equation", "");
  llvm::erase_if(equation, [](char c) { return c == ' '; });
  StringRef eq(equation);
  auto [lhs, out] = eq.split("->");
  bool explicitOutput = eq.contains("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != nc.numInputs())
    return nc.fail("equation '" + equation + "' has " + Twine(terms.size()) +
                   " terms for " + Twine(nc.numInputs()) + " inputs");
  SmallVector<Operand> ops;
  int64_t ellipsisRank = 0;
  for (auto [i, term] : llvm::enumerate(terms)) {
    FailureOr<Labels> labels =
        parseTerm(nc, term, nc.inputType(i).getRank(), 0);
    if (failed(labels))
      return failure();
    int64_t e = llvm::count_if(*labels, [](int l) { return l >= 100; });
    ellipsisRank = std::max(ellipsisRank, e);
    ops.push_back({nc.input(i), *labels});
  }
  Labels output;
  if (explicitOutput) {
    FailureOr<Labels> labels = parseTerm(nc, out, -1, ellipsisRank);
    if (failed(labels))
      return failure();
    output = *labels;
  } else {
    // The ellipsis, then the letters used once, in alphabetical order.
    for (int64_t e = ellipsisRank; e > 0; --e)
      output.push_back(100 + static_cast<int>(e - 1));
    std::map<int, int> uses;
    for (const Operand &op : ops)
      for (int label : op.labels)
        if (label < 100)
          ++uses[label];
    for (auto [label, count] : uses)
      if (count == 1)
        output.push_back(label);
  }
  for (auto [i, label] : llvm::enumerate(output))
    if (llvm::is_contained(ArrayRef(output).drop_front(i + 1), label))
      return nc.fail("the output of '" + equation + "' repeats a label");
  for (int label : output)
    if (llvm::none_of(ops, [&](const Operand &op) {
          return llvm::is_contained(op.labels, label);
        }))
      return nc.fail("the output of '" + equation +
                     "' has a label no input has");

  // The labels needed after operand i: the output's and later operands'.
  auto neededAfter = [&](size_t i) {
    llvm::SmallDenseSet<int> keep(output.begin(), output.end());
    for (size_t j = i + 1; j < ops.size(); ++j)
      keep.insert(ops[j].labels.begin(), ops[j].labels.end());
    return keep;
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    if (failed(takeDiagonals(nc, ops[i])))
      return failure();
    llvm::SmallDenseSet<int> keep = neededAfter(i);
    for (size_t j = 0; j < i; ++j)
      keep.insert(ops[j].labels.begin(), ops[j].labels.end());
    if (failed(sumUnneeded(nc, ops[i], keep)))
      return failure();
  }
  Operand acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    FailureOr<Operand> next = contract(nc, acc, ops[i], neededAfter(i));
    if (failed(next))
      return failure();
    acc = *next;
  }
  if (failed(sumUnneeded(
          nc, acc, llvm::SmallDenseSet<int>(output.begin(), output.end()))))
    return failure();
  SmallVector<int64_t> perm;
  for (int label : output)
    perm.push_back(llvm::find(acc.labels, label) - acc.labels.begin());
  return nc.result(nc.transpose(acc.value, perm));
}

} // namespace

void mlir::kiln::onnx_import::appendEinsumHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"Einsum", 12, einsum},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
