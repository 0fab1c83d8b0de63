# -*- Python -*-
# lit configuration of the kiln tests: FileCheck and friends come from the LLVM
# tools directory (Debian installs them as FileCheck-22 on PATH only).

import os
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "kiln"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".onnxtxt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs",
                   "replay.py"]

# No test may hang: each has a time limit (lit needs psutil for it, from
# Debian's python3-psutil, which scripts/install-deps.sh installs). The whole
# ONNX suites are the slowest tests: about 7 minutes on 2 busy cores.
try:
    import psutil  # noqa: F401

    lit_config.maxIndividualTestTime = int(os.environ.get("KILN_LIT_TIMEOUT", "1200"))
except ImportError:
    lit_config.warning("no per-test time limit: lit needs the psutil module "
                       "(apt-get install python3-psutil)")

config.substitutions.append(("%kiln_src_root", config.kiln_src_root))
config.substitutions.append(("%kiln_obj_root", config.kiln_obj_root))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.kiln_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["kiln-opt", "kiln-compile", "kiln-conformance", "kiln-run", "kiln-run-plan",
     "kiln-device-info", "kiln-plan-info", "kiln-runtime-tests"], [config.kiln_tools_dir])

# Binary ONNX models are made in tests from protobuf text with protoc and
# libonnx's schema: %encode_onnx < model.txtpb > model.onnx
config.substitutions.append(
    ("%encode_onnx", "protoc --encode=onnx.ModelProto -I/usr/include/onnx onnx.proto"))

# The ONNX backend test data from Debian's libonnx-testdata.
onnx_testdata = "/usr/share/libonnx-testdata/data"
if os.path.isdir(os.path.join(onnx_testdata, "node")):
    config.available_features.add("onnx-testdata")
    config.substitutions.append(("%onnx_testdata", onnx_testdata))

# Tests that write ONNX models with Python need the onnx and numpy packages.
if subprocess.run(["python3", "-c", "import onnx, numpy"], capture_output=True).returncode == 0:
    config.available_features.add("python-onnx")

# Kernels are serialized with the CUDA toolkit's libdevice; cubins need ptxas.
cuda_path = os.environ.get("CUDA_HOME", "/usr/local/cuda")
if os.path.exists(os.path.join(cuda_path, "nvvm", "libdevice", "libdevice.10.bc")):
    config.available_features.add("libdevice")
if os.access(os.path.join(cuda_path, "bin", "ptxas"), os.X_OK):
    config.available_features.add("ptxas")

# kiln's built-in plugins (libkiln_plugins.so) are built when nvcc is found;
# tests of models that use them say `REQUIRES: builtin-plugins`.
if os.path.exists(os.path.join(config.kiln_obj_root, "lib", "libkiln_plugins.so")):
    config.available_features.add("builtin-plugins")

# GPU tests say `REQUIRES: cuda-gpu`; the feature is set only when the runtime
# finds a driver and a device here.
probe = os.path.join(config.kiln_tools_dir, "kiln-device-info")
try:
    if subprocess.run([probe], capture_output=True, timeout=60).returncode == 0:
        config.available_features.add("cuda-gpu")
except (OSError, subprocess.TimeoutExpired):
    pass
