//===- kiln-opt.cpp - kiln's mlir-opt ---------------------------*- C++ -*-===//
//
// Runs any pipeline of kiln and upstream passes over kiln IR, like mlir-opt.
// `kiln-opt --help` lists the kiln passes and pipelines and MLIR's options,
// not LLVM's codegen ones (--help-hidden does). Text that would
// crash the MLIR parser (kiln/Parser/Parser.h) is refused with an error
// before it is parsed.
//
//===----------------------------------------------------------------------===//

#include "kiln/InitAll.h"
#include "kiln/Parser/Parser.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

int main(int argc, char **argv) {
  DialectRegistry registry;
  kiln::registerAllDialects(registry);
  kiln::registerAllPasses();
  // The options registered by now are LLVM's own (codegen for every
  // target); --help lists MLIR's and the passes, --help-hidden all.
  for (llvm::cl::Option *option :
       llvm::make_second_range(llvm::cl::getRegisteredOptions()))
    if (llvm::equal(option->Categories,
                    ArrayRef{&llvm::cl::getGeneralCategory()}))
      option->setHiddenFlag(llvm::cl::Hidden);
  auto [inputName, outputName] = registerAndParseCLIOptions(
      argc, argv, "kiln optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputName, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (std::optional<kiln::ParserHazard> hazard =
          kiln::findParserHazard(input->getBuffer())) {
    llvm::SourceMgr sourceMgr;
    const char *at = input->getBufferStart() + hazard->offset;
    sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(at),
                           llvm::SourceMgr::DK_Error, hazard->message);
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputName, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
