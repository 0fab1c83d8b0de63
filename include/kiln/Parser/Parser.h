//===- Parser.h - read kiln IR text safely ----------------------*- C++ -*-===//
//
// Reads kiln IR (.mlir) text. Before the MLIR parser sees the text, it is
// searched for input that crashes that parser instead of failing it, so that
// every kiln tool answers such text with an error at its line and column.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PARSER_PARSER_H
#define KILN_PARSER_PARSER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <optional>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace mlir::kiln {

/// Text at `offset` that the MLIR parser of the LLVM that kiln builds with
/// would crash on, and why.
struct ParserHazard {
  size_t offset;
  llvm::StringRef message;
};

/// The first hazard in `text`, outside comments and string literals:
/// - a dense array of `index` (`array<index: ...>`): the MLIR 22 parser
///   asks `index` for its bit width and crashes (llvm/llvm-project#179045,
///   fixed in LLVM 23);
/// - a malformed or missing integer list after `permutation =` or
///   `dimensions =` outside an attribute dictionary (linalg.transpose,
///   linalg.broadcast, linalg.reduce): the MLIR 22 linalg parser stores the
///   null attribute of the failed list and crashes.
std::optional<ParserHazard> findParserHazard(llvm::StringRef text);

/// Parses `buffer` as a module, reporting a hazard or a parse error through
/// `context`'s diagnostics at its location. Returns null on error.
OwningOpRef<ModuleOp> parseSource(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                  MLIRContext *context);

/// Reads and parses the file at `path` ("-" is stdin) as parseSource does.
OwningOpRef<ModuleOp> parseSourceFile(llvm::StringRef path,
                                      MLIRContext *context);

} // namespace mlir::kiln

#endif // KILN_PARSER_PARSER_H
