//===- CudaTarget.cpp - NVIDIA target architectures -------------*- C++ -*-===//

#include "kiln/Target/CUDA/CudaTarget.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace mlir;

FailureOr<std::vector<unsigned>> kiln::parseTargets(StringRef list,
                                                    std::string &error) {
  std::vector<unsigned> archs;
  SmallVector<StringRef> items;
  list.split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    StringRef digits = item.trim();
    unsigned arch = 0;
    if (!digits.consume_front("sm_") || digits.getAsInteger(10, arch) ||
        arch < 50 || arch > 1210) {
      error = "bad target '" + item.str() +
              "': expected sm_<major><minor> such as sm_80 or sm_90";
      return failure();
    }
    if (!llvm::is_contained(archs, arch))
      archs.push_back(arch);
  }
  if (archs.empty()) {
    error = "no target architecture given";
    return failure();
  }
  return archs;
}

std::string kiln::formatTargets(ArrayRef<unsigned> archs) {
  return llvm::join(
      llvm::map_range(
          archs, [](unsigned arch) { return "sm_" + std::to_string(arch); }),
      ",");
}

unsigned kiln::getPtxIsaVersion(unsigned arch) {
  if (arch >= 120)
    return 87;
  if (arch >= 100)
    return 86;
  return 80;
}

std::string kiln::findPtxas(StringRef given, StringRef cudaPath) {
  if (!given.empty())
    return given.str();
  SmallString<128> inToolkit(cudaPath);
  llvm::sys::path::append(inToolkit, "bin", "ptxas");
  if (llvm::sys::fs::can_execute(inToolkit))
    return inToolkit.str().str();
  if (auto onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;
  return "";
}
