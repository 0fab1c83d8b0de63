//===- run-plan.cpp - the smallest application of the runtime ---*- C++ -*-===//
//
// run-plan model.kplan: loads a plan, binds device buffers for every input and
// output, fills the inputs with 0.5 (f32 inputs only, for brevity), runs the
// plan twice on a stream of its own (two execution contexts of one engine
// would work the same way), and prints the first output value. It uses only
// libkiln_runtime: no LLVM, no MLIR, no CUDA runtime library. docs/runtime.md
// walks through it.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Runtime.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace kiln::rt;

static int fail(const Status &status) {
  std::fprintf(stderr, "run-plan: %s\n", status.toString().c_str());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: run-plan model.kplan\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::string bytes(std::istreambuf_iterator<char>(in), {});

  StderrLogger logger(Logger::Severity::Warning);
  auto runtime =
      Runtime::create(&logger); // device 0; fails cleanly without one
  if (!runtime.isOk())
    return fail(runtime.status());
  auto engine = (*runtime)->deserializeEngine(bytes.data(), bytes.size());
  if (!engine.isOk())
    return fail(engine.status()); // corrupt, wrong arch, driver too old, ...
  auto context = (*engine)->createExecutionContext(); // owns its arena
  if (!context.isOk())
    return fail(context.status());

  std::vector<uint64_t> buffers;
  for (int i = 0; i < (*engine)->numTensors(); ++i) {
    const TensorDesc &t = (*engine)->tensor(i);
    auto ptr = (*runtime)->allocate(t.numBytes() ? t.numBytes() : 1);
    if (!ptr.isOk())
      return fail(ptr.status());
    buffers.push_back(*ptr);
    if (Status s = (*context)->setTensorAddress(t.name, *ptr); !s.isOk())
      return fail(s);
    if (t.isInput && t.type == DataType::F32) {
      std::vector<float> host(t.numElements(), 0.5f);
      if (Status s = (*runtime)->copyToDevice(*ptr, host.data(), t.numBytes());
          !s.isOk())
        return fail(s);
    }
  }

  auto stream = (*runtime)->createStream();
  if (!stream.isOk())
    return fail(stream.status());
  for (int run = 0; run < 2; ++run)
    if (Status s = (*context)->enqueue(*stream); !s.isOk()) // asynchronous
      return fail(s);
  if (Status s = (*runtime)->synchronize(*stream); !s.isOk())
    return fail(s);

  for (int i = 0; i < (*engine)->numTensors(); ++i) {
    const TensorDesc &t = (*engine)->tensor(i);
    if (t.isInput || t.type != DataType::F32 || t.numElements() == 0)
      continue;
    float first = 0;
    if (Status s = (*runtime)->copyToHost(&first, buffers[i], sizeof(float));
        !s.isOk())
      return fail(s);
    std::printf("%s[0] = %g\n", t.name.c_str(), first);
  }
  context->reset(); // contexts before their engine, engines before the runtime
  for (uint64_t p : buffers)
    (*runtime)->free(p);
  (void)(*runtime)->destroyStream(*stream);
  return 0;
}
