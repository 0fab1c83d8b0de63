//===- PluginLayers.cpp - Caffe layers that plugins implement -------------===//
//
// SSD's layers become kiln's built-in plugins, their parameters translated
// to the plugins' fields (as TensorRT's Caffe parser does):
// - PriorBox -> PriorBox_TRT: min_size, max_size, aspect_ratio, flip, clip,
//   variance (one value repeated, or four; none: 0.1), img_size or img_h /
//   img_w, step or step_h / step_w, offset. The plugin's [1, 2, K, 1] output
//   is reshaped to Caffe's [1, 2, K].
// - DetectionOutput -> NMS_TRT: num_classes, share_location,
//   background_label_id, nms_param (nms_threshold, top_k), keep_top_k,
//   confidence_threshold, code_type (Caffe's CORNER = 1 .. CORNER_SIZE = 3
//   become 0 .. 2), variance_encoded_in_target; loc and conf become
//   [N, K, 1, 1] and the priors [1, 2, K, 1] for the plugin.
// - Normalize -> Normalize_TRT: across_spatial, channel_shared, eps, and
//   the scale blob as the weights field.
// - RPROI (TensorRT's fused Faster R-CNN proposal and ROI pooling layer) ->
//   RPROI_TRT: region_proposal_param (prenms_top, nms_max_out,
//   iou_threshold, min_box_size, feature_stride, anchor_ratio_count,
//   anchor_scale_count, anchor_ratio, anchor_scale) and roi_pooling_param
//   (pooled_h, pooled_w, spatial_scale); im_info [N, 3, 1, 1] becomes
//   [N, 3].
// Any other type a registered creator is named after becomes that plugin;
// its fields come from python_param's param_str ("name=v1,v2; name2=v"),
// typed as the creator declares them, and its one blob, if any, becomes the
// creator's 'weights' field.
//
//===----------------------------------------------------------------------===//

#include "LayerContext.h"

#include "kiln/Import/PluginLayer.h"

#include <cfloat>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::caffe_import;
namespace rt = ::kiln::rt;

namespace {

std::vector<double> floats(const google::protobuf::RepeatedField<float> &v) {
  return std::vector<double>(v.begin(), v.end());
}

/// Builds the plugin of `spec` over `inputs`; its outputs, or the failure
/// with the reason.
FailureOr<SmallVector<Value>>
build(LayerContext &lc, const PluginLayerSpec &spec, ValueRange inputs) {
  std::string error;
  FailureOr<SmallVector<Value>> outputs =
      buildPluginLayer(lc.b, lc.loc, spec, inputs, error);
  if (failed(outputs))
    return lc.fail(error);
  return outputs;
}

/// Sets the layer's tops to the plugin's outputs (the first ones).
LogicalResult setTops(LayerContext &lc, ArrayRef<Value> outputs) {
  if (lc.numTops() > outputs.size())
    return lc.fail("has " + Twine(lc.numTops()) + " tops, the plugin gives " +
                   Twine(outputs.size()) + " outputs");
  for (unsigned i = 0; i < lc.numTops(); ++i)
    lc.setTop(i, outputs[i]);
  return success();
}

LogicalResult priorBox(LayerContext &lc) {
  if (failed(lc.requireArity(2, 2)))
    return failure();
  const caffe::PriorBoxParameter &p = lc.layer.prior_box_param();
  PluginLayerSpec spec;
  spec.name = "PriorBox_TRT";
  if (p.min_size().empty())
    return lc.fail("has no min_size");
  if (!p.max_size().empty() && p.max_size_size() != p.min_size_size())
    return lc.fail("has " + Twine(p.max_size_size()) + " max_size for " +
                   Twine(p.min_size_size()) + " min_size; give one each");
  std::vector<double> variance = floats(p.variance());
  if (variance.empty())
    variance = {0.1};
  if (variance.size() == 1)
    variance.assign(4, variance[0]);
  if (variance.size() != 4)
    return lc.fail("has " + Twine(p.variance_size()) +
                   " variance values; give 1 or 4");
  if (p.has_img_size() && (p.has_img_h() || p.has_img_w()))
    return lc.fail("give img_size or img_h and img_w, not both");
  if (p.has_step() && (p.has_step_h() || p.has_step_w()))
    return lc.fail("give step or step_h and step_w, not both");
  int64_t imgH = p.has_img_size() ? p.img_size() : p.img_h();
  int64_t imgW = p.has_img_size() ? p.img_size() : p.img_w();
  double stepH = p.has_step() ? p.step() : p.step_h();
  double stepW = p.has_step() ? p.step() : p.step_w();
  spec.fields = {
      rt::PluginField::of("minSize", floats(p.min_size())),
      rt::PluginField::of("flip", std::vector<int64_t>{p.flip()}),
      rt::PluginField::of("clip", std::vector<int64_t>{p.clip()}),
      rt::PluginField::of("variance", variance),
      rt::PluginField::of("imgH", std::vector<int64_t>{imgH}),
      rt::PluginField::of("imgW", std::vector<int64_t>{imgW}),
      rt::PluginField::of("stepH", std::vector<double>{stepH}),
      rt::PluginField::of("stepW", std::vector<double>{stepW}),
      rt::PluginField::of("offset", std::vector<double>{p.offset()})};
  if (!p.max_size().empty())
    spec.fields.push_back(rt::PluginField::of("maxSize", floats(p.max_size())));
  if (!p.aspect_ratio().empty())
    spec.fields.push_back(
        rt::PluginField::of("aspectRatios", floats(p.aspect_ratio())));
  FailureOr<SmallVector<Value>> outputs =
      build(lc, spec, {lc.bottom(0), lc.bottom(1)});
  if (failed(outputs))
    return failure();
  // Caffe's PriorBox gives [1, 2, K].
  auto type = cast<RankedTensorType>((*outputs)[0].getType());
  if (type.getRank() != 4)
    return lc.fail("PriorBox_TRT gives " + formatDims(type.getShape()) +
                   ", not [1, 2, K, 1]");
  return lc.result(lc.reshape((*outputs)[0], type.getShape().drop_back()));
}

/// `v` as [d0, d1 * ... , 1, 1] (loc, conf) or [d0, d1, d2 * ..., 1]
/// (priors), the 4-D inputs NMS_TRT takes.
FailureOr<Value> toNmsInput(LayerContext &lc, Value v, bool priors) {
  ArrayRef<int64_t> dims = cast<RankedTensorType>(v.getType()).getShape();
  unsigned lead = priors ? 2 : 1;
  if (dims.size() < lead + (priors ? 1 : 0))
    return lc.fail("the priors bottom must have rank >= 3 ([1, 2, K]), got " +
                   formatDims(dims));
  SmallVector<int64_t> shape(dims.take_front(lead));
  shape.push_back(checkedProduct(dims.drop_front(lead)));
  shape.append(4 - shape.size(), 1);
  return lc.reshape(v, shape);
}

LogicalResult detectionOutput(LayerContext &lc) {
  if (failed(lc.requireArity(3, 3, -1)))
    return failure();
  const caffe::DetectionOutputParameter &p = lc.layer.detection_output_param();
  if (!p.has_num_classes())
    return lc.fail("has no num_classes");
  if (p.nms_param().eta() != 1.0f)
    return lc.fail("nms_param.eta " + std::to_string(p.nms_param().eta()) +
                   " (adaptive NMS) is not supported; NMS_TRT's is 1");
  int64_t codeType = int64_t(p.code_type()) - 1;
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < 3; ++i) {
    FailureOr<Value> v = toNmsInput(lc, lc.bottom(i), i == 2);
    if (failed(v))
      return failure();
    inputs.push_back(*v);
  }
  int64_t priors =
      cast<RankedTensorType>(inputs[2].getType()).getDimSize(2) / 4;
  int64_t topK = p.nms_param().has_top_k() ? p.nms_param().top_k()
                                           : std::min<int64_t>(priors, 4096);
  int64_t keepTopK = p.keep_top_k() == -1 ? topK : p.keep_top_k();
  double threshold =
      p.has_confidence_threshold() ? p.confidence_threshold() : -3.0e38;
  int64_t batchAgnostic =
      cast<RankedTensorType>(inputs[2].getType()).getDimSize(0) == 1;
  PluginLayerSpec spec;
  spec.name = "NMS_TRT";
  spec.fields = {
      rt::PluginField::of("shareLocation",
                          std::vector<int64_t>{p.share_location()}),
      rt::PluginField::of("varianceEncodedInTarget",
                          std::vector<int64_t>{p.variance_encoded_in_target()}),
      rt::PluginField::of("backgroundLabelId",
                          std::vector<int64_t>{p.background_label_id()}),
      rt::PluginField::of("numClasses", std::vector<int64_t>{p.num_classes()}),
      rt::PluginField::of("topK", std::vector<int64_t>{topK}),
      rt::PluginField::of("keepTopK", std::vector<int64_t>{keepTopK}),
      rt::PluginField::of("confidenceThreshold",
                          std::vector<double>{threshold}),
      rt::PluginField::of("nmsThreshold",
                          std::vector<double>{p.nms_param().nms_threshold()}),
      rt::PluginField::of("inputOrder", std::vector<int64_t>{0, 1, 2}),
      rt::PluginField::of("confSigmoid", std::vector<int64_t>{0}),
      rt::PluginField::of("isNormalized", std::vector<int64_t>{1}),
      rt::PluginField::of("codeType", std::vector<int64_t>{codeType}),
      rt::PluginField::of("isBatchAgnostic",
                          std::vector<int64_t>{batchAgnostic})};
  FailureOr<SmallVector<Value>> outputs = build(lc, spec, inputs);
  if (failed(outputs))
    return failure();
  return setTops(lc, *outputs);
}

LogicalResult normalize(LayerContext &lc) {
  if (failed(lc.requireArity(1, 1)))
    return failure();
  const caffe::NormalizeParameter &p = lc.layer.norm_param();
  auto type = lc.bottomType(0);
  if (type.getRank() != 4)
    return lc.fail("expects a 4-D bottom (N x C x H x W), got " +
                   formatDims(type.getShape()));
  if (failed(lc.requireBlobs(1, "scale")))
    return failure();
  // SSD stores a shared scale as a blob of no axes; accept [1] too.
  SmallVector<int64_t> shape = {type.getDimSize(1)};
  if (p.channel_shared())
    shape = lc.blobShape(0) == ArrayRef<int64_t>{1} ? SmallVector<int64_t>{1}
                                                    : SmallVector<int64_t>{};
  FailureOr<std::vector<float>> scale = lc.blobValues(0, shape, "scale");
  if (failed(scale))
    return failure();
  PluginLayerSpec spec;
  spec.name = "Normalize_TRT";
  spec.fields = {
      rt::PluginField::of("weights",
                          std::vector<double>(scale->begin(), scale->end())),
      rt::PluginField::of("nbWeights",
                          std::vector<int64_t>{int64_t(scale->size())}),
      rt::PluginField::of("acrossSpatial",
                          std::vector<int64_t>{p.across_spatial()}),
      rt::PluginField::of("channelShared",
                          std::vector<int64_t>{p.channel_shared()}),
      rt::PluginField::of("eps", std::vector<double>{p.eps()})};
  FailureOr<SmallVector<Value>> outputs = build(lc, spec, {lc.bottom(0)});
  if (failed(outputs))
    return failure();
  return setTops(lc, *outputs);
}

/// TensorRT's fused Faster R-CNN layer (type RPROI): bottoms scores [N, 2A,
/// H, W], deltas [N, 4A, H, W], the feature map and im_info [N, 3]; tops
/// rois [N, nms_max_out, 4] and the pooled features.
LogicalResult rproi(LayerContext &lc) {
  if (failed(lc.requireArity(4, 4, 2)))
    return failure();
  const caffe::RegionProposalParameter &r = lc.layer.region_proposal_param();
  const caffe::ROIPoolingParameter &pool = lc.layer.roi_pooling_param();
  if (!lc.layer.has_region_proposal_param() ||
      !lc.layer.has_roi_pooling_param())
    return lc.fail("needs region_proposal_param and roi_pooling_param");
  for (auto [given, name] :
       {std::pair{r.has_prenms_top(), "region_proposal_param.prenms_top"},
        {r.has_nms_max_out(), "region_proposal_param.nms_max_out"},
        {r.has_iou_threshold(), "region_proposal_param.iou_threshold"},
        {r.has_min_box_size(), "region_proposal_param.min_box_size"},
        {r.has_feature_stride(), "region_proposal_param.feature_stride"},
        {pool.has_pooled_h(), "roi_pooling_param.pooled_h"},
        {pool.has_pooled_w(), "roi_pooling_param.pooled_w"}})
    if (!given)
      return lc.fail(Twine("has no ") + name);
  // im_info may be [N, 3] or Caffe's [N, 3, 1, 1]: the plugin takes [N, 3].
  Value imInfo = lc.bottom(3);
  ArrayRef<int64_t> info = lc.bottomType(3).getShape();
  if (info.size() > 2 &&
      llvm::all_of(info.drop_front(2), [](int64_t d) { return d == 1; })) {
    FailureOr<Value> flat = lc.reshape(imInfo, info.take_front(2));
    if (failed(flat))
      return failure();
    imInfo = *flat;
  }
  PluginLayerSpec spec;
  spec.name = "RPROI_TRT";
  auto one = [](int64_t v) { return std::vector<int64_t>{v}; };
  spec.fields = {
      rt::PluginField::of("poolingH", one(pool.pooled_h())),
      rt::PluginField::of("poolingW", one(pool.pooled_w())),
      rt::PluginField::of("featureStride", one(r.feature_stride())),
      rt::PluginField::of("preNmsTop", one(r.prenms_top())),
      rt::PluginField::of("nmsMaxOut", one(r.nms_max_out())),
      rt::PluginField::of("iouThreshold",
                          std::vector<double>{r.iou_threshold()}),
      rt::PluginField::of("minBoxSize", std::vector<double>{r.min_box_size()}),
      rt::PluginField::of("spatialScale",
                          std::vector<double>{pool.spatial_scale()}),
      rt::PluginField::of("anchorsRatioCount", one(r.anchor_ratio_count())),
      rt::PluginField::of("anchorsScaleCount", one(r.anchor_scale_count())),
      rt::PluginField::of("anchorsRatios", floats(r.anchor_ratio())),
      rt::PluginField::of("anchorsScales", floats(r.anchor_scale()))};
  FailureOr<SmallVector<Value>> outputs =
      build(lc, spec, {lc.bottom(0), lc.bottom(1), lc.bottom(2), imInfo});
  if (failed(outputs))
    return failure();
  return setTops(lc, *outputs);
}

/// The fields param_str gives ("name=v1,v2; name2=v"), typed as
/// `creator` declares them.
LogicalResult parseParamFields(LayerContext &lc,
                               const rt::PluginCreator &creator,
                               rt::PluginFields &fields) {
  auto known = creator.fieldNames();
  SmallVector<llvm::StringRef> entries;
  llvm::StringRef(lc.layer.python_param().param_str())
      .split(entries, ';', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef entry : entries) {
    entry = entry.trim();
    if (entry.empty())
      continue;
    auto [name, text] = entry.split('=');
    name = name.trim();
    auto it =
        llvm::find_if(known, [&](const auto &f) { return f.first == name; });
    if (!entry.contains('=') || it == known.end()) {
      std::string list;
      for (const auto &f : known)
        list += (list.empty() ? "" : ", ") + f.first;
      return lc.fail("param_str entry '" + entry +
                     "' is not name=value for a field of plugin " +
                     creator.name() + " (its fields: " + list + ")");
    }
    if (it->second == rt::PluginField::Type::Text) {
      fields.push_back(rt::PluginField::of(name.str(), text.trim().str()));
      continue;
    }
    SmallVector<llvm::StringRef> items;
    text.split(items, ',', -1, /*KeepEmpty=*/false);
    std::vector<int64_t> ints;
    std::vector<double> floats;
    for (llvm::StringRef item : items) {
      item = item.trim();
      int64_t i;
      double d;
      if (it->second == rt::PluginField::Type::Ints &&
          !item.getAsInteger(10, i))
        ints.push_back(i);
      else if (it->second == rt::PluginField::Type::Floats &&
               !item.getAsDouble(d))
        floats.push_back(d);
      else
        return lc.fail("param_str field '" + name + "' takes " +
                       (it->second == rt::PluginField::Type::Ints ? "integers"
                                                                  : "numbers") +
                       ", got '" + item + "'");
    }
    fields.push_back(it->second == rt::PluginField::Type::Ints
                         ? rt::PluginField::of(name.str(), ints)
                         : rt::PluginField::of(name.str(), floats));
  }
  return success();
}

} // namespace

LogicalResult
mlir::kiln::caffe_import::importPluginLayer(LayerContext &lc,
                                            const rt::PluginCreator &creator) {
  PluginLayerSpec spec;
  spec.name = creator.name();
  spec.version = creator.version();
  spec.pluginNamespace = creator.pluginNamespace();
  lc.blobsChecked = true;
  if (failed(parseParamFields(lc, creator, spec.fields)))
    return failure();
  if (lc.numBlobs() > 0) {
    auto fields = creator.fieldNames();
    bool takesWeights = llvm::any_of(fields, [](const auto &f) {
      return f.first == "weights" && f.second == rt::PluginField::Type::Floats;
    });
    if (lc.numBlobs() != 1 || !takesWeights)
      return lc.fail(
          "has " + Twine(lc.numBlobs()) + " blob(s); a plugin layer takes " +
          "one blob, as its creator's 'weights' field, and plugin " +
          rt::pluginKey(spec.name, spec.version, spec.pluginNamespace) +
          (takesWeights ? " takes it" : " has no 'weights' field"));
    SmallVector<int64_t> shape = lc.blobShape(0);
    if (shape.empty() && lc.blobValueCount(0) != 1)
      shape = {lc.blobValueCount(0)};
    FailureOr<std::vector<float>> weights = lc.blobValues(0, shape, "weights");
    if (failed(weights))
      return failure();
    spec.fields.push_back(rt::PluginField::of(
        "weights", std::vector<double>(weights->begin(), weights->end())));
  }
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < lc.numBottoms(); ++i)
    inputs.push_back(lc.bottom(i));
  FailureOr<SmallVector<Value>> outputs = build(lc, spec, inputs);
  if (failed(outputs))
    return failure();
  return setTops(lc, *outputs);
}

void mlir::kiln::caffe_import::appendDetectionHandlers(
    std::vector<HandlerEntry> &table) {
  static const HandlerEntry entries[] = {
      {"PriorBox", priorBox},
      {"DetectionOutput", detectionOutput},
      {"Normalize", normalize},
      {"RPROI", rproi},
  };
  table.insert(table.end(), std::begin(entries), std::end(entries));
}
