//===- RpRoi.cu - RPROI_TRT: Faster R-CNN's proposals and ROI pooling -----===//
//
// TensorRT's RPROI_TRT (RPROIPlugin): the region proposal layer of Faster
// R-CNN fused with max ROI pooling.
//
// Inputs (all f32):
//   scores  [N, 2A, H, W]  objectness; channels A..2A-1 are the foreground;
//   deltas  [N, 4A, H, W]  box offsets, channel 4a + {dx, dy, dw, dh};
//   feature [N, C, Hf, Wf] the map to pool (TensorRT requires Hf, Wf to be
//                          H, W; kiln pools any size, through spatialScale);
//   im_info [N, 3]         image height, width and scale.
// Outputs (f32):
//   rois    [N, nmsMaxOut, 4] x1, y1, x2, y2 in image pixels; rows past the
//                             proposals that survive NMS are 0;
//   pooled  [N * nmsMaxOut, C, poolingH, poolingW].
//
// Semantics, TensorRT's (generateAnchors, bboxDeltas2Proposals, nmsLayer,
// roiPooling):
// - A = anchorsRatioCount * anchorsScaleCount anchors, anchor r * scales + s
//   of width round(sqrt(stride^2 / ratio)) * scale and height
//   round(that width * ratio) * scale (round: half away from zero), centred
//   at ((stride - 1) / 2 + w * stride, (stride - 1) / 2 + h * stride);
// - boxes decode as centre += delta * anchor size, size = exp(delta) *
//   anchor size, then x clipped to [0, imWidth - 1], y to [0, imHeight - 1];
// - a box whose width or height (x2 - x1 + 1) is below minBoxSize * imScale
//   gets the score -inf: it sorts after every other box but is not dropped
//   (TensorRT's filtering; py-faster-rcnn drops such boxes);
// - proposals r = (a * H + h) * W + w are sorted by score, higher first, then
//   by r (TensorRT's stable radix sort; a NaN score counts as -inf), the
//   first preNmsTop go to a greedy NMS with IoU on +1 pixel sizes, a box
//   suppressed when IoU > iouThreshold, stopping at nmsMaxOut boxes;
// - max ROI pooling as Caffe's: the ROI is round(coordinate * spatialScale),
//   at least 1x1, bin (ph, pw) covers rows floor(ph * binH) to
//   ceil((ph + 1) * binH) (f32 arithmetic) offset and clipped to the map;
//   an empty bin is 0. Every one of the nmsMaxOut rois is pooled, the zero
//   rows too.
// Differences: nmsMaxOut may also be called postNmsTop; anchors are at most
// 128 per cell; exp is expf, not TensorRT's __expf.
//
//===----------------------------------------------------------------------===//

#include "BuiltinPlugins.h"
#include "DetectionFields.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <string>

namespace kiln::rt::builtin {
namespace {

constexpr const char *kName = "RPROI_TRT";
constexpr int kThreads = 256;
constexpr int kMaxAnchors = 128;

/// The anchors, passed to the kernel by value: centre x, centre y, width,
/// height.
struct Anchors {
  float4 a[kMaxAnchors];
};

struct RpRoiParams {
  int poolingH = 0, poolingW = 0, featureStride = 0, preNmsTop = 0,
      nmsMaxOut = 0;
  float iouThreshold = 0, minBoxSize = 0, spatialScale = 0;
  std::vector<float> ratios, scales;
  Anchors anchors = {};
  int numAnchors() const { return int(ratios.size() * scales.size()); }
};

struct RpRoiShape {
  int64_t batch = 0, height = 0, width = 0, channels = 0, mapHeight = 0,
          mapWidth = 0;
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

/// boxes[n][r] and fg[n][r] for every proposal r = (a * H + h) * W + w.
__global__ void decodeProposals(const float *scores, const float *deltas,
                                const float *imInfo, Anchors anchors,
                                float4 *boxes, float *fg, int64_t batch,
                                int numAnchors, int64_t height, int64_t width,
                                int featureStride, float minBoxSize) {
  int64_t perImage = numAnchors * height * width;
  KILN_GRID_STRIDE(t, batch * perImage) {
    int64_t w = t % width, h = (t / width) % height;
    int64_t a = (t / (width * height)) % numAnchors, n = t / perImage;
    int64_t hw = h * width + w, plane = height * width;
    float imHeight = imInfo[n * 3], imWidth = imInfo[n * 3 + 1];
    float imScale = imInfo[n * 3 + 2];
    float4 anchor = anchors.a[a];
    const float *d = deltas + (n * 4 * numAnchors + 4 * a) * plane + hw;
    float dx = d[0], dy = d[plane], dw = d[2 * plane], dh = d[3 * plane];
    float cx = anchor.x + float(w * featureStride);
    float cy = anchor.y + float(h * featureStride);
    cx = cx + dx * anchor.z;
    cy = cy + dy * anchor.w;
    float bw = expf(dw) * anchor.z, bh = expf(dh) * anchor.w;
    float4 box;
    box.x = fminf(fmaxf(cx - bw / 2, 0.0f), imWidth - 1.0f);
    box.y = fminf(fmaxf(cy - bh / 2, 0.0f), imHeight - 1.0f);
    box.z = fminf(fmaxf(cx + bw / 2, 0.0f), imWidth - 1.0f);
    box.w = fminf(fmaxf(cy + bh / 2, 0.0f), imHeight - 1.0f);
    float score = scores[(n * 2 * numAnchors + numAnchors + a) * plane + hw];
    float minSize = minBoxSize * imScale;
    if (isnan(score) || box.z - box.x + 1 < minSize ||
        box.w - box.y + 1 < minSize)
      score = -INFINITY;
    boxes[t] = box;
    fg[t] = score;
  }
}

/// The rank of every proposal in its image (higher score first, then lower
/// index); the first `keep` go to sorted[n][rank].
__global__ void rankProposals(const float4 *boxes, const float *fg,
                              float4 *sorted, int64_t batch, int64_t perImage,
                              int64_t keep) {
  KILN_GRID_STRIDE(t, batch * perImage) {
    int64_t r = t % perImage, n = t / perImage;
    const float *s = fg + n * perImage;
    float v = s[r];
    int64_t rank = 0;
    for (int64_t q = 0; q < perImage; ++q)
      rank += (s[q] > v || (s[q] == v && q < r)) ? 1 : 0;
    if (rank < keep)
      sorted[n * keep + rank] = boxes[t];
  }
}

/// TensorRT's proposal IoU: sizes and intersections on +1 pixels.
__device__ float pixelIou(float4 a, float4 b) {
  float iw = fmaxf(fminf(a.z, b.z) - fmaxf(a.x, b.x) + 1.0f, 0.0f);
  float ih = fmaxf(fminf(a.w, b.w) - fmaxf(a.y, b.y) + 1.0f, 0.0f);
  float inter = iw * ih;
  float areaA = (a.z - a.x + 1.0f) * (a.w - a.y + 1.0f);
  float areaB = (b.z - b.x + 1.0f) * (b.w - b.y + 1.0f);
  return inter / (areaA + areaB - inter);
}

/// Greedy NMS of one image per block over its `keep` sorted proposals,
/// writing rois[n][0..nmsMaxOut) (zeros past the survivors). Every thread
/// runs the same iterations; removed[] is only written for proposals after
/// the current one, and a barrier ends every iteration that writes.
__global__ void nmsProposals(const float4 *sorted, unsigned char *removed,
                             float *rois, int64_t keep, int nmsMaxOut,
                             float iouThreshold) {
  int64_t n = blockIdx.x;
  const float4 *b = sorted + n * keep;
  unsigned char *gone = removed + n * keep;
  float *out = rois + n * nmsMaxOut * 4;
  for (int64_t j = threadIdx.x; j < keep; j += blockDim.x)
    gone[j] = 0;
  __syncthreads();
  int kept = 0;
  for (int64_t i = 0; i < keep && kept < nmsMaxOut; ++i) {
    if (gone[i])
      continue; // the same for every thread: written before a barrier
    float4 ref = b[i];
    if (threadIdx.x == 0) {
      out[kept * 4 + 0] = ref.x;
      out[kept * 4 + 1] = ref.y;
      out[kept * 4 + 2] = ref.z;
      out[kept * 4 + 3] = ref.w;
    }
    ++kept;
    for (int64_t j = i + 1 + threadIdx.x; j < keep; j += blockDim.x)
      if (!gone[j] && pixelIou(ref, b[j]) > iouThreshold)
        gone[j] = 1;
    __syncthreads();
  }
  for (int64_t j = int64_t(kept) * 4 + threadIdx.x; j < int64_t(nmsMaxOut) * 4;
       j += blockDim.x)
    out[j] = 0.0f;
}

/// Max ROI pooling, one thread per output value.
__global__ void roiPool(const float *feature, const float *rois, float *pooled,
                        int64_t batch, int64_t roisPerImage, int64_t channels,
                        int64_t mapHeight, int64_t mapWidth, int poolingH,
                        int poolingW, float spatialScale) {
  int64_t total = batch * roisPerImage * channels * poolingH * poolingW;
  KILN_GRID_STRIDE(t, total) {
    int pw = int(t % poolingW), ph = int((t / poolingW) % poolingH);
    int64_t c = (t / (int64_t(poolingW) * poolingH)) % channels;
    int64_t roi = t / (int64_t(poolingW) * poolingH * channels);
    int64_t n = roi / roisPerImage;
    const float *box = rois + roi * 4;
    int startW = int(roundf(box[0] * spatialScale));
    int startH = int(roundf(box[1] * spatialScale));
    int roiW = max(int(roundf(box[2] * spatialScale)) - startW + 1, 1);
    int roiH = max(int(roundf(box[3] * spatialScale)) - startH + 1, 1);
    float binH = float(roiH) / float(poolingH);
    float binW = float(roiW) / float(poolingW);
    int64_t h0 = int64_t(floorf(float(ph) * binH)) + startH;
    int64_t h1 = int64_t(ceilf(float(ph + 1) * binH)) + startH;
    int64_t w0 = int64_t(floorf(float(pw) * binW)) + startW;
    int64_t w1 = int64_t(ceilf(float(pw + 1) * binW)) + startW;
    h0 = min(max(h0, int64_t(0)), mapHeight);
    h1 = min(max(h1, int64_t(0)), mapHeight);
    w0 = min(max(w0, int64_t(0)), mapWidth);
    w1 = min(max(w1, int64_t(0)), mapWidth);
    float best = 0.0f;
    if (h1 > h0 && w1 > w0) {
      best = -FLT_MAX;
      const float *plane = feature + (n * channels + c) * mapHeight * mapWidth;
      for (int64_t h = h0; h < h1; ++h)
        for (int64_t w = w0; w < w1; ++w) {
          float v = plane[h * mapWidth + w];
          if (v > best)
            best = v;
        }
    }
    pooled[t] = best;
  }
}

//===----------------------------------------------------------------------===//
// The plugin
//===----------------------------------------------------------------------===//

/// The workspace's parts, each 256-byte aligned.
struct RpRoiWorkspace {
  uint64_t boxes, fg, sorted, removed, bytes;
  int64_t perImage, keep;

  RpRoiWorkspace(const RpRoiParams &p, const RpRoiShape &s) {
    perImage = p.numAnchors() * s.height * s.width;
    keep = std::min<int64_t>(p.preNmsTop, perImage);
    uint64_t at = 0;
    auto take = [&](uint64_t size) {
      uint64_t offset = at;
      at += (size + 255) / 256 * 256;
      return offset;
    };
    boxes = take(uint64_t(s.batch * perImage) * 16);
    fg = take(uint64_t(s.batch * perImage) * 4);
    sorted = take(uint64_t(s.batch * keep) * 16);
    removed = take(uint64_t(s.batch * keep));
    bytes = at;
  }
};

class RpRoi : public Plugin {
public:
  explicit RpRoi(RpRoiParams params) : params(std::move(params)) {}

  StatusOr<std::vector<PluginTensor>>
  getOutputs(const std::vector<PluginTensor> &inputs) const override {
    StatusOr<RpRoiShape> s = inferShape(inputs);
    if (!s)
      return s.status();
    return std::vector<PluginTensor>{
        {DataType::F32, {s->batch, params.nmsMaxOut, 4}},
        {DataType::F32,
         {s->batch * params.nmsMaxOut, s->channels, params.poolingH,
          params.poolingW}}};
  }

  Status configure(const std::vector<PluginTensor> &inputs,
                   const std::vector<PluginTensor> &) override {
    StatusOr<RpRoiShape> s = inferShape(inputs);
    if (!s)
      return s.status();
    shape = *s;
    return Status::ok();
  }

  uint64_t
  getWorkspaceBytes(const std::vector<PluginTensor> &inputs) const override {
    StatusOr<RpRoiShape> s = inferShape(inputs);
    return s ? RpRoiWorkspace(params, *s).bytes : 0;
  }

  Status enqueue(const PluginBuffers &b) override {
    if (shape.batch == 0)
      return Status(StatusCode::InvalidArgument,
                    std::string(kName) + ": enqueue before configure");
    if (b.inputs.size() != 4 || b.outputs.size() != 2 || !b.workspace)
      return Status(StatusCode::InvalidArgument,
                    std::string(kName) +
                        ": needs 4 inputs, 2 outputs and a workspace");
    const RpRoiParams &p = params;
    auto stream = static_cast<cudaStream_t>(b.stream);
    RpRoiWorkspace ws(p, shape);
    auto *base = reinterpret_cast<char *>(b.workspace);
    auto *boxes = reinterpret_cast<float4 *>(base + ws.boxes);
    auto *fg = reinterpret_cast<float *>(base + ws.fg);
    auto *sorted = reinterpret_cast<float4 *>(base + ws.sorted);
    auto *removed = reinterpret_cast<unsigned char *>(base + ws.removed);
    auto *scores = reinterpret_cast<const float *>(b.inputs[0]);
    auto *deltas = reinterpret_cast<const float *>(b.inputs[1]);
    auto *feature = reinterpret_cast<const float *>(b.inputs[2]);
    auto *imInfo = reinterpret_cast<const float *>(b.inputs[3]);
    auto *rois = reinterpret_cast<float *>(b.outputs[0]);
    auto *pooled = reinterpret_cast<float *>(b.outputs[1]);
    int64_t n = shape.batch;

    decodeProposals<<<gridFor(n * ws.perImage), kThreads, 0, stream>>>(
        scores, deltas, imInfo, p.anchors, boxes, fg, n, p.numAnchors(),
        shape.height, shape.width, p.featureStride, p.minBoxSize);
    if (Status s = launched("decodeProposals"); !s)
      return s;
    rankProposals<<<gridFor(n * ws.perImage), kThreads, 0, stream>>>(
        boxes, fg, sorted, n, ws.perImage, ws.keep);
    if (Status s = launched("rankProposals"); !s)
      return s;
    nmsProposals<<<unsigned(n), kThreads, 0, stream>>>(
        sorted, removed, rois, ws.keep, p.nmsMaxOut, p.iouThreshold);
    if (Status s = launched("nmsProposals"); !s)
      return s;
    int64_t pooledCount =
        n * p.nmsMaxOut * shape.channels * p.poolingH * p.poolingW;
    roiPool<<<gridFor(pooledCount), kThreads, 0, stream>>>(
        feature, rois, pooled, n, p.nmsMaxOut, shape.channels, shape.mapHeight,
        shape.mapWidth, p.poolingH, p.poolingW, p.spatialScale);
    return launched("roiPool");
  }

  PluginFields getFields() const override {
    const RpRoiParams &p = params;
    auto floats = [](const std::vector<float> &v) {
      return std::vector<double>(v.begin(), v.end());
    };
    return {
        PluginField::of("poolingH", std::vector<int64_t>{p.poolingH}),
        PluginField::of("poolingW", std::vector<int64_t>{p.poolingW}),
        PluginField::of("featureStride", std::vector<int64_t>{p.featureStride}),
        PluginField::of("preNmsTop", std::vector<int64_t>{p.preNmsTop}),
        PluginField::of("nmsMaxOut", std::vector<int64_t>{p.nmsMaxOut}),
        PluginField::of("iouThreshold", std::vector<double>{p.iouThreshold}),
        PluginField::of("minBoxSize", std::vector<double>{p.minBoxSize}),
        PluginField::of("spatialScale", std::vector<double>{p.spatialScale}),
        PluginField::of("anchorsRatioCount",
                        std::vector<int64_t>{int64_t(p.ratios.size())}),
        PluginField::of("anchorsScaleCount",
                        std::vector<int64_t>{int64_t(p.scales.size())}),
        PluginField::of("anchorsRatios", floats(p.ratios)),
        PluginField::of("anchorsScales", floats(p.scales)),
    };
  }

private:
  /// The sizes of `inputs`, or InvalidArgument naming the input and the
  /// dimension that disagrees.
  StatusOr<RpRoiShape>
  inferShape(const std::vector<PluginTensor> &inputs) const {
    auto refuse = [](const std::string &why) {
      return Status(StatusCode::InvalidArgument,
                    std::string(kName) + ": " + why);
    };
    if (inputs.size() != 4)
      return refuse("takes 4 inputs (scores, deltas, feature map, im_info), "
                    "got " +
                    std::to_string(inputs.size()));
    const char *names[4] = {"scores", "deltas", "feature map", "im_info"};
    for (int i = 0; i < 4; ++i) {
      const PluginTensor &t = inputs[i];
      std::string what =
          std::string(names[i]) + " (input " + std::to_string(i) + ")";
      if (t.type != DataType::F32)
        return refuse(what + " must be f32 (the kernels are f32 only)");
      if (i < 3 && t.dims.size() != 4)
        return refuse(what + " must have 4 dimensions (NCHW), got " +
                      shapeString(t.dims));
      for (int64_t d : t.dims)
        if (d < 1 || d > INT_MAX)
          return refuse(what + " has a dimension outside [1, 2^31): " +
                        shapeString(t.dims));
    }
    const std::vector<int64_t> &scores = inputs[0].dims,
                               &deltas = inputs[1].dims, &map = inputs[2].dims,
                               &info = inputs[3].dims;
    int64_t a = params.numAnchors();
    RpRoiShape s;
    s.batch = scores[0];
    s.height = scores[2];
    s.width = scores[3];
    s.channels = map[1];
    s.mapHeight = map[2];
    s.mapWidth = map[3];
    if (scores[1] != 2 * a)
      return refuse(
          "scores' dimension 1 must be 2 * anchors = " + std::to_string(2 * a) +
          " (anchorsRatioCount * "
          "anchorsScaleCount = " +
          std::to_string(a) + "), got " + std::to_string(scores[1]));
    if (deltas[1] != 4 * a)
      return refuse(
          "deltas' dimension 1 must be 4 * anchors = " + std::to_string(4 * a) +
          ", got " + std::to_string(deltas[1]));
    const char *dimNames[4] = {"0 (batch)", "1", "2 (height)", "3 (width)"};
    for (int d : {0, 2, 3})
      if (deltas[d] != scores[d])
        return refuse("deltas' dimension " + std::string(dimNames[d]) + " is " +
                      std::to_string(deltas[d]) + ", scores' is " +
                      std::to_string(scores[d]));
    if (map[0] != s.batch)
      return refuse("the feature map's dimension 0 (batch) is " +
                    std::to_string(map[0]) + ", scores' is " +
                    std::to_string(s.batch));
    int64_t infoValues = 1;
    for (size_t d = 1; d < info.size(); ++d)
      infoValues *= info[d];
    if (info.size() < 2 || info[0] != s.batch || infoValues != 3)
      return refuse("im_info must be [batch (" + std::to_string(s.batch) +
                    "), 3] (height, width, scale per image), got " +
                    shapeString(info));
    int64_t perImage = a * s.height * s.width;
    if (s.batch * perImage > (int64_t(1) << 31) || s.batch > INT_MAX ||
        s.batch * params.nmsMaxOut * s.channels * params.poolingH *
                params.poolingW >
            (int64_t(1) << 40))
      return refuse("the inputs are too large");
    return s;
  }

  static Status launched(const char *kernel) {
    cudaError_t error = cudaGetLastError();
    if (error != cudaSuccess)
      return Status(StatusCode::DriverError,
                    std::string(kName) + ": launching " + kernel + ": " +
                        cudaGetErrorString(error));
    return Status::ok();
  }

  RpRoiParams params;
  RpRoiShape shape;
};

class RpRoiCreator : public PluginCreator {
public:
  std::string name() const override { return kName; }
  std::string version() const override { return "1"; }
  std::vector<std::pair<std::string, PluginField::Type>>
  fieldNames() const override {
    using T = PluginField::Type;
    return {{"poolingH", T::Ints},          {"poolingW", T::Ints},
            {"featureStride", T::Ints},     {"preNmsTop", T::Ints},
            {"nmsMaxOut", T::Ints},         {"postNmsTop", T::Ints},
            {"iouThreshold", T::Floats},    {"minBoxSize", T::Floats},
            {"spatialScale", T::Floats},    {"anchorsRatioCount", T::Ints},
            {"anchorsScaleCount", T::Ints}, {"anchorsRatios", T::Floats},
            {"anchorsScales", T::Floats}};
  }

  /// Every field is required; nmsMaxOut (TensorRT's name) or postNmsTop.
  StatusOr<std::unique_ptr<Plugin>>
  create(const PluginFields &fields) const override {
    FieldReader r(kName, fields, fieldNames());
    RpRoiParams p;
    int64_t v = 0;
    if (Status s = r.checkNames(); !s)
      return s;
    struct IntField {
      const char *name;
      int *value;
      int64_t hi;
    } ints[] = {{"poolingH", &p.poolingH, 1 << 16},
                {"poolingW", &p.poolingW, 1 << 16},
                {"featureStride", &p.featureStride, 1 << 16},
                // TensorRT's nmsLayer takes fewer than 64 * 1024.
                {"preNmsTop", &p.preNmsTop, 64 * 1024 - 1}};
    for (const IntField &f : ints) {
      if (Status s = r.getInt(f.name, v, 1, f.hi); !s)
        return s;
      *f.value = int(v);
    }
    bool hasMaxOut = r.has("nmsMaxOut"), hasPostNms = r.has("postNmsTop");
    if (!hasMaxOut && !hasPostNms)
      return r.error("field 'nmsMaxOut' (or its other name 'postNmsTop') is "
                     "missing (1 integer)");
    if (hasMaxOut) {
      if (Status s = r.getInt("nmsMaxOut", v, 1, 1 << 20); !s)
        return s;
      p.nmsMaxOut = int(v);
    }
    if (hasPostNms) {
      if (Status s = r.getInt("postNmsTop", v, 1, 1 << 20); !s)
        return s;
      if (hasMaxOut && v != p.nmsMaxOut)
        return r.error("fields 'nmsMaxOut' (" + std::to_string(p.nmsMaxOut) +
                       ") and 'postNmsTop' (" + std::to_string(v) +
                       ") disagree; give one");
      p.nmsMaxOut = int(v);
    }
    if (Status s = r.getFloat("iouThreshold", p.iouThreshold); !s)
      return s;
    if (Status s = r.getFloat("minBoxSize", p.minBoxSize); !s)
      return s;
    if (Status s = r.getFloat("spatialScale", p.spatialScale); !s)
      return s;
    if (!(p.spatialScale > 0))
      return r.error("field 'spatialScale' must be positive, got " +
                     std::to_string(p.spatialScale));
    int64_t ratioCount = 0, scaleCount = 0;
    if (Status s = r.getInt("anchorsRatioCount", ratioCount, 1, kMaxAnchors);
        !s)
      return s;
    if (Status s = r.getInt("anchorsScaleCount", scaleCount, 1, kMaxAnchors);
        !s)
      return s;
    if (ratioCount * scaleCount > kMaxAnchors)
      return r.error("anchorsRatioCount * anchorsScaleCount must be at most " +
                     std::to_string(kMaxAnchors) + ", got " +
                     std::to_string(ratioCount * scaleCount));
    struct ListField {
      const char *name, *countName;
      int64_t count;
      std::vector<float> *values;
    } lists[] = {{"anchorsRatios", "anchorsRatioCount", ratioCount, &p.ratios},
                 {"anchorsScales", "anchorsScaleCount", scaleCount, &p.scales}};
    for (const ListField &f : lists) {
      const PluginField *given = findField(fields, f.name);
      if (given && given->type == PluginField::Type::Floats &&
          int64_t(given->floats.size()) != f.count)
        return r.error("field '" + std::string(f.name) + "' has " +
                       std::to_string(given->floats.size()) + " values, " +
                       f.countName + " is " + std::to_string(f.count));
      if (Status s = r.getFloats(f.name, *f.values, size_t(f.count)); !s)
        return s;
    }
    for (float ratio : p.ratios)
      if (!(ratio > 0))
        return r.error("field 'anchorsRatios' must be positive, got " +
                       std::to_string(ratio));
    for (float scale : p.scales)
      if (!(scale > 0))
        return r.error("field 'anchorsScales' must be positive, got " +
                       std::to_string(scale));
    // TensorRT's generateAnchors_cpu, in f32.
    float base = float(p.featureStride);
    for (size_t i = 0; i < p.ratios.size(); ++i)
      for (size_t j = 0; j < p.scales.size(); ++j) {
        float ws = std::round(std::sqrt(base * base / p.ratios[i]));
        float hs = std::round(ws * p.ratios[i]);
        p.anchors.a[i * p.scales.size() + j] = make_float4(
            (base - 1) / 2, (base - 1) / 2, ws * p.scales[j], hs * p.scales[j]);
      }
    return std::unique_ptr<Plugin>(new RpRoi(std::move(p)));
  }
};

} // namespace

std::shared_ptr<PluginCreator> makeRpRoiCreator() {
  return std::make_shared<RpRoiCreator>();
}

} // namespace kiln::rt::builtin
