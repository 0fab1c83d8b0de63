//===- PlanTestUtil.cpp - plans and plan-file helpers for tests -*- C++ -*-===//
//
// See PlanTestUtil.h.
//
//===----------------------------------------------------------------------===//

#include "PlanTestUtil.h"

#include "kiln/runtime/Plugin.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace kiln::rt::test {

uint32_t referenceCrc32(const void *data, size_t size) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) {
    crc ^= bytes[i];
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

Address arena(uint64_t offset) { return {MemorySpace::Arena, 0, offset}; }
Address weights(uint64_t offset) { return {MemorySpace::Weights, 0, offset}; }
Address tensor(uint32_t index, uint64_t offset) {
  return {MemorySpace::Tensor, index, offset};
}

KernelDesc kernel(std::string name, std::vector<KernelArg::Kind> params,
                  std::string tiling) {
  return {std::move(name), std::move(tiling), std::move(params), {}};
}

ScalarBound countBound(uint32_t param, uint32_t pointer,
                       uint64_t bytesPerUnit) {
  ScalarBound bound;
  bound.param = param;
  bound.pointer = pointer;
  bound.bytesPerUnit = bytesPerUnit;
  return bound;
}
ScalarBound rangeBound(uint32_t param, int64_t min, int64_t max) {
  ScalarBound bound;
  bound.param = param;
  bound.min = min;
  bound.max = max;
  return bound;
}
KernelDesc addKernel(std::string tiling) {
  KernelDesc k =
      kernel("fake_add_f32", {kPtr, kPtr, kPtr, kI64}, std::move(tiling));
  k.bounds = {countBound(3, 0, 4), countBound(3, 1, 4), countBound(3, 2, 4)};
  return k;
}

KernelArg pointerArg(Address address, uint64_t extent,
                     KernelArg::Access access) {
  KernelArg arg;
  arg.kind = KernelArg::Kind::Pointer;
  arg.address = address;
  arg.extent = extent;
  arg.access = access;
  return arg;
}
KernelArg i32Arg(int32_t value) {
  KernelArg arg;
  arg.kind = KernelArg::Kind::I32;
  arg.bits = static_cast<uint32_t>(value);
  return arg;
}
KernelArg i64Arg(int64_t value) {
  KernelArg arg;
  arg.kind = KernelArg::Kind::I64;
  arg.bits = static_cast<uint64_t>(value);
  return arg;
}
KernelArg f32Arg(float value) {
  KernelArg arg;
  arg.kind = KernelArg::Kind::F32;
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  arg.bits = bits;
  return arg;
}

Step launchStep(uint32_t kernel, std::array<uint32_t, 3> grid,
                std::array<uint32_t, 3> block, std::vector<KernelArg> args,
                uint32_t sharedMemoryBytes) {
  Step step;
  step.kind = Step::Kind::Launch;
  step.launch.kernel = kernel;
  step.launch.grid = grid;
  step.launch.block = block;
  step.launch.args = std::move(args);
  step.launch.sharedMemoryBytes = sharedMemoryBytes;
  return step;
}
Step copyStep(Address dst, Address src, uint64_t bytes) {
  Step step;
  step.kind = Step::Kind::Copy;
  step.copy = {dst, src, bytes};
  return step;
}
Step fillStep(Address dst, uint64_t bytes, uint8_t value) {
  Step step;
  step.kind = Step::Kind::Fill;
  step.fill.dst = dst;
  step.fill.bytes = bytes;
  step.fill.value = value;
  return step;
}

Step libraryCallStep(std::string callee, std::vector<LibraryCallBuffer> buffers,
                     std::string payload) {
  Step step;
  step.kind = Step::Kind::LibraryCall;
  step.libraryCall.callee = std::move(callee);
  step.libraryCall.buffers = std::move(buffers);
  step.libraryCall.payload = std::move(payload);
  return step;
}

KernelImage image(KernelImage::Format format, uint32_t arch, std::string text) {
  KernelImage i;
  i.format = format;
  i.arch = arch;
  i.data = std::move(text);
  return i;
}

const char *const kAddModule =
    "// kiln-fake-module\n.entry fake_add_f32(p,p,p,i64)\n"
    ".entry scale(p,f32,i32,i64)\n";

/// out = (a + w) + b over n floats, through the arena: copy a to the arena,
/// add the weights w into the arena, add b into out.
PlanContents addPlan(int64_t n, const std::vector<float> &w) {
  PlanContents plan;
  plan.compatibility.kilnVersion = "test";
  plan.compatibility.archs = {80};
  plan.compatibility.ptxIsa = 80;
  plan.compatibility.minDriverVersion = 12000;
  plan.tensors = {{"a", DataType::F32, {n}, true},
                  {"b", DataType::F32, {n}, true},
                  {"out", DataType::F32, {n}, false}};
  plan.kernels = {addKernel("tile=[256]")};
  plan.images = {image(KernelImage::Format::PTX, 80, kAddModule)};
  plan.weights.assign(reinterpret_cast<const char *>(w.data()),
                      w.size() * sizeof(float));
  uint64_t bytes = static_cast<uint64_t>(n) * 4;
  plan.arenaBytes = (2 * bytes + 255) / 256 * 256;
  uint32_t blocks = static_cast<uint32_t>((n + 255) / 256);
  plan.steps = {
      copyStep(arena(0), tensor(0, 0), bytes),
      launchStep(0, {blocks, 1, 1}, {256, 1, 1},
                 {pointerArg(arena(0), bytes, kRead),
                  pointerArg(weights(0), bytes, kRead),
                  pointerArg(arena(bytes), bytes, kWrite), i64Arg(n)}),
      launchStep(0, {blocks, 1, 1}, {256, 1, 1},
                 {pointerArg(arena(bytes), bytes, kRead),
                  pointerArg(tensor(1, 0), bytes, kRead),
                  pointerArg(tensor(2, 0), bytes, kWrite), i64Arg(n)}),
  };
  return plan;
}

ShapeExpr symbolTimes(int64_t symbol, int64_t factor, int64_t divisor) {
  using Op = ShapeExpr::Op;
  ShapeExpr e;
  e.code = {{Op::Symbol, symbol}, {Op::Const, factor}, {Op::Mul, 0}};
  if (divisor != 1)
    e.code.push_back({Op::CeilDiv, divisor});
  return e;
}

PlanContents dynamicAddPlan(int64_t maxRows, const std::vector<float> &w) {
  PlanContents plan = addPlan(maxRows * 4, w);
  ShapeRange range{{1, 4}, {8, 4}, {maxRows, 4}};
  plan.tensors = {
      {"a", DataType::F32, {-1, 4}, true, {range}},
      {"b", DataType::F32, {-1, 4}, true, {range}},
      {"out", DataType::F32, {-1, 4}, false, {}, {3, kNoShapeExpr}}};
  plan.symbols = {{{{0, 0}, {1, 0}}}};
  // 0: the elements, 1: the bytes, 2: the blocks, 3: the rows.
  plan.shapeExprs = {symbolTimes(0, 4), symbolTimes(0, 16),
                     symbolTimes(0, 4, 256), symbolTimes(0, 1)};
  plan.steps[0].copy.bytesExpr = 1;
  for (size_t i = 1; i < 3; ++i) {
    LaunchStep &l = plan.steps[i].launch;
    l.gridExprs[0] = 2;
    for (size_t a = 0; a < 3; ++a)
      l.args[a].extentExpr = 1;
    l.args[3].valueExpr = 0;
  }
  return plan;
}

PlanContents clipPlan(int64_t n, double lower, double upper,
                      const std::string &version) {
  PluginCall call;
  call.name = "TestClip";
  call.version = version;
  call.pluginNamespace = "kiln.test";
  call.inputs = call.outputs = {{DataType::F32, {n}}};
  call.workspaceBytes = uint64_t(n) * 4;
  call.fields = {PluginField::of("lower", std::vector<double>{lower}),
                 PluginField::of("upper", std::vector<double>{upper})};
  uint64_t bytes = uint64_t(n) * 4;
  PlanContents plan;
  plan.tensors = {{"x", DataType::F32, {n}, true},
                  {"out", DataType::F32, {n}, false}};
  plan.arenaBytes = (bytes + 255) / 256 * 256;
  plan.steps = {libraryCallStep(
      kPluginCallee,
      {{tensor(0, 0), bytes}, {tensor(1, 0), bytes}, {arena(0), bytes}},
      encodePluginCall(call))};
  return plan;
}

std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(random);
  return v;
}

PlanContents makeFullPlan() {
  PlanContents plan;
  plan.compatibility.kilnVersion = "0.1.0-test";
  plan.compatibility.archs = {80, 90};
  plan.compatibility.ptxIsa = 80;
  plan.compatibility.minDriverVersion = 12000;
  plan.compatibility.precision = "fp32";
  plan.compatibility.buildOptions = "--kiln-tile=256 --kiln-stages=1";

  auto add = [&](const char *name, DataType type, std::vector<int64_t> shape,
                 bool isInput) {
    TensorDesc t;
    t.name = name;
    t.type = type;
    t.shape = std::move(shape);
    t.isInput = isInput;
    plan.tensors.push_back(t);
  };
  add("x", DataType::F32, {2, 3, 4}, true);   // 0: 96 bytes
  add("mask", DataType::Bool, {5}, true);     // 1: 5 bytes
  add("indices", DataType::I64, {2}, true);   // 2: 16 bytes
  add("empty", DataType::F16, {0, 7}, false); // 3: 0 bytes
  add("y", DataType::BF16, {3, 4}, false);    // 4: 24 bytes
  add("scalar", DataType::I8, {}, false);     // 5: 1 byte
  add("counts", DataType::I32, {4}, false);   // 6: 16 bytes

  plan.kernels = {kernel("k0_generic", {kPtr, kPtr, kPtr, kI32, kI64, kF32},
                         "tile=[256] threads=[256] stages=1"),
                  kernel("k1_reduce", {kPtr, kPtr, kPtr})};
  // The i32 counts rows of 16 bytes of x (at most 8, and 6 fill its 96
  // bytes); the i64 touches no memory, up to 2^40.
  ScalarBound rows = countBound(3, 0, 16);
  rows.max = 8;
  plan.kernels[0].bounds = {rows, rangeBound(4, 0, int64_t(1) << 40)};

  KernelImage ptx;
  ptx.format = KernelImage::Format::PTX;
  ptx.arch = 80;
  ptx.data = "// kiln-fake-module\n.version 8.0\n.target sm_80\n"
             ".entry k0_generic() { ret; }\n.entry k1_reduce() { ret; }\n";
  KernelImage cubin;
  cubin.format = KernelImage::Format::Cubin;
  cubin.arch = 90;
  for (int i = 0; i < 300; ++i)
    cubin.data.push_back(static_cast<char>(i * 7 % 256)); // NULs included
  plan.images = {ptx, cubin};

  for (int i = 0; i < 1000; ++i)
    plan.weights.push_back(static_cast<char>((i * 131 + 17) % 256));
  plan.arenaBytes = 4096;

  plan.steps = {
      fillStep(arena(0), 512, 0xAB),
      copyStep(arena(512), tensor(0, 0), 96),
      launchStep(0, {98, 2, 1}, {256, 1, 1},
                 {pointerArg(arena(512), 96, kRead),
                  pointerArg(weights(16), 32, kRead),
                  pointerArg(tensor(4, 0), 24, kWrite), i32Arg(6),
                  i64Arg(int64_t(1) << 40), f32Arg(1.5f)},
                 1024),
      // Pointers at the end of their space, one the kernel does not use.
      launchStep(1, {1, 1, 1}, {32, 4, 2},
                 {pointerArg(tensor(3, 0), 0, kWrite),
                  pointerArg(weights(1000), 0, kNone),
                  pointerArg(tensor(1, 5), 0, kRead)}),
      copyStep(tensor(6, 0), weights(0), 16),
      fillStep(tensor(5, 0), 1, 0xFF),
      // Whole spaces.
      launchStep(1, {7, 1, 1}, {1, 1, 1},
                 {pointerArg(arena(0), 4096, kReadWrite),
                  pointerArg(weights(0), 1000, kRead),
                  pointerArg(tensor(2, 8), 8, kRead)}),
      copyStep(tensor(2, 0), arena(4080), 16),
      libraryCallStep("test.matmul",
                      {{arena(0), 64},
                       {weights(16), 32},
                       {tensor(4, 0), 24},
                       {tensor(3, 0), 0}},
                      std::string("\x01\0payload\xff", 10)),
  };
  return plan;
}

PlanContents makeSmallPlan() {
  PlanContents plan;
  plan.compatibility.kilnVersion = "0.1.0";
  plan.compatibility.archs = {80};
  plan.compatibility.ptxIsa = 80;
  plan.compatibility.minDriverVersion = 12000;
  plan.compatibility.precision = "fp32";
  TensorDesc in{"in", DataType::F32, {16}, true};
  TensorDesc out{"out", DataType::F32, {16}, false};
  plan.tensors = {in, out};
  plan.kernels = {kernel("k_a", {kPtr, kPtr, kI64}, "tile=[64]"),
                  kernel("k_b", {kPtr, kF32})};
  plan.kernels[0].bounds = {countBound(2, 0, 4), countBound(2, 1, 4)};
  KernelImage image;
  image.format = KernelImage::Format::PTX;
  image.arch = 80;
  image.data = "// kiln-fake-module k_a(p,p,i64) k_b(p,f32)\n";
  plan.images = {image};
  for (int i = 0; i < 64; ++i)
    plan.weights.push_back(static_cast<char>(i));
  plan.arenaBytes = 256;
  plan.steps = {
      fillStep(arena(0), 64, 0),
      copyStep(arena(64), tensor(0, 0), 64),
      launchStep(0, {1, 1, 1}, {64, 1, 1},
                 {pointerArg(arena(64), 64, kReadWrite),
                  pointerArg(weights(0), 64, kRead), i64Arg(16)}),
      launchStep(1, {1, 1, 1}, {64, 1, 1},
                 {pointerArg(arena(64), 64, kReadWrite), f32Arg(2.0f)}),
      copyStep(tensor(1, 0), arena(64), 64),
  };
  return plan;
}

namespace {
bool sameAddress(const Address &a, const Address &b) {
  return a.space == b.space && a.index == b.index && a.offset == b.offset;
}
} // namespace

bool plansEqual(const PlanContents &a, const PlanContents &b,
                std::string &difference) {
  auto differ = [&](const std::string &what) {
    difference = what;
    return false;
  };
  const Compatibility &ca = a.compatibility, &cb = b.compatibility;
  if (ca.kilnVersion != cb.kilnVersion || ca.archs != cb.archs ||
      ca.ptxIsa != cb.ptxIsa || ca.minDriverVersion != cb.minDriverVersion ||
      ca.precision != cb.precision || ca.buildOptions != cb.buildOptions)
    return differ("compatibility");
  if (a.tensors.size() != b.tensors.size())
    return differ("tensor count");
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const TensorDesc &x = a.tensors[i], &y = b.tensors[i];
    if (x.name != y.name || x.type != y.type || x.shape != y.shape ||
        x.isInput != y.isInput || x.dimExprs != y.dimExprs ||
        x.profiles.size() != y.profiles.size())
      return differ("tensor " + std::to_string(i));
    for (size_t p = 0; p < x.profiles.size(); ++p)
      if (x.profiles[p].min != y.profiles[p].min ||
          x.profiles[p].opt != y.profiles[p].opt ||
          x.profiles[p].max != y.profiles[p].max)
        return differ("tensor " + std::to_string(i) + " profile " +
                      std::to_string(p));
  }
  if (a.symbols.size() != b.symbols.size())
    return differ("symbol count");
  for (size_t i = 0; i < a.symbols.size(); ++i) {
    const std::vector<DimRef> &x = a.symbols[i].dims, &y = b.symbols[i].dims;
    bool same = x.size() == y.size();
    for (size_t j = 0; same && j < x.size(); ++j)
      same = x[j].tensor == y[j].tensor && x[j].dim == y[j].dim;
    if (!same)
      return differ("symbol " + std::to_string(i));
  }
  if (a.shapeExprs.size() != b.shapeExprs.size())
    return differ("shape expression count");
  for (size_t i = 0; i < a.shapeExprs.size(); ++i) {
    const auto &x = a.shapeExprs[i].code, &y = b.shapeExprs[i].code;
    bool same = x.size() == y.size();
    for (size_t j = 0; same && j < x.size(); ++j)
      same = x[j].op == y[j].op && x[j].value == y[j].value;
    if (!same)
      return differ("shape expression " + std::to_string(i));
  }
  if (a.kernels.size() != b.kernels.size())
    return differ("kernel count");
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    const KernelDesc &x = a.kernels[i], &y = b.kernels[i];
    if (x.name != y.name || x.tiling != y.tiling || x.params != y.params ||
        x.bounds.size() != y.bounds.size())
      return differ("kernel " + std::to_string(i));
    for (size_t j = 0; j < x.bounds.size(); ++j) {
      const ScalarBound &u = x.bounds[j], &v = y.bounds[j];
      if (u.param != v.param || u.min != v.min || u.max != v.max ||
          u.pointer != v.pointer || u.bytesPerUnit != v.bytesPerUnit ||
          u.baseBytes != v.baseBytes)
        return differ("kernel " + std::to_string(i) + " bound " +
                      std::to_string(j));
    }
  }
  if (a.images.size() != b.images.size())
    return differ("image count");
  for (size_t i = 0; i < a.images.size(); ++i)
    if (a.images[i].format != b.images[i].format ||
        a.images[i].arch != b.images[i].arch ||
        a.images[i].data != b.images[i].data)
      return differ("image " + std::to_string(i));
  if (a.weights != b.weights)
    return differ("weights");
  if (a.arenaBytes != b.arenaBytes)
    return differ("arenaBytes");
  if (a.steps.size() != b.steps.size())
    return differ("step count");
  for (size_t i = 0; i < a.steps.size(); ++i) {
    const Step &x = a.steps[i], &y = b.steps[i];
    std::string where = "step " + std::to_string(i);
    if (x.kind != y.kind)
      return differ(where + " kind");
    switch (x.kind) {
    case Step::Kind::Launch: {
      const LaunchStep &l = x.launch, &m = y.launch;
      if (l.kernel != m.kernel || l.grid != m.grid || l.block != m.block ||
          l.sharedMemoryBytes != m.sharedMemoryBytes ||
          l.gridExprs != m.gridExprs || l.args.size() != m.args.size())
        return differ(where + " launch");
      for (size_t j = 0; j < l.args.size(); ++j)
        if (l.args[j].kind != m.args[j].kind ||
            l.args[j].bits != m.args[j].bits ||
            l.args[j].extent != m.args[j].extent ||
            l.args[j].access != m.args[j].access ||
            l.args[j].valueExpr != m.args[j].valueExpr ||
            l.args[j].extentExpr != m.args[j].extentExpr ||
            !sameAddress(l.args[j].address, m.args[j].address))
          return differ(where + " arg " + std::to_string(j));
      break;
    }
    case Step::Kind::Copy:
      if (!sameAddress(x.copy.dst, y.copy.dst) ||
          !sameAddress(x.copy.src, y.copy.src) ||
          x.copy.bytes != y.copy.bytes || x.copy.bytesExpr != y.copy.bytesExpr)
        return differ(where + " copy");
      break;
    case Step::Kind::Fill:
      if (!sameAddress(x.fill.dst, y.fill.dst) ||
          x.fill.bytes != y.fill.bytes || x.fill.value != y.fill.value ||
          x.fill.bytesExpr != y.fill.bytesExpr)
        return differ(where + " fill");
      break;
    case Step::Kind::LibraryCall: {
      const LibraryCallStep &c = x.libraryCall, &d = y.libraryCall;
      if (c.callee != d.callee || c.payload != d.payload ||
          c.buffers.size() != d.buffers.size())
        return differ(where + " library call");
      for (size_t j = 0; j < c.buffers.size(); ++j)
        if (!sameAddress(c.buffers[j].address, d.buffers[j].address) ||
            c.buffers[j].bytes != d.buffers[j].bytes)
          return differ(where + " buffer " + std::to_string(j));
      break;
    }
    }
  }
  return true;
}

uint32_t readLE32(const std::string &file, size_t offset) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i)
    v = v << 8 | static_cast<unsigned char>(file[offset + i]);
  return v;
}
uint64_t readLE64(const std::string &file, size_t offset) {
  return readLE32(file, offset) | uint64_t(readLE32(file, offset + 4)) << 32;
}
void writeLE32(std::string &file, size_t offset, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    file[offset + i] = static_cast<char>(value >> (8 * i));
}
void writeLE64(std::string &file, size_t offset, uint64_t value) {
  writeLE32(file, offset, static_cast<uint32_t>(value));
  writeLE32(file, offset + 4, static_cast<uint32_t>(value >> 32));
}

void fixHeaderCrc(std::string &file) {
  writeLE32(file, 44, referenceCrc32(file.data(), 44));
}

void fixCrcs(std::string &file) {
  writeLE32(file, 40, referenceCrc32(file.data() + 64, file.size() - 64));
  fixHeaderCrc(file);
}

std::string reluBiasProductMismatches(const std::vector<float> &out,
                                      const std::vector<float> &in,
                                      const std::vector<float> &w,
                                      const std::vector<float> &bias, int64_t m,
                                      int64_t n, int64_t k, double rtol) {
  std::string mismatches;
  int count = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = bias[j], magnitude = std::abs(bias[j]);
      for (int64_t p = 0; p < k; ++p) {
        double term = double(in[i * k + p]) * w[p * n + j];
        sum += term;
        magnitude += std::abs(term);
      }
      double expected = std::max(sum, 0.0), got = out[i * n + j];
      if (!(std::abs(got - expected) <= rtol * (1 + magnitude)) && count++ < 5)
        mismatches += std::to_string(i) + "," + std::to_string(j) + ": got " +
                      std::to_string(got) + ", expected " +
                      std::to_string(expected) + "; ";
    }
  return mismatches;
}

} // namespace kiln::rt::test
