//===- PluginBufferization.h - kiln.plugin on buffers -----------*- C++ -*-===//
//
// One-shot bufferization of kiln.plugin: a new buffer per result (and one
// for the plugin's workspace), and a kiln_gpu.library_call "kiln.plugin"
// that reads the inputs' buffers and writes the results'.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_GPU_PLUGINBUFFERIZATION_H
#define KILN_CODEGEN_GPU_PLUGINBUFFERIZATION_H

namespace mlir {
class DialectRegistry;
namespace kiln {

/// Registers kiln.plugin's BufferizableOpInterface.
void registerPluginBufferizationModel(DialectRegistry &registry);

} // namespace kiln
} // namespace mlir

#endif // KILN_CODEGEN_GPU_PLUGINBUFFERIZATION_H
