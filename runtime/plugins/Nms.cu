//===- Nms.cu - NMS_TRT: SSD's DetectionOutput ----------------------------===//
//
// TensorRT's NMS_TRT (Caffe SSD's DetectionOutput layer): decodes the
// predicted boxes against the priors, keeps per class the topK boxes whose
// confidence is above confidenceThreshold, suppresses greedily within each
// class the boxes whose IoU with a kept, higher-scored box is above
// nmsThreshold, and gives per image the keepTopK best detections over all
// classes.
//
// Inputs (all f32; inputOrder[0..2] say which input is loc, conf, priors):
//   loc    [N, numPriors * numLocClasses * 4, 1, 1], laid out
//          [N][numPriors][numLocClasses][4] (numLocClasses: 1 when
//          shareLocation, else numClasses);
//   conf   [N, numPriors * numClasses, 1, 1], laid out [N][numPriors][class];
//   priors [1, 2, numPriors * 4, 1] (isBatchAgnostic=1, the default) or
//          [N, 2, numPriors * 4, 1] (isBatchAgnostic=0): boxes, then the
//          variances.
// Outputs:
//   detections [N, 1, keepTopK, 7] f32: image id, label, score, xmin, ymin,
//              xmax, ymax, the coordinates clamped to [0, 1] as TensorRT
//              does; rows past the image's count are (image id, -1, 0, 0, 0,
//              0, 0), as TensorRT fills them;
//   keepCount  [N, 1, 1, 1] i32: the valid rows per image (TensorRT declares
//              it f32 and stores int32 bits; kiln says i32).
//
// Semantics, TensorRT's and Caffe's:
// - codeType CORNER (0), CENTER_SIZE (1), CORNER_SIZE (2) and TF_CENTER (3)
//   as TensorRT's decodeBBoxes (TF_CENTER reads [y, x, h, w] and always
//   uses the variances); boxes are not clipped before NMS;
// - confSigmoid applies 1 / (1 + exp(-x)) to conf first; a box is a
//   candidate of class c when c != backgroundLabelId and score > threshold;
// - IoU is Caffe's JaccardOverlap: corners are sorted, and with
//   isNormalized=0 sizes and intersections count +1 pixel (so boxes that
//   do not meet still overlap by 1 / (area1 + area2 - 1), as in Caffe);
//   a box is suppressed when IoU > nmsThreshold;
// - ties are broken as TensorRT's stable sorts do: within a class, higher
//   score first, then the lower prior index; over classes, higher score,
//   then the lower class, then the class's own order.
// Differences: keepTopK > topK is refused (TensorRT's gatherTopDetections
// writes nothing then), topK is at most 4096 (TensorRT's allClassNMS limit),
// scoreBits is accepted and ignored (it only narrows f16 sorting), unlike
// TensorRT topK above numPriors is fine, and detections always come before
// the empty rows (with a negative confidenceThreshold, TensorRT's sorts can
// put detections of negative score after them).
//
// Kernels, for clarity over speed: one thread per box to decode and per
// score to permute, a rank by counting (one thread per candidate, which
// gives the stable order without a sort), one block per (image, class) for
// the greedy NMS, and a second rank by counting over all kept boxes of an
// image. Scratch lives in the workspace; nothing is allocated in enqueue.
//
//===----------------------------------------------------------------------===//

#include "BuiltinPlugins.h"
#include "DetectionFields.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <string>

namespace kiln::rt::builtin {
namespace {

constexpr const char *kName = "NMS_TRT";
constexpr int kThreads = 256;
constexpr int64_t kMaxTopK = 4096;

enum class CodeType : int {
  Corner = 0,
  CenterSize = 1,
  CornerSize = 2,
  TfCenter = 3
};

struct NmsParams {
  bool shareLocation = true, varianceEncodedInTarget = false;
  bool confSigmoid = false, isNormalized = true, isBatchAgnostic = true;
  int backgroundLabelId = 0, numClasses = 0, topK = 0, keepTopK = 0;
  float confidenceThreshold = 0, nmsThreshold = 0;
  CodeType codeType = CodeType::TfCenter;
  int inputOrder[3] = {0, 2, 1};
  int scoreBits = 16;
};

/// The sizes enqueue works with.
struct NmsShape {
  int64_t batch = 0, numPriors = 0;
  bool priorsPerImage = false;
};

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

unsigned gridFor(int64_t n) {
  return unsigned(std::min<int64_t>((n + kThreads - 1) / kThreads, 1 << 20));
}

#define KILN_GRID_STRIDE(i, n)                                                 \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n);    \
       i += int64_t(blockDim.x) * gridDim.x)

/// boxes[n][locClass][prior][4] from loc[n][prior][locClass][4].
__global__ void decodeBoxes(const float *loc, const float *priors, float *boxes,
                            int64_t batch, int64_t numPriors, int numLocClasses,
                            CodeType code, bool varianceInTarget,
                            bool priorsPerImage) {
  KILN_GRID_STRIDE(t, batch * numPriors * numLocClasses) {
    int64_t c = t % numLocClasses;
    int64_t p = (t / numLocClasses) % numPriors;
    int64_t n = t / (numLocClasses * numPriors);
    const float *l = loc + t * 4;
    const float *prior =
        priors + (priorsPerImage ? n * 2 * numPriors * 4 : 0) + p * 4;
    const float *var = prior + numPriors * 4;
    float out[4];
    float pw = prior[2] - prior[0], ph = prior[3] - prior[1];
    float pcx = (prior[0] + prior[2]) / 2, pcy = (prior[1] + prior[3]) / 2;
    if (code == CodeType::Corner || code == CodeType::CornerSize) {
      for (int i = 0; i < 4; ++i) {
        float offset = varianceInTarget ? l[i] : l[i] * var[i];
        if (code == CodeType::CornerSize)
          offset *= (i % 2 == 0) ? pw : ph;
        out[i] = prior[i] + offset;
      }
    } else {
      // CENTER_SIZE reads [x, y, w, h]; TF_CENTER reads [y, x, h, w] and
      // always scales by the variances.
      bool tf = code == CodeType::TfCenter;
      float dx = tf ? l[1] : l[0], dy = tf ? l[0] : l[1];
      float dw = tf ? l[3] : l[2], dh = tf ? l[2] : l[3];
      if (tf || !varianceInTarget) {
        dx *= var[0];
        dy *= var[1];
        dw *= var[2];
        dh *= var[3];
      }
      float cx = dx * pw + pcx, cy = dy * ph + pcy;
      float w = expf(dw) * pw, h = expf(dh) * ph;
      out[0] = cx - w / 2;
      out[1] = cy - h / 2;
      out[2] = cx + w / 2;
      out[3] = cy + h / 2;
    }
    float *b = boxes + ((n * numLocClasses + c) * numPriors + p) * 4;
    for (int i = 0; i < 4; ++i)
      b[i] = out[i];
  }
}

/// scores[n][class][prior] from conf[n][prior][class].
__global__ void permuteScores(const float *conf, float *scores, int64_t batch,
                              int64_t numPriors, int numClasses, bool sigmoid) {
  KILN_GRID_STRIDE(t, batch * numPriors * numClasses) {
    int64_t c = t % numClasses;
    int64_t p = (t / numClasses) % numPriors;
    int64_t n = t / (numClasses * numPriors);
    float v = conf[t];
    if (sigmoid)
      v = 1.0f / (1.0f + expf(-v));
    scores[(n * numClasses + c) * numPriors + p] = v;
  }
}

/// For each candidate (score > threshold, not background): its rank in its
/// class (higher score first, then lower prior index), counted over the
/// class. The topK first go to sortedIdx / sortedScore[n][class][rank];
/// counts[n][class] (zeroed before) counts all candidates.
__global__ void rankPerClass(const float *scores, int *counts, int *sortedIdx,
                             float *sortedScore, int64_t batch,
                             int64_t numPriors, int numClasses,
                             int backgroundLabelId, float threshold, int topK) {
  KILN_GRID_STRIDE(t, batch * numClasses * numPriors) {
    int64_t p = t % numPriors;
    int64_t nc = t / numPriors;
    if (int(nc % numClasses) == backgroundLabelId)
      continue;
    const float *s = scores + nc * numPriors;
    float v = s[p];
    if (!(v > threshold))
      continue;
    // Every box before this one is a candidate too (its score is >= v).
    int64_t rank = 0;
    for (int64_t q = 0; q < numPriors; ++q) {
      float u = s[q];
      rank += (u > v || (u == v && q < p)) ? 1 : 0;
    }
    atomicAdd(&counts[nc], 1);
    if (rank < topK) {
      sortedIdx[nc * topK + rank] = int(p);
      sortedScore[nc * topK + rank] = v;
    }
  }
}

/// Caffe's JaccardOverlap (bbox_util.cpp), as TensorRT's allClassNMS.
__device__ float jaccard(float4 a, float4 b, bool normalized) {
  float ax0 = fminf(a.x, a.z), ax1 = fmaxf(a.x, a.z);
  float ay0 = fminf(a.y, a.w), ay1 = fmaxf(a.y, a.w);
  float bx0 = fminf(b.x, b.z), bx1 = fmaxf(b.x, b.z);
  float by0 = fminf(b.y, b.w), by1 = fmaxf(b.y, b.w);
  float ix0 = 0, iy0 = 0, ix1 = 0, iy1 = 0;
  if (!(bx0 > ax1 || bx1 < ax0 || by0 > ay1 || by1 < ay0)) {
    ix0 = fmaxf(ax0, bx0);
    iy0 = fmaxf(ay0, by0);
    ix1 = fminf(ax1, bx1);
    iy1 = fminf(ay1, by1);
  }
  float pad = normalized ? 0.0f : 1.0f;
  float iw = ix1 - ix0 + pad, ih = iy1 - iy0 + pad;
  if (!(iw > 0 && ih > 0))
    return 0.0f;
  float inter = iw * ih;
  float areaA = (ax1 - ax0 + pad) * (ay1 - ay0 + pad);
  float areaB = (bx1 - bx0 + pad) * (by1 - by0 + pad);
  return inter / (areaA + areaB - inter);
}

__device__ float4 loadBox(const float *b) {
  return make_float4(b[0], b[1], b[2], b[3]);
}

/// Greedy NMS of one (image, class) per block over its sorted candidates;
/// kept[n][class][rank] is 1 for the survivors among the first
/// min(count, topK), 0 elsewhere. Every thread runs the same iterations, so
/// the barriers are reached uniformly; the flags are only written for
/// ranks after the current one, and a barrier ends every iteration that
/// writes.
__global__ void nmsPerClass(const float *boxes, const int *counts,
                            const int *sortedIdx, unsigned char *kept,
                            int64_t numPriors, int numClasses,
                            int numLocClasses, int topK, float nmsThreshold,
                            bool normalized) {
  int64_t nc = blockIdx.x;
  int64_t n = nc / numClasses, c = nc % numClasses;
  int k = min(counts[nc], topK);
  unsigned char *flags = kept + nc * topK;
  const int *idx = sortedIdx + nc * topK;
  const float *classBoxes =
      boxes +
      (n * numLocClasses + (numLocClasses == 1 ? 0 : c)) * numPriors * 4;
  for (int j = threadIdx.x; j < topK; j += blockDim.x)
    flags[j] = j < k ? 1 : 0;
  __syncthreads();
  for (int i = 0; i < k; ++i) {
    if (!flags[i])
      continue; // the same for every thread: written before a barrier
    float4 ref = loadBox(classBoxes + int64_t(idx[i]) * 4);
    for (int j = i + 1 + threadIdx.x; j < k; j += blockDim.x)
      if (flags[j] && jaccard(ref, loadBox(classBoxes + int64_t(idx[j]) * 4),
                              normalized) > nmsThreshold)
        flags[j] = 0;
    __syncthreads();
  }
}

/// For each kept box of an image (slot = class * topK + rank): its rank
/// over the image (higher score first, then the lower slot). The
/// keepTopK first go to rowSlot[n][rank] (set to -1 before); totals[n]
/// (zeroed before) counts the kept boxes.
__global__ void rankPerImage(const float *sortedScore,
                             const unsigned char *kept, int *rowSlot,
                             int *totals, int64_t batch, int64_t slots,
                             int keepTopK) {
  KILN_GRID_STRIDE(t, batch * slots) {
    if (!kept[t])
      continue;
    int64_t e = t % slots, n = t / slots;
    const float *s = sortedScore + n * slots;
    const unsigned char *k = kept + n * slots;
    float v = s[e];
    int64_t rank = 0;
    for (int64_t f = 0; f < slots; ++f)
      if (k[f])
        rank += (s[f] > v || (s[f] == v && f < e)) ? 1 : 0;
    atomicAdd(&totals[n], 1);
    if (rank < keepTopK)
      rowSlot[n * keepTopK + rank] = int(e);
  }
}

/// The outputs from rowSlot.
__global__ void writeDetections(const int *rowSlot, const int *totals,
                                const int *sortedIdx, const float *sortedScore,
                                const float *boxes, float *detections,
                                int *keepCount, int64_t batch,
                                int64_t numPriors, int numClasses,
                                int numLocClasses, int topK, int keepTopK) {
  KILN_GRID_STRIDE(t, batch * keepTopK) {
    int64_t n = t / keepTopK;
    float *row = detections + t * 7;
    int slot = rowSlot[t];
    row[0] = float(n);
    if (slot < 0) {
      row[1] = -1.0f;
      for (int i = 2; i < 7; ++i)
        row[i] = 0.0f;
    } else {
      int64_t slots = int64_t(numClasses) * topK;
      int c = slot / topK;
      int64_t p = sortedIdx[n * slots + slot];
      const float *b =
          boxes +
          ((n * numLocClasses + (numLocClasses == 1 ? 0 : c)) * numPriors + p) *
              4;
      row[1] = float(c);
      row[2] = sortedScore[n * slots + slot];
      for (int i = 0; i < 4; ++i)
        row[3 + i] = __saturatef(b[i]);
    }
    if (t % keepTopK == 0)
      keepCount[n] = min(totals[n], keepTopK);
  }
}

//===----------------------------------------------------------------------===//
// The plugin
//===----------------------------------------------------------------------===//

/// The workspace's parts, each 256-byte aligned.
struct NmsWorkspace {
  uint64_t boxes, scores, counts, sortedIdx, sortedScore, kept, rowSlot, totals,
      bytes;

  NmsWorkspace(const NmsParams &p, const NmsShape &s) {
    int64_t locClasses = p.shareLocation ? 1 : p.numClasses;
    int64_t classes = s.batch * p.numClasses;
    uint64_t at = 0;
    auto take = [&](uint64_t size) {
      uint64_t offset = at;
      at += (size + 255) / 256 * 256;
      return offset;
    };
    boxes = take(uint64_t(s.batch * locClasses * s.numPriors * 4) * 4);
    scores = take(uint64_t(classes * s.numPriors) * 4);
    counts = take(uint64_t(classes) * 4);
    sortedIdx = take(uint64_t(classes * p.topK) * 4);
    sortedScore = take(uint64_t(classes * p.topK) * 4);
    kept = take(uint64_t(classes * p.topK));
    rowSlot = take(uint64_t(s.batch * p.keepTopK) * 4);
    totals = take(uint64_t(s.batch) * 4);
    bytes = at;
  }
};

class Nms : public Plugin {
public:
  explicit Nms(const NmsParams &params) : params(params) {}

  StatusOr<std::vector<PluginTensor>>
  getOutputs(const std::vector<PluginTensor> &inputs) const override {
    StatusOr<NmsShape> s = inferShape(inputs);
    if (!s)
      return s.status();
    return std::vector<PluginTensor>{
        {DataType::F32, {s->batch, 1, params.keepTopK, 7}},
        {DataType::I32, {s->batch, 1, 1, 1}}};
  }

  Status configure(const std::vector<PluginTensor> &inputs,
                   const std::vector<PluginTensor> &) override {
    StatusOr<NmsShape> s = inferShape(inputs);
    if (!s)
      return s.status();
    shape = *s;
    return Status::ok();
  }

  uint64_t
  getWorkspaceBytes(const std::vector<PluginTensor> &inputs) const override {
    StatusOr<NmsShape> s = inferShape(inputs);
    return s ? NmsWorkspace(params, *s).bytes : 0;
  }

  Status enqueue(const PluginBuffers &b) override {
    if (shape.batch == 0)
      return Status(StatusCode::InvalidArgument,
                    std::string(kName) + ": enqueue before configure");
    if (b.inputs.size() != 3 || b.outputs.size() != 2 || !b.workspace)
      return Status(StatusCode::InvalidArgument,
                    std::string(kName) +
                        ": needs 3 inputs, 2 outputs and a workspace");
    const NmsParams &p = params;
    auto stream = static_cast<cudaStream_t>(b.stream);
    NmsWorkspace ws(p, shape);
    auto *base = reinterpret_cast<char *>(b.workspace);
    float *boxes = reinterpret_cast<float *>(base + ws.boxes);
    float *scores = reinterpret_cast<float *>(base + ws.scores);
    int *counts = reinterpret_cast<int *>(base + ws.counts);
    int *sortedIdx = reinterpret_cast<int *>(base + ws.sortedIdx);
    float *sortedScore = reinterpret_cast<float *>(base + ws.sortedScore);
    auto *kept = reinterpret_cast<unsigned char *>(base + ws.kept);
    int *rowSlot = reinterpret_cast<int *>(base + ws.rowSlot);
    int *totals = reinterpret_cast<int *>(base + ws.totals);
    auto *loc = reinterpret_cast<const float *>(b.inputs[p.inputOrder[0]]);
    auto *conf = reinterpret_cast<const float *>(b.inputs[p.inputOrder[1]]);
    auto *priors = reinterpret_cast<const float *>(b.inputs[p.inputOrder[2]]);
    auto *detections = reinterpret_cast<float *>(b.outputs[0]);
    auto *keepCount = reinterpret_cast<int *>(b.outputs[1]);

    int64_t n = shape.batch, priorsCount = shape.numPriors;
    int locClasses = p.shareLocation ? 1 : p.numClasses;
    int64_t classes = n * p.numClasses;
    int64_t slots = int64_t(p.numClasses) * p.topK;

    if (cudaError_t e = cudaMemsetAsync(counts, 0, classes * 4, stream))
      return failure("zeroing the class counts", e);
    if (cudaError_t e = cudaMemsetAsync(totals, 0, n * 4, stream))
      return failure("zeroing the image totals", e);
    if (cudaError_t e =
            cudaMemsetAsync(rowSlot, 0xff, n * p.keepTopK * 4, stream))
      return failure("clearing the rows", e);
    decodeBoxes<<<gridFor(n * priorsCount * locClasses), kThreads, 0, stream>>>(
        loc, priors, boxes, n, priorsCount, locClasses, p.codeType,
        p.varianceEncodedInTarget, shape.priorsPerImage);
    if (Status s = launched("decodeBoxes"); !s)
      return s;
    permuteScores<<<gridFor(classes * priorsCount), kThreads, 0, stream>>>(
        conf, scores, n, priorsCount, p.numClasses, p.confSigmoid);
    if (Status s = launched("permuteScores"); !s)
      return s;
    rankPerClass<<<gridFor(classes * priorsCount), kThreads, 0, stream>>>(
        scores, counts, sortedIdx, sortedScore, n, priorsCount, p.numClasses,
        p.backgroundLabelId, p.confidenceThreshold, p.topK);
    if (Status s = launched("rankPerClass"); !s)
      return s;
    nmsPerClass<<<unsigned(classes), kThreads, 0, stream>>>(
        boxes, counts, sortedIdx, kept, priorsCount, p.numClasses, locClasses,
        p.topK, p.nmsThreshold, p.isNormalized);
    if (Status s = launched("nmsPerClass"); !s)
      return s;
    rankPerImage<<<gridFor(n * slots), kThreads, 0, stream>>>(
        sortedScore, kept, rowSlot, totals, n, slots, p.keepTopK);
    if (Status s = launched("rankPerImage"); !s)
      return s;
    writeDetections<<<gridFor(n * p.keepTopK), kThreads, 0, stream>>>(
        rowSlot, totals, sortedIdx, sortedScore, boxes, detections, keepCount,
        n, priorsCount, p.numClasses, locClasses, p.topK, p.keepTopK);
    return launched("writeDetections");
  }

  PluginFields getFields() const override {
    const NmsParams &p = params;
    return {
        PluginField::of("shareLocation", std::vector<int64_t>{p.shareLocation}),
        PluginField::of("varianceEncodedInTarget",
                        std::vector<int64_t>{p.varianceEncodedInTarget}),
        PluginField::of("backgroundLabelId",
                        std::vector<int64_t>{p.backgroundLabelId}),
        PluginField::of("numClasses", std::vector<int64_t>{p.numClasses}),
        PluginField::of("topK", std::vector<int64_t>{p.topK}),
        PluginField::of("keepTopK", std::vector<int64_t>{p.keepTopK}),
        PluginField::of("confidenceThreshold",
                        std::vector<double>{p.confidenceThreshold}),
        PluginField::of("nmsThreshold", std::vector<double>{p.nmsThreshold}),
        PluginField::of("inputOrder",
                        std::vector<int64_t>{p.inputOrder[0], p.inputOrder[1],
                                             p.inputOrder[2]}),
        PluginField::of("confSigmoid", std::vector<int64_t>{p.confSigmoid}),
        PluginField::of("isNormalized", std::vector<int64_t>{p.isNormalized}),
        PluginField::of("codeType", std::vector<int64_t>{int(p.codeType)}),
        PluginField::of("scoreBits", std::vector<int64_t>{p.scoreBits}),
        PluginField::of("isBatchAgnostic",
                        std::vector<int64_t>{p.isBatchAgnostic}),
    };
  }

private:
  /// The sizes of `inputs`, or InvalidArgument naming the input and the
  /// dimension that disagrees.
  StatusOr<NmsShape> inferShape(const std::vector<PluginTensor> &inputs) const {
    auto refuse = [](const std::string &why) {
      return Status(StatusCode::InvalidArgument,
                    std::string(kName) + ": " + why);
    };
    if (inputs.size() != 3)
      return refuse("takes 3 inputs (loc, conf, priors in inputOrder), got " +
                    std::to_string(inputs.size()));
    const char *roles[3] = {"loc", "conf", "priors"};
    const PluginTensor *t[3];
    std::string what[3];
    for (int r = 0; r < 3; ++r) {
      int i = params.inputOrder[r];
      t[r] = &inputs[i];
      what[r] = std::string(roles[r]) + " (input " + std::to_string(i) +
                ", inputOrder[" + std::to_string(r) + "])";
      if (t[r]->type != DataType::F32)
        return refuse(what[r] + " must be f32 (the kernels are f32 only)");
      if (t[r]->dims.size() != 4)
        return refuse(what[r] + " must have 4 dimensions, got " +
                      shapeString(t[r]->dims));
      for (int64_t d : t[r]->dims)
        if (d < 1 || d > INT_MAX)
          return refuse(what[r] + " has a dimension outside [1, 2^31): " +
                        shapeString(t[r]->dims));
    }
    const std::vector<int64_t> &loc = t[0]->dims, &conf = t[1]->dims,
                               &priors = t[2]->dims;
    NmsShape s;
    s.batch = loc[0];
    if (priors[1] != 2)
      return refuse(what[2] +
                    ": dimension 1 must be 2 (boxes, variances), got " +
                    std::to_string(priors[1]) + " in " + shapeString(priors));
    if (priors[2] % 4 != 0 || priors[3] != 1)
      return refuse(what[2] +
                    ": dimensions 2 and 3 must be numPriors * 4 "
                    "and 1, got " +
                    shapeString(priors));
    s.numPriors = priors[2] / 4;
    if (conf[0] != s.batch)
      return refuse(what[1] + ": dimension 0 (batch) is " +
                    std::to_string(conf[0]) + ", loc's is " +
                    std::to_string(s.batch));
    if (params.isBatchAgnostic && priors[0] != 1)
      return refuse(what[2] +
                    ": dimension 0 must be 1 with "
                    "isBatchAgnostic=1, got " +
                    std::to_string(priors[0]) +
                    " (set isBatchAgnostic=0 for priors per image)");
    if (!params.isBatchAgnostic && priors[0] != s.batch)
      return refuse(what[2] + ": dimension 0 must be the batch (" +
                    std::to_string(s.batch) + ") with isBatchAgnostic=0, got " +
                    std::to_string(priors[0]));
    s.priorsPerImage = !params.isBatchAgnostic;
    int64_t locClasses = params.shareLocation ? 1 : params.numClasses;
    int64_t locPerImage = loc[1] * loc[2] * loc[3];
    if (locPerImage != s.numPriors * locClasses * 4)
      return refuse(what[0] + ": dimensions 1-3 hold " +
                    std::to_string(locPerImage) + " values per image (" +
                    shapeString(loc) + "), want numPriors (" +
                    std::to_string(s.numPriors) + ") * numLocClasses (" +
                    std::to_string(locClasses) +
                    ") * 4 = " + std::to_string(s.numPriors * locClasses * 4));
    int64_t confPerImage = conf[1] * conf[2] * conf[3];
    if (confPerImage != s.numPriors * params.numClasses)
      return refuse(what[1] + ": dimensions 1-3 hold " +
                    std::to_string(confPerImage) + " values per image (" +
                    shapeString(conf) + "), want numPriors (" +
                    std::to_string(s.numPriors) + ") * numClasses (" +
                    std::to_string(params.numClasses) +
                    ") = " + std::to_string(s.numPriors * params.numClasses));
    // Indices into the scratch are int64; prior indices, slots and the grid
    // of nmsPerClass are int32.
    if (s.batch * params.numClasses > INT_MAX ||
        s.batch * s.numPriors *
                std::max<int64_t>(locClasses, params.numClasses) * 4 >
            (int64_t(1) << 40))
      return refuse("the inputs are too large");
    return s;
  }

  static Status failure(const char *what, cudaError_t error) {
    return Status(StatusCode::DriverError, std::string(kName) + ": " + what +
                                               ": " +
                                               cudaGetErrorString(error));
  }
  static Status launched(const char *kernel) {
    cudaError_t error = cudaGetLastError();
    if (error != cudaSuccess)
      return failure((std::string("launching ") + kernel).c_str(), error);
    return Status::ok();
  }

  NmsParams params;
  NmsShape shape;
};

class NmsCreator : public PluginCreator {
public:
  std::string name() const override { return kName; }
  std::string version() const override { return "1"; }
  std::vector<std::pair<std::string, PluginField::Type>>
  fieldNames() const override {
    using T = PluginField::Type;
    return {{"shareLocation", T::Ints},
            {"varianceEncodedInTarget", T::Ints},
            {"backgroundLabelId", T::Ints},
            {"numClasses", T::Ints},
            {"topK", T::Ints},
            {"keepTopK", T::Ints},
            {"confidenceThreshold", T::Floats},
            {"nmsThreshold", T::Floats},
            {"inputOrder", T::Ints},
            {"confSigmoid", T::Ints},
            {"isNormalized", T::Ints},
            {"codeType", T::Ints},
            {"scoreBits", T::Ints},
            {"isBatchAgnostic", T::Ints}};
  }

  /// Required: every field but inputOrder (default {0, 2, 1}), codeType
  /// (default TF_CENTER), scoreBits (16) and isBatchAgnostic (1), the
  /// defaults TensorRT's creator gives.
  StatusOr<std::unique_ptr<Plugin>>
  create(const PluginFields &fields) const override {
    FieldReader r(kName, fields, fieldNames());
    NmsParams p;
    int64_t v = 0;
    if (Status s = r.checkNames(); !s)
      return s;
    if (Status s = r.getBool("shareLocation", p.shareLocation); !s)
      return s;
    if (Status s =
            r.getBool("varianceEncodedInTarget", p.varianceEncodedInTarget);
        !s)
      return s;
    if (Status s = r.getInt("numClasses", v, 1, INT_MAX); !s)
      return s;
    p.numClasses = int(v);
    if (Status s = r.getInt("backgroundLabelId", v, -1, INT_MAX); !s)
      return s;
    p.backgroundLabelId = int(v);
    if (p.backgroundLabelId >= p.numClasses)
      return r.error("field 'backgroundLabelId' (" + std::to_string(v) +
                     ") must be -1 (none) or a class below numClasses (" +
                     std::to_string(p.numClasses) + ")");
    if (Status s = r.getInt("topK", v, 1, kMaxTopK); !s)
      return s;
    p.topK = int(v);
    if (Status s = r.getInt("keepTopK", v, 1, INT_MAX); !s)
      return s;
    p.keepTopK = int(v);
    if (p.keepTopK > p.topK)
      return r.error("field 'keepTopK' (" + std::to_string(p.keepTopK) +
                     ") must not exceed topK (" + std::to_string(p.topK) +
                     "): TensorRT's NMS_TRT writes no detections then");
    if (int64_t(p.numClasses) * p.topK > INT_MAX)
      return r.error("numClasses * topK must be below 2^31");
    if (Status s = r.getFloat("confidenceThreshold", p.confidenceThreshold); !s)
      return s;
    if (Status s = r.getFloat("nmsThreshold", p.nmsThreshold); !s)
      return s;
    std::vector<int64_t> order;
    if (Status s =
            r.getInts("inputOrder", order, 3, std::vector<int64_t>{0, 2, 1});
        !s)
      return s;
    bool seen[3] = {false, false, false};
    for (int i = 0; i < 3; ++i) {
      if (order[i] < 0 || order[i] > 2 || seen[order[i]])
        return r.error("field 'inputOrder' must be a permutation of 0, 1, 2, "
                       "got " +
                       std::to_string(order[0]) + ", " +
                       std::to_string(order[1]) + ", " +
                       std::to_string(order[2]));
      seen[order[i]] = true;
      p.inputOrder[i] = int(order[i]);
    }
    if (Status s = r.getBool("confSigmoid", p.confSigmoid); !s)
      return s;
    if (Status s = r.getBool("isNormalized", p.isNormalized); !s)
      return s;
    if (Status s = r.getInt("codeType", v, INT_MIN, INT_MAX, 3); !s)
      return s;
    if (v < 0 || v > 3)
      return r.error("field 'codeType' must be CORNER (0), CENTER_SIZE (1), "
                     "CORNER_SIZE (2) or TF_CENTER (3), got " +
                     std::to_string(v));
    p.codeType = CodeType(v);
    if (Status s = r.getInt("scoreBits", v, 1, 32, 16); !s)
      return s;
    p.scoreBits = int(v);
    if (Status s = r.getBool("isBatchAgnostic", p.isBatchAgnostic, true); !s)
      return s;
    return std::unique_ptr<Plugin>(new Nms(p));
  }
};

} // namespace

std::shared_ptr<PluginCreator> makeNmsCreator() {
  return std::make_shared<NmsCreator>();
}

} // namespace kiln::rt::builtin
