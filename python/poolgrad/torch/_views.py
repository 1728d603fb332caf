"""torch tensors as aclTensor descriptors, and outputs allocated in the input's memory format.

On the CPU backend device memory is host memory: a descriptor points at the tensor's first element
(data_ptr(), which already includes the storage offset) with the tensor's own element strides, so no tensor
is copied. Strides of axes of size 1 are never used and are passed as 0.
"""

import torch

from .._tensors import ACL_BF16, ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_INT64, ACL_INT8, FORMAT_ND

_ACL_TYPES = {torch.float32: ACL_FLOAT, torch.float16: ACL_FLOAT16, torch.bfloat16: ACL_BF16,
              torch.int64: ACL_INT64, torch.int32: ACL_INT32, torch.int8: ACL_INT8}

FLOATING_TYPES = (torch.float32, torch.float16, torch.bfloat16)


def check_input(name: str, tensor) -> None:
    """Refuses, before the library is called, what no descriptor can address."""
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"poolgrad: {name} must be a torch.Tensor, got {type(tensor).__name__}")
    if tensor.device.type != "cpu":
        raise ValueError(f"poolgrad: {name} is on device {tensor.device}; poolgrad runs on CPU tensors only "
                         f"(move it with .cpu())")
    if tensor.layout != torch.strided:
        raise ValueError(f"poolgrad: {name} has layout {tensor.layout}; poolgrad takes strided tensors only")
    if tensor.dtype not in _ACL_TYPES:
        raise TypeError(f"poolgrad: {name} has dtype {tensor.dtype}; poolgrad takes float32, float16 and "
                        f"bfloat16 tensors (indices int64 or int32)")
    if any(stride < 0 for size, stride in zip(tensor.shape, tensor.stride()) if size > 1):
        raise ValueError(f"poolgrad: {name} has a negative stride {tuple(tensor.stride())}; pass a view with "
                         f"non-negative strides")


def describe(arguments, tensor, tensor_format: int = FORMAT_ND):
    """The descriptor of `tensor` for one call (owned by `arguments`), pointing at the tensor's memory."""
    sizes = tensor.shape
    strides = [stride if size > 1 else 0 for size, stride in zip(sizes, tensor.stride())]
    return arguments.view(sizes, strides, _ACL_TYPES[tensor.dtype], tensor.data_ptr(), tensor_format)


def empty_like_layout(like, shape, dtype=None):
    """An uninitialised tensor of `shape` whose axes are laid out in the order of `like`'s strides: a
    channels-last input gives a channels-last output, an NHWC one an NHWC one, a contiguous one a
    contiguous one (ties keep the axis order, as torch's preserve_format does)."""
    order = sorted(range(like.dim()), key=lambda axis: (-like.stride(axis), axis)) if like.dim() == len(shape) \
        else list(range(len(shape)))
    strides = [0] * len(shape)
    step = 1
    for axis in reversed(order):
        strides[axis] = step
        step *= max(int(shape[axis]), 1)
    return torch.empty_strided(tuple(int(s) for s in shape), tuple(strides), dtype=dtype or like.dtype,
                               device=like.device)
