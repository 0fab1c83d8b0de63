//===- PlanBuilder.cpp - the host function as plan steps --------*- C++ -*-===//
//
// Interprets the host function that lowerToGpu leaves (static shapes only)
// into the steps of a plan. Every buffer is traced to its root: an I/O tensor
// (a function argument), a weight (a memref.global, copied into the weights
// section) or an allocation (placed in the activation arena). Views
// (expand/collapse_shape, subview, ...) share their root; kernels take the
// root's address and apply the view's static offset themselves (bare-pointer
// arguments), copies and fills get the view's byte offset. Allocations are
// placed by liveness: two buffers share arena bytes when no step uses both
// in an overlapping range of steps.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/Plan/PlanCompiler.h"

#include "kiln/Conversion/DestinationPassing.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#ifndef KILN_VERSION
#define KILN_VERSION "unknown"
#endif

using namespace mlir;
using namespace mlir::kiln;

namespace {
/// Alignment of buffers in the arena and of weights in their section.
constexpr uint64_t kBufferAlignment = 256;

struct ArenaBuffer {
  uint64_t bytes = 0;
  int64_t first = -1, last = -1; // steps that use it
  uint64_t offset = 0;
};

class PlanBuilder {
public:
  PlanBuilder(func::FuncOp func, rt::PlanContents &plan)
      : func(func), plan(plan) {}

  LogicalResult run();

private:
  LogicalResult addTensors();
  LogicalResult visit(Operation &op);
  FailureOr<rt::Address> rootAddress(Value v, Operation *user);
  FailureOr<rt::Address> viewAddress(Value v, Operation *user);
  FailureOr<uint64_t> addWeight(memref::GetGlobalOp op);
  void use(const rt::Address &a);
  void placeArena();

  func::FuncOp func;
  rt::PlanContents &plan;
  DenseMap<Value, unsigned> allocs; // alloc result -> arena buffer
  std::vector<ArenaBuffer> arena;
  llvm::StringMap<uint64_t> weightOffsets;
  llvm::StringMap<uint32_t> kernelIndex;
};
} // namespace

static std::optional<rt::DataType> dataTypeOf(Type t) {
  if (t.isF32())
    return rt::DataType::F32;
  if (t.isF16())
    return rt::DataType::F16;
  if (t.isBF16())
    return rt::DataType::BF16;
  if (t.isInteger(1))
    return rt::DataType::Bool;
  if (t.isInteger(8))
    return rt::DataType::I8;
  if (t.isInteger(32))
    return rt::DataType::I32;
  if (t.isInteger(64))
    return rt::DataType::I64;
  return std::nullopt;
}

/// Bytes of one element in memory (i1 takes a byte).
static uint64_t elementBytes(Type t) {
  return t.isInteger(1) ? 1 : llvm::divideCeil(t.getIntOrFloatBitWidth(), 8);
}

LogicalResult PlanBuilder::addTensors() {
  auto numInputs = func->getAttrOfType<IntegerAttr>(kNumInputsAttrName);
  if (!numInputs)
    return func.emitError("plan: the function has no '")
           << kNumInputsAttrName << "' attribute (not from lowerToGpu?)";
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto memref = dyn_cast<MemRefType>(type);
    std::optional<rt::DataType> dtype =
        memref ? dataTypeOf(memref.getElementType()) : std::nullopt;
    if (!dtype || !memref.hasStaticShape() || !memref.getLayout().isIdentity())
      return func.emitError("plan: unsupported I/O type ") << type;
    bool input = static_cast<int64_t>(i) < numInputs.getInt();
    auto name = func.getArgAttrOfType<StringAttr>(i, KilnDialect::getNameAttrName());
    std::string fallback =
        input ? "input" + std::to_string(i)
              : "output" + std::to_string(i - numInputs.getInt());
    rt::TensorDesc desc;
    desc.name = name ? name.str() : fallback;
    desc.type = *dtype;
    desc.shape.assign(memref.getShape().begin(), memref.getShape().end());
    desc.isInput = input;
    for (const rt::TensorDesc &other : plan.tensors)
      if (other.name == desc.name)
        return func.emitError("plan: two inputs/outputs are named '")
               << desc.name << "'";
    plan.tensors.push_back(std::move(desc));
  }
  return success();
}

FailureOr<uint64_t> PlanBuilder::addWeight(memref::GetGlobalOp op) {
  auto it = weightOffsets.find(op.getName());
  if (it != weightOffsets.end())
    return it->second;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      op, op.getNameAttr());
  if (!global || !global.getInitialValue())
    return op.emitError("plan: global '") << op.getName()
                                          << "' has no initial value";
  MemRefType type = global.getType();
  uint64_t count = type.getNumElements();
  uint64_t bytes = count * elementBytes(type.getElementType());
  std::string data;
  Attribute init = *global.getInitialValue();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(init)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return op.emitError("plan: weight blob '")
             << resource.getRawHandle().getKey() << "' has no data";
    ArrayRef<char> raw = blob->getData();
    if (raw.size() != bytes)
      return op.emitError("plan: weight blob '")
             << resource.getRawHandle().getKey() << "' has " << raw.size()
             << " bytes, expected " << bytes;
    data.assign(raw.begin(), raw.end());
  } else if (auto dense = dyn_cast<DenseElementsAttr>(init)) {
    if (dense.getElementType().isInteger(1)) {
      for (bool v : dense.getValues<bool>())
        data.push_back(v ? 1 : 0);
    } else if (dense.isSplat()) {
      ArrayRef<char> one = dense.getRawData();
      for (uint64_t i = 0; i < count; ++i)
        data.append(one.begin(), one.end());
    } else {
      data.assign(dense.getRawData().begin(), dense.getRawData().end());
    }
    if (data.size() != bytes)
      return op.emitError("plan: global '") << op.getName() << "' has "
                                            << data.size() << " bytes, expected "
                                            << bytes;
  } else {
    return op.emitError("plan: unsupported initial value of global '")
           << op.getName() << "'";
  }
  uint64_t offset = llvm::alignTo(plan.weights.size(), kBufferAlignment);
  plan.weights.resize(offset, '\0');
  plan.weights += data;
  weightOffsets[op.getName()] = offset;
  return offset;
}

/// The address of the root buffer under `v` (views stripped).
FailureOr<rt::Address> PlanBuilder::rootAddress(Value v, Operation *user) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  rt::Address a;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() != &func.getBody().front())
      return user->emitError("plan: operand is not a function argument");
    a.space = rt::MemorySpace::Tensor;
    a.index = arg.getArgNumber();
    return a;
  }
  if (auto global = v.getDefiningOp<memref::GetGlobalOp>()) {
    FailureOr<uint64_t> offset = addWeight(global);
    if (failed(offset))
      return failure();
    a.space = rt::MemorySpace::Weights;
    a.offset = *offset;
    return a;
  }
  auto it = allocs.find(v);
  if (it == allocs.end())
    return user->emitError("plan: cannot trace an operand to an input, "
                           "output, weight or allocation");
  a.space = rt::MemorySpace::Arena;
  a.index = it->second; // the buffer, until placeArena()
  return a;
}

/// The address of the first element of view `v`.
FailureOr<rt::Address> PlanBuilder::viewAddress(Value v, Operation *user) {
  FailureOr<rt::Address> a = rootAddress(v, user);
  if (failed(a))
    return failure();
  auto type = cast<MemRefType>(v.getType());
  int64_t offset;
  SmallVector<int64_t> strides;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset))
    return user->emitError("plan: dynamic offset in ") << type;
  a->offset += offset * elementBytes(type.getElementType());
  return a;
}

void PlanBuilder::use(const rt::Address &a) {
  if (a.space != rt::MemorySpace::Arena)
    return;
  ArenaBuffer &b = arena[a.index];
  int64_t step = plan.steps.size();
  if (b.first < 0)
    b.first = step;
  b.last = step;
}

LogicalResult PlanBuilder::visit(Operation &op) {
  if (isa<func::ReturnOp, memref::DeallocOp, memref::GetGlobalOp>(op) ||
      isa<ViewLikeOpInterface>(op))
    return success();
  if (matchPattern(&op, m_Constant()))
    return success();
  if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
    auto type = cast<MemRefType>(op.getResult(0).getType());
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return op.emitError("plan: allocation of ") << type
                                                  << " is not static";
    allocs[op.getResult(0)] = arena.size();
    arena.push_back({type.getNumElements() * elementBytes(type.getElementType())});
    return success();
  }
  rt::Step step;
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
    step.kind = rt::Step::Kind::Launch;
    auto k = kernelIndex.find(launch.getKernelName().getValue());
    if (k == kernelIndex.end())
      return op.emitError("plan: unknown kernel ") << launch.getKernelName();
    step.launch.kernel = k->second;
    auto dim = [&](Value v, uint32_t &out) -> LogicalResult {
      std::optional<int64_t> c = getConstantIntValue(v);
      if (!c || *c < 1 || *c > std::numeric_limits<int32_t>::max())
        return op.emitError("plan: launch dimensions must be constants");
      out = static_cast<uint32_t>(*c);
      return success();
    };
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    if (failed(dim(grid.x, step.launch.grid[0])) ||
        failed(dim(grid.y, step.launch.grid[1])) ||
        failed(dim(grid.z, step.launch.grid[2])) ||
        failed(dim(block.x, step.launch.block[0])) ||
        failed(dim(block.y, step.launch.block[1])) ||
        failed(dim(block.z, step.launch.block[2])))
      return failure();
    if (launch.getDynamicSharedMemorySize())
      return op.emitError("plan: dynamic shared memory is not supported");
    for (Value arg : launch.getKernelOperands()) {
      if (!isa<MemRefType>(arg.getType()))
        return op.emitError("plan: kernel argument of type ")
               << arg.getType() << " (only buffers)";
      FailureOr<rt::Address> a = rootAddress(arg, &op);
      if (failed(a))
        return failure();
      use(*a);
      rt::KernelArg karg;
      karg.kind = rt::KernelArg::Kind::Pointer;
      karg.address = *a;
      step.launch.args.push_back(karg);
    }
  } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    step.kind = rt::Step::Kind::Copy;
    if (!isDeviceCopy(copy))
      return op.emitError("plan: a copy between non-contiguous buffers is not "
                          "a device copy (kiln-gpu-form-kernels makes it a "
                          "kernel)");
    FailureOr<rt::Address> src = viewAddress(copy.getSource(), &op);
    FailureOr<rt::Address> dst = viewAddress(copy.getTarget(), &op);
    if (failed(src) || failed(dst))
      return failure();
    if (src->space == dst->space && src->index == dst->index &&
        src->offset == dst->offset)
      return success(); // a buffer onto itself: nothing to do
    use(*src);
    use(*dst);
    auto type = cast<MemRefType>(copy.getSource().getType());
    step.copy = {*dst, *src,
                 type.getNumElements() * elementBytes(type.getElementType())};
  } else if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    step.kind = rt::Step::Kind::Fill;
    std::optional<uint8_t> byte = getMemsetByte(fill);
    if (!byte)
      return op.emitError("plan: this fill is not a memset (kiln-gpu-form-"
                          "kernels makes it a kernel)");
    FailureOr<rt::Address> dst = viewAddress(fill.getOutputs()[0], &op);
    if (failed(dst))
      return failure();
    use(*dst);
    auto type = cast<MemRefType>(fill.getOutputs()[0].getType());
    step.fill = {*dst,
                 type.getNumElements() * elementBytes(type.getElementType()),
                 *byte};
  } else {
    return op.emitError("plan: host operation '")
           << op.getName() << "' cannot be expressed as a plan step";
  }
  plan.steps.push_back(std::move(step));
  return success();
}

/// Best fit by decreasing size: a buffer goes at the lowest aligned offset
/// that overlaps no placed buffer whose steps overlap its own.
void PlanBuilder::placeArena() {
  std::vector<unsigned> order;
  for (unsigned i = 0; i < arena.size(); ++i)
    if (arena[i].first >= 0 && arena[i].bytes > 0)
      order.push_back(i);
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return arena[a].bytes > arena[b].bytes;
  });
  std::vector<unsigned> placed;
  uint64_t total = 0;
  for (unsigned i : order) {
    ArenaBuffer &buf = arena[i];
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (unsigned j : placed) {
      const ArenaBuffer &other = arena[j];
      if (other.last >= buf.first && buf.last >= other.first)
        busy.push_back({other.offset, other.offset + other.bytes});
    }
    llvm::sort(busy);
    uint64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (offset + buf.bytes <= begin)
        break;
      offset = std::max(offset, llvm::alignTo(end, kBufferAlignment));
    }
    buf.offset = offset;
    total = std::max(total, offset + buf.bytes);
    placed.push_back(i);
  }
  plan.arenaBytes = llvm::alignTo(total, kBufferAlignment);
  auto fix = [&](rt::Address &a) {
    if (a.space != rt::MemorySpace::Arena)
      return;
    a.offset += arena[a.index].offset;
    a.index = 0;
  };
  for (rt::Step &s : plan.steps) {
    switch (s.kind) {
    case rt::Step::Kind::Launch:
      for (rt::KernelArg &arg : s.launch.args)
        fix(arg.address);
      break;
    case rt::Step::Kind::Copy:
      fix(s.copy.dst);
      fix(s.copy.src);
      break;
    case rt::Step::Kind::Fill:
      fix(s.fill.dst);
      break;
    }
  }
}

LogicalResult PlanBuilder::run() {
  for (auto [i, k] : llvm::enumerate(plan.kernels))
    kernelIndex[k.name] = i;
  if (failed(addTensors()))
    return failure();
  for (Operation &op : func.getBody().front())
    if (failed(visit(op)))
      return failure();
  placeArena();
  return success();
}

FailureOr<rt::PlanContents>
mlir::kiln::buildPlan(ModuleOp module, std::vector<rt::KernelDesc> kernels,
                std::vector<rt::KernelImage> images,
                const PlanOptions &options) {
  auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
  if (funcs.size() != 1)
    return module.emitError("plan: expects one host function");
  rt::PlanContents plan;
  plan.kernels = std::move(kernels);
  plan.images = std::move(images);
  rt::Compatibility &compat = plan.compatibility;
  compat.kilnVersion = KILN_VERSION;
  compat.archs.assign(options.archs.begin(), options.archs.end());
  for (const rt::KernelImage &image : plan.images)
    if (image.format == rt::KernelImage::Format::PTX)
      compat.ptxIsa = std::max(compat.ptxIsa, ptxIsaVersion(image.arch));
  // PTX ISA 8.x arrived with CUDA 12.x, 9.0 with 13.0; a cubin needs a
  // driver that knows its architecture (12.0 for everything up to sm_90).
  unsigned isa = std::max(compat.ptxIsa, ptxIsaVersion(*llvm::max_element(
                                             options.archs)));
  compat.minDriverVersion =
      isa >= 90 ? 13000 : 12000 + (isa >= 80 ? (isa - 80) * 10 : 0);
  compat.precision = "fp32";
  compat.buildOptions = options.buildOptions;
  if (failed(PlanBuilder(funcs[0], plan).run()))
    return failure();
  // A kernel that is never launched keeps its entry in the list; that is
  // harmless, but every launched one must exist in every image (checked by
  // the runtime when it loads them).
  return plan;
}
