//===- DriverApi.h - the driver entry points the runtime calls --*- C++ -*-===//
//
// Driver::Api, the table of CUDA driver functions resolved by name when the
// driver is loaded. Only the runtime's own sources include this header (it
// needs cuda.h); the public headers see Driver::Api as an incomplete type.
//
// The entry points are listed once, in DriverSymbols.def; the members below
// and the resolution loop in Driver::load are generated from it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_SRC_CUDA_DRIVERAPI_H
#define KILN_RUNTIME_SRC_CUDA_DRIVERAPI_H

#include "kiln/runtime/Driver.h"

#include <cuda.h>

#include <string>

namespace kiln::rt {

namespace detail {
/// Whether two C strings are equal, at compile time.
constexpr bool sameSymbolName(const char *a, const char *b) {
  while (*a && *a == *b)
    ++a, ++b;
  return *a == *b;
}
} // namespace detail

#define KILN_DRIVER_STRINGIFY(x) #x
#define KILN_DRIVER_EXPANDED_NAME(x) KILN_DRIVER_STRINGIFY(x)

/// The driver entry points the runtime uses, resolved by name: one member per
/// line of DriverSymbols.def, typed from cuda.h's declaration.
struct Driver::Api {
#define KILN_DRIVER_SYMBOL(member, symbol) decltype(&::symbol) member = nullptr;
#define KILN_DRIVER_SYMBOL_FALLBACK(member, symbol, fallback)                  \
  decltype(&::fallback) member = nullptr;
#include "cuda/DriverSymbols.def"

  /// "cuInit failed with CUDA_ERROR_NO_DEVICE (no CUDA-capable device is
  /// detected)".
  std::string describe(const char *call, CUresult result) const;
};

// A name that cuda.h renames with a macro would be resolved under the old
// name with the new signature: the table lists the names the macros give.
#define KILN_DRIVER_SYMBOL(member, symbol)                                     \
  static_assert(                                                               \
      detail::sameSymbolName(#symbol, KILN_DRIVER_EXPANDED_NAME(symbol)),      \
      "cuda.h renames " #symbol                                                \
      ": list the name its macro gives in DriverSymbols.def");
#define KILN_DRIVER_SYMBOL_FALLBACK(member, symbol, fallback)                  \
  static_assert(                                                               \
      detail::sameSymbolName(#symbol, KILN_DRIVER_EXPANDED_NAME(symbol)),      \
      "cuda.h renames " #symbol                                                \
      ": list the name its macro gives in DriverSymbols.def");                 \
  static_assert(detail::sameSymbolName(#fallback,                              \
                                       KILN_DRIVER_EXPANDED_NAME(fallback)) || \
                    detail::sameSymbolName(                                    \
                        #symbol, KILN_DRIVER_EXPANDED_NAME(fallback)),         \
                "cuda.h renames " #fallback                                    \
                " to neither itself nor " #symbol);
#include "cuda/DriverSymbols.def"

} // namespace kiln::rt

#endif // KILN_RUNTIME_SRC_CUDA_DRIVERAPI_H
