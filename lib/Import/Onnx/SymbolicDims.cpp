//===- SymbolicDims.cpp - run-time dimensions as expressions ----*- C++ -*-===//
//
// See SymbolicDims.h.
//
//===----------------------------------------------------------------------===//

#include "SymbolicDims.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/SymbolicShapes.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::onnx_import;

//===----------------------------------------------------------------------===//
// DimExpr
//===----------------------------------------------------------------------===//

DimExpr::DimExpr(int64_t constant) {
  if (constant != 0)
    terms[{}] = constant;
}

DimExpr DimExpr::symbol(unsigned position) {
  DimExpr e;
  e.terms[{position}] = 1;
  return e;
}

std::optional<int64_t> DimExpr::constant() const {
  if (overflow)
    return std::nullopt;
  if (terms.empty())
    return 0;
  if (terms.size() == 1 && terms.begin()->first.empty())
    return terms.begin()->second;
  return std::nullopt;
}

void DimExpr::accumulate(const std::vector<unsigned> &monomial, int64_t c) {
  if (monomial.size() > kMaxDegree ||
      (terms.size() >= kMaxTerms && !terms.count(monomial))) {
    overflow = true;
    return;
  }
  int64_t &slot = terms[monomial];
  if (__builtin_add_overflow(slot, c, &slot))
    overflow = true;
  if (slot == 0)
    terms.erase(monomial);
}

DimExpr DimExpr::operator+(const DimExpr &other) const {
  DimExpr sum = *this;
  sum.overflow |= other.overflow;
  for (const auto &[monomial, c] : other.terms)
    sum.accumulate(monomial, c);
  return sum;
}

DimExpr DimExpr::operator-(const DimExpr &other) const {
  return *this + other * DimExpr(-1);
}

DimExpr DimExpr::operator*(const DimExpr &other) const {
  DimExpr product;
  product.overflow = overflow || other.overflow;
  for (const auto &[m1, c1] : terms)
    for (const auto &[m2, c2] : other.terms) {
      std::vector<unsigned> m = m1;
      m.insert(m.end(), m2.begin(), m2.end());
      std::sort(m.begin(), m.end());
      int64_t c;
      if (__builtin_mul_overflow(c1, c2, &c))
        product.overflow = true;
      else
        product.accumulate(m, c);
    }
  return product;
}

std::optional<DimExpr> DimExpr::divideExactly(const DimExpr &divisor) const {
  if (divisor.terms.size() != 1)
    return std::nullopt;
  const auto &[dm, dc] = *divisor.terms.begin();
  if (overflow || divisor.overflow ||
      (dc == -1 && llvm::any_of(terms, [](const auto &t) {
         return t.second == INT64_MIN;
       })))
    return std::nullopt;
  DimExpr quotient;
  for (const auto &[m, c] : terms) {
    if (c % dc != 0)
      return std::nullopt;
    // m minus dm as multisets.
    std::vector<unsigned> rest;
    auto it = dm.begin();
    for (unsigned s : m) {
      if (it != dm.end() && *it == s)
        ++it;
      else
        rest.push_back(s);
    }
    if (it != dm.end())
      return std::nullopt;
    quotient.terms[rest] = c / dc;
  }
  return quotient;
}

std::optional<int64_t> DimExpr::evaluate(ArrayRef<int64_t> symbols) const {
  if (overflow)
    return std::nullopt;
  int64_t sum = 0;
  for (const auto &[m, c] : terms) {
    int64_t term = c;
    for (unsigned s : m)
      if (s >= symbols.size() ||
          __builtin_mul_overflow(term, symbols[s], &term))
        return std::nullopt;
    if (__builtin_add_overflow(sum, term, &sum))
      return std::nullopt;
  }
  return sum;
}

AffineExpr DimExpr::toAffine(MLIRContext *ctx) const {
  AffineExpr sum = getAffineConstantExpr(0, ctx);
  for (const auto &[m, c] : terms) {
    AffineExpr term = getAffineConstantExpr(c, ctx);
    for (unsigned s : m)
      term = term * getAffineSymbolExpr(s, ctx);
    sum = sum + term;
  }
  return sum;
}

bool DimExpr::isMonotone() const {
  return llvm::all_of(terms, [](const auto &t) { return t.second > 0; });
}

std::string DimExpr::str() const {
  if (terms.empty())
    return "0";
  std::string text;
  for (const auto &[m, c] : terms) {
    if (!text.empty())
      text += c < 0 ? " - " : " + ";
    else if (c < 0)
      text += "-";
    uint64_t magnitude = c < 0 ? 0 - uint64_t(c) : uint64_t(c);
    std::string factors;
    for (unsigned s : m)
      factors += (factors.empty() ? "s" : "*s") + std::to_string(s);
    if (factors.empty())
      text += std::to_string(magnitude);
    else
      text += (magnitude == 1 ? "" : std::to_string(magnitude) + "*") + factors;
  }
  return text;
}

//===----------------------------------------------------------------------===//
// SymbolicDims
//===----------------------------------------------------------------------===//

static bool isPrime(int64_t n) {
  for (int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0)
      return false;
  return n > 1;
}

void SymbolicDims::setSymbols(Block &body, ArrayRef<int64_t> minima,
                              ArrayRef<int64_t> maxima) {
  this->minima.assign(minima.begin(), minima.end());
  this->maxima.assign(maxima.begin(), maxima.end());
  symbolOf.clear();
  primes.clear();
  probes.clear();
  recorded.clear();
  parent.clear();
  // Each probe takes primes from its own range, so that a monomial's
  // factors can be read back from one probe and checked at the others.
  std::array<int64_t, kProbes> next = {1009, 2003, 3001};
  for (auto [arg, dim] : dynamicArgumentDims(body)) {
    symbolOf[{arg, dim}] = primes.size();
    std::array<int64_t, kProbes> p;
    for (unsigned j = 0; j < kProbes; ++j) {
      while (!isPrime(next[j]))
        ++next[j];
      p[j] = next[j]++;
    }
    parent.push_back(primes.size());
    primes.push_back(p);
  }
}

unsigned SymbolicDims::find(unsigned symbol) const {
  while (parent[symbol] != symbol)
    symbol = parent[symbol];
  return symbol;
}

std::optional<int64_t> SymbolicDims::minimum(const DimExpr &e) const {
  if (!e.isMonotone() || minima.size() != primes.size())
    return std::nullopt;
  return e.evaluate(minima);
}

std::optional<int64_t> SymbolicDims::maximum(const DimExpr &e) const {
  if (!e.isMonotone() || maxima.size() != primes.size())
    return std::nullopt;
  return e.evaluate(maxima);
}

int64_t SymbolicDims::prime(unsigned j, unsigned symbol) const {
  // The last probe doubles its primes: an even assignment, so that a fit
  // that holds only for odd sizes ((s + 1) / 2 * 2 read as s + 1) fails.
  int64_t p = primes[find(symbol)][j];
  return j == kProbes - 1 ? 2 * p : p;
}

const SmallVector<int64_t> *SymbolicDims::probe(Value v, unsigned j) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return nullptr;
  if (type.hasStaticShape()) {
    scratch.assign(type.getShape().begin(), type.getShape().end());
    return &scratch;
  }
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    scratch.assign(type.getShape().begin(), type.getShape().end());
    for (auto [d, size] : llvm::enumerate(scratch))
      if (ShapedType::isDynamic(size)) {
        auto it = symbolOf.find({arg.getArgNumber(), unsigned(d)});
        if (it == symbolOf.end())
          return nullptr;
        size = prime(j, it->second);
      }
    return &scratch;
  }
  auto it = probes.find(v);
  return it == probes.end() ? nullptr : &it->second[j];
}

void SymbolicDims::record(Operation *op) {
  if (op->getNumResults() != 1)
    return;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || type.hasStaticShape())
    return;
  recorded.push_back(op);
  if (probeOp(op))
    return;
  SmallVector<unsigned> before = parent;
  if (!joinSymbols(op))
    return;
  // Probe everything again with the joined symbols; where the layer still
  // fails, the joins did not explain it and are undone.
  auto reprobe = [&] {
    probes.clear();
    for (Operation *earlier : recorded)
      probeOp(earlier);
  };
  reprobe();
  if (!probes.count(op->getResult(0))) {
    parent = before;
    reprobe();
  }
}

SmallVector<std::pair<unsigned, unsigned>> SymbolicDims::joined() const {
  SmallVector<std::pair<unsigned, unsigned>> pairs;
  for (unsigned s = 0; s < parent.size(); ++s)
    if (find(s) != s)
      pairs.push_back({find(s), s});
  return pairs;
}

bool SymbolicDims::joinSymbols(Operation *op) {
  // Only where operands meet element by element (broadcasting, right
  // aligned): a concat's or a product's dimensions pair up otherwise.
  if (!op->hasTrait<OpTrait::kiln::Elementwise>())
    return false;
  bool joined = false;
  SmallVector<SmallVector<std::optional<DimExpr>>> operandDims;
  for (Value operand : op->getOperands())
    operandDims.push_back(dims(operand));
  auto single =
      [&](const std::optional<DimExpr> &e) -> std::optional<unsigned> {
    for (unsigned s = 0; e && s < primes.size(); ++s)
      if (*e == DimExpr::symbol(s))
        return s;
    return std::nullopt;
  };
  for (size_t a = 0; a < operandDims.size(); ++a)
    for (size_t b = a + 1; b < operandDims.size(); ++b) {
      auto &x = operandDims[a], &y = operandDims[b];
      size_t n = std::min(x.size(), y.size());
      for (size_t k = 1; k <= n; ++k) {
        std::optional<unsigned> sx = single(x[x.size() - k]),
                                sy = single(y[y.size() - k]);
        if (!sx || !sy || find(*sx) == find(*sy))
          continue;
        unsigned rx = find(*sx), ry = find(*sy);
        parent[std::max(rx, ry)] = std::min(rx, ry);
        joined = true;
      }
    }
  return joined;
}

bool SymbolicDims::probeOp(Operation *op) {
  Value result = op->getResult(0);
  auto type = cast<RankedTensorType>(result.getType());
  Probe shapes;
  for (unsigned j = 0; j < kProbes; ++j) {
    SmallVector<int64_t> symbols;
    for (unsigned k = 0; k < primes.size(); ++k)
      symbols.push_back(prime(j, k));
    std::optional<AffineMap> map;
    if (auto reshape = dyn_cast<ReshapeOp>(op))
      map = reshape.getShape();
    else if (auto iota = dyn_cast<IotaOp>(op))
      map = iota.getShape();
    if (map) {
      std::string why;
      FailureOr<SmallVector<int64_t>> dims =
          evaluateShapeMap(*map, symbols, why);
      if (failed(dims))
        return false;
      shapes[j] = *dims;
      continue;
    }
    if (isa<CastOp>(op)) {
      const SmallVector<int64_t> *in = probe(op->getOperand(0), j);
      if (!in)
        return false;
      shapes[j] = *in;
      continue;
    }
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      // The one `?` takes what the element count leaves.
      const SmallVector<int64_t> *in = probe(reshape.getInput(), j);
      if (!in)
        return false;
      int64_t count = 1, rest = 1;
      for (int64_t d : *in)
        if (__builtin_mul_overflow(count, d, &count))
          return false;
      for (int64_t d : type.getShape())
        if (!ShapedType::isDynamic(d))
          rest *= d;
      if (rest == 0 || count % rest != 0)
        return false;
      shapes[j].assign(type.getShape().begin(), type.getShape().end());
      for (int64_t &d : shapes[j])
        if (ShapedType::isDynamic(d))
          d = count / rest;
      continue;
    }
    auto infer = dyn_cast<InferTypeOpInterface>(op);
    if (!infer)
      return false;
    // Infer at the probe: the operands take their probe types for the
    // call, and get theirs back after.
    SmallVector<Type> saved;
    bool known = true;
    for (Value operand : op->getOperands()) {
      saved.push_back(operand.getType());
      const SmallVector<int64_t> *shape = known ? probe(operand, j) : nullptr;
      known = shape != nullptr;
      if (known)
        operand.setType(
            cast<RankedTensorType>(operand.getType()).clone(*shape));
    }
    SmallVector<Type> inferred;
    LogicalResult ok = failure();
    if (known) {
      ScopedDiagnosticHandler quiet(op->getContext(),
                                    [](Diagnostic &) { return success(); });
      ok = infer.inferReturnTypes(
          op->getContext(), op->getLoc(), op->getOperands(),
          op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
          op->getRegions(), inferred);
    }
    for (auto [operand, t] : llvm::reverse(llvm::zip(op->getOperands(), saved)))
      operand.setType(t);
    if (failed(ok) || inferred.size() != 1)
      return false;
    auto probed = dyn_cast<RankedTensorType>(inferred[0]);
    if (!probed || !probed.hasStaticShape())
      return false;
    shapes[j].assign(probed.getShape().begin(), probed.getShape().end());
  }
  probes[result] = std::move(shapes);
  return true;
}

SmallVector<std::optional<DimExpr>> SymbolicDims::dims(Value v) {
  SmallVector<std::optional<DimExpr>> out;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return out;
  std::array<SmallVector<int64_t>, kProbes> at;
  bool probed = true;
  for (unsigned j = 0; j < kProbes && probed; ++j) {
    const SmallVector<int64_t> *shape = probe(v, j);
    probed = shape != nullptr;
    if (probed)
      at[j] = *shape;
  }
  // The symbols' values at each probe.
  std::array<SmallVector<int64_t>, kProbes> symbols;
  for (unsigned j = 0; j < kProbes; ++j)
    for (unsigned k = 0; k < primes.size(); ++k)
      symbols[j].push_back(prime(j, k));
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      out.push_back(DimExpr(type.getDimSize(d)));
      continue;
    }
    out.push_back(std::nullopt);
    if (!probed)
      continue;
    auto fits = [&](const DimExpr &e) {
      for (unsigned j = 0; j < kProbes; ++j)
        if (e.evaluate(symbols[j]) != at[j][d])
          return false;
      return true;
    };
    // A monomial: the symbols' primes divide the probe, the rest is the
    // coefficient.
    int64_t rest = at[0][d];
    DimExpr monomial(1);
    for (unsigned s = 0; s < primes.size() && rest != 0; ++s)
      while (find(s) == s && rest % prime(0, s) == 0) {
        rest /= prime(0, s);
        monomial = monomial * DimExpr::symbol(s);
      }
    monomial = monomial * DimExpr(rest);
    if (fits(monomial)) {
      out.back() = monomial;
      continue;
    }
    // a * s + b.
    for (unsigned s = 0; s < primes.size(); ++s) {
      if (find(s) != s)
        continue;
      int64_t dp = prime(1, s) - prime(0, s), dv = at[1][d] - at[0][d];
      if (dv % dp != 0)
        continue;
      DimExpr e = DimExpr::symbol(s) * DimExpr(dv / dp) +
                  DimExpr(at[0][d] - dv / dp * prime(0, s));
      if (fits(e)) {
        out.back() = e;
        break;
      }
    }
  }
  return out;
}

AffineMap SymbolicDims::shapeMap(MLIRContext *ctx,
                                 ArrayRef<DimExpr> dims) const {
  SmallVector<AffineExpr> exprs;
  for (const DimExpr &d : dims)
    exprs.push_back(d.toAffine(ctx));
  return AffineMap::get(0, numSymbols(), exprs, ctx);
}
