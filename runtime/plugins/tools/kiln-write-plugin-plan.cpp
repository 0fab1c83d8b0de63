//===- kiln-write-plugin-plan.cpp - a plan of one plugin step -------------===//
//
// kiln-write-plugin-plan OUT.kplan --plugin-lib=LIB
//     --plugin NAME[:VERSION[:NAMESPACE]] [--input NAME=f32:2x3x4 ...]
//     [--field NAME=ints:1,2 | NAME=floats:0.5,1 | NAME=text:abc ...]
//
// Writes a plan whose one step is a plugin: loads the plugin library, makes
// the plugin from the fields, asks it for its outputs and workspace, and
// records the step as the compiler does (a kiln.plugin library call). The
// plan's inputs are named as given, its outputs output_0, output_1, ...;
// the workspace, when the plugin needs one, is the start of the plan's arena
// (each execution context's own memory). kiln-run-plan runs it; the plugin
// libraries' GPU checks (runtime/plugins/test) use the pair. Exit status 1
// when the library, the plugin or its fields are refused, 2 on bad usage.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Plan.h"
#include "kiln/runtime/Plugin.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace kiln::rt;

namespace {

const char *kUsage =
    "usage: kiln-write-plugin-plan OUT.kplan --plugin-lib=LIB\n"
    "         --plugin NAME[:VERSION[:NAMESPACE]] [--input NAME=f32:2x3x4 "
    "...]\n"
    "         [--field NAME=ints:1,2 | NAME=floats:0.5,1 | NAME=text:abc ...]\n"
    "Writes a plan whose one step is the plugin NAME (version 1 and the\n"
    "empty namespace by default) made from the fields, on the inputs given\n"
    "(in order); its outputs are output_0, output_1, ... --plugin-lib may be\n"
    "given more than once.\n";

int usage(const std::string &problem) {
  std::cerr << "kiln-write-plugin-plan: error: " << problem << "\n" << kUsage;
  return 2;
}

int fail(const std::string &problem) {
  std::cerr << "kiln-write-plugin-plan: error: " << problem << "\n";
  return 1;
}

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos)
      return parts;
    start = end + 1;
  }
}

bool parseInt(const std::string &text, int64_t &value) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  value = std::strtoll(text.c_str(), &end, 10);
  return errno == 0 && *end == '\0';
}

bool parseDouble(const std::string &text, double &value) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  value = std::strtod(text.c_str(), &end);
  return errno == 0 && *end == '\0';
}

/// "x=f32:2x3x4" (a scalar: "x=f32:"). Empty on success, else the problem.
std::string parseInput(const std::string &spec, std::string &name,
                       PluginTensor &tensor) {
  size_t eq = spec.find('='), colon = spec.find(':', eq);
  if (eq == std::string::npos || eq == 0 || colon == std::string::npos)
    return "--input '" + spec + "' is not NAME=TYPE:DIMS (x=f32:2x3x4)";
  name = spec.substr(0, eq);
  std::string type = spec.substr(eq + 1, colon - eq - 1);
  bool known = false;
  for (int t = int(DataType::F32); t <= int(DataType::U2); ++t)
    if (type == dataTypeName(DataType(t))) {
      tensor.type = DataType(t);
      known = true;
    }
  if (!known)
    return "--input '" + spec + "': unknown data type '" + type + "'";
  tensor.dims.clear();
  std::string dims = spec.substr(colon + 1);
  if (dims.empty())
    return "";
  for (const std::string &d : split(dims, 'x')) {
    int64_t value = 0;
    if (!parseInt(d, value) || value < 0)
      return "--input '" + spec + "': dimension '" + d +
             "' is not a non-negative integer";
    tensor.dims.push_back(value);
  }
  return "";
}

/// "n=ints:1,2", "s=floats:0.5,1", "t=text:abc". Empty on success, else the
/// problem.
std::string parseField(const std::string &spec, PluginField &field) {
  size_t eq = spec.find('='), colon = spec.find(':', eq);
  if (eq == std::string::npos || eq == 0 || colon == std::string::npos)
    return "--field '" + spec +
           "' is not NAME=ints:1,2, NAME=floats:0.5 or NAME=text:abc";
  std::string name = spec.substr(0, eq);
  std::string kind = spec.substr(eq + 1, colon - eq - 1);
  std::string values = spec.substr(colon + 1);
  if (kind == "text") {
    field = PluginField::of(name, values);
    return "";
  }
  if (kind != "ints" && kind != "floats")
    return "--field '" + spec + "': unknown kind '" + kind +
           "' (ints, floats or text)";
  std::vector<int64_t> ints;
  std::vector<double> floats;
  if (!values.empty())
    for (const std::string &v : split(values, ',')) {
      int64_t i = 0;
      double f = 0;
      if (kind == "ints" ? !parseInt(v, i) : !parseDouble(v, f))
        return "--field '" + spec + "': '" + v + "' is not " +
               (kind == "ints" ? "an integer" : "a number");
      ints.push_back(i);
      floats.push_back(f);
    }
  field = kind == "ints" ? PluginField::of(name, ints)
                         : PluginField::of(name, floats);
  return "";
}

std::string describe(const PluginTensor &tensor) {
  std::string text = dataTypeName(tensor.type);
  text += ":";
  for (size_t i = 0; i < tensor.dims.size(); ++i)
    text += (i ? "x" : "") + std::to_string(tensor.dims[i]);
  return text;
}

} // namespace

int main(int argc, char **argv) {
  std::string out, pluginSpec;
  std::vector<std::string> libraries, inputNames;
  PluginCall call;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (arg.rfind("--plugin-lib=", 0) == 0) {
      libraries.push_back(arg.substr(13));
      continue;
    }
    if (arg == "--plugin" || arg == "--input" || arg == "--field") {
      if (i + 1 >= argc)
        return usage(arg + " needs a value");
      std::string value = argv[++i];
      if (arg == "--plugin") {
        if (!pluginSpec.empty())
          return usage("--plugin given twice");
        pluginSpec = value;
      } else if (arg == "--input") {
        std::string name;
        PluginTensor tensor;
        if (std::string problem = parseInput(value, name, tensor);
            !problem.empty())
          return usage(problem);
        inputNames.push_back(name);
        call.inputs.push_back(tensor);
      } else {
        PluginField field;
        if (std::string problem = parseField(value, field); !problem.empty())
          return usage(problem);
        if (findField(call.fields, field.name))
          return usage("--field '" + field.name + "' given twice");
        call.fields.push_back(field);
      }
      continue;
    }
    if (arg.rfind("--", 0) == 0)
      return usage("unknown option " + arg);
    if (!out.empty())
      return usage("more than one output file given");
    out = arg;
  }
  if (out.empty())
    return usage("no output file given");
  if (libraries.empty())
    return usage("no --plugin-lib given");
  if (pluginSpec.empty())
    return usage("no --plugin given");
  std::vector<std::string> key = split(pluginSpec, ':');
  if (key.size() > 3 || key[0].empty())
    return usage("--plugin '" + pluginSpec +
                 "' is not NAME[:VERSION[:NAMESPACE]]");
  call.name = key[0];
  call.version = key.size() > 1 ? key[1] : "1";
  call.pluginNamespace = key.size() > 2 ? key[2] : "";

  for (const std::string &library : libraries)
    if (Status s = loadPluginLibrary(library); !s)
      return fail(s.message());
  std::shared_ptr<PluginCreator> creator =
      findPluginCreator(call.name, call.version, call.pluginNamespace);
  if (!creator) {
    std::string known;
    for (const std::string &k : registeredPlugins())
      known += (known.empty() ? "" : ", ") + k;
    return fail(
        "plugin " + pluginKey(call.name, call.version, call.pluginNamespace) +
        " is not registered (registered: " + (known.empty() ? "none" : known) +
        ")");
  }
  StatusOr<std::unique_ptr<Plugin>> plugin = creator->create(call.fields);
  if (!plugin)
    return fail("the creator refuses the fields: " + plugin.status().message());
  StatusOr<std::vector<PluginTensor>> outputs =
      (*plugin)->getOutputs(call.inputs);
  if (!outputs)
    return fail("the plugin refuses the inputs: " + outputs.status().message());
  call.outputs = *outputs;
  call.workspaceBytes = (*plugin)->getWorkspaceBytes(call.inputs);

  PlanContents plan;
  plan.compatibility.kilnVersion = "kiln-write-plugin-plan";
  Step step;
  step.kind = Step::Kind::LibraryCall;
  step.libraryCall.callee = kPluginCallee;
  auto addTensor = [&](const std::string &name, const PluginTensor &tensor,
                       bool isInput) {
    TensorDesc desc{name, tensor.type, tensor.dims, isInput};
    Address address;
    address.space = MemorySpace::Tensor;
    address.index = uint32_t(plan.tensors.size());
    step.libraryCall.buffers.push_back({address, uint64_t(desc.numBytes())});
    plan.tensors.push_back(desc);
  };
  for (size_t i = 0; i < call.inputs.size(); ++i)
    addTensor(inputNames[i], call.inputs[i], true);
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    std::string name = "output_" + std::to_string(i);
    for (const std::string &input : inputNames)
      if (input == name)
        return usage("input name '" + name + "' is taken by an output");
    addTensor(name, call.outputs[i], false);
  }
  if (call.workspaceBytes) {
    Address arena; // the start of the arena
    step.libraryCall.buffers.push_back({arena, call.workspaceBytes});
    plan.arenaBytes = call.workspaceBytes;
  }
  step.libraryCall.payload = encodePluginCall(call);
  plan.steps = {step};
  StatusOr<std::string> file = writePlan(plan);
  if (!file)
    return fail(file.status().message());
  std::ofstream stream(out, std::ios::binary);
  stream << *file;
  if (!stream.flush())
    return fail("cannot write " + out);
  std::cout << "wrote " << out << ": " << call.name << " on";
  for (size_t i = 0; i < call.inputs.size(); ++i)
    std::cout << " " << inputNames[i] << "=" << describe(call.inputs[i]);
  std::cout << (call.inputs.empty() ? " no inputs" : "") << " ->";
  for (size_t i = 0; i < call.outputs.size(); ++i)
    std::cout << " output_" << i << "=" << describe(call.outputs[i]);
  if (call.workspaceBytes)
    std::cout << ", " << call.workspaceBytes << " bytes of workspace";
  std::cout << "\n";
  return 0;
}
