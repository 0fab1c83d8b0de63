//===- kiln-plan-info.cpp - what a plan file holds --------------*- C++ -*-===//
//
// Verifies a .kplan file the way the runtime does (readPlan) and prints what
// it holds: the compatibility record, the I/O tensors, the kernels and their
// signatures, the kernel images, the sizes of the weights and the arena, and
// the steps (counted by kind, or one line each with --steps: a launch shows
// its arguments, a pointer with its extent and access, "arena+256[1024,w]";
// a library call its callee, its buffers and the size of its payload). Needs
// no GPU. Exit status 1 with "kiln-plan-info: <file>: <status>" when the
// plan does not verify.
//
// The output is stable: lit tests check it with FileCheck.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/CublasLtMatmul.h"
#include "kiln/runtime/Plan.h"
#include "kiln/runtime/Plugin.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

using namespace kiln::rt;

namespace {

std::string formatAddress(const Address &a) {
  const char *space = a.space == MemorySpace::Arena     ? "arena"
                      : a.space == MemorySpace::Weights ? "weights"
                                                        : "tensor";
  std::string index =
      a.space == MemorySpace::Tensor ? std::to_string(a.index) : "";
  return space + index + "+" + std::to_string(a.offset);
}

std::string formatDims(const std::array<uint32_t, 3> &d) {
  return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," +
         std::to_string(d[2]) + ")";
}

/// "-", "r", "w", "rw".
const char *accessLetters(KernelArg::Access access) {
  switch (access) {
  case KernelArg::Access::None:
    return "-";
  case KernelArg::Access::Read:
    return "r";
  case KernelArg::Access::Write:
    return "w";
  case KernelArg::Access::ReadWrite:
    return "rw";
  }
  return "?";
}

/// "ptr", "i32", "i64", "f32".
const char *kindName(KernelArg::Kind kind) {
  switch (kind) {
  case KernelArg::Kind::Pointer:
    return "ptr";
  case KernelArg::Kind::I32:
    return "i32";
  case KernelArg::Kind::I64:
    return "i64";
  case KernelArg::Kind::F32:
    return "f32";
  }
  return "?";
}

/// "arg3 in 0..8, 16*arg3 <= extent(arg0)" (format 1.3).
std::string formatBound(const ScalarBound &b) {
  std::string arg = "arg" + std::to_string(b.param);
  std::string s =
      arg + " in " + std::to_string(b.min) + ".." + std::to_string(b.max);
  if (b.pointer == ScalarBound::kNoPointer)
    return s;
  s += ", ";
  if (b.baseBytes)
    s += std::to_string(b.baseBytes) + " + ";
  return s + std::to_string(b.bytesPerUnit) + "*" + arg + " <= extent(arg" +
         std::to_string(b.pointer) + ")";
}

std::string formatArg(const KernelArg &arg) {
  switch (arg.kind) {
  case KernelArg::Kind::Pointer:
    // The bytes the kernel may touch from there, and how.
    return formatAddress(arg.address) + "[" + std::to_string(arg.extent) + "," +
           accessLetters(arg.access) + "]";
  case KernelArg::Kind::I32:
    return "i32 " + std::to_string(static_cast<int32_t>(arg.bits));
  case KernelArg::Kind::I64:
    return "i64 " + std::to_string(static_cast<int64_t>(arg.bits));
  case KernelArg::Kind::F32: {
    uint32_t bits = static_cast<uint32_t>(arg.bits);
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    // The shortest decimal form that reads back as the same float.
    char text[48];
    for (int digits = 6; digits <= 9; ++digits) {
      std::snprintf(text, sizeof(text), "f32 %.*g", digits,
                    static_cast<double>(value));
      if (std::strtof(text + 4, nullptr) == value || value != value)
        break;
    }
    return text;
  }
  }
  return "?";
}

std::string formatVersion(uint32_t version) {
  return std::to_string(version / 1000) + "." +
         std::to_string(version % 1000 / 10) + " (" + std::to_string(version) +
         ")";
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

/// A shape expression in infix: "ceildiv(s0*4, 256)".
std::string formatExpr(const ShapeExpr &expr) {
  using Op = ShapeExpr::Op;
  std::vector<std::string> stack;
  for (const ShapeExpr::Term &t : expr.code) {
    if (t.op == Op::Const || t.op == Op::Symbol) {
      stack.push_back((t.op == Op::Symbol ? "s" : "") +
                      std::to_string(t.value));
      continue;
    }
    if (stack.empty())
      return "(malformed)";
    if (t.op == Op::CeilDiv || t.op == Op::FloorDiv) {
      stack.back() =
          std::string(t.op == Op::CeilDiv ? "ceildiv(" : "floordiv(") +
          stack.back() + ", " + std::to_string(t.value) + ")";
      continue;
    }
    if (stack.size() < 2)
      return "(malformed)";
    std::string b = stack.back();
    stack.pop_back();
    std::string &a = stack.back();
    switch (t.op) {
    case Op::Add:
      a = "(" + a + " + " + b + ")";
      break;
    case Op::Mul:
      a = a + "*" + b;
      break;
    case Op::Min:
    case Op::Max:
      a = std::string(t.op == Op::Min ? "min(" : "max(") + a + ", " + b + ")";
      break;
    default:
      return "(malformed)";
    }
  }
  return stack.size() == 1 ? stack.back() : "(malformed)";
}

/// "@e2" after a value given by shape expression 2 (format 1.4), "" for
/// none.
std::string exprMark(int32_t expr) {
  return expr == kNoShapeExpr ? "" : "@e" + std::to_string(expr);
}

/// The symbols, each input's profiles and the shape expressions (format
/// 1.4): nothing for a plan of one shape.
void printShapes(const PlanContents &plan) {
  if (plan.symbols.empty() && plan.shapeExprs.empty())
    return;
  std::printf("profiles: %zu\n", numProfiles(plan));
  for (const TensorDesc &t : plan.tensors)
    for (size_t p = 0; p < t.profiles.size(); ++p)
      std::printf("  profile %zu: %s min %s opt %s max %s\n", p, t.name.c_str(),
                  formatShape(t.profiles[p].min).c_str(),
                  formatShape(t.profiles[p].opt).c_str(),
                  formatShape(t.profiles[p].max).c_str());
  std::printf("symbols: %zu\n", plan.symbols.size());
  for (size_t i = 0; i < plan.symbols.size(); ++i) {
    std::string dims;
    for (const DimRef &d : plan.symbols[i].dims)
      dims += (dims.empty() ? "" : " = ") + plan.tensors[d.tensor].name + "[" +
              std::to_string(d.dim) + "]";
    std::printf("  s%zu: %s\n", i, dims.c_str());
  }
  std::printf("shape expressions: %zu\n", plan.shapeExprs.size());
  for (size_t i = 0; i < plan.shapeExprs.size(); ++i)
    std::printf("  e%zu: %s\n", i, formatExpr(plan.shapeExprs[i]).c_str());
  for (const TensorDesc &t : plan.tensors) {
    if (t.dimExprs.empty())
      continue;
    std::string dims;
    for (size_t d = 0; d < t.dimExprs.size(); ++d)
      dims += (d ? ", " : "") + (t.dimExprs[d] == kNoShapeExpr
                                     ? std::to_string(t.shape[d])
                                     : "e" + std::to_string(t.dimExprs[d]));
    std::printf("  output %s: [%s]\n", t.name.c_str(), dims.c_str());
  }
}

void printStep(size_t index, const Step &step, const PlanContents &plan) {
  std::printf("  step %zu: ", index);
  switch (step.kind) {
  case Step::Kind::Launch: {
    const LaunchStep &l = step.launch;
    std::string grid = "(";
    for (int d = 0; d < 3; ++d)
      grid +=
          (d ? "," : "") + std::to_string(l.grid[d]) + exprMark(l.gridExprs[d]);
    std::printf("launch %s grid=%s) block=%s",
                plan.kernels[l.kernel].name.c_str(), grid.c_str(),
                formatDims(l.block).c_str());
    if (l.sharedMemoryBytes)
      std::printf(" shared=%u", l.sharedMemoryBytes);
    std::printf(" args=%zu", l.args.size());
    if (!l.args.empty()) {
      std::string args;
      for (const KernelArg &arg : l.args)
        args += (args.empty() ? "" : ", ") + formatArg(arg) +
                exprMark(arg.valueExpr) + exprMark(arg.extentExpr);
      std::printf(" (%s)", args.c_str());
    }
    std::printf("\n");
    return;
  }
  case Step::Kind::Copy:
    std::printf("copy %s -> %s (%" PRIu64 " bytes%s)\n",
                formatAddress(step.copy.src).c_str(),
                formatAddress(step.copy.dst).c_str(), step.copy.bytes,
                exprMark(step.copy.bytesExpr).c_str());
    return;
  case Step::Kind::Fill:
    std::printf("fill %s (%" PRIu64 " bytes%s) with 0x%02x\n",
                formatAddress(step.fill.dst).c_str(), step.fill.bytes,
                exprMark(step.fill.bytesExpr).c_str(), step.fill.value);
    return;
  case Step::Kind::LibraryCall: {
    const LibraryCallStep &c = step.libraryCall;
    std::printf("call %s buffers=%zu", c.callee.c_str(), c.buffers.size());
    if (!c.buffers.empty()) {
      std::string buffers;
      for (const LibraryCallBuffer &b : c.buffers)
        buffers += (buffers.empty() ? "" : ", ") + formatAddress(b.address) +
                   " (" + std::to_string(b.bytes) + " bytes)";
      std::printf(" (%s)", buffers.c_str());
    }
    std::printf(" payload=%zu bytes", c.payload.size());
    if (c.callee == CublasLtMatmulParams::kCallee) {
      auto params = decodeCublasLtMatmul(c.payload);
      if (params.isOk() && params->algorithm)
        std::printf(" algorithm=recorded (cuBLASLt %" PRIu64 ", sm_%u)",
                    params->algorithm->cublasLtVersion,
                    params->algorithm->computeCapability);
      else if (params.isOk())
        std::printf(" algorithm=heuristic");
    }
    if (c.callee == kPluginCallee) {
      auto call = decodePluginCall(c.payload);
      if (call.isOk())
        std::printf(
            " plugin=%s fields=%zu",
            pluginKey(call->name, call->version, call->pluginNamespace).c_str(),
            call->fields.size());
      else
        std::printf(" plugin=unreadable (%s)", call.status().message().c_str());
    }
    std::printf("\n");
    return;
  }
  }
}

/// "  name: value", without a trailing space when the value is empty.
void printField(const char *name, const std::string &value) {
  std::printf("  %s:%s%s\n", name, value.empty() ? "" : " ", value.c_str());
}

/// A little-endian u32 of the header (readPlan has checked it).
uint32_t headerField(const std::string &bytes, size_t offset) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i)
    value = value << 8 | static_cast<unsigned char>(bytes[offset + i]);
  return value;
}

void print(const std::string &path, const std::string &bytes,
           const PlanContents &plan, bool steps) {
  // The format version: bytes 8 and 12 of the header (docs/plan-format.md).
  std::printf("plan: %s (%zu bytes, format %u.%u)\n", path.c_str(),
              bytes.size(), headerField(bytes, 8), headerField(bytes, 12));
  const Compatibility &c = plan.compatibility;
  std::string archs;
  for (uint32_t arch : c.archs)
    archs += (archs.empty() ? "" : ", ") + std::to_string(arch);
  std::printf("compatibility:\n");
  printField("kiln version", c.kilnVersion);
  std::printf("  archs: %s\n", archs.empty() ? "none" : archs.c_str());
  if (c.ptxIsa)
    std::printf("  ptx isa: %u.%u\n", c.ptxIsa / 10, c.ptxIsa % 10);
  else
    std::printf("  ptx isa: none\n");
  std::printf("  min driver: %s\n", formatVersion(c.minDriverVersion).c_str());
  printField("precision", c.precision);
  printField("build options", c.buildOptions);

  std::printf("tensors: %zu\n", plan.tensors.size());
  std::vector<std::vector<int64_t>> largestShapes =
      kiln::rt::largestShapes(plan);
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const TensorDesc &t = plan.tensors[i];
    // A dynamic tensor's size at the largest shapes.
    TensorDesc largest = t;
    largest.shape = largestShapes[i];
    std::string bytes = (t.isDynamic() ? "at most " : "") +
                        std::to_string(largest.numBytes()) + " bytes";
    std::printf("  tensor %zu: %-6s %s %s %s (%s)\n", i,
                t.isInput ? "input" : "output", t.name.c_str(),
                dataTypeName(t.type), formatShape(t.shape).c_str(),
                bytes.c_str());
  }
  printShapes(plan);
  std::printf("kernels: %zu\n", plan.kernels.size());
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const KernelDesc &k = plan.kernels[i];
    std::printf("  kernel %zu: %s%s%s\n", i, k.name.c_str(),
                k.tiling.empty() ? "" : " ", k.tiling.c_str());
    std::string params;
    for (KernelArg::Kind kind : k.params)
      params += (params.empty() ? "" : ", ") + std::string(kindName(kind));
    std::printf("    params: %s\n", params.empty() ? "none" : params.c_str());
    for (const ScalarBound &b : k.bounds)
      std::printf("    bound: %s\n", formatBound(b).c_str());
  }
  std::printf("images: %zu\n", plan.images.size());
  for (size_t i = 0; i < plan.images.size(); ++i) {
    const KernelImage &image = plan.images[i];
    bool cubin = image.format == KernelImage::Format::Cubin;
    std::printf("  image %zu: %s %s%u (%zu bytes)\n", i,
                cubin ? "cubin" : "PTX", cubin ? "sm_" : "compute_", image.arch,
                image.data.size());
  }
  std::printf("weights: %zu bytes\n", plan.weights.size());
  std::printf("arena: %" PRIu64 " bytes\n", plan.arenaBytes);

  size_t launches = 0, copies = 0, fills = 0, calls = 0;
  for (const Step &step : plan.steps) {
    launches += step.kind == Step::Kind::Launch;
    copies += step.kind == Step::Kind::Copy;
    fills += step.kind == Step::Kind::Fill;
    calls += step.kind == Step::Kind::LibraryCall;
  }
  // Library calls are counted only when there are some, so that the line of
  // a plan without them reads as it did before format 1.1.
  std::printf("steps: %zu (%zu launch, %zu copy, %zu fill", plan.steps.size(),
              launches, copies, fills);
  if (calls)
    std::printf(", %zu call", calls);
  std::printf(")\n");
  if (steps)
    for (size_t i = 0; i < plan.steps.size(); ++i)
      printStep(i, plan.steps[i], plan);
}

} // namespace

int main(int argc, char **argv) {
  std::string path;
  bool steps = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--steps") == 0) {
      steps = true;
    } else if (argv[i][0] != '-' && path.empty()) {
      path = argv[i];
    } else {
      path.clear();
      break;
    }
  }
  if (path.empty()) {
    std::fprintf(stderr,
                 "usage: %s FILE.kplan [--steps]\n"
                 "Verifies a kiln plan and prints what it holds; --steps "
                 "prints one line per step.\n",
                 argv[0]);
    return 2;
  }

  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "kiln-plan-info: %s: cannot open: %s\n", path.c_str(),
                 std::strerror(errno));
    return 1;
  }
  std::string bytes((std::istreambuf_iterator<char>(file)),
                    std::istreambuf_iterator<char>());
  if (file.bad()) {
    std::fprintf(stderr, "kiln-plan-info: %s: read error\n", path.c_str());
    return 1;
  }
  auto plan = readPlan(bytes.data(), bytes.size());
  if (!plan) {
    std::fprintf(stderr, "kiln-plan-info: %s: %s\n", path.c_str(),
                 plan.status().toString().c_str());
    return 1;
  }
  print(path, bytes, *plan, steps);
  return 0;
}
