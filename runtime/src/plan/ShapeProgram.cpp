//===- ShapeProgram.cpp - symbols, profiles, expressions --------*- C++ -*-===//
//
// Format 1.4's run-time shapes: evaluating a shape expression (a postfix
// program over the symbols, with overflow checked), the profile of each
// dynamic input, and the checks of ShapeProgram.h.
//
//===----------------------------------------------------------------------===//

#include "plan/ShapeProgram.h"

#include <algorithm>

namespace kiln::rt {

size_t numProfiles(const PlanContents &plan) {
  for (const TensorDesc &t : plan.tensors)
    if (t.isInput && !t.profiles.empty())
      return t.profiles.size();
  return 0;
}

std::vector<std::vector<int64_t>> largestShapes(const PlanContents &plan) {
  detail::ShapeSpace space;
  if (!detail::checkShapeProgram(plan, StatusCode::InvalidArgument, space))
    return {};
  std::vector<std::vector<int64_t>> shapes;
  shapes.reserve(plan.tensors.size());
  for (size_t i = 0; i < plan.tensors.size(); ++i)
    shapes.push_back(
        detail::shapeAt(plan, space, i, space.high, space.exprHigh));
  return shapes;
}

std::optional<int64_t> evaluateShapeExpr(const ShapeExpr &expr,
                                         const std::vector<int64_t> &symbols) {
  using Op = ShapeExpr::Op;
  std::vector<int64_t> stack;
  stack.reserve(expr.code.size());
  for (const ShapeExpr::Term &t : expr.code) {
    switch (t.op) {
    case Op::Const:
      if (t.value < 0)
        return std::nullopt;
      stack.push_back(t.value);
      continue;
    case Op::Symbol:
      if (t.value < 0 || static_cast<uint64_t>(t.value) >= symbols.size())
        return std::nullopt;
      stack.push_back(symbols[t.value]);
      continue;
    case Op::CeilDiv:
    case Op::FloorDiv: {
      if (stack.empty() || t.value <= 0)
        return std::nullopt;
      int64_t a = stack.back();
      stack.back() =
          t.op == Op::FloorDiv ? a / t.value : a / t.value + (a % t.value != 0);
      continue;
    }
    case Op::Add:
    case Op::Mul:
    case Op::Min:
    case Op::Max:
      break;
    default:
      return std::nullopt;
    }
    if (stack.size() < 2)
      return std::nullopt;
    int64_t b = stack.back();
    stack.pop_back();
    int64_t &a = stack.back();
    if ((t.op == Op::Add && __builtin_add_overflow(a, b, &a)) ||
        (t.op == Op::Mul && __builtin_mul_overflow(a, b, &a)))
      return std::nullopt;
    if (t.op == Op::Min)
      a = std::min(a, b);
    if (t.op == Op::Max)
      a = std::max(a, b);
  }
  if (stack.size() != 1)
    return std::nullopt;
  return stack.back();
}

namespace detail {

std::string tensorLabel(const TensorDesc &t) {
  return (t.isInput ? "input '" : "output '") + t.name + "'";
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? "x" : "") + (shape[i] < 0 ? "?" : std::to_string(shape[i]));
  return out.empty() ? std::string("scalar") : out;
}

std::vector<int64_t> shapeAt(const PlanContents &plan, const ShapeSpace &space,
                             size_t index, const std::vector<int64_t> &symbols,
                             const std::vector<int64_t> &exprs) {
  const TensorDesc &t = plan.tensors[index];
  std::vector<int64_t> dims = t.shape;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] >= 0)
      continue;
    if (t.isInput)
      dims[d] = symbols[space.symbolOf[index][d]];
    else
      dims[d] = exprs[t.dimExprs[d]];
  }
  return dims;
}

namespace {

/// Runs the checks of checkShapeProgram.
class ShapeProgramChecker {
public:
  ShapeProgramChecker(const PlanContents &plan, StatusCode code,
                      ShapeSpace &space)
      : plan_(plan), code_(code), space_(space) {}

  Status run() {
    profiles_ = numProfiles(plan_);
    space_.symbolOf.assign(plan_.tensors.size(), {});
    for (size_t i = 0; i < plan_.tensors.size(); ++i)
      space_.symbolOf[i].assign(plan_.tensors[i].shape.size(), -1);
    if (Status s = checkSymbols(); !s)
      return s;
    for (size_t i = 0; i < plan_.tensors.size(); ++i)
      if (Status s = checkTensor(i); !s)
        return s;
    if (Status s = checkRanges(); !s)
      return s;
    return checkExprs();
  }

private:
  Status fail(std::string message) const {
    return Status(code_, std::move(message));
  }
  std::string name(size_t tensor) const {
    return tensorLabel(plan_.tensors[tensor]);
  }

  /// Every symbol names dynamic input dimensions, each at most once.
  Status checkSymbols() {
    for (size_t s = 0; s < plan_.symbols.size(); ++s) {
      const ShapeSymbol &symbol = plan_.symbols[s];
      std::string where = "symbol " + std::to_string(s);
      if (symbol.dims.empty())
        return fail(where + " names no input dimension");
      for (const DimRef &ref : symbol.dims) {
        if (ref.tensor >= plan_.tensors.size() ||
            !plan_.tensors[ref.tensor].isInput)
          return fail(where + " names tensor " + std::to_string(ref.tensor) +
                      ", expected an input");
        const TensorDesc &t = plan_.tensors[ref.tensor];
        if (ref.dim >= t.shape.size() || t.shape[ref.dim] != -1)
          return fail(where + " names dimension " + std::to_string(ref.dim) +
                      " of " + name(ref.tensor) + " (shape " +
                      shapeText(t.shape) + "), expected a dynamic one");
        int32_t &owner = space_.symbolOf[ref.tensor][ref.dim];
        if (owner != -1)
          return fail(name(ref.tensor) + " dimension " +
                      std::to_string(ref.dim) + " belongs to symbols " +
                      std::to_string(owner) + " and " + std::to_string(s) +
                      ", expected one");
        owner = static_cast<int32_t>(s);
      }
    }
    return Status::ok();
  }

  /// An input's profiles, an output's expressions.
  Status checkTensor(size_t index) {
    const TensorDesc &t = plan_.tensors[index];
    bool dynamic = false;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (t.shape[d] < -1) {
        std::string shape;
        for (int64_t v : t.shape)
          shape += (shape.empty() ? "" : ",") + std::to_string(v);
        return fail("tensor '" + t.name + "' has dimension " +
                    std::to_string(t.shape[d]) + " at index " +
                    std::to_string(d) + " of shape [" + shape +
                    "], expected >= 0 (or -1 for a dynamic one)");
      }
      dynamic |= t.shape[d] == -1;
    }
    if (!t.isInput)
      return checkOutput(index, dynamic);
    if (!t.dimExprs.empty())
      return fail(name(index) + " has dimension expressions, which only "
                                "outputs have");
    if (!dynamic) {
      if (!t.profiles.empty())
        return fail(name(index) + " has a static shape " + shapeText(t.shape) +
                    " and " + std::to_string(t.profiles.size()) +
                    " profile(s), expected none");
      return Status::ok();
    }
    for (size_t d = 0; d < t.shape.size(); ++d)
      if (t.shape[d] == -1 && space_.symbolOf[index][d] == -1)
        return fail(name(index) + " dimension " + std::to_string(d) +
                    " is dynamic but belongs to no symbol");
    if (t.profiles.size() != profiles_)
      return fail(name(index) + " has " + std::to_string(t.profiles.size()) +
                  " profile(s), expected " + std::to_string(profiles_) +
                  ", as every dynamic input");
    for (size_t p = 0; p < t.profiles.size(); ++p) {
      const ShapeRange &r = t.profiles[p];
      // Messages are built only on failure: names may be long.
      auto where = [&] {
        return name(index) + " profile " + std::to_string(p);
      };
      if (r.min.size() != t.shape.size() || r.opt.size() != t.shape.size() ||
          r.max.size() != t.shape.size())
        return fail(where() + " has min " + shapeText(r.min) + ", opt " +
                    shapeText(r.opt) + ", max " + shapeText(r.max) +
                    ", expected each of rank " +
                    std::to_string(t.shape.size()) + " (shape " +
                    shapeText(t.shape) + ")");
      for (size_t d = 0; d < t.shape.size(); ++d) {
        auto dim = [&] { return where() + " dimension " + std::to_string(d); };
        if (t.shape[d] >= 0 &&
            (r.min[d] != t.shape[d] || r.opt[d] != t.shape[d] ||
             r.max[d] != t.shape[d]))
          return fail(dim() + " is static (" + std::to_string(t.shape[d]) +
                      "), but the profile gives min " + shapeText(r.min) +
                      ", opt " + shapeText(r.opt) + ", max " +
                      shapeText(r.max));
        if (t.shape[d] < 0 &&
            !(1 <= r.min[d] && r.min[d] <= r.opt[d] && r.opt[d] <= r.max[d]))
          return fail(dim() + " has min " + std::to_string(r.min[d]) +
                      ", opt " + std::to_string(r.opt[d]) + ", max " +
                      std::to_string(r.max[d]) +
                      ", expected 1 <= min <= opt <= max");
      }
    }
    return Status::ok();
  }

  Status checkOutput(size_t index, bool dynamic) {
    const TensorDesc &t = plan_.tensors[index];
    if (!t.profiles.empty())
      return fail(name(index) + " has profiles, which only inputs have");
    if (!dynamic && t.dimExprs.empty())
      return Status::ok();
    if (t.dimExprs.size() != t.shape.size())
      return fail(name(index) + " has " + std::to_string(t.dimExprs.size()) +
                  " dimension expression(s) for shape " + shapeText(t.shape) +
                  ", expected one per dimension");
    for (size_t d = 0; d < t.shape.size(); ++d) {
      int32_t e = t.dimExprs[d];
      bool valid = e >= 0 && static_cast<size_t>(e) < plan_.shapeExprs.size();
      if (t.shape[d] == -1 ? !valid : e != kNoShapeExpr)
        return fail(name(index) + " dimension " + std::to_string(d) +
                    " has expression " + std::to_string(e) + ", expected " +
                    (t.shape[d] == -1
                         ? "one of the plan's " +
                               std::to_string(plan_.shapeExprs.size())
                         : std::string("none (-1) for a static dimension")));
    }
    return Status::ok();
  }

  /// The dimensions of one symbol have one range in each profile (so an
  /// input's own range is the symbol's, and what setInputShape accepts is
  /// within the largest shapes); the symbol's overall range.
  Status checkRanges() {
    size_t n = plan_.symbols.size();
    if (n != 0 && profiles_ == 0)
      return fail("the plan has " + std::to_string(n) +
                  " symbol(s) but no profile");
    space_.low.assign(n, INT64_MAX);
    space_.high.assign(n, 0);
    for (size_t p = 0; p < profiles_; ++p)
      for (size_t s = 0; s < n; ++s) {
        const DimRef &first = plan_.symbols[s].dims.front();
        const ShapeRange &f = plan_.tensors[first.tensor].profiles[p];
        int64_t lo = f.min[first.dim], hi = f.max[first.dim];
        for (const DimRef &ref : plan_.symbols[s].dims) {
          const ShapeRange &r = plan_.tensors[ref.tensor].profiles[p];
          if (r.min[ref.dim] != lo || r.max[ref.dim] != hi)
            return fail("profile " + std::to_string(p) + ": " +
                        name(ref.tensor) + " dimension " +
                        std::to_string(ref.dim) + " has range [" +
                        std::to_string(r.min[ref.dim]) + ", " +
                        std::to_string(r.max[ref.dim]) + "], but " +
                        name(first.tensor) + " dimension " +
                        std::to_string(first.dim) + ", the same size (symbol " +
                        std::to_string(s) + "), has [" + std::to_string(lo) +
                        ", " + std::to_string(hi) + "]: give them one range");
        }
        space_.low[s] = std::min(space_.low[s], lo);
        space_.high[s] = std::max(space_.high[s], hi);
      }
    return Status::ok();
  }

  /// Well-formed, and no overflow at the largest shapes (so none at any).
  Status checkExprs() {
    using Op = ShapeExpr::Op;
    size_t n = plan_.shapeExprs.size();
    space_.exprLow.assign(n, 0);
    space_.exprHigh.assign(n, 0);
    for (size_t e = 0; e < n; ++e) {
      const ShapeExpr &expr = plan_.shapeExprs[e];
      const std::string where = "shape expression " + std::to_string(e);
      if (expr.code.empty() || expr.code.size() > kMaxShapeExprTerms)
        return fail(where + " has " + std::to_string(expr.code.size()) +
                    " terms, expected 1.." +
                    std::to_string(kMaxShapeExprTerms));
      size_t depth = 0;
      for (size_t i = 0; i < expr.code.size(); ++i) {
        const ShapeExpr::Term &t = expr.code[i];
        std::string term = where + " term " + std::to_string(i);
        switch (t.op) {
        case Op::Const:
          if (t.value < 0)
            return fail(term + " is the constant " + std::to_string(t.value) +
                        ", expected >= 0 (expressions never decrease)");
          ++depth;
          break;
        case Op::Symbol:
          if (t.value < 0 || static_cast<uint64_t>(t.value) >= numSymbols())
            return fail(term + " names symbol " + std::to_string(t.value) +
                        ", but the plan has " + std::to_string(numSymbols()));
          ++depth;
          break;
        case Op::CeilDiv:
        case Op::FloorDiv:
          if (t.value <= 0)
            return fail(term + " divides by " + std::to_string(t.value) +
                        ", expected a divisor > 0");
          if (depth < 1)
            return fail(term + " divides an empty stack");
          break;
        case Op::Add:
        case Op::Mul:
        case Op::Min:
        case Op::Max:
          if (depth < 2)
            return fail(term + " needs two operands, the stack has " +
                        std::to_string(depth));
          --depth;
          break;
        default:
          return fail(term + " has operation " +
                      std::to_string(static_cast<int>(t.op)) +
                      ", expected const (0), symbol (1), add (2), mul (3), "
                      "min (4), max (5), ceildiv (6) or floordiv (7)");
        }
      }
      if (depth != 1)
        return fail(where + " leaves " + std::to_string(depth) +
                    " values, expected 1");
      auto high = evaluateShapeExpr(expr, space_.high);
      if (!high)
        return fail(where + " overflows at the largest shapes");
      space_.exprHigh[e] = *high;
      space_.exprLow[e] = *evaluateShapeExpr(expr, space_.low);
    }
    return Status::ok();
  }

  size_t numSymbols() const { return plan_.symbols.size(); }

  const PlanContents &plan_;
  StatusCode code_;
  ShapeSpace &space_;
  size_t profiles_ = 0;
};

} // namespace

Status checkShapeProgram(const PlanContents &plan, StatusCode code,
                         ShapeSpace &space) {
  return ShapeProgramChecker(plan, code, space).run();
}

} // namespace detail
} // namespace kiln::rt
