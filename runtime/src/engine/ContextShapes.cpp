//===- ContextShapes.cpp - run-time shapes of a context ---------*- C++ -*-===//
//
// Plans with run-time shapes (format 1.4): the context keeps the shape set
// for each input, resolves the plan's symbols from them when it enqueues
// (refusing shapes outside the current profile, inputs that disagree on a
// size the plan computes as one, and inputs without a shape), checks the
// plan at each new set of shapes once (verifyPlanAtShapes), and writes the
// values of the shape expressions into the prepared steps' slots. The
// seeds' enqueue(batchSize, bindings, ...) sets every input's batch.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Runtime.h"

#include "engine/StepKinds.h"
#include "plan/ShapeProgram.h"

namespace kiln::rt {

namespace {

/// The most sets of shapes a context remembers as verified.
constexpr size_t kVerifiedShapes = 64;

/// "profile 0 (min 1x4, opt 8x4, max 64x4)".
std::string describeRange(const TensorDesc &t, size_t profile) {
  if (profile >= t.profiles.size())
    return "no profile " + std::to_string(profile);
  const ShapeRange &r = t.profiles[profile];
  return "profile " + std::to_string(profile) + ": min " +
         detail::shapeText(r.min) + ", opt " + detail::shapeText(r.opt) +
         ", max " + detail::shapeText(r.max);
}

} // namespace

int Engine::numOptimizationProfiles() const {
  return static_cast<int>(numProfiles(plan_));
}

Status ExecutionContext::setOptimizationProfile(int index) {
  int count = engine_.numOptimizationProfiles();
  if (index < 0 || index >= count)
    return Status(StatusCode::InvalidArgument,
                  "optimization profile " + std::to_string(index) +
                      " does not exist: the plan has " + std::to_string(count) +
                      (count ? " (0.." + std::to_string(count - 1) + ")"
                             : " (its shapes are static)"));
  profile_ = index;
  return Status::ok();
}

Status ExecutionContext::setInputShape(const std::string &name,
                                       const std::vector<int64_t> &dims) {
  int index = engine_.findTensor(name);
  if (index < 0)
    return Status(StatusCode::NotFound,
                  "the engine has no tensor named '" + name + "'");
  const TensorDesc &t = engine_.plan_.tensors[index];
  if (!t.isInput)
    return Status(StatusCode::InvalidArgument,
                  detail::tensorLabel(t) +
                      " is an output: its shape follows from the inputs' "
                      "(getTensorShape)");
  if (Status s = checkShape(t, dims, static_cast<size_t>(profile_)); !s)
    return s;
  inputShapes_[index] = dims;
  return Status::ok();
}

Status ExecutionContext::resolveSymbols(std::vector<int64_t> &symbols,
                                        bool all) const {
  const PlanContents &plan = engine_.plan_;
  symbols.assign(plan.symbols.size(), -1);
  if (all)
    for (size_t i = 0; i < plan.tensors.size(); ++i)
      if (plan.tensors[i].isInput && plan.tensors[i].isDynamic() &&
          inputShapes_[i].empty())
        return Status(
            StatusCode::InvalidArgument,
            detail::tensorLabel(plan.tensors[i]) + " has dynamic shape " +
                detail::shapeText(plan.tensors[i].shape) +
                " and none was set: call setInputShape before enqueue (" +
                describeRange(plan.tensors[i], profile_) + ")");
  for (size_t s = 0; s < plan.symbols.size(); ++s) {
    const DimRef *first = nullptr;
    for (const DimRef &ref : plan.symbols[s].dims) {
      const std::vector<int64_t> &shape = inputShapes_[ref.tensor];
      if (shape.empty())
        continue;
      if (!first) {
        first = &ref;
        symbols[s] = shape[ref.dim];
        continue;
      }
      if (shape[ref.dim] != symbols[s])
        return Status(StatusCode::InvalidArgument,
                      detail::tensorLabel(plan.tensors[ref.tensor]) +
                          " dimension " + std::to_string(ref.dim) + " is " +
                          std::to_string(shape[ref.dim]) + ", but " +
                          detail::tensorLabel(plan.tensors[first->tensor]) +
                          " dimension " + std::to_string(first->dim) + " is " +
                          std::to_string(symbols[s]) +
                          ": the plan computes them as one size (symbol " +
                          std::to_string(s) + ")");
    }
  }
  return Status::ok();
}

Status ExecutionContext::bindShapes() {
  const PlanContents &plan = engine_.plan_;
  std::vector<int64_t> symbols;
  if (Status s = resolveSymbols(symbols, /*all=*/true); !s)
    return s;
  // The profile may have changed since the shapes were set.
  for (size_t i = 0; i < plan.tensors.size(); ++i)
    if (plan.tensors[i].isInput && plan.tensors[i].isDynamic())
      if (Status s = checkShape(plan.tensors[i], inputShapes_[i],
                                static_cast<size_t>(profile_));
          !s)
        return s;
  if (symbols == boundSymbols_)
    return Status::ok();
  bool verified = false;
  for (const std::vector<int64_t> &v : verifiedShapes_)
    verified |= v == symbols;
  if (!verified) {
    if (Status s = verifyPlanAtShapes(plan, symbols); !s)
      return Status(StatusCode::InvalidArgument,
                    "the plan is inconsistent at these shapes: " + s.message());
    if (verifiedShapes_.size() == kVerifiedShapes)
      verifiedShapes_.erase(verifiedShapes_.begin());
    verifiedShapes_.push_back(symbols);
  }
  std::vector<int64_t> exprs;
  exprs.reserve(plan.shapeExprs.size());
  for (const ShapeExpr &expr : plan.shapeExprs)
    exprs.push_back(*evaluateShapeExpr(expr, symbols)); // verified above
  for (const detail::Program::ShapeFixup &f : program_->shapeFixups)
    *f.slot = static_cast<uint64_t>(exprs[f.expr]);
  boundSymbols_ = std::move(symbols);
  boundExprs_ = std::move(exprs);
  return Status::ok();
}

std::vector<int64_t> ExecutionContext::boundShape(size_t index) const {
  const PlanContents &plan = engine_.plan_;
  const TensorDesc &t = plan.tensors[index];
  if (t.isInput)
    return inputShapes_[index].empty() ? t.shape : inputShapes_[index];
  std::vector<int64_t> dims = t.shape;
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d] < 0 && !boundExprs_.empty())
      dims[d] = boundExprs_[t.dimExprs[d]];
  return dims;
}

StatusOr<std::vector<int64_t>>
ExecutionContext::getTensorShape(const std::string &name) const {
  int index = engine_.findTensor(name);
  if (index < 0)
    return Status(StatusCode::NotFound,
                  "the engine has no tensor named '" + name + "'");
  const PlanContents &plan = engine_.plan_;
  const TensorDesc &t = plan.tensors[index];
  if (!t.isDynamic())
    return t.shape;
  if (t.isInput)
    return inputShapes_[index].empty() ? t.shape : inputShapes_[index];
  std::vector<int64_t> symbols;
  if (Status s = resolveSymbols(symbols, /*all=*/false); !s)
    return s;
  // A dimension whose expression needs a symbol not known stays -1.
  std::vector<int64_t> dims = t.shape;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] >= 0)
      continue;
    const ShapeExpr &expr = plan.shapeExprs[t.dimExprs[d]];
    bool known = true;
    for (const ShapeExpr::Term &term : expr.code)
      known &= term.op != ShapeExpr::Op::Symbol || symbols[term.value] >= 0;
    if (known)
      dims[d] = evaluateShapeExpr(expr, symbols).value_or(-1);
  }
  return dims;
}

Status ExecutionContext::enqueue(int32_t batchSize, void *const *bindings,
                                 void *stream, void *inputConsumed) {
  const PlanContents &plan = engine_.plan_;
  if (!bindings && !plan.tensors.empty())
    return Status(StatusCode::InvalidArgument,
                  "enqueue(batchSize, bindings, ...): bindings is null; it "
                  "holds one device address per tensor, in plan order");
  // Check everything before changing anything.
  std::vector<std::vector<int64_t>> shapes(plan.tensors.size());
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const TensorDesc &t = plan.tensors[i];
    if (!t.isInput)
      continue;
    bool batched = !t.shape.empty() && t.shape[0] == -1;
    for (size_t d = 1; d < t.shape.size(); ++d)
      batched &= t.shape[d] >= 0;
    if (!batched)
      return Status(StatusCode::InvalidArgument,
                    "enqueue(batchSize, ...) takes plans whose inputs vary "
                    "in their first dimension only (built with --max-batch), "
                    "but " +
                        detail::tensorLabel(t) + " has shape " +
                        detail::shapeText(t.shape) +
                        ": use setInputShape and enqueue(stream)");
    shapes[i] = t.shape;
    shapes[i][0] = batchSize;
    if (Status s = checkShape(t, shapes[i], static_cast<size_t>(profile_)); !s)
      return Status(s.code(), "batch size " + std::to_string(batchSize) + ": " +
                                  s.message());
  }
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    uint64_t ptr = reinterpret_cast<uint64_t>(bindings[i]);
    if (Status s = setTensorAddress(plan.tensors[i].name, ptr); !s)
      return s;
    if (!shapes[i].empty())
      inputShapes_[i] = shapes[i];
  }
  void *saved = inputConsumed_;
  inputConsumed_ = inputConsumed;
  Status status = enqueue(stream);
  inputConsumed_ = saved;
  return status;
}

} // namespace kiln::rt
