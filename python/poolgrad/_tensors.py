"""numpy arrays as aclTensor descriptors, and the two-phase call every operator makes.

On the CPU backend device memory is host memory, so a descriptor points straight at the array's data:
any view (channels-last, sliced, padded) is passed with its own element strides and nothing is copied.
Arrays with negative strides are copied for inputs (aclCreateTensor refuses negative strides) and refused
for outputs, which must be written in place.
"""

import ctypes

import numpy as np

from ._library import library
from .errors import PoolgradError

# aclDataType values (acl/acl_base.h).
ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_INT64, ACL_BF16 = 0, 1, 2, 3, 9, 27
ACL_UINT8, ACL_INT16, ACL_UINT16, ACL_DOUBLE = 4, 6, 7, 11
# aclFormat values.
FORMAT_NCHW, FORMAT_NHWC, FORMAT_ND = 0, 1, 2

_ACL_TYPES = {"float32": ACL_FLOAT, "float16": ACL_FLOAT16, "bfloat16": ACL_BF16, "int8": ACL_INT8,
              "int32": ACL_INT32, "int64": ACL_INT64, "uint8": ACL_UINT8, "int16": ACL_INT16, "uint16": ACL_UINT16,
              "float64": ACL_DOUBLE}


_acl_types_seen = {}  # numpy dtype -> aclDataType: dtype.name takes microseconds, a dict lookup does not


def acl_data_type(dtype) -> int:
    """The aclDataType of a numpy dtype; bfloat16 is ml_dtypes.bfloat16 (any dtype named 'bfloat16')."""
    dtype = np.dtype(dtype)
    data_type = _acl_types_seen.get(dtype)
    if data_type is not None:
        return data_type
    try:
        data_type = _ACL_TYPES[dtype.name]
    except KeyError:
        raise TypeError(f"poolgrad: dtype {dtype} has no aclDataType here; use float32, float16, "
                        f"ml_dtypes.bfloat16, float64, int8, uint8, int16, uint16, int32 or int64") from None
    _acl_types_seen[dtype] = data_type
    return data_type


def _int64_array(values):
    """A ctypes int64 array of a list of ints (int64_values) and its length."""
    return (ctypes.c_int64 * max(len(values), 1))(*values), len(values)


def _addressable(array: np.ndarray) -> bool:
    """True when the strides that matter (axes longer than 1) are non-negative multiples of the element
    size; the strides of other axes are never used and are passed as 0."""
    return all(s >= 0 and s % array.itemsize == 0 for d, s in zip(array.shape, array.strides) if d > 1)


def _element_strides(array: np.ndarray):
    return [s // array.itemsize if d > 1 else 0 for d, s in zip(array.shape, array.strides)]


def layout(array: np.ndarray, tensor_format: int = FORMAT_ND):
    """What a descriptor of `array` (Arguments.tensor) receives besides its address: (sizes, element strides,
    aclDataType, aclFormat), as tuples. Its storage offset is always 0 (the address is the first element's)
    and its storage shape the extent the sizes and strides reach (Arguments.view): these determine both."""
    return tuple(array.shape), tuple(_element_strides(array)), acl_data_type(array.dtype), tensor_format


def data_address(array: np.ndarray) -> int:
    """The address a descriptor of `array` points at: its first element (a view's offset included)."""
    return array.ctypes.data


def int64_values(values):
    """The values of an aclIntArray argument (Arguments.int_array): a sequence, or one int for a list of one;
    None stays None (a null pointer)."""
    if values is None:
        return None
    if isinstance(values, (int, np.integer)):
        values = [values]
    return [int(v) for v in values]


def as_input(array) -> np.ndarray:
    array = np.asarray(array)
    return array if _addressable(array) else np.array(array, order="C", copy=True)


def check_output(name: str, array: np.ndarray) -> np.ndarray:
    if not isinstance(array, np.ndarray):
        raise TypeError(f"poolgrad: {name} must be a numpy array written in place")
    if not array.flags.writeable:
        raise ValueError(f"poolgrad: {name} is read-only")
    if not _addressable(array):
        raise ValueError(f"poolgrad: {name} has strides {array.strides} that are not non-negative multiples "
                         f"of its element size {array.itemsize}; pass a view the library can address")
    return array


class Arguments:
    """Owns the descriptors of one call (run_operator destroys them, destroy(), when the call is over), or
    of one problem kept with its executor (_executor_cache.py destroys them with it).

    This is the per-call cost of the Python layer (a few descriptors per operator call; on the demo's small
    tensors it was more than the kernels' time), so each descriptor takes one ctypes array and one call.
    """

    def __init__(self):
        self._owned = []  # (destroy function, handle), in creation order

    def destroy(self) -> None:
        owned, self._owned = self._owned, []
        for destroy, handle in reversed(owned):
            destroy(handle)

    def tensor(self, array: np.ndarray, tensor_format: int = FORMAT_ND):
        sizes, element_strides, data_type, tensor_format = layout(array, tensor_format)
        return self.view(sizes, element_strides, data_type, data_address(array), tensor_format)

    def view(self, sizes, element_strides, data_type: int, address: int, tensor_format: int = FORMAT_ND):
        """A descriptor of the view at `address` (its first element) with these sizes and element strides
        (non-negative), whatever owns the memory: a numpy array, a torch tensor."""
        rank = len(sizes)
        # The storage is the span the view reaches, from its first element.
        extent = 0 if 0 in sizes else 1 + sum((d - 1) * s for d, s in zip(sizes, element_strides))
        # Sizes, strides and the storage extent in one array; the strides and the extent are passed as
        # pointers into it.
        data = (ctypes.c_int64 * (2 * rank + 1))(*sizes, *element_strides, extent)
        base = ctypes.addressof(data)
        handle = library.aclCreateTensor(base, rank, data_type, base + 8 * rank, 0, tensor_format, base + 16 * rank, 1,
                                         address)
        if not handle:
            raise PoolgradError(161001, _recent_message(), "aclCreateTensor")
        self._owned.append((_destroy_tensor, handle))
        return handle

    def int64_scalar(self, value):
        """An INT64 aclScalar; None stays a null pointer."""
        if value is None:
            return None
        data = ctypes.c_int64(int(value))
        handle = library.aclCreateScalar(ctypes.cast(ctypes.pointer(data), ctypes.c_void_p), ACL_INT64)
        if not handle:
            raise PoolgradError(161001, _recent_message(), "aclCreateScalar")
        self._owned.append((library.aclDestroyScalar, handle))
        return handle

    def int_array(self, values):
        """None stays a null pointer (the ops that take one treat it as their default)."""
        values = int64_values(values)
        if values is None:
            return None
        data, count = _int64_array(values)
        handle = library.aclCreateIntArray(data, count)
        if not handle:
            raise PoolgradError(161001, _recent_message(), "aclCreateIntArray")
        self._owned.append((library.aclDestroyIntArray, handle))
        return handle


_destroy_tensor = library.aclDestroyTensor
_synchronize = library.aclrtSynchronizeStream
_entry_point_cache = {}


def _entry_points(name: str):
    """(phase one, phase two) of an operator, looked up once."""
    functions = _entry_point_cache.get(name)
    if functions is None:
        functions = _entry_point_cache[name] = (getattr(library, name + "GetWorkspaceSize"), getattr(library, name))
    return functions


def _recent_message() -> str:
    message = library.aclGetRecentErrMsg()
    return message.decode("utf-8", "replace") if message else ""


def phase_one(name: str, phase_one_arguments):
    """(executor handle, workspace size) of ``<name>GetWorkspaceSize``; raises PoolgradError on a refusal."""
    workspace_size = ctypes.c_uint64(0)
    executor = ctypes.c_void_p(None)
    status = _entry_points(name)[0](*phase_one_arguments, ctypes.byref(workspace_size), ctypes.byref(executor))
    if status != 0:
        raise PoolgradError(status, _recent_message(), name + "GetWorkspaceSize")
    return executor.value, workspace_size.value


def workspace_for(size: int):
    """(array owning the workspace or None, its address or None) for a phase 1's workspace size."""
    if not size:
        return None, None
    workspace = np.empty(size, dtype=np.uint8)
    return workspace, workspace.ctypes.data


def run_phase_two(name: str, phase_two, workspace_address, workspace_size: int, executor) -> None:
    """Phase 2 of `executor` on the default stream, then the stream's synchronisation."""
    status = phase_two(workspace_address, workspace_size, executor, None)
    if status != 0:
        raise PoolgradError(status, _recent_message(), name)
    status = _synchronize(None)
    if status != 0:
        raise PoolgradError(status, _recent_message(), "aclrtSynchronizeStream")


def run_operator(name: str, build_arguments) -> None:
    """Phase 1 (``<name>GetWorkspaceSize``) with the descriptors build_arguments makes, then phase 2: a
    single-use executor, which phase 2 releases (the repeated calls of poolgrad.torch keep theirs instead:
    _executor_cache.py)."""
    arguments = Arguments()
    try:
        executor, workspace_size = phase_one(name, build_arguments(arguments))
        workspace, workspace_address = workspace_for(workspace_size)  # `workspace` keeps it alive
        run_phase_two(name, _entry_points(name)[1], workspace_address, workspace_size, executor)
    finally:
        arguments.destroy()
