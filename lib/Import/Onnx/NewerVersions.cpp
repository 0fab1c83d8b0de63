//===- NewerVersions.cpp - ONNX op versions after opset 17 ------*- C++ -*-===//
//
// The versions of ops newer than opset 17 that kiln imports. Each is
// imported by the handler of the op's previous row: most of them only add
// element types (which the importer rejects where kiln lacks them) or an
// attribute value kiln refuses by name (Pad-19's "wrap", Resize-19's
// "half_pixel_symmetric"); where the meaning changed, the handler itself
// reads the new form by opset (Reduce*-18's axes input, Split-18's
// num_outputs, Pad-18's axes, Resize-18's attributes). A version that is
// not listed is refused with its number (OnnxImporter.cpp, findHandler).
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include <cstring>

using namespace mlir::kiln::onnx_import;

namespace {
struct NewerVersion {
  const char *opType;
  int version;
};

const NewerVersion newerVersions[] = {
    // Element types only (bf16, float8, int4, ...), or new values of an
    // attribute that handlers check by name.
    {"Acos", 22},
    {"Acosh", 22},
    {"Asin", 22},
    {"Asinh", 22},
    {"Atan", 22},
    {"Atanh", 22},
    {"Cos", 22},
    {"Cosh", 22},
    {"Sin", 22},
    {"Sinh", 22},
    {"Tan", 22},
    {"Round", 22},
    {"Elu", 22},
    {"Selu", 22},
    {"HardSigmoid", 22},
    {"HardSwish", 22},
    {"Softplus", 22},
    {"Softsign", 22},
    {"ThresholdedRelu", 22},
    {"Dropout", 22},
    {"EyeLike", 22},
    {"Equal", 19},
    {"IsInf", 20},
    {"IsNaN", 20},
    {"Mod", 28},
    {"Conv", 22},
    {"ConvTranspose", 22},
    {"MaxPool", 22},
    {"GlobalAveragePool", 22},
    {"GlobalMaxPool", 22},
    {"InstanceNormalization", 22},
    {"NegativeLogLikelihoodLoss", 22},
    {"LpNormalization", 22},
    {"TopK", 24},
    {"ReverseSequence", 28},
    {"Einsum", 28},
    {"ScatterElements", 18}, // adds the max and min reductions
    {"ScatterND", 18},
    {"LpPool", 22},
    {"DepthToSpace", 28},
    {"SpaceToDepth", 28}, // adds mode, which the handler reads
    {"BitShift", 28},     // signed types (the right shift fills with signs)
    {"Celu", 28},
    {"Mish", 22},
    {"GroupNormalization", 21}, // scale and bias per channel: the handler
                                // reads the opset
    {"OneHot", 28},
    {"Compress", 28},
    {"Range", 27}, // stash_type: kiln computes ranges in double
    // 24 adds nonpad_kv_seqlen, 25 the sliding window: the handler reads
    // both (the window attributes are absent before 25).
    {"Attention", 24},
    {"Attention", 25},
    // The handlers read saturate (float8 only), block_size, output_dtype
    // and precision.
    {"QuantizeLinear", 19},
    {"QuantizeLinear", 21},
    {"QuantizeLinear", 23},
    {"QuantizeLinear", 24},
    {"QuantizeLinear", 25},
    {"QuantizeLinear", 28},
    {"DequantizeLinear", 19},
    {"DequantizeLinear", 21},
    {"DequantizeLinear", 23},
    {"DequantizeLinear", 24},
    {"DequantizeLinear", 25},
    {"DequantizeLinear", 28},
    // Cast-19's saturate concerns float8 (the handler reads it), Cast-24's
    // round_mode float8e8m0, which kiln refuses.
    {"Cast", 19},
    {"Cast", 21},
    {"Cast", 23},
    {"Cast", 24},
    {"Cast", 25},
    {"Cast", 28},
    {"CastLike", 19},
    {"CastLike", 21},
    {"CastLike", 23},
    {"CastLike", 24},
    {"CastLike", 25},
    {"Constant", 19},
    {"Constant", 21},
    {"Constant", 23},
    {"Constant", 24},
    {"Constant", 25},
    {"ConstantOfShape", 20},
    {"ConstantOfShape", 21},
    {"ConstantOfShape", 23},
    {"ConstantOfShape", 24},
    {"ConstantOfShape", 25},
    {"Identity", 19},
    {"Identity", 21},
    {"Identity", 23},
    {"Identity", 24},
    {"Identity", 25},
    {"Flatten", 21},
    {"Flatten", 23},
    {"Flatten", 24},
    {"Flatten", 25},
    {"Reshape", 19},
    {"Reshape", 21},
    {"Reshape", 23},
    {"Reshape", 24},
    {"Reshape", 25},
    {"Shape", 19},
    {"Shape", 21},
    {"Shape", 23},
    {"Shape", 24},
    {"Shape", 25},
    {"Size", 19},
    {"Size", 21},
    {"Size", 23},
    {"Size", 24},
    {"Size", 25},
    {"Squeeze", 21},
    {"Squeeze", 23},
    {"Squeeze", 24},
    {"Squeeze", 25},
    {"Unsqueeze", 21},
    {"Unsqueeze", 23},
    {"Unsqueeze", 24},
    {"Unsqueeze", 25},
    {"Transpose", 21},
    {"Transpose", 23},
    {"Transpose", 24},
    {"Transpose", 25},
    // AveragePool-19 adds dilations, which the window reader reads for
    // every pool.
    {"AveragePool", 19},
    {"AveragePool", 22},
    {"LpPool", 18}, // adds ceil_mode, which the handler refuses
    // The handler reads the new form by opset.
    {"Pad", 18},
    {"Pad", 19},
    {"Pad", 21},
    {"Pad", 23},
    {"Pad", 24},
    {"Pad", 25},
    {"Split", 18},
    {"Resize", 18},
    {"Resize", 19},
    {"ReduceMean", 18},
    {"ReduceMax", 18},
    {"ReduceMax", 20},
    {"ReduceMin", 18},
    {"ReduceMin", 20},
    {"ReduceProd", 18},
    {"ReduceL1", 18},
    {"ReduceL2", 18},
    {"ReduceLogSum", 18},
    {"ReduceLogSum", 28},
    {"ReduceLogSumExp", 18},
    {"ReduceLogSumExp", 28},
    {"ReduceSumSquare", 18},
};
} // namespace

void mlir::kiln::onnx_import::appendNewerVersions(
    std::vector<HandlerEntry> &table) {
  for (const NewerVersion &newer : newerVersions) {
    const HandlerEntry *previous = nullptr;
    for (const HandlerEntry &entry : table)
      if (!std::strcmp(entry.opType, newer.opType) &&
          entry.sinceVersion < newer.version &&
          (!previous || entry.sinceVersion > previous->sinceVersion))
        previous = &entry;
    if (previous) {
      HandlerEntry row = *previous;
      row.sinceVersion = newer.version;
      table.push_back(row);
    }
  }
}
