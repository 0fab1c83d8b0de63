//===- PlanWriter.cpp - serialize a plan to .kplan bytes --------*- C++ -*-===//
//
// writePlan checks the plan (the same checks readPlan applies), builds the
// FlatBuffers manifest (runtime/schema/plan.fbs), lays out the file (header,
// manifest, then one section per kernel image and one for the weights, each
// at a multiple of kPlanSectionAlignment, gaps zero) and fills in the
// checksums. docs/plan-format.md describes the result.
//
//===----------------------------------------------------------------------===//

#include "plan/Crc32.h"
#include "plan/PlanFormat.h"
#include "plan_generated.h"

#include <cstring>

namespace kiln::rt {

namespace {

using namespace detail;

/// One section of the file: where its bytes come from and where they go.
struct SectionLayout {
  std::string name;
  fb::SectionKind kind;
  const std::string *bytes;
  uint64_t offset = 0;
  uint32_t crc = 0;
};

fb::Address toFb(const Address &a) {
  return fb::Address(static_cast<fb::MemorySpace>(a.space), a.index, a.offset);
}

fb::Dim3 toFb(const std::array<uint32_t, 3> &d) {
  return fb::Dim3(d[0], d[1], d[2]);
}

/// A generous upper bound of the manifest's size, to refuse (rather than
/// overflow FlatBuffers' 2 GiB limit) absurdly large plans.
uint64_t estimateManifestBytes(const PlanContents &plan) {
  const Compatibility &c = plan.compatibility;
  uint64_t bytes = 1024 + c.kilnVersion.size() + c.precision.size() +
                   c.buildOptions.size() + 8 * c.archs.size();
  bytes += 128 * (plan.images.size() + 1);
  for (const TensorDesc &t : plan.tensors)
    bytes += 96 + t.name.size() + 8 * t.shape.size() +
             (64 + 24 * t.shape.size()) * t.profiles.size() +
             4 * t.dimExprs.size();
  for (const ShapeSymbol &symbol : plan.symbols)
    bytes += 32 + 8 * symbol.dims.size();
  for (const ShapeExpr &expr : plan.shapeExprs)
    bytes += 32 + 16 * expr.code.size();
  for (const KernelDesc &k : plan.kernels)
    bytes += 64 + k.name.size() + k.tiling.size() + k.params.size() +
             48 * k.bounds.size();
  for (const Step &s : plan.steps)
    bytes += 200 + 72 * s.launch.args.size() + 64 +
             s.libraryCall.callee.size() + 40 * s.libraryCall.buffers.size() +
             s.libraryCall.payload.size();
  return bytes;
}

flatbuffers::Offset<fb::Step> buildStep(flatbuffers::FlatBufferBuilder &b,
                                        const Step &step) {
  switch (step.kind) {
  case Step::Kind::Launch: {
    const LaunchStep &l = step.launch;
    std::vector<fb::KernelArg> args;
    std::vector<fb::ArgExtent> extents;
    std::vector<fb::ArgShapeExprs> exprs;
    args.reserve(l.args.size());
    extents.reserve(l.args.size());
    bool varies = false;
    for (const KernelArg &a : l.args) {
      args.emplace_back(static_cast<fb::ArgKind>(a.kind), toFb(a.address),
                        a.bits);
      extents.emplace_back(a.extent, static_cast<fb::ArgAccess>(a.access));
      exprs.emplace_back(a.valueExpr, a.extentExpr);
      varies |= a.valueExpr != kNoShapeExpr || a.extentExpr != kNoShapeExpr;
    }
    // Plans of one shape store no expressions (format 1.4 fields).
    if (!varies)
      exprs.clear();
    std::vector<int32_t> gridExprs(l.gridExprs.begin(), l.gridExprs.end());
    if (gridExprs == std::vector<int32_t>(3, kNoShapeExpr))
      gridExprs.clear();
    auto argsOffset = b.CreateVectorOfStructs(args);
    auto extentsOffset = b.CreateVectorOfStructs(extents);
    auto exprsOffset = b.CreateVectorOfStructs(exprs);
    auto gridExprsOffset = b.CreateVector(gridExprs);
    fb::Dim3 grid = toFb(l.grid), block = toFb(l.block);
    auto launch = fb::CreateLaunchStep(
        b, l.kernel, &grid, &block, l.sharedMemoryBytes, argsOffset,
        extentsOffset, exprsOffset, gridExprsOffset);
    return fb::CreateStep(b, fb::StepKind::LaunchStep, launch.Union());
  }
  case Step::Kind::Copy: {
    fb::Address dst = toFb(step.copy.dst), src = toFb(step.copy.src);
    auto copy =
        fb::CreateCopyStep(b, &dst, &src, step.copy.bytes, step.copy.bytesExpr);
    return fb::CreateStep(b, fb::StepKind::CopyStep, copy.Union());
  }
  case Step::Kind::Fill: {
    fb::Address dst = toFb(step.fill.dst);
    auto fill = fb::CreateFillStep(b, &dst, step.fill.bytes, step.fill.value,
                                   step.fill.bytesExpr);
    return fb::CreateStep(b, fb::StepKind::FillStep, fill.Union());
  }
  case Step::Kind::LibraryCall: {
    const LibraryCallStep &c = step.libraryCall;
    std::vector<fb::LibraryCallBuffer> buffers;
    buffers.reserve(c.buffers.size());
    for (const LibraryCallBuffer &buffer : c.buffers)
      buffers.emplace_back(toFb(buffer.address), buffer.bytes);
    auto callee = b.CreateString(c.callee);
    auto buffersOffset = b.CreateVectorOfStructs(buffers);
    auto payload = b.CreateVector(
        reinterpret_cast<const uint8_t *>(c.payload.data()), c.payload.size());
    auto call = fb::CreateLibraryCallStep(b, callee, buffersOffset, payload);
    return fb::CreateStep(b, fb::StepKind::LibraryCallStep, call.Union());
  }
  }
  return fb::CreateStep(b); // Unreachable: checkPlanContents ran first.
}

/// Builds the manifest into `b` with the section offsets in `sections`.
void buildManifest(flatbuffers::FlatBufferBuilder &b, const PlanContents &plan,
                   const std::vector<SectionLayout> &sections,
                   int32_t weightsSection) {
  b.Clear();
  // Every field is stored, defaults too, so that the manifest's size does not
  // depend on the section offsets it records (see writePlan).
  b.ForceDefaults(true);

  const Compatibility &c = plan.compatibility;
  auto compatibility = fb::CreateCompatibility(
      b, b.CreateString(c.kilnVersion), b.CreateVector(c.archs), c.ptxIsa,
      c.minDriverVersion, b.CreateString(c.precision),
      b.CreateString(c.buildOptions));

  std::vector<flatbuffers::Offset<fb::Section>> sectionOffsets;
  for (const SectionLayout &s : sections)
    sectionOffsets.push_back(fb::CreateSection(
        b, b.CreateString(s.name), s.kind, s.offset, s.bytes->size(), s.crc));

  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (const TensorDesc &t : plan.tensors) {
    std::vector<flatbuffers::Offset<fb::ShapeRange>> profiles;
    for (const ShapeRange &r : t.profiles)
      profiles.push_back(fb::CreateShapeRange(b, b.CreateVector(r.min),
                                              b.CreateVector(r.opt),
                                              b.CreateVector(r.max)));
    tensors.push_back(fb::CreateTensor(
        b, b.CreateString(t.name), static_cast<fb::DataType>(t.type),
        b.CreateVector(t.shape), t.isInput, b.CreateVector(profiles),
        b.CreateVector(t.dimExprs)));
  }

  std::vector<flatbuffers::Offset<fb::ShapeSymbol>> symbols;
  for (const ShapeSymbol &symbol : plan.symbols) {
    std::vector<fb::DimRef> dims;
    for (const DimRef &ref : symbol.dims)
      dims.emplace_back(ref.tensor, ref.dim);
    symbols.push_back(fb::CreateShapeSymbol(b, b.CreateVectorOfStructs(dims)));
  }
  std::vector<flatbuffers::Offset<fb::ShapeExpr>> shapeExprs;
  for (const ShapeExpr &expr : plan.shapeExprs) {
    std::vector<fb::ShapeTerm> code;
    for (const ShapeExpr::Term &t : expr.code)
      code.emplace_back(static_cast<fb::ShapeOp>(t.op), t.value);
    shapeExprs.push_back(fb::CreateShapeExpr(b, b.CreateVectorOfStructs(code)));
  }

  std::vector<flatbuffers::Offset<fb::Kernel>> kernels;
  for (const KernelDesc &k : plan.kernels) {
    std::vector<fb::ArgKind> params;
    params.reserve(k.params.size());
    for (KernelArg::Kind kind : k.params)
      params.push_back(static_cast<fb::ArgKind>(kind));
    std::vector<fb::ScalarBound> bounds;
    bounds.reserve(k.bounds.size());
    for (const ScalarBound &bound : k.bounds)
      bounds.emplace_back(bound.param, bound.pointer, bound.min, bound.max,
                          bound.bytesPerUnit, bound.baseBytes);
    kernels.push_back(fb::CreateKernel(
        b, b.CreateString(k.name), b.CreateString(k.tiling),
        b.CreateVector(params), b.CreateVectorOfStructs(bounds)));
  }

  std::vector<flatbuffers::Offset<fb::Image>> images;
  for (size_t i = 0; i < plan.images.size(); ++i)
    images.push_back(
        fb::CreateImage(b, static_cast<fb::ImageFormat>(plan.images[i].format),
                        plan.images[i].arch, static_cast<uint32_t>(i)));

  std::vector<flatbuffers::Offset<fb::Step>> steps;
  steps.reserve(plan.steps.size());
  for (const Step &s : plan.steps)
    steps.push_back(buildStep(b, s));

  auto manifest = fb::CreateManifest(
      b, compatibility, b.CreateVector(sectionOffsets), b.CreateVector(tensors),
      b.CreateVector(kernels), b.CreateVector(images), weightsSection,
      plan.arenaBytes, b.CreateVector(steps), b.CreateVector(symbols),
      b.CreateVector(shapeExprs));
  b.Finish(manifest, kManifestIdentifier);
}

} // namespace

StatusOr<std::string> writePlan(const PlanContents &plan) {
  if (Status s = checkPlanContents(plan, StatusCode::InvalidArgument); !s)
    return s;
  if (estimateManifestBytes(plan) > kMaxManifestBytes / 2)
    return Status(StatusCode::InvalidArgument,
                  "the plan is too large: its manifest would exceed 1 GiB");

  // One section per image (section i holds image i), then the weights.
  std::vector<SectionLayout> sections;
  for (size_t i = 0; i < plan.images.size(); ++i)
    sections.push_back({"image" + std::to_string(i),
                        fb::SectionKind::KernelImage, &plan.images[i].data});
  int32_t weightsSection = -1;
  if (!plan.weights.empty()) {
    weightsSection = static_cast<int32_t>(sections.size());
    sections.push_back({"weights", fb::SectionKind::Weights, &plan.weights});
  }
  for (SectionLayout &s : sections)
    s.crc = crc32(s.bytes->data(), s.bytes->size());

  // The sections follow the manifest, whose size depends on the offsets it
  // records only through their values (every field is stored): guess where
  // the first section starts, build, and build again if the guess was wrong.
  flatbuffers::FlatBufferBuilder builder(4096);
  uint64_t dataStart = 0, fileSize = 0;
  for (int attempt = 0;; ++attempt) {
    uint64_t offset = dataStart;
    for (SectionLayout &s : sections) {
      s.offset = offset;
      alignToSection(offset + s.bytes->size(), offset);
    }
    buildManifest(builder, plan, sections, weightsSection);
    uint64_t manifestEnd = kPlanHeaderSize + builder.GetSize();
    uint64_t start = 0;
    alignToSection(manifestEnd, start);
    if (sections.empty()) {
      fileSize = manifestEnd;
      break;
    }
    if (start == dataStart) {
      fileSize = sections.back().offset + sections.back().bytes->size();
      break;
    }
    if (attempt == 3)
      return Status(StatusCode::InvalidArgument,
                    "internal error: the plan manifest's size does not settle");
    dataStart = start;
  }

  std::string file(fileSize, '\0');
  auto *bytes = reinterpret_cast<unsigned char *>(&file[0]);
  std::memcpy(bytes + kPlanHeaderSize, builder.GetBufferPointer(),
              builder.GetSize());
  for (const SectionLayout &s : sections)
    if (!s.bytes->empty())
      std::memcpy(bytes + s.offset, s.bytes->data(), s.bytes->size());

  std::memcpy(bytes + kMagicOffset, kPlanMagic, sizeof(kPlanMagic));
  storeLE32(bytes + kFormatMajorOffset, kPlanFormatMajor);
  storeLE32(bytes + kFormatMinorOffset, kPlanFormatMinor);
  storeLE64(bytes + kFileSizeOffset, fileSize);
  storeLE64(bytes + kManifestOffsetOffset, kPlanHeaderSize);
  storeLE64(bytes + kManifestSizeOffset, builder.GetSize());
  storeLE32(bytes + kBodyCrcOffset,
            crc32(bytes + kPlanHeaderSize, fileSize - kPlanHeaderSize));
  storeLE32(bytes + kHeaderCrcOffset, crc32(bytes, kHeaderCrcOffset));
  return file;
}

} // namespace kiln::rt
