//===- BuiltinPlugins.h - kiln's built-in plugin creators -------*- C++ -*-===//
//
// The creators of libkiln_plugins.so, TensorRT's built-in plugins (name,
// version "1" and field names as TensorRT's): one factory per plugin, each
// defined in the plugin's own file (LeakyRelu.cu, Clip.cu, ...).
// BuiltinPlugins.cpp gives them all through the library's entry point
// (kiln_plugin_library_creators); tests may also link the plugin sources and
// call the factories directly.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_PLUGINS_BUILTINPLUGINS_H
#define KILN_RUNTIME_PLUGINS_BUILTINPLUGINS_H

#include "kiln/runtime/Plugin.h"

#include <memory>

namespace kiln::rt::builtin {

/// LReLU_TRT: y = x >= 0 ? x : negSlope * x (LeakyRelu.cu).
std::shared_ptr<PluginCreator> makeLeakyReluCreator();
/// Clip_TRT: y = min(max(x, clipMin), clipMax) (Clip.cu).
std::shared_ptr<PluginCreator> makeClipCreator();
/// Normalize_TRT: SSD's L2 normalization, scaled (Normalize.cu).
std::shared_ptr<PluginCreator> makeNormalizeCreator();
/// Reorg_TRT: YOLOv2's space-to-depth reorganization (Reorg.cu).
std::shared_ptr<PluginCreator> makeReorgCreator();
/// Region_TRT: YOLOv2's region activations (Region.cu).
std::shared_ptr<PluginCreator> makeRegionCreator();
/// PriorBox_TRT: SSD's prior boxes of one feature map (PriorBox.cu).
std::shared_ptr<PluginCreator> makePriorBoxCreator();
/// GridAnchor_TRT: TensorFlow's SSD grid anchors (GridAnchor.cu).
std::shared_ptr<PluginCreator> makeGridAnchorCreator();
/// NMS_TRT: SSD's detection output, decoding and non-maximum suppression
/// (Nms.cu).
std::shared_ptr<PluginCreator> makeNmsCreator();
/// RPROI_TRT: Faster R-CNN's region proposals and ROI pooling (RpRoi.cu).
std::shared_ptr<PluginCreator> makeRpRoiCreator();

} // namespace kiln::rt::builtin

#endif // KILN_RUNTIME_PLUGINS_BUILTINPLUGINS_H
