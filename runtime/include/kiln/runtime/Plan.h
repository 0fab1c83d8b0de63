//===- Plan.h - the contents of a plan bundle (.kplan) ----------*- C++ -*-===//
//
// A plan is data, not code: the I/O tensors, the kernel images (PTX or cubin
// per architecture), the weights, and the steps that run them (kernel launches
// with their arguments, copies, fills, calls into libraries), every address
// expressed as a place in one of three memory spaces. `PlanContents` is what
// the compiler produces and what the runtime reads back; `writePlan` and
// `readPlan` turn it into the bytes of a .kplan file and back
// (docs/plan-format.md describes the file).
//
// This header needs neither the driver nor LLVM/MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_PLAN_H
#define KILN_RUNTIME_PLAN_H

#include "kiln/runtime/Status.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::rt {

/// Element types of I/O tensors (bool is one byte per element). The 8-bit
/// floats (ONNX's FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ)
/// are one byte each; the sub-byte types (I4, U4, I2, U2 and the 4-bit float
/// F4E2M1) are also stored one element per byte, unpacked: the value is in
/// the low bits, and the high bits of a device output are unspecified.
enum class DataType : uint8_t {
  F32,
  F16,
  BF16,
  I8,
  I32,
  I64,
  Bool,
  F64,
  I16,
  U8,
  U16,
  U32,
  U64,
  F8E4M3FN,
  F8E4M3FNUZ,
  F8E5M2,
  F8E5M2FNUZ,
  F4E2M1,
  I4,
  U4,
  I2,
  U2
};
/// Bytes per element.
int64_t dataTypeBytes(DataType type);
/// "f32", "f16", "bf16", "i8", "i32", "i64", "bool", "f64", "i16", ...,
/// "f8e4m3fn", ..., "f4e2m1", "i4", "u4", "i2", "u2".
const char *dataTypeName(DataType type);

/// Where an address points.
enum class MemorySpace : uint8_t {
  /// The activation arena of an execution context (its device memory).
  Arena,
  /// The engine's weights, uploaded once when the engine is created.
  Weights,
  /// The device address bound to I/O tensor `index` (inputs and outputs).
  Tensor,
};

/// A device address: a byte offset into a memory space.
struct Address {
  MemorySpace space = MemorySpace::Arena;
  /// For Tensor: the index of the I/O tensor; otherwise 0.
  uint32_t index = 0;
  uint64_t offset = 0;
};

/// The shapes an input with dynamic dimensions may take in one optimization
/// profile (TensorRT's min/opt/max): each of the input's rank, equal to its
/// shape where that is static, min <= opt <= max elsewhere.
struct ShapeRange {
  std::vector<int64_t> min, opt, max;
};

/// The index of no shape expression (format 1.4).
constexpr int32_t kNoShapeExpr = -1;

/// An I/O tensor of the network.
struct TensorDesc {
  std::string name;
  DataType type = DataType::F32;
  /// -1 for a dynamic dimension (run-time shapes).
  std::vector<int64_t> shape;
  bool isInput = true;
  /// For an input with dynamic dimensions: its range in each optimization
  /// profile of the plan (format 1.4); empty otherwise.
  std::vector<ShapeRange> profiles = {};
  /// For an output with dynamic dimensions (format 1.4): for each dimension,
  /// the index in PlanContents::shapeExprs of the expression that computes
  /// it from the inputs' dimensions, kNoShapeExpr where it is static. Empty
  /// for a static output and for inputs.
  std::vector<int32_t> dimExprs = {};

  int64_t numElements() const;
  int64_t numBytes() const { return numElements() * dataTypeBytes(type); }
  bool isDynamic() const;
};

/// Whether `dims` is a shape `desc` may take in optimization profile
/// `profile`: its rank, its static dimensions, and each dynamic one within
/// the profile's range. The error (InvalidArgument) names the input, the
/// dimension, the value and the range.
Status checkShape(const TensorDesc &desc, const std::vector<int64_t> &dims,
                  size_t profile = 0);

/// A dynamic dimension of an input: dimension `dim` of tensor `tensor`.
struct DimRef {
  uint32_t tensor = 0;
  uint32_t dim = 0;
};

/// A size that is known only when the inputs' shapes are (format 1.4): the
/// dynamic input dimensions that are equal to it. Exporters name one batch
/// apart in each input (tf2onnx's ids and mask); the compiler joins the
/// dimensions that meet, and the runtime refuses shapes where they differ.
struct ShapeSymbol {
  std::vector<DimRef> dims;
};

/// A size computed from the symbols when the shapes are set (format 1.4):
/// a postfix program on a stack of integers. Every operation is
/// non-decreasing in every symbol (constants are >= 0, divisors > 0), so a
/// value lies between its value at the profiles' smallest and largest
/// symbols, which is what the reader checks.
struct ShapeExpr {
  enum class Op : uint8_t {
    /// Pushes `value` (>= 0).
    Const,
    /// Pushes symbol `value`.
    Symbol,
    /// Pop b, pop a, push a + b (Add), a * b, min(a, b), max(a, b).
    Add,
    Mul,
    Min,
    Max,
    /// Replace a with ceil(a / value) or floor(a / value), value > 0.
    CeilDiv,
    FloorDiv,
  };
  struct Term {
    Op op = Op::Const;
    int64_t value = 0;
  };
  std::vector<Term> code;
};
/// The most terms one ShapeExpr may have.
constexpr size_t kMaxShapeExprTerms = 256;

/// One kernel parameter as passed to cuLaunchKernel.
struct KernelArg {
  enum class Kind : uint8_t {
    /// An 8-byte device pointer: `address` resolved at enqueue time.
    Pointer,
    /// Immediates: the low 4 (I32, F32) or 8 (I64) bytes of `bits`.
    I32,
    I64,
    F32,
  };
  /// What a kernel does with the memory behind a Pointer argument (format
  /// 1.2). Steps never write the weights: a Write or ReadWrite pointer into
  /// them is refused.
  enum class Access : uint8_t {
    /// It does not touch it (an unused parameter); `extent` is 0.
    None,
    Read,
    Write,
    ReadWrite,
  };
  Kind kind = Kind::I64;
  /// For Pointer: where it points.
  Address address;
  /// For immediates: the value.
  uint64_t bits = 0;
  /// For Pointer: the bytes from `address` that the kernel may touch, so
  /// [address.offset, address.offset + extent) lies inside its memory space
  /// (format 1.2). 0 for immediates.
  uint64_t extent = 0;
  /// For Pointer: how the kernel uses those bytes. None for immediates.
  Access access = Access::None;
  /// Format 1.4, in a plan with dynamic shapes: for I32 and I64, the shape
  /// expression that gives the value at the bound shapes; for Pointer, the
  /// one that gives the extent. `bits` or `extent` holds the value at the
  /// largest shapes. kNoShapeExpr when it does not vary.
  int32_t valueExpr = kNoShapeExpr;
  int32_t extentExpr = kNoShapeExpr;
};

/// A kernel launch.
struct LaunchStep {
  /// Index into PlanContents::kernels.
  uint32_t kernel = 0;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t sharedMemoryBytes = 0;
  std::vector<KernelArg> args;
  /// Format 1.4: the shape expressions of the grid's dimensions that vary
  /// with the shapes (`grid` holds their values at the largest shapes).
  std::array<int32_t, 3> gridExprs{kNoShapeExpr, kNoShapeExpr, kNoShapeExpr};
};

/// cuMemcpyDtoDAsync(dst, src, bytes); the ranges must not overlap.
struct CopyStep {
  Address dst, src;
  uint64_t bytes = 0;
  /// Format 1.4: the expression of `bytes` when it varies with the shapes
  /// (`bytes` holds its value at the largest shapes).
  int32_t bytesExpr = kNoShapeExpr;
};

/// cuMemsetD8Async(dst, value, bytes).
struct FillStep {
  Address dst;
  uint64_t bytes = 0;
  uint8_t value = 0;
  /// As CopyStep::bytesExpr.
  int32_t bytesExpr = kNoShapeExpr;
};

/// A device buffer a library call reads or writes: `bytes` at `address`.
struct LibraryCallBuffer {
  Address address;
  uint64_t bytes = 0;
};

/// A call into a library (cuBLASLt) or a plugin, run by the handler that the
/// application or a library registered for `callee` (LibraryCall.h). Format
/// 1.1 and later.
struct LibraryCallStep {
  /// The handler that runs it, e.g. "cublaslt.matmul".
  std::string callee;
  /// The buffers it uses; the handler gets their device addresses in this
  /// order.
  std::vector<LibraryCallBuffer> buffers;
  /// Opaque bytes the handler decodes (descriptors, an algorithm, scalars).
  std::string payload;
};

struct Step {
  enum class Kind : uint8_t { Launch, Copy, Fill, LibraryCall };
  Kind kind = Kind::Launch;
  LaunchStep launch;           // Kind::Launch
  CopyStep copy;               // Kind::Copy
  FillStep fill;               // Kind::Fill
  LibraryCallStep libraryCall; // Kind::LibraryCall
};

/// What the value of an integer parameter (I32 or I64) of a kernel may be,
/// when it sizes a loop or an index (format 1.3). Every launch's value v of
/// parameter `param`, read as a signed integer of its kind, satisfies
/// `min <= v <= max`; and when `pointer` names a pointer parameter,
/// `baseBytes + v * bytesPerUnit <= extent` of that launch's argument
/// `pointer` (then `min >= 0`). "n floats through p" is {n, min 0, pointer p,
/// 4 bytes per unit}; "index i of p" is {i, min 0, pointer p, element bytes
/// per unit, plus one element}; a value fixed at compile time is min = max;
/// an integer that touches no memory says so with the whole range.
struct ScalarBound {
  /// `pointer` when the bound is a range only.
  static constexpr uint32_t kNoPointer = 0xFFFFFFFFu;
  /// The integer parameter it bounds.
  uint32_t param = 0;
  int64_t min = 0;
  int64_t max = INT64_MAX;
  /// A pointer parameter whose argument's extent bounds the value, or
  /// kNoPointer.
  uint32_t pointer = kNoPointer;
  /// The bytes the kernel may touch through `pointer` per unit of the value,
  /// and beyond them.
  uint64_t bytesPerUnit = 0;
  uint64_t baseBytes = 0;
};

/// A kernel: an entry point found by name in the module of every image.
struct KernelDesc {
  std::string name;
  /// The tile configuration it was generated with, for people and tools
  /// (e.g. "tile=[256] threads=[256] stages=1").
  std::string tiling;
  /// Its signature: the kind of each parameter, in order (format 1.2). Every
  /// launch of the kernel passes exactly these.
  std::vector<KernelArg::Kind> params;
  /// What each integer parameter may be (format 1.3): at least one bound for
  /// every I32 and I64 parameter, which every launch's arguments satisfy.
  /// The kernel touches no more than its pointers' extents for any values
  /// within its bounds: the compiler's guarantee, as the extents are.
  std::vector<ScalarBound> bounds;
};

/// Code for one architecture: all kernels in one module.
struct KernelImage {
  enum class Format : uint8_t { PTX, Cubin };
  Format format = Format::PTX;
  /// Compute capability times ten: 90 for sm_90 / compute_90. A cubin runs
  /// on exactly that major version (and minor >= it); PTX is JIT-compiled by
  /// the driver for any device with a capability >= it.
  uint32_t arch = 0;
  /// The PTX text (no trailing NUL needed) or the cubin bytes.
  std::string data;
};

/// What the plan needs and how it was built.
struct Compatibility {
  std::string kilnVersion;
  /// Every architecture with a cubin or PTX, times ten (80, 90).
  std::vector<uint32_t> archs;
  /// PTX ISA version times ten (80 for PTX 8.0); 0 when no PTX.
  uint32_t ptxIsa = 0;
  /// Smallest driver (cuDriverGetVersion) that can load it, e.g. 12000.
  uint32_t minDriverVersion = 0;
  /// "fp32", "fp16", ...
  std::string precision;
  /// The options the plan was compiled with, for people.
  std::string buildOptions;
};

struct PlanContents {
  Compatibility compatibility;
  /// Inputs and outputs; MemorySpace::Tensor addresses index this list.
  std::vector<TensorDesc> tensors;
  std::vector<KernelDesc> kernels;
  std::vector<KernelImage> images;
  /// Uploaded once per engine; MemorySpace::Weights addresses point here.
  std::string weights;
  /// Bytes of device memory one execution context needs, at the largest
  /// shapes of every profile.
  uint64_t arenaBytes = 0;
  std::vector<Step> steps;
  /// Run-time shapes (format 1.4): the sizes that vary, and the expressions
  /// of the sizes computed from them (output dimensions, grids, integer
  /// arguments, extents, copied and filled bytes). Empty for a plan of one
  /// shape.
  std::vector<ShapeSymbol> symbols;
  std::vector<ShapeExpr> shapeExprs;
};

/// The current file format version. A reader accepts the same major version
/// and any minor version up to its own. 1.1 added library-call steps, 1.2
/// kernel signatures and argument extents (a file of 1.0 or 1.1 with launch
/// steps is refused: it cannot be checked), 1.3 the bounds of integer
/// kernel parameters (a file of 1.2 or older with a kernel that takes an
/// integer is refused for the same reason), 1.4 run-time shapes (profiles,
/// symbols and shape expressions).
constexpr uint32_t kPlanFormatMajor = 1;
constexpr uint32_t kPlanFormatMinor = 4;
/// Sections (kernel images, weights) start at multiples of this.
constexpr uint64_t kPlanSectionAlignment = 256;
/// The largest arena a plan may ask for (1 TiB).
constexpr uint64_t kMaxArenaBytes = uint64_t(1) << 40;
/// The most dynamic shared memory a launch may ask for: 227 KiB, what one
/// block can have on sm_90 (a device with less refuses the launch).
constexpr uint32_t kMaxSharedMemoryBytes = 232448;

/// Checks that `plan` is consistent: unique non-empty tensor names, valid data
/// types and shapes, kernel and tensor indices in range, known enum values,
/// launch dimensions every device accepts (grid and block >= 1, at most 1024
/// threads a block, at most kMaxSharedMemoryBytes of shared memory), an arena
/// of at most kMaxArenaBytes, every launch's arguments matching its kernel's
/// params in number and kind, every integer kernel parameter bounded and
/// every launch's integer arguments within their kernel's bounds (format
/// 1.3), every address range inside its memory space
/// (for a pointer argument, its extent from its address), nothing but library
/// calls writing the weights, a callee for every library call, and every
/// image's arch listed in compatibility.archs. (What a library call writes is
/// its handler's business: only its buffers' ranges are checked.) Fails with
/// InvalidArgument naming the first problem.
Status verifyPlan(const PlanContents &plan);

/// The number of optimization profiles of `plan`: that of its dynamic
/// inputs (verified plans give each the same), 0 for a plan of one shape.
size_t numProfiles(const PlanContents &plan);

/// The shape of every tensor of a verified plan at the largest shapes of
/// every profile (its shape when static): what its buffers must hold for
/// any shape. Empty when the plan's shapes are inconsistent.
std::vector<std::vector<int64_t>> largestShapes(const PlanContents &plan);

/// The value of `expr` at `symbols`, or nullopt when it overflows 2^63 - 1
/// or is malformed (verifyPlan refuses both at the largest shapes).
std::optional<int64_t> evaluateShapeExpr(const ShapeExpr &expr,
                                         const std::vector<int64_t> &symbols);

/// Checks what depends on the shapes at the symbol values `symbols` of a
/// verified plan with run-time shapes (the values within its profiles):
/// every integer argument within its kernel's bounds and the extents of
/// its pointers, every range in a tensor inside that tensor's bytes at
/// those shapes. InvalidArgument naming the step otherwise.
Status verifyPlanAtShapes(const PlanContents &plan,
                          const std::vector<int64_t> &symbols);

/// Serializes `plan`; fails (InvalidArgument) when the plan is inconsistent,
/// with the same checks readPlan applies (verifyPlan).
StatusOr<std::string> writePlan(const PlanContents &plan);

/// Parses and verifies the bytes of a plan file without touching the GPU:
/// magic, format version, sizes, checksums, the manifest (FlatBuffers
/// verifier) and the consistency of every step (kernel and tensor indices in
/// range, every address range inside its space, every integer argument
/// within its kernel's bounds). Errors are InvalidPlan/UnsupportedPlan
/// statuses that say what was expected and what was found; UnsupportedPlan
/// for a newer format, for a file of format 1.0 or 1.1 with launch steps (it
/// has no kernel signatures: recompile it) and for a file of 1.2 or older
/// with a kernel that takes an integer (it has no bounds for it).
StatusOr<PlanContents> readPlan(const void *data, std::size_t size);

} // namespace kiln::rt

#endif // KILN_RUNTIME_PLAN_H
