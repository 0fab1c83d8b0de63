//===- LibraryCallPayload.h - library-call parameters as bytes --*- C++ -*-===//
//
// The payload of a kiln_gpu.library_call's plan step, encoded from the op's
// `params` for the callees kiln knows (cublaslt.matmul).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TARGET_PLAN_LIBRARYCALLPAYLOAD_H
#define KILN_LIB_TARGET_PLAN_LIBRARYCALLPAYLOAD_H

#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.h"

#include <string>

namespace mlir::kiln {

/// The payload bytes of `call`, or an error on the op that names the
/// parameter that is missing or wrong, or the callee kiln cannot encode.
FailureOr<std::string> encodeLibraryCallPayload(LibraryCallOp call);

} // namespace mlir::kiln

#endif // KILN_LIB_TARGET_PLAN_LIBRARYCALLPAYLOAD_H
