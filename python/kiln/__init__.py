"""kiln: an MLIR-based inference optimizer and runtime for NVIDIA GPUs.

Compile a model to a plan, load it, run it::

    import kiln, numpy as np
    plan = kiln.compile("model.onnx", fp16=True)          # bytes of a .kplan
    runtime = kiln.Runtime()
    engine = runtime.deserialize(plan)
    context = engine.create_execution_context()
    outputs = context.run({"input": np.zeros((1, 3, 224, 224), np.float32)})

CUDA tensors of other libraries (torch, CuPy) bind without a copy through
DLPack: ``context.run({"input": x}, outputs={"output": y})``, or
``context.enqueue({"input": x, "output": y}, stream)``.

Build a network layer by layer with :class:`NetworkDefinition` and compile it
with :class:`Builder` (TensorRT's network definition API).

The runtime (``kiln._runtime``) needs only the CUDA driver; the compiler
(``kiln._compiler``: :func:`compile`, :class:`NetworkDefinition`,
:class:`Builder`) is loaded when first used.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, Sequence, Union

from . import _runtime
from ._runtime import DeviceArray, DeviceInfo, Engine, ExecutionContext, TensorInfo
from ._types import (
    DriverError,
    DriverUnavailableError,
    InternalError,
    InvalidArgumentError,
    InvalidPlanError,
    KilnError,
    NoDeviceError,
    NotFoundError,
    Severity,
    UnsupportedPlanError,
)

if TYPE_CHECKING:  # for type checkers: what __getattr__ loads on first use
    from ._compiler import (  # noqa: F401
        ActivationLayer,
        ActivationType,
        Builder,
        BuilderConfig,
        ConcatenationLayer,
        ConvolutionLayer,
        ElementWiseOperation,
        Layer,
        NetworkDefinition,
        NormalizationLayer,
        PoolingLayer,
        PoolingType,
        ReduceOperation,
        ScaleMode,
        ShuffleLayer,
        SoftMaxLayer,
        Tensor,
        UnaryOperation,
    )

__version__ = "0.4.0"

LogCallback = Callable[[Severity, str], None]

# What the compiler module provides, loaded on first use.
_COMPILER_NAMES = (
    "NetworkDefinition",
    "Builder",
    "BuilderConfig",
    "Tensor",
    "Layer",
    "ConvolutionLayer",
    "PoolingLayer",
    "ActivationLayer",
    "SoftMaxLayer",
    "ConcatenationLayer",
    "ShuffleLayer",
    "NormalizationLayer",
    "ActivationType",
    "PoolingType",
    "ElementWiseOperation",
    "UnaryOperation",
    "ReduceOperation",
    "ScaleMode",
)


def _compiler_module():
    from . import _compiler as compiler  # noqa: PLC0415 (loaded on demand)

    return compiler


def _with_log(cls):
    """`cls` taking a log(Severity, str) callback, as the runtime does."""

    class Wrapped(cls):
        __doc__ = cls.__doc__

        def __init__(self, log: Optional[LogCallback] = None) -> None:
            super().__init__(_wrap_log(log))

    Wrapped.__name__ = Wrapped.__qualname__ = cls.__name__
    Wrapped.__module__ = "kiln"
    return Wrapped


def __getattr__(name: str) -> Any:
    if name in _COMPILER_NAMES:
        value = getattr(_compiler_module(), name)
        if name in ("NetworkDefinition", "Builder"):
            value = _with_log(value)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kiln' has no attribute '{name}'")


def _wrap_log(log: Optional[LogCallback]):
    """The native modules call log(int, str); users get a Severity."""
    if log is None:
        return None
    return lambda severity, message: log(Severity(severity), message)


class Runtime(_runtime.Runtime):
    """The CUDA driver and one device; loads plans as engines (TensorRT's IRuntime).

    ``log(severity, message)`` receives the runtime's messages (default:
    warnings and errors to stderr). ``driver`` is the driver library to load
    (default ``libcuda.so.1``). Raises DriverUnavailableError or
    NoDeviceError on a machine without a GPU.
    """

    def __init__(
        self,
        device: int = 0,
        driver: Optional[Union[str, os.PathLike]] = None,
        log: Optional[LogCallback] = None,
    ) -> None:
        super().__init__(
            device, None if driver is None else os.fsdecode(driver), _wrap_log(log)
        )

    def load(self, path: Union[str, os.PathLike]) -> Engine:
        """Reads a .kplan file and deserializes it."""
        with open(path, "rb") as f:
            return self.deserialize(f.read())


def load_plugin_library(path: Union[str, os.PathLike]) -> None:
    """Loads a plugin library and registers its plugin creators for the process.

    Do it before deserializing plans with plugin steps; a plan whose plugin is
    not registered is refused with UnsupportedPlanError naming it. Where the
    compiler is installed, its plugins then also implement the model nodes
    kiln.compile maps to them (as ``plugin_libs=``).
    """
    _runtime.load_plugin_library(os.fsdecode(path))
    try:
        compiler = _compiler_module()
    except ImportError:
        return
    compiler.load_plugin_library(os.fsdecode(path))


def _check(keyword: str, value: Any, kinds: tuple, name: str) -> Any:
    if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
        raise TypeError(f"kiln.compile: {keyword} must be {name}, got {value!r}")
    return value


def _items(keyword: str, value: Any) -> list:
    """A repeatable option's values: one value or a sequence of them."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return [value]
    return list(_check(keyword, value, (list, tuple), "a list"))


def _pairs(keyword: str, value: Any) -> list:
    return list(_check(keyword, value, (Mapping,), "a dict").items())


# How kiln.compile checks and converts a keyword's value, by the kind
# kiln._compiler.OPTIONS gives it (its line in CompileOptions.def).
_CONVERT = {
    "bool": lambda k, v: _check(k, v, (bool,), "bool"),
    "int": lambda k, v: _check(k, v, (int,), "int"),
    "path": lambda k, v: os.fsdecode(_check(k, v, (str, bytes, os.PathLike), "a path")),
    "bytes": lambda k, v: str(_check(k, v, (int, str), "int or str")),  # or "16G"
    "targets": lambda k, v: v if isinstance(v, str) else ",".join(_items(k, v)),
    "names": lambda k, v: [str(n) for n in _items(k, v)],
    "paths": lambda k, v: [os.fsdecode(p) for p in _items(k, v)],
    "dict": lambda k, v: [f"{n}={os.fsdecode(x)}" for n, x in _pairs(k, v)],
    "shapes": lambda k, v: [
        f"{n}=" + "x".join(str(int(d)) for d in shape) for n, shape in _pairs(k, v)
    ],
    "profiles": lambda k, v: [
        f"{n}=" + ":".join("x".join(str(int(d)) for d in shape) for shape in shapes)
        for n, shapes in _pairs(k, v)
    ],
}


def _settings(options: Mapping[str, Any]):
    compiler = _compiler_module()
    settings = compiler.CompileSettings()
    for key, value in options.items():
        if value is None:
            continue
        kind = compiler.OPTIONS.get(key)
        if kind is None:
            known = ", ".join(sorted([*compiler.OPTIONS, "log"]))
            raise TypeError(f"kiln.compile: unknown option '{key}' (known: {known})")
        setattr(settings, key, _CONVERT[kind](key, value))
    return settings


def compile(  # noqa: A001 (kiln.compile, as torch.compile)
    model: Union[str, os.PathLike, bytes, bytearray, memoryview],
    *,
    log: Optional[LogCallback] = None,
    **options: Any,
) -> bytes:
    """Compiles a model to the bytes of a plan, as ``kiln-compile -o x.kplan``.

    ``model`` is a path (ONNX, binary or text, a Caffe ``.prototxt`` with
    ``caffemodel="weights.caffemodel"`` and optionally ``outputs=["prob"]``,
    or kiln IR in a ``.mlir`` file) or the bytes of an ONNX model. The keywords are kiln-compile's
    flags with underscores: ``target="sm_90"`` (or a list), ``fp16``,
    ``bf16``, ``layer_precision={"conv1": "fp32"}``, ``opt_level`` (0-3),
    ``tune``, ``tune_candidates``, ``cubin``, ``cublaslt``, ``tf32``,
    ``cublaslt_min_flops``, ``kernel_threads``, ``items_per_thread``,
    ``max_memory`` (bytes or "16G"), ``input_shapes={"x": (1, 3, 224, 224)}``,
    ``batch``, ``constant_inputs={"w": "w.pb"}``, ``max_model_bytes``,
    ``cuda_path``, ``ptxas``, ``reference_fusion_groups``, ``plugin_libs``
    (plugin libraries to load first, as ``--plugin-lib``: their plugins
    implement nodes kiln does not know). An option not given keeps
    kiln-compile's default.

    Raises InvalidArgumentError for a bad option or a model the importer
    refuses, InternalError when compiling fails; the message has kiln's
    diagnostics. ``log(severity, message)`` receives warnings (default:
    stderr) and, with ``tune=True``, each recorded algorithm.
    """
    settings = _settings(options)
    compiler = _compiler_module()
    if isinstance(model, (bytes, bytearray, memoryview)):
        return compiler.compile_model(None, bytes(model), "<bytes>", settings, _wrap_log(log))
    path = os.fsdecode(model)
    return compiler.compile_model(path, None, path, settings, _wrap_log(log))


def run_reference(
    model: Union[str, os.PathLike, bytes, bytearray, memoryview],
    inputs: Sequence[Any],
    *,
    log: Optional[LogCallback] = None,
    **options: Any,
) -> list:
    """Runs a model on kiln's CPU reference executor (kiln-run --backend=reference).

    ``inputs`` are numpy arrays in the order of the model's inputs; the
    outputs come back as numpy arrays in the order of its outputs. The
    keywords are :func:`compile`'s (input shapes, batch, ...). No GPU is
    needed: the reference is how kiln checks its GPU results.
    """
    settings = _settings(options)
    compiler = _compiler_module()
    wrapped = _wrap_log(log)
    if isinstance(model, (bytes, bytearray, memoryview)):
        return compiler.run_model_reference(None, bytes(model), "<bytes>", settings, wrapped, list(inputs))
    path = os.fsdecode(model)
    return compiler.run_model_reference(path, None, path, settings, wrapped, list(inputs))


__all__ = [
    "Runtime",
    "Engine",
    "ExecutionContext",
    "DeviceArray",
    "DeviceInfo",
    "TensorInfo",
    "compile",
    "run_reference",
    "load_plugin_library",
    "Severity",
    "KilnError",
    "InvalidArgumentError",
    "DriverUnavailableError",
    "NoDeviceError",
    "DriverError",
    "InvalidPlanError",
    "UnsupportedPlanError",
    "NotFoundError",
    "InternalError",
    *_COMPILER_NAMES,
]


def __dir__() -> Sequence[str]:
    return sorted(set(globals()) | set(_COMPILER_NAMES))
