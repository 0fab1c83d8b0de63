//===- PlanReader.cpp - parse and verify .kplan bytes -----------*- C++ -*-===//
//
// readPlan trusts nothing in its input: it checks the header (size, magic,
// checksum, reserved bytes, format version, file size, manifest range), the
// body checksum, the manifest (FlatBuffers verifier), the section table (in
// range, aligned, packed in order with zero padding, per-section checksums),
// and finally the consistency of the plan itself (checkPlanContents). Every
// size is checked against the input before it is used, so no input makes it
// read out of bounds or allocate more than the input's size.
//
//===----------------------------------------------------------------------===//

#include "plan/Crc32.h"
#include "plan/PlanFormat.h"
#include "plan_generated.h"

#include <algorithm>
#include <cstring>
#include <vector>

static_assert(kiln::rt::detail::kMaxManifestBytes < FLATBUFFERS_MAX_BUFFER_SIZE,
              "the FlatBuffers verifier takes buffers below its maximum size");

namespace kiln::rt {

namespace {

using namespace detail;

Status invalid(std::string message) {
  return Status(StatusCode::InvalidPlan, std::move(message));
}

std::string str(const flatbuffers::String *s) {
  return s ? s->str() : std::string();
}

/// `bytes` as text, non-printable bytes as \xNN.
std::string printable(const void *data, size_t size) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  std::string s;
  for (size_t i = 0; i < size; ++i) {
    unsigned char c = bytes[i];
    if (c >= 0x20 && c < 0x7F && c != '\\' && c != '\'') {
      s += static_cast<char>(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
      s += escaped;
    }
  }
  return s;
}

/// "section 2 'weights'", the name escaped and shortened: it is the file's.
std::string sectionLabel(uint32_t index, const fb::Section *s) {
  const flatbuffers::String *name = s->name();
  size_t length = name ? std::min<size_t>(name->size(), 64) : 0;
  return "section " + std::to_string(index) + " '" +
         printable(name ? name->Data() : nullptr, length) +
         (name && name->size() > length ? "...'" : "'");
}

bool isAligned(const void *p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

Address fromFb(const fb::Address *a) {
  Address address;
  if (a) {
    address.space = static_cast<MemorySpace>(a->space());
    address.index = a->index();
    address.offset = a->offset();
  }
  return address;
}

/// Bounds what converting a manifest allocates. FlatBuffers lets many entries
/// point at one table, vector or string, so a small manifest could describe a
/// huge plan; writePlan never shares, and its manifests grow by far less than
/// kExpansion when converted.
class Budget {
public:
  static constexpr uint64_t kExpansion = 32;
  static constexpr uint64_t kSlack = 1 << 20;
  explicit Budget(uint64_t manifestSize)
      : left_(kExpansion * manifestSize + kSlack) {}
  /// Takes `count` * `each` bytes; false when that exceeds what is left.
  bool take(uint64_t count, uint64_t each = 1) {
    if (each != 0 && count > left_ / each)
      return false;
    left_ -= count * each;
    return true;
  }

private:
  uint64_t left_;
};

Status overBudget() {
  return invalid("the manifest describes more data than it holds: its "
                 "entries share tables, vectors or strings, which plans "
                 "never do");
}

std::array<uint32_t, 3> fromFb(const fb::Dim3 *d) {
  if (!d)
    return {0, 0, 0}; // Missing dimensions fail the launch checks.
  return {d->x(), d->y(), d->z()};
}

/// Checks the 64-byte header and the body checksum; on success sets the
/// manifest's size and the file's minor version.
Status checkHeader(const unsigned char *bytes, size_t size,
                   uint64_t &manifestSize, uint32_t &minorVersion) {
  if (size < kPlanHeaderSize)
    return invalid(
        std::string(size == 0 ? "plan is empty" : "plan is too short") + ": " +
        std::to_string(size) + " bytes, expected at least the " +
        std::to_string(kPlanHeaderSize) + "-byte header");
  if (std::memcmp(bytes + kMagicOffset, kPlanMagic, sizeof(kPlanMagic)) != 0)
    return invalid("bad magic: expected 'KILNPLAN', found '" +
                   printable(bytes + kMagicOffset, sizeof(kPlanMagic)) +
                   "'; this is not a kiln plan file");
  uint32_t storedHeaderCrc = loadLE32(bytes + kHeaderCrcOffset);
  uint32_t headerCrc = crc32(bytes, kHeaderCrcOffset);
  if (storedHeaderCrc != headerCrc)
    return invalid("header checksum mismatch: expected " +
                   hex32(storedHeaderCrc) + ", computed " + hex32(headerCrc));
  for (uint64_t i = kReservedOffset; i < kPlanHeaderSize; ++i)
    if (bytes[i] != 0)
      return invalid("reserved header byte at offset " + std::to_string(i) +
                     " is " + std::to_string(bytes[i]) + ", expected 0");

  uint32_t major = loadLE32(bytes + kFormatMajorOffset);
  uint32_t minor = loadLE32(bytes + kFormatMinorOffset);
  std::string found = std::to_string(major) + "." + std::to_string(minor);
  std::string ours =
      std::to_string(kPlanFormatMajor) + "." + std::to_string(kPlanFormatMinor);
  if (major > kPlanFormatMajor ||
      (major == kPlanFormatMajor && minor > kPlanFormatMinor))
    return Status(StatusCode::UnsupportedPlan,
                  "plan format " + found + " is newer than this runtime's " +
                      ours + "; use a newer kiln runtime");
  if (major < kPlanFormatMajor)
    return Status(StatusCode::UnsupportedPlan,
                  "plan format " + found + " is older than this runtime's " +
                      ours + ", which reads only format " +
                      std::to_string(kPlanFormatMajor) +
                      ".x; compile the model again");

  minorVersion = minor;

  uint64_t fileSize = loadLE64(bytes + kFileSizeOffset);
  if (fileSize > size)
    return invalid("plan is truncated: header says " +
                   std::to_string(fileSize) + " bytes, file has " +
                   std::to_string(size));
  if (fileSize < size)
    return invalid("plan has trailing bytes: header says " +
                   std::to_string(fileSize) + " bytes, file has " +
                   std::to_string(size));

  uint64_t manifestOffset = loadLE64(bytes + kManifestOffsetOffset);
  manifestSize = loadLE64(bytes + kManifestSizeOffset);
  if (manifestOffset != kPlanHeaderSize)
    return invalid("manifest offset is " + std::to_string(manifestOffset) +
                   ", expected " + std::to_string(kPlanHeaderSize) +
                   " (right after the header)");
  if (manifestSize > fileSize - kPlanHeaderSize)
    return invalid("manifest [64, +" + std::to_string(manifestSize) +
                   " bytes) extends past the end of the " +
                   std::to_string(fileSize) + "-byte plan");
  if (manifestSize < 2 * sizeof(flatbuffers::uoffset_t) ||
      manifestSize > kMaxManifestBytes)
    return invalid("manifest size is " + std::to_string(manifestSize) +
                   " bytes, expected 8 to " +
                   std::to_string(kMaxManifestBytes));

  uint32_t storedBodyCrc = loadLE32(bytes + kBodyCrcOffset);
  uint32_t bodyCrc = crc32(bytes + kPlanHeaderSize, fileSize - kPlanHeaderSize);
  if (storedBodyCrc != bodyCrc)
    return invalid("body checksum mismatch: expected " + hex32(storedBodyCrc) +
                   ", computed " + hex32(bodyCrc) + "; the plan is corrupted");
  return Status::ok();
}

/// Checks the section table against the file: each section starts at the
/// first multiple of kPlanSectionAlignment after the previous data (the
/// manifest or the previous section), the padding between is zero, the last
/// section ends the file, and every section's checksum matches.
Status checkSections(const fb::Manifest &manifest, const unsigned char *bytes,
                     uint64_t fileSize, uint64_t manifestEnd) {
  uint64_t previousEnd = manifestEnd;
  std::string previous = "the manifest";
  const auto *sections = manifest.sections();
  uint32_t count = sections ? sections->size() : 0;
  for (uint32_t i = 0; i < count; ++i) {
    const fb::Section *s = sections->Get(i);
    std::string name = sectionLabel(i, s);
    uint64_t offset = s->offset(), size = s->size();
    if (offset > fileSize || size > fileSize - offset)
      return invalid(name + " [" + std::to_string(offset) + ", +" +
                     std::to_string(size) +
                     " bytes) extends past the end of the " +
                     std::to_string(fileSize) + "-byte plan");
    if (offset % kPlanSectionAlignment != 0)
      return invalid(name + " starts at offset " + std::to_string(offset) +
                     ", which is not a multiple of " +
                     std::to_string(kPlanSectionAlignment));
    if (offset < previousEnd)
      return invalid(name + " starts at offset " + std::to_string(offset) +
                     ", inside " + previous + ", which ends at " +
                     std::to_string(previousEnd));
    uint64_t expected = 0;
    alignToSection(previousEnd, expected); // <= offset, so no overflow.
    if (offset != expected)
      return invalid(
          name + " starts at offset " + std::to_string(offset) + ", expected " +
          std::to_string(expected) + ": sections follow " + previous +
          " at the next multiple of " + std::to_string(kPlanSectionAlignment));
    for (uint64_t p = previousEnd; p < offset; ++p)
      if (bytes[p] != 0)
        return invalid("padding byte at offset " + std::to_string(p) +
                       " before " + name + " is " + std::to_string(bytes[p]) +
                       ", expected 0");
    uint32_t computed = crc32(bytes + offset, size);
    if (computed != s->crc32())
      return invalid(name + " checksum mismatch: expected " +
                     hex32(s->crc32()) + ", computed " + hex32(computed));
    previousEnd = offset + size;
    previous = name;
  }
  if (previousEnd != fileSize)
    return invalid("the plan has " + std::to_string(fileSize - previousEnd) +
                   " bytes after the end of " + previous + " at offset " +
                   std::to_string(previousEnd) + ", expected none");
  return Status::ok();
}

/// The step `s` of the manifest as a Step; fails on an unknown kind, and on
/// a launch in a file of a format before kernel signatures (`minorVersion`
/// < 2), which cannot be checked.
Status convertStep(uint32_t index, const fb::Step *s, Step &step,
                   Budget &budget, uint32_t minorVersion) {
  std::string where = "step " + std::to_string(index);
  switch (s->step_type()) {
  case fb::StepKind::LaunchStep: {
    const fb::LaunchStep *l = s->step_as_LaunchStep();
    if (!l)
      return invalid(where + " is a LaunchStep without data");
    if (minorVersion < 2)
      return Status(StatusCode::UnsupportedPlan,
                    where +
                        " is a launch, and the plan was written by "
                        "format 1." +
                        std::to_string(minorVersion) +
                        ", before kernel signatures (1.2): recompile it");
    step.kind = Step::Kind::Launch;
    step.launch.kernel = l->kernel();
    step.launch.grid = fromFb(l->grid());
    step.launch.block = fromFb(l->block());
    step.launch.sharedMemoryBytes = l->shared_memory_bytes();
    // Format 1.2: one extent per argument, beside the arguments.
    const auto *args = l->args();
    const auto *extents = l->arg_extents();
    uint32_t argCount = args ? args->size() : 0;
    uint32_t extentCount = extents ? extents->size() : 0;
    if (extentCount != argCount)
      return invalid(where + " has " + std::to_string(argCount) +
                     " argument(s) and " + std::to_string(extentCount) +
                     " argument extent(s), expected one per argument");
    // Format 1.4: none, or the grid's three expressions.
    if (const auto *grid = l->grid_exprs(); grid && grid->size()) {
      if (grid->size() != 3)
        return invalid(where + " has " + std::to_string(grid->size()) +
                       " grid expressions, expected 0 or 3");
      for (uint32_t d = 0; d < 3; ++d)
        step.launch.gridExprs[d] = grid->Get(d);
    }
    const auto *exprs = l->arg_shape_exprs();
    uint32_t exprCount = exprs ? exprs->size() : 0;
    if (exprCount != 0 && exprCount != argCount)
      return invalid(where + " has " + std::to_string(argCount) +
                     " argument(s) and " + std::to_string(exprCount) +
                     " argument shape expression(s), expected none or one "
                     "per argument");
    if (exprCount && !isAligned(exprs->Data(), alignof(fb::ArgShapeExprs)))
      return invalid(where + ": the manifest's argument expression vector is "
                             "misaligned");
    if (argCount == 0)
      return Status::ok();
    if (!isAligned(args->Data(), alignof(fb::KernelArg)) ||
        !isAligned(extents->Data(), alignof(fb::ArgExtent)))
      return invalid(where + ": the manifest's argument vectors are "
                             "misaligned");
    if (!budget.take(argCount, sizeof(KernelArg)))
      return overBudget();
    step.launch.args.reserve(argCount);
    for (uint32_t i = 0; i < argCount; ++i) {
      const fb::KernelArg *a = args->Get(i);
      const fb::ArgExtent *e = extents->Get(i);
      KernelArg arg;
      arg.kind = static_cast<KernelArg::Kind>(a->kind());
      arg.address = fromFb(&a->address());
      arg.bits = a->bits();
      arg.extent = e->extent();
      arg.access = static_cast<KernelArg::Access>(e->access());
      if (exprCount) {
        arg.valueExpr = exprs->Get(i)->value();
        arg.extentExpr = exprs->Get(i)->extent();
      }
      step.launch.args.push_back(arg);
    }
    return Status::ok();
  }
  case fb::StepKind::CopyStep: {
    const fb::CopyStep *c = s->step_as_CopyStep();
    if (!c)
      return invalid(where + " is a CopyStep without data");
    step.kind = Step::Kind::Copy;
    step.copy.dst = fromFb(c->dst());
    step.copy.src = fromFb(c->src());
    step.copy.bytes = c->bytes();
    step.copy.bytesExpr = c->bytes_expr();
    return Status::ok();
  }
  case fb::StepKind::FillStep: {
    const fb::FillStep *f = s->step_as_FillStep();
    if (!f)
      return invalid(where + " is a FillStep without data");
    step.kind = Step::Kind::Fill;
    step.fill.dst = fromFb(f->dst());
    step.fill.bytes = f->bytes();
    step.fill.value = f->value();
    step.fill.bytesExpr = f->bytes_expr();
    return Status::ok();
  }
  case fb::StepKind::LibraryCallStep: {
    const fb::LibraryCallStep *c = s->step_as_LibraryCallStep();
    if (!c)
      return invalid(where + " is a LibraryCallStep without data");
    step.kind = Step::Kind::LibraryCall;
    LibraryCallStep &call = step.libraryCall;
    if (!budget.take(c->callee() ? c->callee()->size() : 0) ||
        !budget.take(c->payload() ? c->payload()->size() : 0))
      return overBudget();
    call.callee = str(c->callee());
    if (const auto *payload = c->payload())
      call.payload.assign(reinterpret_cast<const char *>(payload->Data()),
                          payload->size());
    if (const auto *buffers = c->buffers()) {
      if (buffers->size() &&
          !isAligned(buffers->Data(), alignof(fb::LibraryCallBuffer)))
        return invalid(where + ": the manifest's buffer vector is misaligned");
      if (!budget.take(buffers->size(), sizeof(LibraryCallBuffer)))
        return overBudget();
      call.buffers.reserve(buffers->size());
      for (const fb::LibraryCallBuffer *b : *buffers)
        call.buffers.push_back({fromFb(&b->address()), b->bytes()});
    }
    return Status::ok();
  }
  default:
    break;
  }
  return invalid(where + " has step kind " +
                 std::to_string(static_cast<int>(s->step_type())) +
                 ", expected LaunchStep (1), CopyStep (2), FillStep (3) or "
                 "LibraryCallStep (4)");
}

/// `v` as a vector, its alignment checked (`what` names it otherwise).
template <typename T>
Status toVector(const flatbuffers::Vector<T> *v, std::vector<T> &out,
                Budget &budget, const std::string &what) {
  if (!v || v->size() == 0)
    return Status::ok();
  if (!isAligned(v->Data(), alignof(T)))
    return invalid(what + ": the manifest's vector is misaligned");
  if (!budget.take(v->size(), sizeof(T)))
    return overBudget();
  out.assign(v->begin(), v->end());
  return Status::ok();
}

/// An input's profiles and an output's dimension expressions (format 1.4).
Status convertShapes(const fb::Tensor &t, TensorDesc &desc, Budget &budget) {
  std::string where = "tensor '" + desc.name + "'";
  if (Status s = toVector(t.dim_exprs(), desc.dimExprs, budget,
                          where + " dimension expressions");
      !s)
    return s;
  const auto *profiles = t.profiles();
  if (!profiles)
    return Status::ok();
  if (!budget.take(profiles->size(), sizeof(ShapeRange)))
    return overBudget();
  for (uint32_t p = 0; p < profiles->size(); ++p) {
    const fb::ShapeRange *r = profiles->Get(p);
    ShapeRange range;
    std::string what = where + " profile " + std::to_string(p);
    if (Status s = toVector(r->min(), range.min, budget, what); !s)
      return s;
    if (Status s = toVector(r->opt(), range.opt, budget, what); !s)
      return s;
    if (Status s = toVector(r->max(), range.max, budget, what); !s)
      return s;
    desc.profiles.push_back(std::move(range));
  }
  return Status::ok();
}

/// The symbols and the shape expressions (format 1.4).
Status convertShapeProgram(const fb::Manifest &m, PlanContents &plan,
                           Budget &budget) {
  if (const auto *symbols = m.symbols()) {
    if (!budget.take(symbols->size(), sizeof(ShapeSymbol)))
      return overBudget();
    for (uint32_t i = 0; i < symbols->size(); ++i) {
      const auto *dims = symbols->Get(i)->dims();
      ShapeSymbol symbol;
      if (dims && dims->size()) {
        if (!isAligned(dims->Data(), alignof(fb::DimRef)))
          return invalid("symbol " + std::to_string(i) +
                         ": the manifest's vector is misaligned");
        if (!budget.take(dims->size(), sizeof(DimRef)))
          return overBudget();
        for (const fb::DimRef *d : *dims)
          symbol.dims.push_back({d->tensor(), d->dim()});
      }
      plan.symbols.push_back(std::move(symbol));
    }
  }
  if (const auto *exprs = m.shape_exprs()) {
    if (!budget.take(exprs->size(), sizeof(ShapeExpr)))
      return overBudget();
    for (uint32_t i = 0; i < exprs->size(); ++i) {
      const auto *code = exprs->Get(i)->code();
      ShapeExpr expr;
      if (code && code->size()) {
        if (!isAligned(code->Data(), alignof(fb::ShapeTerm)))
          return invalid("shape expression " + std::to_string(i) +
                         ": the manifest's vector is misaligned");
        if (code->size() > kMaxShapeExprTerms)
          return invalid("shape expression " + std::to_string(i) + " has " +
                         std::to_string(code->size()) +
                         " terms, expected at most " +
                         std::to_string(kMaxShapeExprTerms));
        if (!budget.take(code->size(), sizeof(ShapeExpr::Term)))
          return overBudget();
        for (const fb::ShapeTerm *t : *code)
          expr.code.push_back(
              {static_cast<ShapeExpr::Op>(t->op()), t->value()});
      }
      plan.shapeExprs.push_back(std::move(expr));
    }
  }
  return Status::ok();
}

/// Converts the verified manifest and the sections it points to.
Status convert(const fb::Manifest &m, const unsigned char *bytes,
               uint64_t manifestSize, uint32_t minorVersion,
               PlanContents &plan) {
  Budget budget(manifestSize);
  auto text = [&](const flatbuffers::String *s) {
    return budget.take(s ? s->size() : 0);
  };
  const fb::Compatibility *c = m.compatibility();
  if (!c)
    return invalid("the manifest has no compatibility record");
  if (!text(c->kiln_version()) || !text(c->precision()) ||
      !text(c->build_options()) ||
      !budget.take(c->archs() ? c->archs()->size() : 0, sizeof(uint32_t)))
    return overBudget();
  plan.compatibility.kilnVersion = str(c->kiln_version());
  if (c->archs())
    plan.compatibility.archs.assign(c->archs()->begin(), c->archs()->end());
  plan.compatibility.ptxIsa = c->ptx_isa();
  plan.compatibility.minDriverVersion = c->min_driver_version();
  plan.compatibility.precision = str(c->precision());
  plan.compatibility.buildOptions = str(c->build_options());

  // Sections: each used exactly once, by an image or as the weights.
  const auto *sections = m.sections();
  uint32_t sectionCount = sections ? sections->size() : 0;
  std::vector<int> users(sectionCount, 0);
  auto sectionName = [&](uint32_t i) {
    return sectionLabel(i, sections->Get(i));
  };
  auto useSection = [&](const std::string &who, int64_t index,
                        fb::SectionKind kind, std::string &out) -> Status {
    if (index < 0 || index >= sectionCount)
      return invalid(who + " refers to section " + std::to_string(index) +
                     ", but the plan has " + std::to_string(sectionCount) +
                     " section(s)");
    const fb::Section *s = sections->Get(static_cast<uint32_t>(index));
    if (s->kind() != kind)
      return invalid(who + " refers to " +
                     sectionName(static_cast<uint32_t>(index)) + " of kind " +
                     std::to_string(static_cast<int>(s->kind())) +
                     ", expected " +
                     (kind == fb::SectionKind::Weights ? "weights (1)"
                                                       : "kernel image (0)"));
    if (users[index]++)
      return invalid(who + " refers to " +
                     sectionName(static_cast<uint32_t>(index)) +
                     ", which is already in use");
    out.assign(reinterpret_cast<const char *>(bytes + s->offset()), s->size());
    return Status::ok();
  };

  if (const auto *tensors = m.tensors()) {
    if (!budget.take(tensors->size(), sizeof(TensorDesc)))
      return overBudget();
    plan.tensors.reserve(tensors->size());
    for (const fb::Tensor *t : *tensors) {
      if (!text(t->name()) ||
          !budget.take(t->shape() ? t->shape()->size() : 0, sizeof(int64_t)))
        return overBudget();
      TensorDesc desc;
      desc.name = str(t->name());
      desc.type = static_cast<DataType>(t->type());
      if (const auto *shape = t->shape()) {
        if (shape->size() && !isAligned(shape->Data(), alignof(int64_t)))
          return invalid("tensor '" + desc.name +
                         "': the manifest's shape vector is misaligned");
        desc.shape.assign(shape->begin(), shape->end());
      }
      desc.isInput = t->is_input();
      if (Status s = convertShapes(*t, desc, budget); !s)
        return s;
      plan.tensors.push_back(std::move(desc));
    }
  }
  if (const auto *kernels = m.kernels()) {
    if (!budget.take(kernels->size(), sizeof(KernelDesc)))
      return overBudget();
    plan.kernels.reserve(kernels->size());
    for (uint32_t i = 0; i < kernels->size(); ++i) {
      const fb::Kernel *k = kernels->Get(i);
      const auto *params = k->params();
      const auto *bounds = k->scalar_bounds();
      if (!text(k->name()) || !text(k->tiling()) ||
          !budget.take(params ? params->size() : 0) ||
          !budget.take(bounds ? bounds->size() : 0, sizeof(ScalarBound)))
        return overBudget();
      KernelDesc desc{str(k->name()), str(k->tiling()), {}, {}};
      if (params)
        for (fb::ArgKind kind : *params)
          desc.params.push_back(static_cast<KernelArg::Kind>(kind));
      std::string where =
          "kernel " + std::to_string(i) + " '" + desc.name + "'";
      // Before 1.3 an integer parameter has no bounds: its launches could
      // not be checked.
      for (size_t p = 0; p < desc.params.size() && minorVersion < 3; ++p)
        if (desc.params[p] == KernelArg::Kind::I32 ||
            desc.params[p] == KernelArg::Kind::I64)
          return Status(
              StatusCode::UnsupportedPlan,
              where + " parameter " + std::to_string(p) + " is " +
                  (desc.params[p] == KernelArg::Kind::I32 ? "i32" : "i64") +
                  ", and the plan was written by format 1." +
                  std::to_string(minorVersion) +
                  ", before the bounds of integer parameters (1.3): "
                  "recompile it");
      if (bounds && bounds->size()) {
        if (!isAligned(bounds->Data(), alignof(fb::ScalarBound)))
          return invalid(where +
                         ": the manifest's scalar bound vector is misaligned");
        desc.bounds.reserve(bounds->size());
        for (const fb::ScalarBound *b : *bounds) {
          ScalarBound bound;
          bound.param = b->param();
          bound.pointer = b->pointer();
          bound.min = b->min();
          bound.max = b->max();
          bound.bytesPerUnit = b->bytes_per_unit();
          bound.baseBytes = b->base_bytes();
          desc.bounds.push_back(bound);
        }
      }
      plan.kernels.push_back(std::move(desc));
    }
  }
  if (const auto *images = m.images()) {
    // Each image has a section of its own: their bytes are the file's.
    if (!budget.take(images->size(), sizeof(KernelImage)))
      return overBudget();
    plan.images.reserve(images->size());
    for (uint32_t i = 0; i < images->size(); ++i) {
      const fb::Image *image = images->Get(i);
      KernelImage out;
      out.format = static_cast<KernelImage::Format>(image->format());
      out.arch = image->arch();
      if (Status s = useSection("image " + std::to_string(i), image->section(),
                                fb::SectionKind::KernelImage, out.data);
          !s)
        return s;
      plan.images.push_back(std::move(out));
    }
  }
  if (m.weights_section() != -1)
    if (Status s = useSection("weights_section", m.weights_section(),
                              fb::SectionKind::Weights, plan.weights);
        !s)
      return s;
  for (uint32_t i = 0; i < sectionCount; ++i)
    if (!users[i])
      return invalid(sectionName(i) +
                     " is not used by any image or as the weights");

  if (Status s = convertShapeProgram(m, plan, budget); !s)
    return s;
  plan.arenaBytes = m.arena_bytes();
  if (const auto *steps = m.steps()) {
    if (!budget.take(steps->size(), sizeof(Step)))
      return overBudget();
    plan.steps.resize(steps->size());
    for (uint32_t i = 0; i < steps->size(); ++i)
      if (Status s = convertStep(i, steps->Get(i), plan.steps[i], budget,
                                 minorVersion);
          !s)
        return s;
  }
  return Status::ok();
}

} // namespace

StatusOr<PlanContents> readPlan(const void *data, std::size_t size) {
  if (!data && size != 0)
    return Status(StatusCode::InvalidArgument,
                  "readPlan: data is null but size is " + std::to_string(size));
  const auto *bytes = static_cast<const unsigned char *>(data);
  uint64_t manifestSize = 0;
  uint32_t minorVersion = 0;
  if (Status s = checkHeader(bytes, size, manifestSize, minorVersion); !s)
    return s;

  // FlatBuffers reads scalars in place: give the manifest 8-byte alignment
  // whatever the caller's buffer has. Its size was checked against the input.
  std::vector<uint64_t> aligned((manifestSize + 7) / 8);
  std::memcpy(aligned.data(), bytes + kPlanHeaderSize, manifestSize);
  const auto *manifestBytes = reinterpret_cast<const uint8_t *>(aligned.data());
  flatbuffers::Verifier::Options options;
  // Every table takes at least 4 bytes: the manifest's size bounds the work.
  options.max_tables = static_cast<flatbuffers::uoffset_t>(manifestSize);
  flatbuffers::Verifier verifier(manifestBytes, manifestSize, options);
  if (!fb::VerifyManifestBuffer(verifier))
    return invalid("the manifest (" + std::to_string(manifestSize) +
                   " bytes at offset 64) is not a valid FlatBuffer of "
                   "runtime/schema/plan.fbs with identifier '" +
                   std::string(kManifestIdentifier) + "'");
  const fb::Manifest *manifest = fb::GetManifest(manifestBytes);

  if (Status s =
          checkSections(*manifest, bytes, size, kPlanHeaderSize + manifestSize);
      !s)
    return s;

  PlanContents plan;
  if (Status s = convert(*manifest, bytes, manifestSize, minorVersion, plan);
      !s)
    return s;
  if (Status s = checkPlanContents(plan, StatusCode::InvalidPlan); !s)
    return s;
  return plan;
}

} // namespace kiln::rt
