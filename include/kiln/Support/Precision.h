//===- Precision.h - the precisions layers can run in -----------*- C++ -*-===//
//
// The precision of a compilation (--fp16, --bf16) and of single layers
// (--layer-precision NAME=fp16), as an enum, with its one spelling
// ("fp32", "fp16", "bf16") in one place: the flags, the pipeline and pass
// options (`--kiln-kernels-pipeline="precision=fp16"`) and the plan's
// compatibility record all print and parse it here.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_PRECISION_H
#define KILN_SUPPORT_PRECISION_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <optional>

namespace mlir::kiln {

/// The lowest precision a layer may run in; layers that need f32 stay f32.
enum class Precision { FP32, FP16, BF16 };

/// "fp32", "fp16" or "bf16".
inline llvm::StringRef stringifyPrecision(Precision precision) {
  switch (precision) {
  case Precision::FP32:
    return "fp32";
  case Precision::FP16:
    return "fp16";
  case Precision::BF16:
    return "bf16";
  }
  return "fp32";
}

/// The precision spelled `name`, none for another word.
inline std::optional<Precision> parsePrecision(llvm::StringRef name) {
  for (Precision p : {Precision::FP32, Precision::FP16, Precision::BF16})
    if (name == stringifyPrecision(p))
      return p;
  return std::nullopt;
}

/// The values of a Precision command-line, pipeline or pass option:
/// `Option<Precision> p{..., precisionCLValues()}`.
inline llvm::cl::ValuesClass precisionCLValues() {
  return llvm::cl::ValuesClass(
      {{stringifyPrecision(Precision::FP32), int(Precision::FP32),
        "no reduced precision"},
       {stringifyPrecision(Precision::FP16), int(Precision::FP16),
        "fp16 (f32 accumulation)"},
       {stringifyPrecision(Precision::BF16), int(Precision::BF16),
        "bf16 (f32 accumulation)"}});
}

} // namespace mlir::kiln

#endif // KILN_SUPPORT_PRECISION_H
