//===- ConstantFolding.cpp - Evaluate kiln ops on constants ---------------===//
//
// Every operand is read into a Literal (f64 for floats, i64 for integers and
// i1), the op is computed elementwise or by index arithmetic, and the result
// is written back in its element type: f32 arithmetic done in f64 and
// rounded once is the correctly rounded f32 result for + - * / and sqrt.
// Integers wrap to their width after every op, as generated code does.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/ConstantFolding.h"
#include "ShapeUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// A tensor's elements on the host.
struct Literal {
  RankedTensorType type;
  std::vector<double> f;  // float element types
  std::vector<int64_t> i; // integer element types (i1 as 0 and 1)

  bool isFloat() const { return isa<FloatType>(type.getElementType()); }
  int64_t size() const { return type.getNumElements(); }
  ArrayRef<int64_t> shape() const { return type.getShape(); }
  double asDouble(int64_t k) const { return isFloat() ? f[k] : double(i[k]); }
};

/// `v` wrapped to a signed integer of `width` bits (i1: 0 or 1).
int64_t wrap(int64_t v, unsigned width) {
  if (width == 1)
    return v & 1;
  if (width >= 64)
    return v;
  uint64_t mask = (uint64_t(1) << width) - 1;
  uint64_t bits = uint64_t(v) & mask;
  if (bits >> (width - 1))
    bits |= ~mask;
  return static_cast<int64_t>(bits);
}

template <typename T> T load(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

double halfToDouble(const llvm::fltSemantics &sem, uint16_t bits) {
  return APFloat(sem, APInt(16, bits)).convertToDouble();
}

/// Reads a dense or blob-backed constant; nullopt for anything else.
std::optional<Literal> read(Attribute attr) {
  auto elements = dyn_cast_if_present<ElementsAttr>(attr);
  if (!elements)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(elements.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  Literal lit{type, {}, {}};
  Type element = type.getElementType();
  int64_t n = type.getNumElements();
  if (auto dense = dyn_cast<DenseElementsAttr>(elements)) {
    if (lit.isFloat()) {
      lit.f.reserve(n);
      if (dense.isSplat()) {
        lit.f.assign(n, dense.getSplatValue<APFloat>().convertToDouble());
      } else if (element.isF32()) {
        for (float v : dense.getValues<float>())
          lit.f.push_back(v);
      } else {
        for (APFloat v : dense.getValues<APFloat>())
          lit.f.push_back(v.convertToDouble());
      }
      return lit;
    }
    if (!element.isSignlessInteger())
      return std::nullopt;
    bool isBool = element.isInteger(1);
    auto value = [&](const APInt &v) {
      return isBool ? int64_t(v.getZExtValue()) : v.getSExtValue();
    };
    if (dense.isSplat()) {
      lit.i.assign(n, value(dense.getSplatValue<APInt>()));
    } else {
      lit.i.reserve(n);
      for (APInt v : dense.getValues<APInt>())
        lit.i.push_back(value(v));
    }
    return lit;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(elements);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob)
    return std::nullopt;
  ArrayRef<char> data = blob->getData();
  unsigned bytes =
      element.isInteger(1) ? 1 : element.getIntOrFloatBitWidth() / 8;
  if (static_cast<int64_t>(data.size()) < n * bytes)
    return std::nullopt;
  const char *p = data.data();
  if (lit.isFloat()) {
    lit.f.resize(n);
    for (int64_t k = 0; k < n; ++k) {
      if (element.isF32())
        lit.f[k] = load<float>(p + 4 * k);
      else if (element.isF64())
        lit.f[k] = load<double>(p + 8 * k);
      else if (element.isF16())
        lit.f[k] = halfToDouble(APFloat::IEEEhalf(), load<uint16_t>(p + 2 * k));
      else if (element.isBF16())
        lit.f[k] = halfToDouble(APFloat::BFloat(), load<uint16_t>(p + 2 * k));
      else
        return std::nullopt;
    }
    return lit;
  }
  if (!element.isSignlessInteger())
    return std::nullopt;
  lit.i.resize(n);
  for (int64_t k = 0; k < n; ++k) {
    switch (bytes) {
    case 1:
      lit.i[k] = element.isInteger(1) ? (p[k] != 0) : int64_t(int8_t(p[k]));
      break;
    case 2:
      lit.i[k] = load<int16_t>(p + 2 * k);
      break;
    case 4:
      lit.i[k] = load<int32_t>(p + 4 * k);
      break;
    default:
      lit.i[k] = load<int64_t>(p + 8 * k);
    }
  }
  return lit;
}

/// A literal of `type` (zero-filled).
Literal make(RankedTensorType type) {
  Literal lit{type, {}, {}};
  if (lit.isFloat())
    lit.f.assign(type.getNumElements(), 0.0);
  else
    lit.i.assign(type.getNumElements(), 0);
  return lit;
}

/// The literal as an attribute of its type; null when a float does not fit
/// an integer element type.
ElementsAttr write(const Literal &lit) {
  Type element = lit.type.getElementType();
  if (lit.isFloat()) {
    if (element.isF32()) {
      SmallVector<float> values(lit.f.begin(), lit.f.end());
      return DenseElementsAttr::get(lit.type, ArrayRef<float>(values));
    }
    if (element.isF64())
      return DenseElementsAttr::get(lit.type, ArrayRef<double>(lit.f));
    const llvm::fltSemantics &sem =
        cast<FloatType>(element).getFloatSemantics();
    SmallVector<APFloat> values;
    values.reserve(lit.f.size());
    for (double v : lit.f) {
      APFloat x(v);
      bool lost;
      x.convert(sem, APFloat::rmNearestTiesToEven, &lost);
      values.push_back(x);
    }
    return DenseElementsAttr::get(lit.type, values);
  }
  unsigned width = element.getIntOrFloatBitWidth();
  if (width == 1) {
    SmallVector<bool> values;
    for (int64_t v : lit.i)
      values.push_back(v != 0);
    return DenseElementsAttr::get(lit.type, ArrayRef<bool>(values));
  }
  SmallVector<APInt> values;
  values.reserve(lit.i.size());
  for (int64_t v : lit.i)
    values.push_back(APInt(width, uint64_t(wrap(v, width)), /*isSigned=*/true,
                           /*implicitTrunc=*/true));
  return DenseElementsAttr::get(lit.type, values);
}

/// For each element of `out` (row-major), the index of the element of a
/// tensor of shape `in` that numpy broadcasting reads.
std::vector<int64_t> broadcastIndex(ArrayRef<int64_t> in,
                                    ArrayRef<int64_t> out) {
  int64_t rank = out.size(), offset = rank - in.size();
  SmallVector<int64_t> stride(rank, 0);
  for (int64_t d = rank - 1, s = 1; d >= offset; --d) {
    int64_t size = in[d - offset];
    stride[d] = size == 1 ? 0 : s;
    s *= size;
  }
  int64_t n = 1;
  for (int64_t d : out)
    n *= d;
  std::vector<int64_t> index(n);
  SmallVector<int64_t> pos(rank, 0);
  int64_t at = 0;
  for (int64_t k = 0; k < n; ++k) {
    index[k] = at;
    for (int64_t d = rank - 1; d >= 0; --d) {
      at += stride[d];
      if (++pos[d] < out[d])
        break;
      at -= stride[d] * out[d];
      pos[d] = 0;
    }
  }
  return index;
}

/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

/// Calls `f(k, index)` for every element `k` of `shape` with its multi-index.
template <typename F> void forEachIndex(ArrayRef<int64_t> shape, F f) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  SmallVector<int64_t> pos(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    f(k, ArrayRef<int64_t>(pos));
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++pos[d] < shape[d])
        break;
      pos[d] = 0;
    }
  }
}

/// Integer power, exact, as the dialect defines it.
int64_t intPow(int64_t base, int64_t exp) {
  if (exp < 0)
    return base == 1 ? 1 : base == -1 ? (exp % 2 ? -1 : 1) : 0;
  int64_t r = 1;
  while (exp) {
    if (exp & 1)
      r = int64_t(uint64_t(r) * uint64_t(base));
    base = int64_t(uint64_t(base) * uint64_t(base));
    exp >>= 1;
  }
  return r;
}

/// A comparison kind applied to two values (false for another kind).
template <typename T> bool compareValues(BinaryKind kind, T x, T y) {
  switch (kind) {
  case BinaryKind::Equal:
    return x == y;
  case BinaryKind::Less:
    return x < y;
  case BinaryKind::LessEqual:
    return x <= y;
  case BinaryKind::Greater:
    return x > y;
  case BinaryKind::GreaterEqual:
    return x >= y;
  default:
    return false;
  }
}

std::optional<Literal> evalBinary(BinaryOp op, const Literal &a,
                                  const Literal &b) {
  Literal out = make(op.getType());
  std::vector<int64_t> ia = broadcastIndex(a.shape(), out.shape());
  std::vector<int64_t> ib = broadcastIndex(b.shape(), out.shape());
  BinaryKind kind = op.getKind();
  bool compare = kind >= BinaryKind::Equal;
  if (a.isFloat()) {
    for (size_t k = 0; k < ia.size(); ++k) {
      double x = a.f[ia[k]], y = b.f[ib[k]], r;
      if (compare) {
        out.i[k] = compareValues(kind, x, y);
        continue;
      }
      switch (kind) {
      case BinaryKind::Add:
        r = x + y;
        break;
      case BinaryKind::Sub:
        r = x - y;
        break;
      case BinaryKind::Mul:
        r = x * y;
        break;
      case BinaryKind::Div:
        r = x / y;
        break;
      case BinaryKind::Pow:
        r = std::pow(x, y);
        break;
      case BinaryKind::Max:
        r = std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
        break;
      case BinaryKind::Min:
        r = std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
        break;
      case BinaryKind::FMod:
        r = std::fmod(x, y);
        break;
      case BinaryKind::Mod: // floored: the result takes the divisor's sign
        r = std::fmod(x, y);
        if (r != 0 && std::signbit(r) != std::signbit(y))
          r += y;
        else if (r == 0)
          r = std::copysign(0.0, y);
        break;
      default:
        return std::nullopt; // and/or/xor take no floats
      }
      out.f[k] = r;
    }
    return out;
  }
  unsigned width = a.type.getElementTypeBitWidth();
  for (size_t k = 0; k < ia.size(); ++k) {
    int64_t x = a.i[ia[k]], y = b.i[ib[k]], r = 0;
    if (compare) {
      out.i[k] = compareValues(kind, x, y);
      continue;
    }
    uint64_t ux = uint64_t(x), uy = uint64_t(y);
    switch (kind) {
    case BinaryKind::Add:
      r = int64_t(ux + uy);
      break;
    case BinaryKind::Sub:
      r = int64_t(ux - uy);
      break;
    case BinaryKind::Mul:
      r = int64_t(ux * uy);
      break;
    case BinaryKind::Div:
    case BinaryKind::Mod:
    case BinaryKind::FMod:
      if (y == 0 || (y == -1 && x == std::numeric_limits<int64_t>::min()))
        return std::nullopt;
      if (kind == BinaryKind::Div) {
        r = x / y;
      } else {
        r = x % y;
        if (kind == BinaryKind::Mod && r != 0 && ((r < 0) != (y < 0)))
          r += y;
      }
      break;
    case BinaryKind::Pow:
      r = intPow(x, y);
      break;
    case BinaryKind::Max:
      r = std::max(x, y);
      break;
    case BinaryKind::Min:
      r = std::min(x, y);
      break;
    case BinaryKind::And:
      r = x & y;
      break;
    case BinaryKind::Or:
      r = x | y;
      break;
    case BinaryKind::Xor:
      r = x ^ y;
      break;
    case BinaryKind::ShiftLeft:
    case BinaryKind::ShiftRight:
      // Shifts by the width or more give 0 (arithmetic right shifts of
      // negative values are not folded).
      if (y < 0 || (kind == BinaryKind::ShiftRight && x < 0))
        return std::nullopt;
      r = y >= int64_t(width)             ? 0
          : kind == BinaryKind::ShiftLeft ? int64_t(ux << uy)
                                          : int64_t(ux >> uy);
      break;
    default: // the comparisons, above
      break;
    }
    out.i[k] = wrap(r, width);
  }
  return out;
}

std::optional<Literal> evalUnary(UnaryOp op, const Literal &x) {
  Literal out = make(op.getType());
  UnaryKind kind = op.getKind();
  if (!x.isFloat()) {
    unsigned width = x.type.getElementTypeBitWidth();
    for (int64_t k = 0; k < x.size(); ++k) {
      int64_t v = x.i[k];
      switch (kind) {
      case UnaryKind::Abs:
        v = v < 0 ? int64_t(0 - uint64_t(v)) : v;
        break;
      case UnaryKind::Neg:
        v = int64_t(0 - uint64_t(v));
        break;
      case UnaryKind::Sign:
        v = (v > 0) - (v < 0);
        break;
      case UnaryKind::Not:
        v = op.getType().getElementType().isInteger(1) ? !v : ~v;
        break;
      default:
        return std::nullopt;
      }
      out.i[k] = wrap(v, width);
    }
    return out;
  }
  for (int64_t k = 0; k < x.size(); ++k) {
    double v = x.f[k];
    switch (kind) {
    case UnaryKind::Exp:
      v = std::exp(v);
      break;
    case UnaryKind::Log:
      v = std::log(v);
      break;
    case UnaryKind::Sqrt:
      v = std::sqrt(v);
      break;
    case UnaryKind::Recip:
      v = 1.0 / v;
      break;
    case UnaryKind::Abs:
      v = std::fabs(v);
      break;
    case UnaryKind::Neg:
      v = -v;
      break;
    case UnaryKind::Sin:
      v = std::sin(v);
      break;
    case UnaryKind::Cos:
      v = std::cos(v);
      break;
    case UnaryKind::Tan:
      v = std::tan(v);
      break;
    case UnaryKind::Sinh:
      v = std::sinh(v);
      break;
    case UnaryKind::Cosh:
      v = std::cosh(v);
      break;
    case UnaryKind::Asin:
      v = std::asin(v);
      break;
    case UnaryKind::Acos:
      v = std::acos(v);
      break;
    case UnaryKind::Atan:
      v = std::atan(v);
      break;
    case UnaryKind::Asinh:
      v = std::asinh(v);
      break;
    case UnaryKind::Acosh:
      v = std::acosh(v);
      break;
    case UnaryKind::Atanh:
      v = std::atanh(v);
      break;
    case UnaryKind::Ceil:
      v = std::ceil(v);
      break;
    case UnaryKind::Floor:
      v = std::floor(v);
      break;
    case UnaryKind::Round:
      v = std::nearbyint(v);
      break; // half to even
    case UnaryKind::Erf:
      v = std::erf(v);
      break;
    case UnaryKind::Sign:
      v = std::isnan(v) ? v : double((v > 0) - (v < 0));
      break;
    case UnaryKind::Not:
      return std::nullopt;
    }
    out.f[k] = v;
  }
  return out;
}

/// Whether kiln.cast to or from `type` follows rules of its own (the 8-bit
/// and 4-bit floats, the sub-byte integers) that the lowering implements
/// and the folder does not.
bool hasOwnCastRules(Type type) {
  unsigned width = type.getIntOrFloatBitWidth();
  return isa<FloatType>(type) ? width <= 8 : width > 1 && width < 8;
}

std::optional<Literal> evalCast(CastOp op, const Literal &x) {
  if (hasOwnCastRules(op.getType().getElementType()) ||
      hasOwnCastRules(op.getInput().getType().getElementType()))
    return std::nullopt;
  Literal out = make(op.getType());
  if (out.isFloat()) {
    for (int64_t k = 0; k < x.size(); ++k)
      out.f[k] = x.asDouble(k);
    return out;
  }
  unsigned width = out.type.getElementTypeBitWidth();
  for (int64_t k = 0; k < x.size(); ++k) {
    if (!x.isFloat()) {
      out.i[k] = width == 1 ? x.i[k] != 0 : wrap(x.i[k], width);
      continue;
    }
    double v = x.f[k];
    if (width == 1) {
      out.i[k] = v != 0;
      continue;
    }
    double t = std::trunc(v);
    double limit = std::ldexp(1.0, width - 1);
    if (!(t >= -limit && t < limit)) // NaN, or out of range: undefined
      return std::nullopt;
    out.i[k] = static_cast<int64_t>(t);
  }
  return out;
}

std::optional<Literal> evalSelect(SelectOp op, const Literal &c,
                                  const Literal &a, const Literal &b) {
  Literal out = make(op.getType());
  std::vector<int64_t> ic = broadcastIndex(c.shape(), out.shape());
  std::vector<int64_t> ia = broadcastIndex(a.shape(), out.shape());
  std::vector<int64_t> ib = broadcastIndex(b.shape(), out.shape());
  for (size_t k = 0; k < ic.size(); ++k) {
    bool t = c.i[ic[k]] != 0;
    if (out.isFloat())
      out.f[k] = t ? a.f[ia[k]] : b.f[ib[k]];
    else
      out.i[k] = t ? a.i[ia[k]] : b.i[ib[k]];
  }
  return out;
}

/// Copies element `from` of `src` to element `to` of `dst`.
void copyElement(Literal &dst, int64_t to, const Literal &src, int64_t from) {
  if (dst.isFloat())
    dst.f[to] = src.f[from];
  else
    dst.i[to] = src.i[from];
}

std::optional<Literal> evalConcat(ConcatOp op, ArrayRef<Literal> inputs) {
  Literal out = make(op.getType());
  int64_t axis = op.getAxis();
  ArrayRef<int64_t> shape = out.shape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1, e = shape.size(); d < e; ++d)
    inner *= shape[d];
  int64_t at = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (const Literal &in : inputs) {
      int64_t chunk = in.shape()[axis] * inner;
      for (int64_t k = 0; k < chunk; ++k)
        copyElement(out, at++, in, o * chunk + k);
    }
  return out;
}

std::optional<Literal> evalSlice(SliceOp op, const Literal &x) {
  Literal out = make(op.getType());
  SmallVector<int64_t> stride = stridesOf(x.shape());
  ArrayRef<int64_t> start = op.getStart(), step = op.getStride();
  forEachIndex(out.shape(), [&](int64_t k, ArrayRef<int64_t> pos) {
    int64_t from = 0;
    for (size_t d = 0; d < pos.size(); ++d)
      from += (start[d] + pos[d] * step[d]) * stride[d];
    copyElement(out, k, x, from);
  });
  return out;
}

std::optional<Literal> evalTranspose(TransposeOp op, const Literal &x) {
  Literal out = make(op.getType());
  SmallVector<int64_t> stride = stridesOf(x.shape());
  ArrayRef<int64_t> perm = op.getPermutation();
  forEachIndex(out.shape(), [&](int64_t k, ArrayRef<int64_t> pos) {
    int64_t from = 0;
    for (size_t d = 0; d < pos.size(); ++d)
      from += pos[d] * stride[perm[d]];
    copyElement(out, k, x, from);
  });
  return out;
}

/// Gather (`elements` false) and GatherElements (true).
std::optional<Literal> evalGather(Operation *op, int64_t axis, bool elements,
                                  const Literal &data, const Literal &indices) {
  Literal out = make(cast<RankedTensorType>(op->getResult(0).getType()));
  ArrayRef<int64_t> shape = data.shape();
  int64_t extent = shape[axis];
  SmallVector<int64_t> stride = stridesOf(shape);
  int64_t irank = indices.type.getRank();
  SmallVector<int64_t> istride = stridesOf(indices.shape());
  bool ok = true;
  forEachIndex(out.shape(), [&](int64_t k, ArrayRef<int64_t> pos) {
    int64_t index = elements ? indices.i[k] : 0;
    if (!elements) {
      // pos = data[:axis] + indices.shape + data[axis+1:]
      int64_t flat = 0;
      for (int64_t d = 0; d < irank; ++d)
        flat += pos[axis + d] * istride[d];
      index = indices.i[flat];
    }
    if (index < 0)
      index += extent;
    if (index < 0 || index >= extent) {
      ok = false;
      return;
    }
    int64_t from = 0;
    for (int64_t d = 0, e = shape.size(); d < e; ++d) {
      int64_t p = d < axis || elements ? pos[d]
                  : d == axis          ? index
                                       : pos[d + irank - 1];
      if (elements && d == axis)
        p = index;
      from += p * stride[d];
    }
    copyElement(out, k, data, from);
  });
  if (!ok)
    return std::nullopt;
  return out;
}

std::optional<Literal> evalReduce(ReduceOp op, const Literal &x) {
  Literal out = make(op.getType());
  ReduceKind kind = op.getKind();
  if (!x.isFloat() && kind != ReduceKind::Sum && kind != ReduceKind::Max &&
      kind != ReduceKind::Min && kind != ReduceKind::Prod)
    return std::nullopt;
  ArrayRef<int64_t> shape = x.shape();
  SmallVector<bool> reduced(shape.size(), false);
  for (int64_t a : op.getAxes())
    reduced[a] = true;
  // The result index of each input element (with kept dims of size 1).
  SmallVector<int64_t> keptShape;
  for (size_t d = 0; d < shape.size(); ++d)
    keptShape.push_back(reduced[d] ? 1 : shape[d]);
  SmallVector<int64_t> keptStride = stridesOf(keptShape);
  int64_t count = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    if (reduced[d])
      count *= shape[d];
  int64_t n = out.size();
  std::vector<double> accF(n);
  std::vector<int64_t> accI(n);
  std::vector<bool> seen(n, false);
  unsigned width = x.type.getElementTypeBitWidth();
  forEachIndex(shape, [&](int64_t k, ArrayRef<int64_t> pos) {
    int64_t to = 0;
    for (size_t d = 0; d < pos.size(); ++d)
      to += (reduced[d] ? 0 : pos[d]) * keptStride[d];
    if (!x.isFloat()) {
      int64_t v = x.i[k];
      int64_t &acc = accI[to];
      if (!seen[to])
        acc = v;
      else if (kind == ReduceKind::Sum)
        acc = int64_t(uint64_t(acc) + uint64_t(v));
      else if (kind == ReduceKind::Prod)
        acc = int64_t(uint64_t(acc) * uint64_t(v));
      else if (kind == ReduceKind::Max)
        acc = std::max(acc, v);
      else
        acc = std::min(acc, v);
      acc = wrap(acc, width);
      seen[to] = true;
      return;
    }
    double v = x.f[k];
    switch (kind) {
    case ReduceKind::L1:
      v = std::fabs(v);
      break;
    case ReduceKind::L2:
    case ReduceKind::SumSquare:
      v = v * v;
      break;
    case ReduceKind::LogSumExp:
      v = std::exp(v);
      break;
    default:
      break;
    }
    double &acc = accF[to];
    if (!seen[to])
      acc = v;
    else if (kind == ReduceKind::Max)
      acc = std::isnan(acc) || std::isnan(v) ? NAN : std::max(acc, v);
    else if (kind == ReduceKind::Min)
      acc = std::isnan(acc) || std::isnan(v) ? NAN : std::min(acc, v);
    else if (kind == ReduceKind::Prod)
      acc *= v;
    else
      acc += v;
    seen[to] = true;
  });
  for (int64_t k = 0; k < n; ++k) {
    if (!x.isFloat()) {
      out.i[k] = seen[k] ? accI[k] : 0;
      continue;
    }
    double v = accF[k];
    if (!seen[k]) // an empty reduction: the identity
      v = kind == ReduceKind::Prod  ? 1.0
          : kind == ReduceKind::Max ? -INFINITY
          : kind == ReduceKind::Min ? INFINITY
                                    : 0.0;
    switch (kind) {
    case ReduceKind::Mean:
      v = count ? v / double(count) : NAN;
      break;
    case ReduceKind::L2:
      v = std::sqrt(v);
      break;
    case ReduceKind::LogSum:
    case ReduceKind::LogSumExp:
      v = std::log(v);
      break;
    default:
      break;
    }
    out.f[k] = v;
  }
  if (!x.isFloat() && llvm::is_contained(seen, false) &&
      (kind == ReduceKind::Max || kind == ReduceKind::Min))
    return std::nullopt;
  return out;
}

std::optional<Literal> evalPad(PadOp op, const Literal &x) {
  if (op.getMode() != PadMode::Constant)
    return std::nullopt;
  Literal out = make(op.getType());
  ArrayRef<int64_t> pads = op.getPads(), shape = x.shape();
  int64_t rank = shape.size();
  SmallVector<int64_t> stride = stridesOf(shape);
  double value = op.getValue().convertToDouble();
  forEachIndex(out.shape(), [&](int64_t k, ArrayRef<int64_t> pos) {
    int64_t from = 0;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t p = pos[d] - pads[d];
      if (p < 0 || p >= shape[d]) {
        from = -1;
        break;
      }
      from += p * stride[d];
    }
    if (from >= 0)
      copyElement(out, k, x, from);
    else if (out.isFloat())
      out.f[k] = value;
    else
      out.i[k] = static_cast<int64_t>(value);
  });
  return out;
}

/// The ops that only reinterpret the elements with the result's shape.
bool keepsElements(Operation *op) {
  return op->hasTrait<OpTrait::kiln::ReshapeLike>();
}

} // namespace

ElementsAttr mlir::kiln::evaluateConstant(Operation *op,
                                          ArrayRef<Attribute> operands,
                                          int64_t maxElements) {
  if (op->getNumResults() != 1 || isa<ConstantOp>(op))
    return nullptr;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  // Sizes are checked before anything is read: a splat of a huge type is
  // one value in the IR and would be expanded here.
  auto small = [&](Type t, int64_t limit) {
    auto shaped = dyn_cast<RankedTensorType>(t);
    std::optional<int64_t> n = shaped && shaped.hasStaticShape()
                                   ? detail::elementCount(shaped.getShape())
                                   : std::nullopt;
    return n && *n <= limit;
  };
  if (!type || !small(type, maxElements))
    return nullptr;
  for (Attribute attr : operands) {
    auto elements = dyn_cast_if_present<ElementsAttr>(attr);
    if (!elements || !small(elements.getType(), maxElements))
      return nullptr;
  }
  if (!isa<BinaryOp, UnaryOp, CastOp, SelectOp, ConcatOp, SliceOp, TransposeOp,
           GatherOp, GatherElementsOp, ReduceOp, PadOp>(op) &&
      !keepsElements(op))
    return nullptr;
  // Weights held in resource blobs are only read to make small results (a
  // mask sliced out of a buffer): a reshape of them costs nothing at run
  // time, and a large copy would live in the context as a dense attribute.
  if (llvm::any_of(operands, llvm::IsaPred<DenseResourceElementsAttr>) &&
      (keepsElements(op) || !small(type, kMaxElementsFromBlobs)))
    return nullptr;
  SmallVector<Literal> in;
  for (Attribute attr : operands) {
    std::optional<Literal> lit = read(attr);
    if (!lit)
      return nullptr;
    in.push_back(std::move(*lit));
  }
  if (in.size() != op->getNumOperands() || in.empty())
    return nullptr;
  std::optional<Literal> out;
  if (keepsElements(op)) {
    out = std::move(in[0]);
    out->type = type;
  } else {
    out = llvm::TypeSwitch<Operation *, std::optional<Literal>>(op)
              .Case([&](BinaryOp o) { return evalBinary(o, in[0], in[1]); })
              .Case([&](UnaryOp o) { return evalUnary(o, in[0]); })
              .Case([&](CastOp o) { return evalCast(o, in[0]); })
              .Case([&](SelectOp o) {
                return evalSelect(o, in[0], in[1], in[2]);
              })
              .Case([&](ConcatOp o) { return evalConcat(o, in); })
              .Case([&](SliceOp o) { return evalSlice(o, in[0]); })
              .Case([&](TransposeOp o) { return evalTranspose(o, in[0]); })
              .Case([&](GatherOp o) {
                return evalGather(o, o.getAxis(), false, in[0], in[1]);
              })
              .Case([&](GatherElementsOp o) {
                return evalGather(o, o.getAxis(), true, in[0], in[1]);
              })
              .Case([&](ReduceOp o) { return evalReduce(o, in[0]); })
              .Case([&](PadOp o) { return evalPad(o, in[0]); })
              .Default([](Operation *) { return std::nullopt; });
  }
  if (!out)
    return nullptr;
  return write(*out);
}
