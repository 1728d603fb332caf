"""torch tensors as aclTensor descriptors, and outputs allocated in the input's memory format.

On the CPU backend device memory is host memory: a descriptor points at the tensor's first element
(data_ptr(), which already includes the storage offset) with the tensor's own element strides, so no input
is copied; only a backward's gradient and indices are laid out densely first where their strides differ
(dense_like). Strides of axes of size 1 are never used and are passed as 0.
"""

import torch

from .._tensors import ACL_BF16, ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_INT64, ACL_INT8, FORMAT_ND

_ACL_TYPES = {torch.float32: ACL_FLOAT, torch.float16: ACL_FLOAT16, torch.bfloat16: ACL_BF16,
              torch.int64: ACL_INT64, torch.int32: ACL_INT32, torch.int8: ACL_INT8}

FLOATING_TYPES = (torch.float32, torch.float16, torch.bfloat16)


def check_input(name: str, tensor) -> None:
    """Refuses, before the library is called, what no descriptor can address."""
    if (isinstance(tensor, torch.Tensor) and tensor.is_cpu and tensor.layout == torch.strided
            and tensor.dtype in _ACL_TYPES and min(tensor.stride(), default=0) >= 0):
        return  # the usual case, in one expression
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
    """The descriptor of `tensor` (owned by `arguments`), pointing at the tensor's memory."""
    sizes = tensor.shape
    strides = [stride if size > 1 else 0 for size, stride in zip(sizes, tensor.stride())]
    return arguments.view(sizes, strides, _ACL_TYPES[tensor.dtype], tensor.data_ptr(), tensor_format)


def dense_strides(like, shape):
    """Element strides of a dense tensor of `shape` whose axes are laid out in the order of `like`'s strides
    (ties keep the axis order, as torch's preserve_format does)."""
    order = sorted(range(like.dim()), key=lambda axis: (-like.stride(axis), axis)) if like.dim() == len(shape) \
        else list(range(len(shape)))
    strides = [0] * len(shape)
    step = 1
    for axis in reversed(order):
        strides[axis] = step
        step *= max(int(shape[axis]), 1)
    return strides


def empty_like_layout(like, shape, dtype=None):
    """An uninitialised tensor of `shape` whose axes are laid out in the order of `like`'s strides: a
    channels-last input gives a channels-last output, an NHWC one an NHWC one, a contiguous one a
    contiguous one (ties keep the axis order, as torch's preserve_format does)."""
    return torch.empty_strided(tuple(int(s) for s in shape), tuple(dense_strides(like, shape)),
                               dtype=dtype or like.dtype, device=like.device)


def dense_like(tensor, like):
    """`tensor` itself when it is laid out densely in the axis order of `like` (axes of size 1 aside), else a
    copy that is. For a backward's gradient and indices: the library's fast kernels read them in place only
    when both are dense in one layout, and any other strides (autograd hands over the gradient of `sum()` or
    `mean()` expanded, every stride 0) leave the problem to the reference scatter, 25-30x slower (2x2x2
    pooling of 16x8x8x16x16: 0.87 ms against 0.03 ms, the copy 0.004 ms; Zen 4)."""
    wanted = dense_strides(like, tensor.shape)
    if all(size <= 1 or stride == want for size, stride, want in zip(tensor.shape, tensor.stride(), wanted)):
        return tensor
    dense = torch.empty_strided(tuple(tensor.shape), tuple(wanted), dtype=tensor.dtype, device=tensor.device)
    dense.copy_(tensor)
    return dense
