//===- Plan.cpp - plan contents and their consistency -----------*- C++ -*-===//
//
// The data types of I/O tensors and the consistency checks every plan passes
// before it is written (writePlan) and after it is read (readPlan): indices
// in range, enum values known, launch dimensions the hardware accepts, launch
// arguments that match their kernel's signature, integer arguments within
// their kernel's bounds (so that no launch sizes a loop or an index past its
// pointers' extents), a callee for every library call, and every address
// range (a pointer argument's extent included) inside its memory space, with
// overflow-safe arithmetic.
//
//===----------------------------------------------------------------------===//

#include "plan/PlanFormat.h"
#include "plan/ShapeProgram.h"

#include <cstdio>
#include <limits>
#include <map>

namespace kiln::rt {

int64_t dataTypeBytes(DataType type) {
  switch (type) {
  case DataType::F32:
  case DataType::I32:
    return 4;
  case DataType::F16:
  case DataType::BF16:
    return 2;
  case DataType::I8:
  case DataType::U8:
  case DataType::Bool:
  case DataType::F8E4M3FN:
  case DataType::F8E4M3FNUZ:
  case DataType::F8E5M2:
  case DataType::F8E5M2FNUZ:
  case DataType::F4E2M1:
  case DataType::I4:
  case DataType::U4:
  case DataType::I2:
  case DataType::U2:
    return 1;
  case DataType::I64:
  case DataType::U64:
  case DataType::F64:
    return 8;
  case DataType::I16:
  case DataType::U16:
    return 2;
  case DataType::U32:
    return 4;
  }
  return 0;
}

const char *dataTypeName(DataType type) {
  switch (type) {
  case DataType::F32:
    return "f32";
  case DataType::F16:
    return "f16";
  case DataType::BF16:
    return "bf16";
  case DataType::I8:
    return "i8";
  case DataType::I32:
    return "i32";
  case DataType::I64:
    return "i64";
  case DataType::Bool:
    return "bool";
  case DataType::F64:
    return "f64";
  case DataType::I16:
    return "i16";
  case DataType::U8:
    return "u8";
  case DataType::U16:
    return "u16";
  case DataType::U32:
    return "u32";
  case DataType::U64:
    return "u64";
  case DataType::F8E4M3FN:
    return "f8e4m3fn";
  case DataType::F8E4M3FNUZ:
    return "f8e4m3fnuz";
  case DataType::F8E5M2:
    return "f8e5m2";
  case DataType::F8E5M2FNUZ:
    return "f8e5m2fnuz";
  case DataType::F4E2M1:
    return "f4e2m1";
  case DataType::I4:
    return "i4";
  case DataType::U4:
    return "u4";
  case DataType::I2:
    return "i2";
  case DataType::U2:
    return "u2";
  }
  return "invalid";
}

int64_t TensorDesc::numElements() const {
  // Unsigned arithmetic: a shape that overflows (which verifyPlan refuses)
  // gives a meaningless number, not undefined behaviour.
  uint64_t n = 1;
  for (int64_t d : shape)
    n *= static_cast<uint64_t>(d);
  return static_cast<int64_t>(n);
}

bool TensorDesc::isDynamic() const {
  for (int64_t d : shape)
    if (d < 0)
      return true;
  return false;
}

Status checkShape(const TensorDesc &desc, const std::vector<int64_t> &dims,
                  size_t profile) {
  std::string what = detail::tensorLabel(desc);
  auto text = detail::shapeText;
  if (dims.size() != desc.shape.size())
    return Status(StatusCode::InvalidArgument,
                  what + " has rank " + std::to_string(dims.size()) +
                      " (shape " + text(dims) + "), but its shape " +
                      text(desc.shape) + " has rank " +
                      std::to_string(desc.shape.size()));
  const ShapeRange *range =
      profile < desc.profiles.size() ? &desc.profiles[profile] : nullptr;
  bool ranged = range && range->min.size() == dims.size() &&
                range->max.size() == dims.size();
  for (size_t i = 0; i < dims.size(); ++i) {
    std::string dim = what + " dimension " + std::to_string(i) + " is " +
                      std::to_string(dims[i]);
    if (desc.shape[i] >= 0 && dims[i] != desc.shape[i])
      return Status(StatusCode::InvalidArgument,
                    dim + ", but the shape " + text(desc.shape) +
                        " fixes it at " + std::to_string(desc.shape[i]));
    if (desc.shape[i] >= 0)
      continue;
    if (!ranged)
      return Status(StatusCode::InvalidArgument,
                    dim + ", but the dimension has no range (no profile" +
                        (profile ? " " + std::to_string(profile) : "") + ")");
    if (dims[i] < range->min[i] || dims[i] > range->max[i])
      return Status(StatusCode::InvalidArgument,
                    dim + ", outside its profile" +
                        (profile ? " " + std::to_string(profile) : "") +
                        "'s range [" + std::to_string(range->min[i]) + ", " +
                        std::to_string(range->max[i]) + "] (min " +
                        text(range->min) + ", max " + text(range->max) + ")");
  }
  return Status::ok();
}

Status verifyPlan(const PlanContents &plan) {
  return detail::checkPlanContents(plan, StatusCode::InvalidArgument);
}

Status verifyPlanAtShapes(const PlanContents &plan,
                          const std::vector<int64_t> &symbols) {
  return detail::checkPlanAtShapes(plan, symbols);
}

namespace detail {

std::string hex32(uint32_t value) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "0x%08x", value);
  return buffer;
}

std::string imageArchName(KernelImage::Format format, uint32_t arch) {
  return (format == KernelImage::Format::Cubin ? "sm_" : "compute_") +
         std::to_string(arch);
}

namespace {

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string formatDims(const std::array<uint32_t, 3> &d) {
  return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," +
         std::to_string(d[2]) + ")";
}

const char *formatName(KernelImage::Format format) {
  return format == KernelImage::Format::Cubin ? "cubin" : "PTX";
}

bool isKnownKind(KernelArg::Kind kind) {
  return kind == KernelArg::Kind::Pointer || kind == KernelArg::Kind::I32 ||
         kind == KernelArg::Kind::I64 || kind == KernelArg::Kind::F32;
}

/// "pointer", "i32", "i64", "f32".
const char *kindName(KernelArg::Kind kind) {
  switch (kind) {
  case KernelArg::Kind::Pointer:
    return "pointer";
  case KernelArg::Kind::I32:
    return "i32";
  case KernelArg::Kind::I64:
    return "i64";
  case KernelArg::Kind::F32:
    return "f32";
  }
  return "invalid";
}

const char *kKnownKinds = "pointer (0), i32 (1), i64 (2) or f32 (3)";

/// An integer argument as the kernel reads it: the low 4 bytes of an i32,
/// sign-extended.
int64_t integerValue(const KernelArg &arg) {
  return arg.kind == KernelArg::Kind::I32
             ? int64_t(static_cast<int32_t>(arg.bits))
             : static_cast<int64_t>(arg.bits);
}

bool isInteger(KernelArg::Kind kind) {
  return kind == KernelArg::Kind::I32 || kind == KernelArg::Kind::I64;
}

/// "none", "read", "write", "read-write".
const char *accessName(KernelArg::Access access) {
  switch (access) {
  case KernelArg::Access::None:
    return "none";
  case KernelArg::Access::Read:
    return "read";
  case KernelArg::Access::Write:
    return "write";
  case KernelArg::Access::ReadWrite:
    return "read-write";
  }
  return "invalid";
}

/// "(pointer, pointer, i64)".
std::string formatSignature(const std::vector<KernelArg::Kind> &params) {
  std::string s = "(";
  for (size_t i = 0; i < params.size(); ++i)
    s += (i ? ", " : "") + std::string(kindName(params[i]));
  return s + ")";
}

/// Runs the checks of checkPlanContents; the first failure wins.
class PlanChecker {
public:
  PlanChecker(const PlanContents &plan, StatusCode code)
      : plan_(plan), code_(code) {}

  Status run() {
    if (plan_.arenaBytes > kMaxArenaBytes)
      return fail("the arena is " + std::to_string(plan_.arenaBytes) +
                  " bytes, expected at most " + std::to_string(kMaxArenaBytes) +
                  " (1 TiB)");
    // Everything that varies is checked at the largest shapes, where the
    // plan's static values are; what lies between is checked at low.
    if (Status s = checkShapeProgram(plan_, code_, space_); !s)
      return s;
    symbolValues_ = space_.high;
    exprValues_ = space_.exprHigh;
    if (Status s = checkTensors(); !s)
      return s;
    if (Status s = checkKernelsAndImages(); !s)
      return s;
    return checkSteps();
  }

  /// The checks that depend on the shapes, at `symbols` (within the
  /// profiles of a plan that run() accepted).
  Status runAtShapes(const std::vector<int64_t> &symbols) {
    if (Status s = checkShapeProgram(plan_, code_, space_); !s)
      return s;
    if (symbols.size() != plan_.symbols.size())
      return fail(std::to_string(symbols.size()) + " symbol value(s) for " +
                  std::to_string(plan_.symbols.size()) + " symbol(s)");
    for (size_t i = 0; i < symbols.size(); ++i)
      if (symbols[i] < space_.low[i] || symbols[i] > space_.high[i])
        return fail("symbol " + std::to_string(i) + " is " +
                    std::to_string(symbols[i]) + ", outside its range [" +
                    std::to_string(space_.low[i]) + ", " +
                    std::to_string(space_.high[i]) + "]");
    atShapes_ = true;
    symbolValues_ = symbols;
    exprValues_.clear();
    for (size_t e = 0; e < plan_.shapeExprs.size(); ++e) {
      auto v = evaluateShapeExpr(plan_.shapeExprs[e], symbols);
      if (!v || *v > space_.exprHigh[e])
        return fail("shape expression " + std::to_string(e) +
                    " exceeds its value at the largest shapes");
      exprValues_.push_back(*v);
    }
    if (Status s = checkTensors(); !s)
      return s;
    return checkSteps();
  }

private:
  Status checkSteps() const {
    for (size_t i = 0; i < plan_.steps.size(); ++i)
      if (Status s = checkStep(i, plan_.steps[i]); !s)
        return s;
    return Status::ok();
  }

  Status fail(std::string message) const {
    return Status(code_, std::move(message));
  }

  /// The value of `stat`, or of expression `expr` at the shapes checked.
  uint64_t valueOf(int32_t expr, uint64_t stat) const {
    return expr == kNoShapeExpr ? stat
                                : static_cast<uint64_t>(exprValues_[expr]);
  }

  /// Expression `expr` of `what` is none or one of the plan's, and (at the
  /// largest shapes) gives `stat` there and at least `least` at the
  /// smallest.
  Status checkExprRef(const std::string &what, int32_t expr, uint64_t stat,
                      int64_t least = 0) const {
    if (expr == kNoShapeExpr)
      return Status::ok();
    if (expr < 0 || static_cast<size_t>(expr) >= plan_.shapeExprs.size())
      return fail(what + " has shape expression " + std::to_string(expr) +
                  ", expected -1 or one of the plan's " +
                  std::to_string(plan_.shapeExprs.size()));
    if (atShapes_)
      return Status::ok();
    if (static_cast<uint64_t>(space_.exprHigh[expr]) != stat)
      return fail(what + " is " + std::to_string(stat) +
                  ", but its shape expression " + std::to_string(expr) +
                  " gives " + std::to_string(space_.exprHigh[expr]) +
                  " at the largest shapes");
    if (space_.exprLow[expr] < least)
      return fail(what + " is " + std::to_string(space_.exprLow[expr]) +
                  " at the smallest shapes (shape expression " +
                  std::to_string(expr) + "), expected at least " +
                  std::to_string(least));
    return Status::ok();
  }

  Status checkTensors() {
    tensorBytes_.clear();
    std::map<std::string, size_t> names;
    for (size_t i = 0; i < plan_.tensors.size(); ++i) {
      const TensorDesc &t = plan_.tensors[i];
      if (t.name.empty())
        return fail("tensor " + std::to_string(i) + " has no name");
      auto [it, inserted] = names.emplace(t.name, i);
      if (!inserted)
        return fail("tensors " + std::to_string(it->second) + " and " +
                    std::to_string(i) + " are both named '" + t.name + "'");
      int64_t elementBytes = dataTypeBytes(t.type);
      if (elementBytes == 0)
        return fail("tensor '" + t.name + "' has data type " +
                    std::to_string(static_cast<int>(t.type)) +
                    ", expected one of f32, f16, bf16, f64, i8, i16, i32, i64, "
                    "u8, u16, u32, u64, bool, f8e4m3fn, f8e4m3fnuz, f8e5m2, "
                    "f8e5m2fnuz, f4e2m1, i4, u4, i2, u2");
      // Byte sizes stay below 2^63 so that numBytes() is exact. A dynamic
      // tensor's at the shapes checked.
      std::vector<int64_t> shape =
          shapeAt(plan_, space_, i, symbolValues_, exprValues_);
      uint64_t bytes = static_cast<uint64_t>(elementBytes);
      const uint64_t limit = std::numeric_limits<int64_t>::max();
      for (size_t d = 0; d < shape.size(); ++d) {
        int64_t dim = shape[d];
        if (dim != 0 && bytes > limit / static_cast<uint64_t>(dim))
          return fail("tensor '" + t.name + "' of shape " + formatShape(shape) +
                      " and type " + dataTypeName(t.type) +
                      " is too large: its size in bytes exceeds 2^63-1");
        bytes *= static_cast<uint64_t>(dim);
      }
      tensorBytes_.push_back(bytes);
    }
    return Status::ok();
  }

  Status checkKernelsAndImages() {
    for (size_t i = 0; i < plan_.kernels.size(); ++i) {
      const KernelDesc &k = plan_.kernels[i];
      if (k.name.empty())
        return fail("kernel " + std::to_string(i) + " has no name");
      for (size_t p = 0; p < k.params.size(); ++p)
        if (!isKnownKind(k.params[p]))
          return fail("kernel " + std::to_string(i) + " '" + k.name +
                      "' parameter " + std::to_string(p) + " has kind " +
                      std::to_string(static_cast<int>(k.params[p])) +
                      ", expected " + kKnownKinds);
      if (Status s = checkBounds(i, k); !s)
        return s;
    }
    if (!plan_.kernels.empty() && plan_.images.empty())
      return fail("the plan has " + std::to_string(plan_.kernels.size()) +
                  " kernel(s) but no kernel image");
    std::map<std::pair<int, uint32_t>, size_t> seen;
    for (size_t i = 0; i < plan_.images.size(); ++i) {
      const KernelImage &image = plan_.images[i];
      std::string where = "image " + std::to_string(i);
      if (image.format != KernelImage::Format::PTX &&
          image.format != KernelImage::Format::Cubin)
        return fail(where + " has format " +
                    std::to_string(static_cast<int>(image.format)) +
                    ", expected PTX (0) or cubin (1)");
      if (image.arch == 0)
        return fail(where + " has arch 0, expected a compute capability "
                            "times ten such as 90");
      where += " (" + imageArchName(image.format, image.arch) + " " +
               formatName(image.format) + ")";
      if (image.data.empty())
        return fail(where + " has no bytes");
      const std::vector<uint32_t> &archs = plan_.compatibility.archs;
      bool listed = false;
      std::string list;
      for (uint32_t a : archs) {
        listed |= a == image.arch;
        list += (list.empty() ? "" : ",") + std::to_string(a);
      }
      if (!listed)
        return fail(where + ": arch " + std::to_string(image.arch) +
                    " is not listed in compatibility.archs [" + list + "]");
      auto [it, inserted] = seen.emplace(
          std::make_pair(static_cast<int>(image.format), image.arch), i);
      if (!inserted)
        return fail("images " + std::to_string(it->second) + " and " +
                    std::to_string(i) + " are both " +
                    imageArchName(image.format, image.arch) + " " +
                    formatName(image.format));
    }
    return Status::ok();
  }

  /// Each bound of kernel `index` names an integer parameter and a pointer
  /// parameter or none, with a non-empty range (of values >= 0 with a
  /// pointer), and every integer parameter has a bound (format 1.3).
  Status checkBounds(size_t index, const KernelDesc &k) const {
    std::string kernel =
        "kernel " + std::to_string(index) + " '" + k.name + "'";
    std::vector<bool> bounded(k.params.size(), false);
    for (size_t b = 0; b < k.bounds.size(); ++b) {
      const ScalarBound &bound = k.bounds[b];
      std::string where = kernel + " bound " + std::to_string(b);
      if (bound.param >= k.params.size() || !isInteger(k.params[bound.param]))
        return fail(where + " is on parameter " + std::to_string(bound.param) +
                    ", expected an i32 or i64 parameter of " +
                    formatSignature(k.params));
      where += " (parameter " + std::to_string(bound.param) + ")";
      if (bound.min > bound.max)
        return fail(where + " has min " + std::to_string(bound.min) +
                    " > max " + std::to_string(bound.max));
      if (bound.pointer != ScalarBound::kNoPointer) {
        if (bound.pointer >= k.params.size() ||
            k.params[bound.pointer] != KernelArg::Kind::Pointer)
          return fail(where + " names parameter " +
                      std::to_string(bound.pointer) +
                      " as its pointer, expected a pointer parameter of " +
                      formatSignature(k.params) + " or none (" +
                      std::to_string(ScalarBound::kNoPointer) + ")");
        if (bound.min < 0)
          return fail(where + " has min " + std::to_string(bound.min) +
                      " and a pointer, expected min >= 0");
      }
      bounded[bound.param] = true;
    }
    for (size_t p = 0; p < k.params.size(); ++p)
      if (isInteger(k.params[p]) && !bounded[p])
        return fail(kernel + " parameter " + std::to_string(p) + " (" +
                    kindName(k.params[p]) +
                    ") has no bound: every integer parameter says what it "
                    "may be, so that a launch cannot size a loop or an "
                    "index past its buffers");
    return Status::ok();
  }

  /// Every launch's integer arguments within their kernel's bounds (the
  /// arguments already match the signature and the bounds the parameters).
  Status checkScalarArgs(const std::string &where, const LaunchStep &l,
                         const std::vector<KernelArg> &args,
                         const KernelDesc &kernel) const {
    for (size_t b = 0; b < kernel.bounds.size(); ++b) {
      const ScalarBound &bound = kernel.bounds[b];
      const KernelArg &arg = args[bound.param];
      // What the kernel reads: the low 4 bytes of an i32.
      int64_t v = integerValue(arg);
      std::string what = where + " arg " + std::to_string(bound.param) + " (" +
                         kindName(arg.kind) + ") is " + std::to_string(v);
      std::string rule = "kernel " + std::to_string(l.kernel) + " '" +
                         kernel.name + "' bound " + std::to_string(b);
      if (v < bound.min || v > bound.max)
        return fail(what + ", expected " + std::to_string(bound.min) + ".." +
                    std::to_string(bound.max) + " (" + rule + ")");
      if (bound.pointer == ScalarBound::kNoPointer)
        continue;
      // v >= min >= 0 here.
      uint64_t extent = args[bound.pointer].extent, bytes;
      bool overflow =
          __builtin_mul_overflow(uint64_t(v), bound.bytesPerUnit, &bytes) ||
          __builtin_add_overflow(bytes, bound.baseBytes, &bytes);
      if (overflow || bytes > extent)
        return fail(
            what + ": the kernel may touch " +
            (overflow ? std::string("more than 2^64") : std::to_string(bytes)) +
            " bytes through arg " + std::to_string(bound.pointer) + " (" +
            std::to_string(bound.baseBytes) + " + " + std::to_string(v) +
            " x " + std::to_string(bound.bytesPerUnit) +
            "), more than its extent of " + std::to_string(extent) +
            " bytes (" + rule + ")");
    }
    return Status::ok();
  }

  /// "arena+16", "weights+0", "tensor1+64".
  static std::string formatAddress(const Address &a) {
    switch (a.space) {
    case MemorySpace::Arena:
      return "arena+" + std::to_string(a.offset);
    case MemorySpace::Weights:
      return "weights+" + std::to_string(a.offset);
    case MemorySpace::Tensor:
      return "tensor" + std::to_string(a.index) + "+" +
             std::to_string(a.offset);
    }
    return "space" + std::to_string(static_cast<int>(a.space)) + "+" +
           std::to_string(a.offset);
  }

  /// Checks the space and index of `a` and returns the size of its space.
  Status checkSpace(const std::string &where, const Address &a,
                    uint64_t &spaceBytes, std::string &spaceName) const {
    switch (a.space) {
    case MemorySpace::Arena:
      spaceBytes = plan_.arenaBytes;
      spaceName = "the arena";
      break;
    case MemorySpace::Weights:
      spaceBytes = plan_.weights.size();
      spaceName = "the weights";
      break;
    case MemorySpace::Tensor:
      if (a.index >= plan_.tensors.size())
        return fail(where + ": tensor index " + std::to_string(a.index) +
                    " is out of range: the plan has " +
                    std::to_string(plan_.tensors.size()) + " tensor(s)");
      spaceBytes = tensorBytes_[a.index];
      spaceName = "tensor " + std::to_string(a.index) + " '" +
                  plan_.tensors[a.index].name + "'";
      return Status::ok();
    default:
      return fail(where + ": memory space " +
                  std::to_string(static_cast<int>(a.space)) +
                  " is not arena (0), weights (1) or tensor (2)");
    }
    if (a.index != 0)
      return fail(
          where + ": " + (a.space == MemorySpace::Arena ? "arena" : "weights") +
          " address has index " + std::to_string(a.index) + ", expected 0");
    return Status::ok();
  }

  /// Per shape, only the tensors' ranges are checked: the arena's and the
  /// weights' were at the largest shapes (and an engine's plan no longer
  /// holds its weights).
  bool skipsSpace(const Address &a) const {
    return atShapes_ && a.space != MemorySpace::Tensor;
  }

  /// Checks that [a, a + bytes) lies inside its space.
  Status checkRange(const std::string &where, const Address &a,
                    uint64_t bytes) const {
    uint64_t spaceBytes = 0;
    std::string spaceName;
    if (Status s = checkSpace(where, a, spaceBytes, spaceName); !s)
      return s;
    if (skipsSpace(a))
      return Status::ok();
    if (a.offset > spaceBytes || bytes > spaceBytes - a.offset)
      return fail(where + " range [" + formatAddress(a) + ", +" +
                  std::to_string(bytes) + " bytes) is outside " + spaceName +
                  " (" + std::to_string(spaceBytes) + " bytes)");
    return Status::ok();
  }

  Status checkStep(size_t index, const Step &step) const {
    std::string where = "step " + std::to_string(index);
    switch (step.kind) {
    case Step::Kind::Launch:
      return checkLaunch(where, step.launch);
    case Step::Kind::Copy: {
      CopyStep c = step.copy;
      where += " (copy)";
      if (Status s = checkExprRef(where + ": bytes", c.bytesExpr, c.bytes); !s)
        return s;
      c.bytes = valueOf(c.bytesExpr, c.bytes);
      if (Status s = checkRange(where + ": destination", c.dst, c.bytes); !s)
        return s;
      if (Status s = checkRange(where + ": source", c.src, c.bytes); !s)
        return s;
      if (c.dst.space == MemorySpace::Weights)
        return fail(where + ": the destination " + formatAddress(c.dst) +
                    " is in the weights, which steps may not write");
      bool sameBuffer =
          c.dst.space == c.src.space && c.dst.index == c.src.index;
      // Both ranges are inside their space, so the sums cannot overflow.
      if (sameBuffer && c.bytes != 0 && c.dst.offset < c.src.offset + c.bytes &&
          c.src.offset < c.dst.offset + c.bytes)
        return fail(where + ": source [" + formatAddress(c.src) + ", +" +
                    std::to_string(c.bytes) + " bytes) and destination [" +
                    formatAddress(c.dst) + ", +" + std::to_string(c.bytes) +
                    " bytes) overlap");
      return Status::ok();
    }
    case Step::Kind::Fill: {
      FillStep f = step.fill;
      where += " (fill)";
      if (Status s = checkExprRef(where + ": bytes", f.bytesExpr, f.bytes); !s)
        return s;
      f.bytes = valueOf(f.bytesExpr, f.bytes);
      if (Status s = checkRange(where + ": destination", f.dst, f.bytes); !s)
        return s;
      if (f.dst.space == MemorySpace::Weights)
        return fail(where + ": the destination " + formatAddress(f.dst) +
                    " is in the weights, which steps may not write");
      return Status::ok();
    }
    case Step::Kind::LibraryCall:
      return checkLibraryCall(where, step.libraryCall);
    }
    return fail(where + " has kind " +
                std::to_string(static_cast<int>(step.kind)) +
                ", expected launch (0), copy (1), fill (2) or library call "
                "(3)");
  }

  /// A callee and buffers inside their spaces; whether the call writes the
  /// weights is for its handler to know.
  Status checkLibraryCall(std::string where, const LibraryCallStep &c) const {
    if (c.callee.empty())
      return fail(where + " (call) has no callee");
    where += " (call '" + c.callee + "')";
    for (size_t i = 0; i < c.buffers.size(); ++i) {
      const Address &a = c.buffers[i].address;
      std::string buffer = where + ": buffer " + std::to_string(i);
      if (Status s = checkRange(buffer, a, c.buffers[i].bytes); !s)
        return s;
      // A library call's sizes are in its payload, which does not vary.
      if (a.space == MemorySpace::Tensor && plan_.tensors[a.index].isDynamic())
        return fail(buffer + " is in tensor " + std::to_string(a.index) + " '" +
                    plan_.tensors[a.index].name +
                    "', whose shape varies: library calls take static "
                    "shapes");
    }
    return Status::ok();
  }

  Status checkLaunch(std::string where, const LaunchStep &l) const {
    if (l.kernel >= plan_.kernels.size())
      return fail(where + " (launch): kernel index " +
                  std::to_string(l.kernel) + " is out of range: the plan has " +
                  std::to_string(plan_.kernels.size()) + " kernel(s)");
    const KernelDesc &kernel = plan_.kernels[l.kernel];
    where += " (launch '" + kernel.name + "')";
    // The grid at the shapes checked.
    std::array<uint32_t, 3> grid = l.grid;
    for (int d = 0; d < 3; ++d) {
      std::string what = where + ": grid dimension " + std::to_string(d);
      if (Status s = checkExprRef(what, l.gridExprs[d], l.grid[d], 1); !s)
        return s;
      grid[d] = static_cast<uint32_t>(valueOf(l.gridExprs[d], l.grid[d]));
    }
    // The limits of every device since compute capability 3.0.
    static constexpr uint32_t gridLimits[3] = {0x7FFFFFFFu, 65535, 65535};
    static constexpr uint32_t blockLimits[3] = {1024, 1024, 64};
    static constexpr const char *axes[3] = {"x", "y", "z"};
    uint64_t threads = 1;
    for (int d = 0; d < 3; ++d) {
      if (grid[d] == 0 || grid[d] > gridLimits[d])
        return fail(where + ": grid " + formatDims(grid) + " has " + axes[d] +
                    " = " + std::to_string(grid[d]) + ", expected 1.." +
                    std::to_string(gridLimits[d]));
      if (l.block[d] == 0 || l.block[d] > blockLimits[d])
        return fail(where + ": block " + formatDims(l.block) + " has " +
                    axes[d] + " = " + std::to_string(l.block[d]) +
                    ", expected 1.." + std::to_string(blockLimits[d]));
      threads *= l.block[d];
    }
    if (threads > 1024)
      return fail(where + ": block " + formatDims(l.block) + " has " +
                  std::to_string(threads) + " threads, expected at most 1024");
    if (l.sharedMemoryBytes > kMaxSharedMemoryBytes)
      return fail(where + ": " + std::to_string(l.sharedMemoryBytes) +
                  " bytes of dynamic shared memory, expected at most " +
                  std::to_string(kMaxSharedMemoryBytes) +
                  " (what a block can have on sm_90)");
    for (size_t i = 0; i < l.args.size(); ++i)
      if (!isKnownKind(l.args[i].kind))
        return fail(where + " arg " + std::to_string(i) + " has kind " +
                    std::to_string(static_cast<int>(l.args[i].kind)) +
                    ", expected " + kKnownKinds);
    // The arguments match the kernel's signature.
    std::string signature = "kernel " + std::to_string(l.kernel) + " '" +
                            kernel.name + "' takes " +
                            formatSignature(kernel.params);
    if (l.args.size() != kernel.params.size())
      return fail(where + " passes " + std::to_string(l.args.size()) +
                  " argument(s), expected " +
                  std::to_string(kernel.params.size()) + ": " + signature);
    for (size_t i = 0; i < l.args.size(); ++i)
      if (l.args[i].kind != kernel.params[i])
        return fail(where + " arg " + std::to_string(i) + " is " +
                    kindName(l.args[i].kind) + ", expected " +
                    kindName(kernel.params[i]) + ": " + signature);
    std::vector<KernelArg> args = l.args, lowest = l.args;
    bool varies = false;
    for (size_t i = 0; i < args.size(); ++i) {
      if (Status s = checkArgExprs(where + " arg " + std::to_string(i),
                                   l.args[i], args[i], lowest[i]);
          !s)
        return s;
      varies |= l.args[i].valueExpr != kNoShapeExpr ||
                l.args[i].extentExpr != kNoShapeExpr;
    }
    for (size_t i = 0; i < args.size(); ++i)
      if (Status s = checkArg(where + " arg " + std::to_string(i), args[i]); !s)
        return s;
    if (Status s = checkScalarArgs(where, l, args, kernel); !s)
      return s;
    // Bounds hold between the largest and the smallest shapes, as every
    // expression is monotone; the extents' relation is checked per shape.
    if (varies && !atShapes_)
      for (size_t b = 0; b < kernel.bounds.size(); ++b) {
        const ScalarBound &bound = kernel.bounds[b];
        const KernelArg &arg = lowest[bound.param];
        int64_t v = integerValue(arg);
        if (v < bound.min)
          return fail(where + " arg " + std::to_string(bound.param) + " is " +
                      std::to_string(v) + " at the smallest shapes, expected " +
                      "at least " + std::to_string(bound.min) + " (kernel " +
                      std::to_string(l.kernel) + " '" + kernel.name +
                      "' bound " + std::to_string(b) + ")");
      }
    return Status::ok();
  }

  /// The shape expressions of launch argument `arg`: a value for an
  /// integer, an extent for a pointer. Sets `now` to the argument at the
  /// shapes checked and `lowest` at the smallest shapes.
  Status checkArgExprs(const std::string &where, const KernelArg &arg,
                       KernelArg &now, KernelArg &lowest) const {
    bool integer = isInteger(arg.kind);
    if ((arg.valueExpr != kNoShapeExpr && !integer) ||
        (arg.extentExpr != kNoShapeExpr &&
         arg.kind != KernelArg::Kind::Pointer))
      return fail(where + " (" + kindName(arg.kind) +
                  ") has a shape expression of its " +
                  (arg.valueExpr != kNoShapeExpr ? "value" : "extent") +
                  ", expected a value for an integer and an extent for a "
                  "pointer");
    int64_t top = integerValue(arg);
    if (Status s = checkExprRef(where + " value", arg.valueExpr,
                                static_cast<uint64_t>(top));
        !s)
      return s;
    if (Status s = checkExprRef(where + " extent", arg.extentExpr, arg.extent);
        !s)
      return s;
    if (arg.valueExpr != kNoShapeExpr) {
      now.bits = valueOf(arg.valueExpr, 0);
      if (!atShapes_)
        lowest.bits = static_cast<uint64_t>(space_.exprLow[arg.valueExpr]);
    }
    if (arg.extentExpr != kNoShapeExpr) {
      now.extent = valueOf(arg.extentExpr, 0);
      if (!atShapes_)
        lowest.extent = static_cast<uint64_t>(space_.exprLow[arg.extentExpr]);
    }
    return Status::ok();
  }

  /// An immediate has no extent or access; a pointer's extent lies inside
  /// its space and it does not write the weights.
  Status checkArg(const std::string &where, const KernelArg &arg) const {
    if (arg.access != KernelArg::Access::None &&
        arg.access != KernelArg::Access::Read &&
        arg.access != KernelArg::Access::Write &&
        arg.access != KernelArg::Access::ReadWrite)
      return fail(where + " has access " +
                  std::to_string(static_cast<int>(arg.access)) +
                  ", expected none (0), read (1), write (2) or read-write "
                  "(3)");
    if (arg.kind != KernelArg::Kind::Pointer) {
      if (arg.extent != 0 || arg.access != KernelArg::Access::None)
        return fail(where + " (" + kindName(arg.kind) + ") has extent " +
                    std::to_string(arg.extent) + " and access " +
                    accessName(arg.access) +
                    ", expected 0 and none: only pointers have them");
      return Status::ok();
    }
    if (arg.access == KernelArg::Access::None && arg.extent != 0)
      return fail(where + " has access none and extent " +
                  std::to_string(arg.extent) +
                  ", expected extent 0 for memory the kernel does not touch");
    uint64_t spaceBytes = 0;
    std::string spaceName;
    if (Status s = checkSpace(where, arg.address, spaceBytes, spaceName); !s)
      return s;
    if (skipsSpace(arg.address))
      return Status::ok();
    if (arg.address.offset > spaceBytes ||
        arg.extent > spaceBytes - arg.address.offset)
      return fail(where + ": pointer range [" + formatAddress(arg.address) +
                  ", +" + std::to_string(arg.extent) + " bytes) is outside " +
                  spaceName + " (" + std::to_string(spaceBytes) + " bytes)");
    if (arg.address.space == MemorySpace::Weights &&
        (arg.access == KernelArg::Access::Write ||
         arg.access == KernelArg::Access::ReadWrite))
      return fail(where + ": pointer " + formatAddress(arg.address) +
                  " has access " + accessName(arg.access) +
                  " into the weights, which steps may not write");
    return Status::ok();
  }

  const PlanContents &plan_;
  StatusCode code_;
  std::vector<uint64_t> tensorBytes_;
  /// The symbols, expressions and whether only the shape checks run.
  ShapeSpace space_;
  std::vector<int64_t> symbolValues_, exprValues_;
  bool atShapes_ = false;
};

} // namespace

Status checkPlanContents(const PlanContents &plan, StatusCode code) {
  return PlanChecker(plan, code).run();
}

Status checkPlanAtShapes(const PlanContents &plan,
                         const std::vector<int64_t> &symbols) {
  return PlanChecker(plan, StatusCode::InvalidArgument).runAtShapes(symbols);
}

} // namespace detail
} // namespace kiln::rt
