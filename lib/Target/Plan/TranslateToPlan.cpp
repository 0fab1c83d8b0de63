//===- TranslateToPlan.cpp - compiled IR to plan contents -------*- C++ -*-===//
//
// Reads the host function that the GPU pipelines leave (static shapes only)
// into the steps of a plan. Every buffer is traced to its root: an I/O tensor
// (a function argument), a weight (a memref.global, copied into the weights
// section) or an allocation (at its kiln_gpu.arena_offset in the arena).
// Views (expand/collapse_shape, subview, ...) share their root; kernels take
// the root's address and apply the view's static offset themselves
// (bare-pointer arguments), copies and fills get the view's byte offset.
// Kernel images are the objects of `gpu.binary @kiln_kernels`.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/Plan/TranslateToPlan.h"

#include "LibraryCallPayload.h"
#include "kiln/Codegen/GPU/DeviceOps.h"
#include "kiln/Codegen/Host/Buffers.h"
#include "kiln/Codegen/Host/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.h"
#include "kiln/Support/DataType.h"
#include "kiln/Target/CUDA/CudaTarget.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/StringSet.h"

#ifndef KILN_VERSION
#define KILN_VERSION "unknown"
#endif

using namespace mlir;
using namespace mlir::kiln;

namespace {
/// Alignment of weights in their section.
constexpr uint64_t kWeightAlignment = 256;

class PlanTranslator {
public:
  PlanTranslator(func::FuncOp func, rt::PlanContents &plan, uint64_t maxBytes)
      : func(func), plan(plan), maxBytes(maxBytes),
        symbols(func->getParentOp()) {}

  LogicalResult run();

private:
  LogicalResult addTensors();
  LogicalResult addArena();
  LogicalResult addKernels();
  LogicalResult visit(Operation &op);
  FailureOr<rt::Address> rootAddress(Value v, Operation *user);
  FailureOr<rt::Address> viewAddress(Value v, Operation *user);
  FailureOr<uint64_t> addWeight(memref::GetGlobalOp op);

  func::FuncOp func;
  rt::PlanContents &plan;
  /// The memory budget of the weights and the arena together.
  uint64_t maxBytes;
  /// Allocation -> its offset in the arena.
  DenseMap<Value, uint64_t> arenaOffsets;
  llvm::StringMap<uint64_t> weightOffsets;
  llvm::StringMap<uint32_t> kernelIndex;
  /// The module's symbols, looked up by name in constant time (a walk of
  /// the module per weight is quadratic in the weights).
  SymbolTable symbols;
};
} // namespace

static uint64_t byteSize(MemRefType type) {
  return type.getNumElements() * getElementBytes(type.getElementType());
}

/// The bytes a kernel may touch from the base of a buffer of `type` (the
/// address it is given): from the view's offset to its last element, by
/// its strides. nullopt for a layout without static strides and offset or
/// with negative strides.
static std::optional<uint64_t> getExtent(MemRefType type) {
  int64_t offset;
  SmallVector<int64_t> strides;
  if (!type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) || offset < 0)
    return std::nullopt;
  if (llvm::is_contained(type.getShape(), 0))
    return 0;
  uint64_t last = static_cast<uint64_t>(offset);
  for (auto [size, stride] : llvm::zip(type.getShape(), strides)) {
    if (ShapedType::isDynamic(stride) || stride < 0)
      return std::nullopt;
    uint64_t step;
    if (__builtin_mul_overflow(static_cast<uint64_t>(size - 1),
                               static_cast<uint64_t>(stride), &step) ||
        __builtin_add_overflow(last, step, &last))
      return std::nullopt;
  }
  uint64_t bytes;
  if (__builtin_mul_overflow(last + 1, getElementBytes(type.getElementType()),
                             &bytes))
    return std::nullopt;
  return bytes;
}

LogicalResult PlanTranslator::addTensors() {
  auto numInputs = func->getAttrOfType<IntegerAttr>(kNumInputsAttrName);
  llvm::StringSet<> names;
  if (!numInputs)
    return func.emitError("plan: the function has no '")
           << kNumInputsAttrName
           << "' attribute (run kiln-destination-passing first)";
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto memref = dyn_cast<MemRefType>(type);
    bool isUnsigned =
        bool(func.getArgAttr(i, KilnDialect::getUnsignedAttrName()));
    std::optional<rt::DataType> dtype =
        memref ? getRuntimeDataType(memref.getElementType(), isUnsigned)
               : std::nullopt;
    if (!dtype || !memref.hasStaticShape() || !memref.getLayout().isIdentity())
      return func.emitError("plan: unsupported I/O type ") << type;
    bool input = static_cast<int64_t>(i) < numInputs.getInt();
    auto name =
        func.getArgAttrOfType<StringAttr>(i, KilnDialect::getNameAttrName());
    std::string fallback =
        input ? "input" + std::to_string(i)
              : "output" + std::to_string(i - numInputs.getInt());
    rt::TensorDesc desc;
    desc.name = name ? name.str() : fallback;
    desc.type = *dtype;
    desc.shape.assign(memref.getShape().begin(), memref.getShape().end());
    desc.isInput = input;
    if (!names.insert(desc.name).second)
      return func.emitError("plan: two inputs/outputs are named '")
             << desc.name << "'";
    plan.tensors.push_back(std::move(desc));
  }
  return success();
}

LogicalResult PlanTranslator::addArena() {
  auto bytes =
      func->getAttrOfType<IntegerAttr>(KilnGPUDialect::getArenaBytesAttrName());
  if (!bytes)
    return func.emitError("plan: the function has no '")
           << KilnGPUDialect::getArenaBytesAttrName()
           << "' attribute (run kiln-plan-memory first)";
  plan.arenaBytes = bytes.getInt();
  if (plan.arenaBytes > maxBytes)
    return func.emitError("plan: the arena of ")
           << plan.arenaBytes << " bytes is more than the memory budget of "
           << maxBytes << " bytes (raise it with --max-memory)";
  for (Operation &op : func.getBody().front()) {
    if (!isa<memref::AllocOp, memref::AllocaOp>(op))
      continue;
    auto type = cast<MemRefType>(op.getResult(0).getType());
    auto offset =
        op.getAttrOfType<IntegerAttr>(KilnGPUDialect::getArenaOffsetAttrName());
    if (!offset)
      return op.emitError("plan: allocation without '")
             << KilnGPUDialect::getArenaOffsetAttrName()
             << "' (run kiln-plan-memory first)";
    if (!type.hasStaticShape() ||
        uint64_t(offset.getInt()) + byteSize(type) > plan.arenaBytes)
      return op.emitError("plan: allocation of ")
             << type << " at arena offset " << offset.getInt()
             << " does not fit in the " << plan.arenaBytes << "-byte arena";
    arenaOffsets[op.getResult(0)] = offset.getInt();
  }
  return success();
}

LogicalResult PlanTranslator::addKernels() {
  auto result = func.walk([&](gpu::LaunchFuncOp launch) {
    StringRef name = launch.getKernelName().getValue();
    if (kernelIndex.count(name))
      return WalkResult::advance();
    std::string tiling;
    if (Attribute config =
            launch->getAttr(KilnGPUDialect::getTileConfigAttrName()))
      llvm::raw_string_ostream(tiling) << config;
    kernelIndex[name] = plan.kernels.size();
    // Every parameter of a generated kernel is a buffer (bare pointers):
    // its loop bounds are constants and every iteration is guarded by the
    // static iteration count, so neither an argument nor the grid sizes
    // what it touches, and it needs no scalar bounds (plan format 1.3).
    rt::KernelDesc kernel;
    kernel.name = name.str();
    kernel.tiling = tiling;
    kernel.params.assign(launch.getNumKernelOperands(),
                         rt::KernelArg::Kind::Pointer);
    plan.kernels.push_back(std::move(kernel));
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

FailureOr<uint64_t> PlanTranslator::addWeight(memref::GetGlobalOp op) {
  auto it = weightOffsets.find(op.getName());
  if (it != weightOffsets.end())
    return it->second;
  auto global = symbols.lookup<memref::GlobalOp>(op.getNameAttr().getAttr());
  if (!global || !global.getInitialValue())
    return op.emitError("plan: global '")
           << op.getName() << "' has no initial value";
  MemRefType type = global.getType();
  uint64_t count = type.getNumElements();
  uint64_t bytes = byteSize(type);
  // Checked before the bytes are made (a splat would be expanded).
  uint64_t total = llvm::alignTo(plan.weights.size(), kWeightAlignment) + bytes;
  if (total + plan.arenaBytes > maxBytes)
    return op.emitError("plan: the weights and the arena would take ")
           << total + plan.arenaBytes
           << " bytes, more than the memory budget of " << maxBytes
           << " bytes (raise it with --max-memory)";
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
      return op.emitError("plan: global '")
             << op.getName() << "' has " << data.size() << " bytes, expected "
             << bytes;
  } else {
    return op.emitError("plan: unsupported initial value of global '")
           << op.getName() << "'";
  }
  uint64_t offset = llvm::alignTo(plan.weights.size(), kWeightAlignment);
  plan.weights.resize(offset, '\0');
  plan.weights += data;
  weightOffsets[op.getName()] = offset;
  return offset;
}

/// The address of the root buffer under `v` (views stripped).
FailureOr<rt::Address> PlanTranslator::rootAddress(Value v, Operation *user) {
  v = getRootBuffer(v);
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
  auto it = arenaOffsets.find(v);
  if (it == arenaOffsets.end())
    return user->emitError("plan: cannot trace an operand to an input, "
                           "output, weight or allocation");
  a.space = rt::MemorySpace::Arena;
  a.offset = it->second;
  return a;
}

/// The address of the first element of view `v`.
FailureOr<rt::Address> PlanTranslator::viewAddress(Value v, Operation *user) {
  FailureOr<rt::Address> a = rootAddress(v, user);
  if (failed(a))
    return failure();
  std::optional<int64_t> offset = getStaticByteOffset(v);
  if (!offset)
    return user->emitError("plan: dynamic offset in ") << v.getType();
  a->offset += *offset;
  return a;
}

LogicalResult PlanTranslator::visit(Operation &op) {
  if (isa<func::ReturnOp, memref::DeallocOp, memref::GetGlobalOp,
          memref::AllocOp, memref::AllocaOp>(op) ||
      isa<ViewLikeOpInterface>(op))
    return success();
  if (matchPattern(&op, m_Constant()))
    return success();
  rt::Step step;
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
    step.kind = rt::Step::Kind::Launch;
    step.launch.kernel = kernelIndex.lookup(launch.getKernelName().getValue());
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
    auto accesses = launch->getAttrOfType<ArrayAttr>(
        KilnGPUDialect::getArgAccessAttrName());
    if (!accesses || accesses.size() != launch.getNumKernelOperands())
      return op.emitError("plan: the launch has no '")
             << KilnGPUDialect::getArgAccessAttrName()
             << "' for each of its arguments (run kiln-gpu-form-kernels)";
    for (auto [arg, accessAttr] :
         llvm::zip(launch.getKernelOperands(), accesses)) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type)
        return op.emitError("plan: kernel argument of type ")
               << arg.getType()
               << " (only buffers: an integer would need its bounds against "
                  "the buffers' extents recorded)";
      FailureOr<rt::Address> a = rootAddress(arg, &op);
      std::optional<uint64_t> extent = getExtent(type);
      std::optional<int64_t> base = getBaseByteOffset(arg);
      if (failed(a))
        return failure();
      if (!base || *base < 0)
        return op.emitError("plan: the base of ")
               << type << " has no static place in its buffer";
      a->offset += *base;
      if (!extent)
        return op.emitError("plan: the bytes a kernel may touch through ")
               << type << " cannot be bounded";
      rt::KernelArg karg;
      karg.kind = rt::KernelArg::Kind::Pointer;
      karg.address = *a;
      karg.extent = *extent;
      StringRef access = cast<StringAttr>(accessAttr).getValue();
      karg.access = access == "read"    ? rt::KernelArg::Access::Read
                    : access == "write" ? rt::KernelArg::Access::Write
                                        : rt::KernelArg::Access::ReadWrite;
      step.launch.args.push_back(karg);
    }
  } else if (auto call = dyn_cast<LibraryCallOp>(op)) {
    step.kind = rt::Step::Kind::LibraryCall;
    step.libraryCall.callee = call.getCallee().str();
    for (Value buffer : call.getBuffers()) {
      auto type = cast<MemRefType>(buffer.getType());
      FailureOr<rt::Address> a = viewAddress(buffer, &op);
      std::optional<uint64_t> extent = getExtent(type);
      std::optional<int64_t> offset = getStaticByteOffset(buffer);
      if (failed(a))
        return failure();
      if (!extent || !offset)
        return op.emitError("plan: the bytes a library call may touch "
                            "through ")
               << type << " cannot be bounded";
      // The extent counts from the root buffer, the address from the view.
      uint64_t skipped = std::min<uint64_t>(*extent, *offset);
      step.libraryCall.buffers.push_back({*a, *extent - skipped});
    }
    FailureOr<std::string> payload = encodeLibraryCallPayload(call);
    if (failed(payload))
      return failure();
    step.libraryCall.payload = std::move(*payload);
  } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    step.kind = rt::Step::Kind::Copy;
    if (!isDeviceCopy(copy))
      return op.emitError("plan: a copy between non-contiguous buffers is not "
                          "a device copy (kiln-gpu-form-kernels makes it a "
                          "kernel)");
    if (isSelfCopy(copy))
      return success(); // a buffer onto itself: nothing to do
    FailureOr<rt::Address> src = viewAddress(copy.getSource(), &op);
    FailureOr<rt::Address> dst = viewAddress(copy.getTarget(), &op);
    if (failed(src) || failed(dst))
      return failure();
    step.copy = {*dst, *src,
                 byteSize(cast<MemRefType>(copy.getSource().getType()))};
  } else if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    step.kind = rt::Step::Kind::Fill;
    std::optional<uint8_t> byte = getMemsetByte(fill);
    if (!byte)
      return op.emitError("plan: this fill is not a memset (kiln-gpu-form-"
                          "kernels makes it a kernel)");
    FailureOr<rt::Address> dst = viewAddress(fill.getOutputs()[0], &op);
    if (failed(dst))
      return failure();
    step.fill = {*dst,
                 byteSize(cast<MemRefType>(fill.getOutputs()[0].getType())),
                 *byte};
  } else {
    return op.emitError("plan: host operation '")
           << op.getName() << "' cannot be expressed as a plan step";
  }
  plan.steps.push_back(std::move(step));
  return success();
}

LogicalResult PlanTranslator::run() {
  if (failed(addTensors()) || failed(addArena()) || failed(addKernels()))
    return failure();
  for (Operation &op : func.getBody().front())
    if (failed(visit(op)))
      return failure();
  return success();
}

/// The images of `gpu.binary @kiln_kernels`: cubins and PTX by target.
static LogicalResult addImages(ModuleOp module,
                               const PlanTranslationOptions &options,
                               rt::PlanContents &plan) {
  auto binary = module.lookupSymbol<gpu::BinaryOp>("kiln_kernels");
  if (!binary) {
    if (!plan.kernels.empty())
      return module.emitError("plan: the module launches kernels but has no "
                              "'gpu.binary @kiln_kernels' (run the target "
                              "pipeline first)");
    return success();
  }
  for (Attribute a : binary.getObjects()) {
    auto object = cast<gpu::ObjectAttr>(a);
    auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
    unsigned arch = 0;
    StringRef chip = target ? StringRef(target.getChip()) : StringRef();
    if (!target || !chip.consume_front("sm_") || chip.getAsInteger(10, arch))
      return binary.emitError("plan: object for ")
             << object.getTarget() << " is not for an sm_XY NVVM target";
    if (!llvm::is_contained(options.archs, arch))
      return binary.emitError("plan: object for sm_")
             << arch << ", which is not a target ("
             << formatTargets(options.archs) << ")";
    rt::KernelImage image;
    image.arch = arch;
    image.data = object.getObject().getValue().str();
    switch (object.getFormat()) {
    case gpu::CompilationTarget::Assembly:
      image.format = rt::KernelImage::Format::PTX;
      break;
    case gpu::CompilationTarget::Binary:
      image.format = rt::KernelImage::Format::Cubin;
      break;
    default:
      return binary.emitError("plan: object for sm_")
             << arch << " is neither PTX (assembly) nor a cubin (bin)";
    }
    plan.images.push_back(std::move(image));
  }
  return success();
}

FailureOr<rt::PlanContents>
mlir::kiln::translateToPlan(ModuleOp module,
                            const PlanTranslationOptions &options) {
  SmallVector<func::FuncOp> funcs;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal())
      funcs.push_back(f);
  if (funcs.size() != 1 || !funcs[0].getBody().hasOneBlock())
    return module.emitError("plan: expects one host function with one block, "
                            "got ")
           << funcs.size() << " functions";
  if (options.archs.empty())
    return module.emitError("plan: no target architecture");
  rt::PlanContents plan;
  if (failed(PlanTranslator(funcs[0], plan, options.maxBytes).run()) ||
      failed(addImages(module, options, plan)))
    return failure();
  rt::Compatibility &compat = plan.compatibility;
  compat.kilnVersion = KILN_VERSION;
  compat.archs.assign(options.archs.begin(), options.archs.end());
  for (const rt::KernelImage &image : plan.images)
    if (image.format == rt::KernelImage::Format::PTX)
      compat.ptxIsa = std::max(compat.ptxIsa, getPtxIsaVersion(image.arch));
  // PTX ISA 8.x arrived with CUDA 12.x, 9.0 with 13.0; a cubin needs a
  // driver that knows its architecture (12.0 for everything up to sm_90).
  unsigned isa = std::max(compat.ptxIsa,
                          getPtxIsaVersion(*llvm::max_element(options.archs)));
  compat.minDriverVersion =
      isa >= 90 ? 13000 : 12000 + (isa >= 80 ? (isa - 80) * 10 : 0);
  compat.precision = stringifyPrecision(options.precision).str();
  compat.buildOptions = options.buildOptions;
  return plan;
}
