//===- GpuTestPlans.cpp - plans of hand-written PTX for real GPUs ---------===//
//
// See GpuTestPlans.h.
//
//===----------------------------------------------------------------------===//

#include "GpuTestPlans.h"

#include "PlanTestUtil.h"

namespace kiln::rt::test {

/// y = x + w (kiln_test_add_f32) and out = alpha * x + beta, fused
/// (kiln_test_axpb), for i < n.
const char *const kGpuTestPtx = R"(
.version 7.0
.target sm_80
.address_size 64

.visible .entry kiln_test_add_f32(
    .param .u64 add_a, .param .u64 add_b, .param .u64 add_out,
    .param .u64 add_n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<12>;

    ld.param.u64 %rd1, [add_a];
    ld.param.u64 %rd2, [add_b];
    ld.param.u64 %rd3, [add_out];
    ld.param.u64 %rd4, [add_n];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd5, %r1, %r2;
    cvt.u64.u32 %rd6, %r3;
    add.s64 %rd7, %rd5, %rd6;
    setp.ge.s64 %p1, %rd7, %rd4;
    @%p1 bra ADD_DONE;
    shl.b64 %rd8, %rd7, 2;
    cvta.to.global.u64 %rd9, %rd1;
    add.s64 %rd9, %rd9, %rd8;
    cvta.to.global.u64 %rd10, %rd2;
    add.s64 %rd10, %rd10, %rd8;
    cvta.to.global.u64 %rd11, %rd3;
    add.s64 %rd11, %rd11, %rd8;
    ld.global.f32 %f1, [%rd9];
    ld.global.f32 %f2, [%rd10];
    add.rn.f32 %f3, %f1, %f2;
    st.global.f32 [%rd11], %f3;
ADD_DONE:
    ret;
}

.visible .entry kiln_test_axpb(
    .param .u64 axpb_out, .param .u64 axpb_x, .param .f32 axpb_alpha,
    .param .u32 axpb_beta, .param .u64 axpb_n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<5>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<10>;

    ld.param.u64 %rd1, [axpb_out];
    ld.param.u64 %rd2, [axpb_x];
    ld.param.f32 %f1, [axpb_alpha];
    ld.param.u32 %r4, [axpb_beta];
    ld.param.u64 %rd3, [axpb_n];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd4, %r1, %r2;
    cvt.u64.u32 %rd5, %r3;
    add.s64 %rd6, %rd4, %rd5;
    setp.ge.s64 %p1, %rd6, %rd3;
    @%p1 bra AXPB_DONE;
    shl.b64 %rd7, %rd6, 2;
    cvta.to.global.u64 %rd8, %rd2;
    add.s64 %rd8, %rd8, %rd7;
    cvta.to.global.u64 %rd9, %rd1;
    add.s64 %rd9, %rd9, %rd7;
    ld.global.f32 %f2, [%rd8];
    cvt.rn.f32.s32 %f3, %r4;
    fma.rn.f32 %f4, %f1, %f2, %f3;
    st.global.f32 [%rd9], %f4;
AXPB_DONE:
    ret;
}
)";

/// y = fma(0.5, x + w, -3) through every memory space and step kind.
PlanContents axpbPlan(int64_t n, const std::vector<float> &w) {
  PlanContents plan;
  plan.compatibility.kilnVersion = "test";
  plan.compatibility.archs = {80};
  plan.compatibility.ptxIsa = 70;
  plan.compatibility.minDriverVersion = 11000;
  plan.compatibility.precision = "fp32";
  plan.tensors = {{"x", DataType::F32, {n}, true},
                  {"y", DataType::F32, {n}, false}};
  plan.kernels = {kernel("kiln_test_add_f32", {kPtr, kPtr, kPtr, kI64}),
                  kernel("kiln_test_axpb", {kPtr, kPtr, kF32, kI32, kI64})};
  // n floats through each pointer; b is any i32.
  plan.kernels[0].bounds = {countBound(3, 0, 4), countBound(3, 1, 4),
                            countBound(3, 2, 4)};
  plan.kernels[1].bounds = {countBound(4, 0, 4), countBound(4, 1, 4),
                            rangeBound(3, INT32_MIN, INT32_MAX)};
  KernelImage ptx;
  ptx.format = KernelImage::Format::PTX;
  ptx.arch = 80;
  ptx.data = kGpuTestPtx;
  plan.images = {ptx};
  plan.weights.assign(reinterpret_cast<const char *>(w.data()),
                      w.size() * sizeof(float));
  uint64_t bytes = static_cast<uint64_t>(n) * 4;
  plan.arenaBytes = 2 * bytes;
  uint32_t blocks = static_cast<uint32_t>((n + 255) / 256);
  plan.steps = {
      fillStep(arena(0), 2 * bytes, 0),
      copyStep(arena(0), tensor(0, 0), bytes),
      launchStep(0, {blocks, 1, 1}, {256, 1, 1},
                 {pointerArg(arena(0), bytes, kRead),
                  pointerArg(weights(0), bytes, kRead),
                  pointerArg(arena(bytes), bytes, kWrite), i64Arg(n)}),
      launchStep(1, {blocks, 1, 1}, {256, 1, 1},
                 {pointerArg(tensor(1, 0), bytes, kWrite),
                  pointerArg(arena(bytes), bytes, kRead), f32Arg(0.5f),
                  i32Arg(-3), i64Arg(n)}),
  };
  return plan;
}

/// axpbPlan over ? x `cols` floats, 1 to `maxRows` rows (format 1.4): the
/// filled and copied bytes, both grids and both element counts are shape
/// expressions of the rows, the arena is planned at `maxRows`.
PlanContents dynamicAxpbPlan(int64_t maxRows, int64_t cols,
                             const std::vector<float> &w) {
  PlanContents plan = axpbPlan(maxRows * cols, w);
  ShapeRange range{{1, cols}, {8, cols}, {maxRows, cols}};
  plan.tensors = {
      {"x", DataType::F32, {-1, cols}, true, {range}},
      {"y", DataType::F32, {-1, cols}, false, {}, {3, kNoShapeExpr}}};
  plan.symbols = {{{{0, 0}}}};
  // 0: the elements, 1: their bytes, 2: the blocks, 3: the rows.
  plan.shapeExprs = {symbolTimes(0, cols), symbolTimes(0, cols * 4),
                     symbolTimes(0, cols, 256), symbolTimes(0, 1)};
  plan.steps[1].copy.bytesExpr = 1;
  for (size_t i = 2; i < 4; ++i) {
    LaunchStep &l = plan.steps[i].launch;
    l.gridExprs[0] = 2;
    l.args[0].extentExpr = l.args[1].extentExpr = 1;
    l.args.back().valueExpr = 0;
  }
  plan.steps[2].launch.args[2].extentExpr = 1;
  return plan;
}

} // namespace kiln::rt::test
