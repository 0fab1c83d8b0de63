//===- CompileSettings.h - kiln-compile's options as values -----*- C++ -*-===//
//
// The options of a compilation as plain values, with no MLIR type in sight,
// one field per line of CompileOptions.def: what the command line of
// kiln-compile, kiln-run and kiln-conformance gives (getCompilerOptionsFromCL
// reads the flags into one), what the Python package's
// kiln.compile(**options) gives and what a BuilderConfig becomes.
// applyCompileSettings (CompilerOptions.h) checks them and applies them to a
// CompilerOptions, so every front end accepts and refuses the same values
// with the same words.
// An option left unset keeps the front end's default.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_COMPILESETTINGS_H
#define KILN_COMPILER_COMPILESETTINGS_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// The kinds of option values (the `Kind` column of CompileOptions.def):
/// the C++ value, how CompileSettings holds it (unset: std::nullopt or
/// empty), the form kiln.compile takes (`python`, converted in
/// python/kiln/__init__.py) and the placeholder --help shows.
namespace option {
template <typename T> struct Scalar {
  using Value = T;
  using Setting = std::optional<T>;
  static constexpr bool repeatable = false;
};
/// A repeatable flag; a list (or a dict of NAME=value) in Python.
struct Repeatable {
  using Value = std::string;
  using Setting = std::vector<std::string>;
  static constexpr bool repeatable = true;
};

struct Bool : Scalar<bool> {
  static constexpr const char *python = "bool", *valueDesc = "";
};
struct Int : Scalar<int> {
  static constexpr const char *python = "int", *valueDesc = "int";
};
struct Int64 : Scalar<int64_t> {
  static constexpr const char *python = "int", *valueDesc = "int";
};
struct UInt64 : Scalar<uint64_t> {
  static constexpr const char *python = "int", *valueDesc = "uint";
};
struct Path : Scalar<std::string> {
  static constexpr const char *python = "path", *valueDesc = "path";
};
/// "16G": bytes with an optional K, M, G or T (an int in Python too).
struct Bytes : Scalar<std::string> {
  static constexpr const char *python = "bytes", *valueDesc = "bytes";
};
/// "sm_80,sm_90" (a list in Python too).
struct Targets : Scalar<std::string> {
  static constexpr const char *python = "targets", *valueDesc = "sm_XX,...";
};
/// Names ("prob"); a name or a list in Python.
struct Names : Repeatable {
  static constexpr const char *python = "names", *valueDesc = "name";
};
/// Files; a path or a list in Python.
struct Paths : Repeatable {
  static constexpr const char *python = "paths", *valueDesc = "file";
};
/// "NAME=value" each; a dict in Python.
struct Assignments : Repeatable {
  static constexpr const char *python = "dict", *valueDesc = "name=value";
};
/// "NAME=1x3x224x224" each; a dict of shapes in Python.
struct Shapes : Repeatable {
  static constexpr const char *python = "shapes", *valueDesc = "name=shape";
};
/// "NAME=1x3:8x3:64x3" each (min:opt:max); a dict of (min, opt, max) shapes
/// in Python.
struct Profiles : Repeatable {
  static constexpr const char *python = "profiles",
                              *valueDesc = "name=min:opt:max";
};
} // namespace option

/// One field per option of CompileOptions.def, named by its first column;
/// the table has each one's flag, Python keyword and meaning.
struct CompileSettings {
#define KILN_OPTION(field, flag, keyword, Kind, Category, dest, help)          \
  option::Kind::Setting field;
#define KILN_CHECKED_OPTION(field, flag, keyword, Kind, Category, help)        \
  option::Kind::Setting field;
#define KILN_NEGATED_FLAG(name, flag, field, value, Category, help)
#include "kiln/Compiler/CompileOptions.def"
};

} // namespace kiln

#endif // KILN_COMPILER_COMPILESETTINGS_H
