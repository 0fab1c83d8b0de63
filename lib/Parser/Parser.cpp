//===- Parser.cpp - read kiln IR text safely --------------------*- C++ -*-===//

#include "kiln/Parser/Parser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::kiln;

static bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}

/// Whether the MLIR lexer skips `c` between tokens (a NUL before the end of
/// the text is skipped too).
static bool isBlank(char c) { return llvm::isSpace(c) || c == '\0'; }

/// The offset after the whitespace and `//` comments at `i`.
static size_t skipSpace(llvm::StringRef text, size_t i) {
  while (i < text.size()) {
    if (isBlank(text[i])) {
      ++i;
    } else if (text.substr(i).starts_with("//")) {
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        return text.size();
    } else {
      break;
    }
  }
  return i;
}

/// `array<index` at `i`: the MLIR 22 parser asks index for its bit width.
static std::optional<ParserHazard> indexArrayAt(llvm::StringRef text,
                                                size_t i) {
  if (!text.substr(i).starts_with("array"))
    return std::nullopt;
  size_t j = skipSpace(text, i + 5);
  if (j >= text.size() || text[j] != '<')
    return std::nullopt;
  j = skipSpace(text, j + 1);
  if (!text.substr(j).starts_with("index") ||
      (j + 5 < text.size() && isIdentifierChar(text[j + 5])))
    return std::nullopt;
  return ParserHazard{j, "a dense array of 'index' is not supported (the "
                         "MLIR 22 parser crashes on it: "
                         "llvm/llvm-project#179045); use i64"};
}

/// `permutation =` or `dimensions =` (linalg.transpose, broadcast, reduce)
/// at `i`, not in an attribute dictionary, without a `[...]` of integers and
/// commas after it: the MLIR 22 linalg parser keeps the null attribute of a
/// failed list and crashes storing it.
static std::optional<ParserHazard> linalgListAt(llvm::StringRef text,
                                                size_t i) {
  llvm::StringRef keyword;
  for (llvm::StringRef k : {"permutation", "dimensions"})
    if (text.substr(i).starts_with(k))
      keyword = k;
  if (keyword.empty())
    return std::nullopt;
  // In an attribute dictionary (after `{` or `,`) the name is not linalg's.
  size_t before = i;
  while (before > 0 && isBlank(text[before - 1]))
    --before;
  size_t j = skipSpace(text, i + keyword.size());
  if (before == 0 || text[before - 1] == '{' || text[before - 1] == ',' ||
      j >= text.size() || text[j] != '=')
    return std::nullopt;
  j = skipSpace(text, j + 1);
  ParserHazard malformed{j, "a malformed integer list (the MLIR 22 linalg "
                            "parser crashes on it); write integers separated "
                            "by commas in [...]"};
  if (j >= text.size() || text[j] != '[')
    return malformed;
  // [] or [int (, int)*], an int being decimal or hex, maybe negative.
  size_t k = skipSpace(text, j + 1);
  if (k < text.size() && text[k] == ']')
    return std::nullopt;
  while (true) {
    if (k < text.size() && text[k] == '-')
      ++k;
    bool hex = text.substr(k).starts_with("0x");
    size_t digits = hex ? k + 2 : k;
    k = digits;
    while (k < text.size() &&
           (hex ? llvm::isHexDigit(text[k]) : llvm::isDigit(text[k])))
      ++k;
    if (k == digits)
      break;
    k = skipSpace(text, k);
    if (k < text.size() && text[k] == ']')
      return std::nullopt;
    if (k >= text.size() || text[k] != ',')
      break;
    k = skipSpace(text, k + 1);
  }
  malformed.offset = k;
  return malformed;
}

std::optional<ParserHazard> mlir::kiln::findParserHazard(llvm::StringRef text) {
  // Reads as the MLIR lexer does: `//` comments out the rest of a line, a
  // string literal runs to its unescaped quote or the end of its line, and
  // a NUL before the end is whitespace.
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '/' && text.substr(i).starts_with("//")) {
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        break;
      continue;
    }
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (i > 0 && isIdentifierChar(text[i - 1]))
      continue;
    if (std::optional<ParserHazard> hazard = indexArrayAt(text, i))
      return hazard;
    if (std::optional<ParserHazard> hazard = linalgListAt(text, i))
      return hazard;
  }
  return std::nullopt;
}

OwningOpRef<ModuleOp>
mlir::kiln::parseSource(std::unique_ptr<llvm::MemoryBuffer> buffer,
                        MLIRContext *context) {
  llvm::SourceMgr sourceMgr;
  unsigned id = sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  const llvm::MemoryBuffer *text = sourceMgr.getMemoryBuffer(id);
  if (std::optional<ParserHazard> hazard =
          findParserHazard(text->getBuffer())) {
    auto [line, column] = sourceMgr.getLineAndColumn(
        llvm::SMLoc::getFromPointer(text->getBufferStart() + hazard->offset),
        id);
    emitError(
        FileLineColLoc::get(context, text->getBufferIdentifier(), line, column))
        << hazard->message;
    return nullptr;
  }
  return mlir::parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(context));
}

OwningOpRef<ModuleOp> mlir::kiln::parseSourceFile(llvm::StringRef path,
                                                  MLIRContext *context) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer = openInputFile(path, &error);
  if (!buffer) {
    emitError(UnknownLoc::get(context)) << error;
    return nullptr;
  }
  return parseSource(std::move(buffer), context);
}
