//===- CudaTarget.h - NVIDIA target architectures ---------------*- C++ -*-===//
//
// Target architectures as kiln's tools name them (sm_80, sm_90), the PTX ISA
// version kernels for each are written in, and where ptxas is found.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGET_CUDA_CUDATARGET_H
#define KILN_TARGET_CUDA_CUDATARGET_H

#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir::kiln {

/// Parses "sm_80,sm_90" into {80, 90} (duplicates dropped, order kept).
/// Fails with a message in `error` for a malformed or empty list.
FailureOr<std::vector<unsigned>> parseTargets(StringRef list,
                                              std::string &error);

/// "sm_80,sm_90" for {80, 90}.
std::string formatTargets(ArrayRef<unsigned> archs);

/// The PTX ISA version (times ten) kernels for `arch` are written in: 8.0
/// covers sm_50 to sm_90; newer architectures need newer ISAs.
unsigned getPtxIsaVersion(unsigned arch);

/// The ptxas to run: `given` when not empty, else `<cudaPath>/bin/ptxas`
/// when it is executable, else the first `ptxas` on PATH, else "".
std::string findPtxas(StringRef given, StringRef cudaPath);

} // namespace mlir::kiln

#endif // KILN_TARGET_CUDA_CUDATARGET_H
