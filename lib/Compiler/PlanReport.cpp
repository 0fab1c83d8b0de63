//===- PlanReport.cpp - what a plan does, for people ------------*- C++ -*-===//
//
// See PlanReport.h. Both writers walk the host function the way the plan
// translation does: a launch, a copy that moves bytes and a fill are steps;
// views, allocations, constants and the return are not.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/PlanReport.h"

#include "kiln/Codegen/Host/Buffers.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

using namespace mlir;
using namespace mlir::kiln;

namespace {
/// A buffer a step reads or writes: the view it passes and its root.
struct Touch {
  Value view, root;
  bool read = false, write = false;
};

/// One plan step of the host function.
struct Step {
  Operation *op = nullptr;
  std::string name;  ///< the kernel, or "copy" / "fill"
  std::string shape; ///< grid x block of a launch
  SmallVector<std::string> layers;
  int64_t flops = 0;
  uint64_t readBytes = 0, writeBytes = 0;
  SmallVector<Touch> touches;
};
} // namespace

/// The network function of `module` (the first func.func with a body
/// outside the kernels' module).
static func::FuncOp getHostFunction(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      return func;
  return nullptr;
}

/// Bytes of the elements a view of type `type` covers.
static uint64_t getViewBytes(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape())
    return 0;
  return memref.getNumElements() * getElementBytes(memref.getElementType());
}

/// The layers `op` computes: its fusion group, else the innermost names of
/// its location (an ONNX node's name, or a kiln op's kind in a .mlir file).
static SmallVector<std::string> getLayers(Operation *op) {
  SmallVector<std::string> names;
  auto add = [&](StringRef name) {
    if (!name.empty() && !llvm::is_contained(names, name))
      names.push_back(name.str());
  };
  if (auto group = op->getAttrOfType<ArrayAttr>(
          KilnGPUDialect::getFusionGroupAttrName())) {
    for (Attribute a : group)
      add(cast<StringAttr>(a).getValue());
    return names;
  }
  op->getLoc()->walk([&](Location loc) {
    auto named = dyn_cast<NameLoc>(loc);
    if (named && !isa<NameLoc>(named.getChildLoc()))
      add(named.getName().getValue());
    return WalkResult::advance();
  });
  return names;
}

/// The step `op` makes, if it makes one.
static std::optional<Step> getStep(Operation &op) {
  Step step;
  step.op = &op;
  auto touch = [&](Value view, bool read, bool write) {
    step.touches.push_back({view, getRootBuffer(view), read, write});
    uint64_t bytes = getViewBytes(view.getType());
    step.readBytes += read ? bytes : 0;
    step.writeBytes += write ? bytes : 0;
  };
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
    step.name = launch.getKernelName().getValue().str();
    auto dim = [](Value v) {
      std::optional<int64_t> c = getConstantIntValue(v);
      return c ? std::to_string(*c) : std::string("?");
    };
    step.shape =
        dim(launch.getGridSizeX()) + " x " + dim(launch.getBlockSizeX());
    if (auto flops = launch->getAttrOfType<IntegerAttr>(
            KilnGPUDialect::getFlopsAttrName()))
      step.flops = flops.getInt();
    auto accesses = launch->getAttrOfType<ArrayAttr>(
        KilnGPUDialect::getArgAccessAttrName());
    for (auto [i, arg] : llvm::enumerate(launch.getKernelOperands())) {
      StringRef access = accesses && i < accesses.size()
                             ? cast<StringAttr>(accesses[i]).getValue()
                             : StringRef("readwrite");
      touch(arg, access != "write", access != "read");
    }
  } else if (auto call = dyn_cast<LibraryCallOp>(op)) {
    step.name = "call " + call.getCallee().str();
    DictionaryAttr params = call.getParams();
    auto param = [&](StringRef name) -> int64_t {
      auto a = params.getAs<IntegerAttr>(name);
      return a ? a.getInt() : 0;
    };
    bool matmul = call.getCallee() == "cublaslt.matmul";
    if (matmul) {
      step.shape = std::to_string(param("m")) + " x " +
                   std::to_string(param("n")) + " x " +
                   std::to_string(param("k"));
      if (param("batch") > 1)
        step.shape += " (batch " + std::to_string(param("batch")) + ")";
      step.flops = 2 * param("m") * param("n") * param("k") * param("batch");
    }
    for (auto [i, buffer] : llvm::enumerate(call.getBuffers())) {
      if (matmul && i == 3)
        continue; // the workspace: scratch, not data
      StringRef access = cast<StringAttr>(call.getAccess()[i]).getValue();
      touch(buffer, access != "write", access != "read");
    }
  } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    if (isSelfCopy(copy))
      return std::nullopt;
    step.name = "copy";
    touch(copy.getSource(), true, false);
    touch(copy.getTarget(), false, true);
  } else if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    step.name = "fill";
    touch(fill.getOutputs()[0], false, true);
  } else {
    return std::nullopt;
  }
  step.layers = getLayers(&op);
  return step;
}

/// The steps of `func`, in order.
static std::vector<Step> getSteps(func::FuncOp func) {
  std::vector<Step> steps;
  for (Operation &op : func.getBody().front())
    if (std::optional<Step> step = getStep(op))
      steps.push_back(std::move(*step));
  return steps;
}

uint64_t mlir::kiln::getActivationBytes(ModuleOp module) {
  uint64_t total = 0;
  module.walk([&](Operation *op) {
    if (!isa<KilnDialect>(op->getDialect()) || isa<ConstantOp>(op))
      return;
    for (Value result : op->getResults())
      if (auto type = dyn_cast<RankedTensorType>(result.getType());
          type && type.hasStaticShape())
        total += type.getNumElements() * getElementBytes(type.getElementType());
  });
  return total;
}

/// `bytes` in decimal megabytes, 3 decimals.
static std::string megabytes(uint64_t bytes) {
  return llvm::formatv("{0:F3}", bytes / 1e6).str();
}

LogicalResult mlir::kiln::writePlanReport(ModuleOp module,
                                          const PlanReportHeader &header,
                                          llvm::raw_ostream &os) {
  func::FuncOp func = getHostFunction(module);
  if (!func)
    return module.emitError("report: the module has no host function");
  std::vector<Step> steps = getSteps(func);
  unsigned launches = 0, copies = 0, fills = 0, calls = 0;
  int64_t flops = 0;
  uint64_t read = 0, written = 0;
  for (const Step &s : steps) {
    bool call = StringRef(s.name).starts_with("call ");
    calls += call;
    launches += s.name != "copy" && s.name != "fill" && !call;
    copies += s.name == "copy";
    fills += s.name == "fill";
    flops += s.flops;
    read += s.readBytes;
    written += s.writeBytes;
  }
  os << "# kiln plan report\n\n";
  os << "model: " << header.model << "\n";
  os << "build options: " << header.buildOptions << "\n";
  os << "steps: " << steps.size() << " (" << launches << " launch, " << copies
     << " copy, " << fills << " fill"
     << (calls ? ", " + std::to_string(calls) + " library call" : "")
     << ")\n\n";
  os << "| step | kernel | grid x block | layers | FLOP | bytes read | bytes "
        "written |\n";
  os << "|---:|---|---|---|---:|---:|---:|\n";
  for (auto [i, s] : llvm::enumerate(steps))
    os << "| " << i << " | " << s.name << " | " << s.shape << " | "
       << llvm::join(s.layers, ", ") << " | " << s.flops << " | " << s.readBytes
       << " | " << s.writeBytes << " |\n";
  os << "| total | | | | " << flops << " | " << read << " | " << written
     << " |\n\n";

  // Memory: the arena, the buffers placed in it, the weights.
  uint64_t arena = 0, buffers = 0, weights = 0;
  unsigned inPlace = 0;
  if (auto a = func->getAttrOfType<IntegerAttr>(
          KilnGPUDialect::getArenaBytesAttrName()))
    arena = a.getInt();
  func.walk(
      [&](memref::AllocOp alloc) { buffers += getViewBytes(alloc.getType()); });
  module.walk([&](memref::GlobalOp global) {
    weights += getViewBytes(global.getType());
  });
  func.walk([&](gpu::LaunchFuncOp launch) {
    auto pairs = launch->getAttrOfType<DenseI64ArrayAttr>(
        KilnGPUDialect::getInPlaceAttrName());
    auto offset = [&](Value v) -> std::optional<int64_t> {
      auto alloc = v.getDefiningOp<memref::AllocOp>();
      auto attr = alloc ? alloc->getAttrOfType<IntegerAttr>(
                              KilnGPUDialect::getArenaOffsetAttrName())
                        : nullptr;
      return attr ? std::optional<int64_t>(attr.getInt()) : std::nullopt;
    };
    for (unsigned i = 0; pairs && i + 1 < pairs.size(); i += 2) {
      std::optional<int64_t> x = offset(launch.getKernelOperands()[pairs[i]]);
      std::optional<int64_t> y =
          offset(launch.getKernelOperands()[pairs[i + 1]]);
      inPlace += x && y && *x == *y;
    }
  });
  os << "| memory | bytes | MB |\n|---|---:|---:|\n";
  auto row = [&](StringRef what, uint64_t bytes) {
    os << "| " << what << " | " << bytes << " | " << megabytes(bytes) << " |\n";
  };
  row("arena (one execution context's device memory)", arena);
  row("buffers of the plan, summed", buffers);
  row("activations of the graph (each value between layers), summed",
      header.activationBytes);
  row("weights", weights);
  if (header.activationBytes)
    os << "\narena / activations: "
       << llvm::formatv("{0:F1}", 100.0 * arena / header.activationBytes)
       << "%\n";
  os << "outputs written in place of an input: " << inPlace << "\n";
  return success();
}

/// `text` as a DOT string's contents.
static std::string escape(StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

/// "1x3x224x224xf32" for a memref type.
static std::string describeType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto memref = dyn_cast<MemRefType>(type)) {
    for (int64_t d : memref.getShape())
      os << d << "x";
    os << memref.getElementType();
  } else {
    os << type;
  }
  return text;
}

LogicalResult mlir::kiln::writePlanGraph(ModuleOp module,
                                         llvm::raw_ostream &os) {
  func::FuncOp func = getHostFunction(module);
  if (!func)
    return module.emitError("dump-graph: the module has no host function");
  std::vector<Step> steps = getSteps(func);
  int64_t numInputs = func.getNumArguments();
  if (auto n = func->getAttrOfType<IntegerAttr>("kiln.num_inputs"))
    numInputs = n.getInt();
  auto argName = [&](unsigned i) {
    auto name = func.getArgAttrOfType<StringAttr>(i, "kiln.name");
    return name ? name.str() : "arg" + std::to_string(i);
  };

  os << "digraph plan {\n  node [shape=box, fontname=\"monospace\"];\n";
  DenseMap<Value, std::string> lastWriter;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    if (static_cast<int64_t>(i) >= numInputs)
      continue;
    std::string id = "in" + std::to_string(i);
    os << "  " << id << " [shape=ellipse, label=\"input " << escape(argName(i))
       << "\\n"
       << escape(describeType(func.getArgument(i).getType())) << "\"];\n";
    lastWriter[func.getArgument(i)] = id;
  }
  std::set<std::pair<std::string, std::string>> edges;
  auto edge = [&](const std::string &from, const std::string &to, Type type) {
    if (edges.insert({from, to}).second)
      os << "  " << from << " -> " << to << " [label=\""
         << escape(describeType(type)) << "\"];\n";
  };
  for (auto [i, s] : llvm::enumerate(steps)) {
    std::string id = "s" + std::to_string(i);
    os << "  " << id << " [label=\"" << i << ": " << escape(s.name);
    if (!s.layers.empty())
      os << "\\n" << escape(llvm::join(s.layers, ", "));
    if (s.flops)
      os << "\\n" << s.flops << " FLOP";
    os << "\"];\n";
    for (const Touch &t : s.touches)
      if (t.read)
        if (auto it = lastWriter.find(t.root); it != lastWriter.end())
          edge(it->second, id, t.view.getType());
    for (const Touch &t : s.touches)
      if (t.write)
        lastWriter[t.root] = id;
  }
  for (unsigned i = numInputs; i < func.getNumArguments(); ++i) {
    std::string id = "out" + std::to_string(i);
    Value arg = func.getArgument(i);
    os << "  " << id << " [shape=ellipse, label=\"output " << escape(argName(i))
       << "\\n"
       << escape(describeType(arg.getType())) << "\"];\n";
    if (auto it = lastWriter.find(arg); it != lastWriter.end())
      edge(it->second, id, arg.getType());
  }
  os << "}\n";
  return success();
}
