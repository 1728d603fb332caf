"""Finds libpoolgrad and declares the C prototypes the Python module calls through ctypes.

Search order: the POOLGRAD_LIBRARY environment variable (a path to the shared library); the location CMake
wrote into _library_location.py (the build tree's library, or the installed one relative to this package);
the system's library path.
"""

import ctypes
import ctypes.util
import os
from pathlib import Path

_c_void_p = ctypes.c_void_p
_c_int64_p = ctypes.POINTER(ctypes.c_int64)
_status = ctypes.c_int


def _candidate_paths():
    from_environment = os.environ.get("POOLGRAD_LIBRARY")
    if from_environment:
        yield Path(from_environment)
        return
    try:
        from ._library_location import LIBRARY_PATH
    except ImportError:
        LIBRARY_PATH = None
    if LIBRARY_PATH:
        path = Path(LIBRARY_PATH)
        yield path if path.is_absolute() else Path(__file__).resolve().parent / path
    found = ctypes.util.find_library("poolgrad")
    if found:
        yield Path(found)


def _load():
    tried = []
    for path in _candidate_paths():
        try:
            return ctypes.CDLL(str(path))
        except OSError as error:
            tried.append(f"{path} ({error})")
    raise ImportError(
        "poolgrad: libpoolgrad not found (tried: " + (", ".join(tried) or "nothing") +
        "). Set POOLGRAD_LIBRARY to the path of libpoolgrad.so, or use the package installed by "
        "`cmake --install`.")


library = _load()


def _declare(name, result, *arguments):
    function = getattr(library, name)
    function.restype = result
    function.argtypes = list(arguments)
    return function


# The int64 lists as plain addresses: the Python layer passes pointers into one array (_tensors.Arguments.view).
_declare("aclCreateTensor", _c_void_p, _c_void_p, ctypes.c_uint64, ctypes.c_int, _c_void_p, ctypes.c_int64,
         ctypes.c_int, _c_void_p, ctypes.c_uint64, _c_void_p)
_declare("aclDestroyTensor", _status, _c_void_p)
_declare("aclCreateIntArray", _c_void_p, _c_int64_p, ctypes.c_uint64)
_declare("aclDestroyIntArray", _status, _c_void_p)
_declare("aclCreateScalar", _c_void_p, _c_void_p, ctypes.c_int)
_declare("aclDestroyScalar", _status, _c_void_p)
_declare("aclGetRecentErrMsg", ctypes.c_char_p)
_declare("aclrtSynchronizeStream", _status, _c_void_p)
_declare("aclDestroyAclOpExecutor", _status, _c_void_p)
_declare("aclSetAclOpExecutorRepeatable", _status, _c_void_p)
_declare("poolgradSetNumThreads", _status, ctypes.c_int32)
_declare("poolgradGetNumThreads", ctypes.c_int32)
_declare("poolgradSetStreamingStores", _status, ctypes.c_int32)
_declare("poolgradGetStreamingStores", ctypes.c_int32)
_declare("poolgradImplementationCount", ctypes.c_int32)
_declare("poolgradImplementationName", ctypes.c_char_p, ctypes.c_int32)
_declare("poolgradImplementationTask", ctypes.c_char_p, ctypes.c_int32)
_declare("poolgradForceImplementation", _status, ctypes.c_char_p)
_declare("poolgradClearPlanCache", None)
_declare("poolgradVersion", ctypes.c_char_p)


# Pointing a repeatable executor's operands at new memory (executor, index among the operator's aclTensor
# inputs or outputs, the descriptor passed there in phase 1, the new address). A library older than these
# two functions leaves HAS_TENSOR_ADDRESS_SETTERS False: poolgrad.torch then makes every call afresh
# (_executor_cache.py).
try:
    _declare("aclSetInputTensorAddr", _status, _c_void_p, ctypes.c_size_t, _c_void_p, _c_void_p)
    _declare("aclSetOutputTensorAddr", _status, _c_void_p, ctypes.c_size_t, _c_void_p, _c_void_p)
    HAS_TENSOR_ADDRESS_SETTERS = True
except AttributeError:
    HAS_TENSOR_ADDRESS_SETTERS = False


class RunReport(ctypes.Structure):
    _fields_ = [("implementation", ctypes.c_char_p), ("plan", ctypes.c_char_p), ("fallback", ctypes.c_char_p),
                ("status", ctypes.c_int32)]


_declare("poolgradGetLastRunReport", _status, ctypes.POINTER(RunReport))

_phase_two_arguments = (_c_void_p, ctypes.c_uint64, _c_void_p, _c_void_p)
_phase_one_tail = (ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(_c_void_p))
_regular_pooling = (_c_void_p, _c_void_p, _c_void_p, _c_void_p, ctypes.c_bool)  # kernel, stride, pad, dil, ceil

for _operator in ("aclnnMaxPool3dWithArgmax", "aclnnMaxPool2dWithIndices", "aclnnMaxPool2dWithMask"):
    _declare(_operator + "GetWorkspaceSize", _status, _c_void_p, *_regular_pooling, _c_void_p, _c_void_p,
             *_phase_one_tail)
for _operator in ("aclnnMaxPool3dWithArgmaxBackward", "aclnnMaxPool2dWithIndicesBackward",
                  "aclnnMaxPool2dWithMaskBackward"):
    _declare(_operator + "GetWorkspaceSize", _status, _c_void_p, _c_void_p, _c_void_p, *_regular_pooling,
             _c_void_p, *_phase_one_tail)
for _operator in ("aclnnAdaptiveMaxPool3d", "aclnnAdaptiveMaxPool2d"):
    _declare(_operator + "GetWorkspaceSize", _status, _c_void_p, _c_void_p, _c_void_p, _c_void_p, *_phase_one_tail)
for _operator in ("aclnnAdaptiveMaxPool3dBackward", "aclnnAdaptiveMaxPool2dBackward"):
    _declare(_operator + "GetWorkspaceSize", _status, _c_void_p, _c_void_p, _c_void_p, _c_void_p, *_phase_one_tail)
_v3_attributes = (_c_void_p, _c_void_p, ctypes.c_char_p, _c_void_p, ctypes.c_char_p, ctypes.c_bool, ctypes.c_bool)
_declare("aclnnMaxPoolV3WithAttrsGetWorkspaceSize", _status, _c_void_p, *_v3_attributes, _c_void_p, *_phase_one_tail)
_declare("aclnnMaxPoolV3GradGetWorkspaceSize", _status, _c_void_p, _c_void_p, _c_void_p, *_v3_attributes, _c_void_p,
         *_phase_one_tail)
# aclnnMaxPool: self, kernelShape, strides, autoPad, pads, dilations, ceilMode, out.
_declare("aclnnMaxPoolGetWorkspaceSize", _status, _c_void_p, _c_void_p, _c_void_p, ctypes.c_int64, _c_void_p,
         _c_void_p, ctypes.c_int64, _c_void_p, *_phase_one_tail)
# aclnnMaxPoolV3: x, ksize, strides, pads, ceilMode (an aclScalar), out.
_declare("aclnnMaxPoolV3GetWorkspaceSize", _status, _c_void_p, _c_void_p, _c_void_p, _c_void_p, _c_void_p, _c_void_p,
         *_phase_one_tail)

OPERATORS = ("aclnnMaxPool3dWithArgmax", "aclnnMaxPool3dWithArgmaxBackward", "aclnnAdaptiveMaxPool3d",
             "aclnnAdaptiveMaxPool3dBackward", "aclnnMaxPool2dWithIndices", "aclnnMaxPool2dWithIndicesBackward",
             "aclnnMaxPool2dWithMask", "aclnnMaxPool2dWithMaskBackward", "aclnnAdaptiveMaxPool2d",
             "aclnnAdaptiveMaxPool2dBackward", "aclnnMaxPoolV3WithAttrs", "aclnnMaxPoolV3Grad", "aclnnMaxPool",
             "aclnnMaxPoolV3")
for _operator in OPERATORS:
    _declare(_operator, _status, *_phase_two_arguments)
