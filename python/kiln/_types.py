"""kiln's exceptions and log severities, shared by its native modules.

Every error of kiln raises a subclass of :class:`KilnError` whose message is
the one kiln's C++ API gives; the subclass names the status (the runtime's
``kiln_status``).
"""

from __future__ import annotations

import enum


class Severity(enum.IntEnum):
    """The severities of kiln's log messages (TensorRT's ILogger)."""

    INTERNAL_ERROR = 0
    ERROR = 1
    WARNING = 2
    INFO = 3
    VERBOSE = 4


class KilnError(RuntimeError):
    """An error of kiln; ``status`` names its kind ("InvalidArgument", ...)."""

    status = "Unknown"


class InvalidArgumentError(KilnError, ValueError):
    """An argument is null, out of range or malformed (a wrong shape, a bad option)."""

    status = "InvalidArgument"


class DriverUnavailableError(KilnError):
    """The CUDA driver library could not be loaded or is not a driver."""

    status = "DriverUnavailable"


class NoDeviceError(KilnError):
    """The driver reports no usable device."""

    status = "NoDevice"


class DriverError(KilnError):
    """A driver call failed; the message names it and CUDA's error."""

    status = "DriverError"


class InvalidPlanError(KilnError, ValueError):
    """A plan is malformed, corrupted or inconsistent."""

    status = "InvalidPlan"


class UnsupportedPlanError(KilnError):
    """A valid plan that this runtime or device cannot run."""

    status = "UnsupportedPlan"


class NotFoundError(KilnError, LookupError):
    """A name (of a tensor) is not known."""

    status = "NotFound"


class InternalError(KilnError):
    """Something kiln did not expect; the message says what."""

    status = "Internal"


_BY_CODE = {
    1: InvalidArgumentError,
    2: DriverUnavailableError,
    3: NoDeviceError,
    4: DriverError,
    5: InvalidPlanError,
    6: UnsupportedPlanError,
    7: NotFoundError,
    8: InternalError,
}


def error_class(code: int) -> type[KilnError]:
    """The exception class of status ``code`` (the values of kiln_status)."""
    return _BY_CODE.get(code, KilnError)
