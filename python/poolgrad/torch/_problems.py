"""What a kernel of _kernels.py works out once per problem and reuses on every later call of it: the checks
of its tensors, the shapes and strides of its outputs (the shape arithmetic of poolgrad._shapes and the
stride sort of empty_like_layout), and which operands of a backward must first be laid out densely.

A problem is identified by a key the kernel builds from everything these depend on: the operator, each
tensor's dtype, shape, strides and device, and the attributes. The object found for a key is also the key
of the executor cache (poolgrad._executor_cache): one object per key, hashed by identity, so each call
hashes its key once.
"""

import torch

from ._views import check_input, dense_like, dense_strides

_PROBLEMS = {}
_LIMIT = 4096  # problems remembered; past it the table starts again (a model has a few dozen)


def find(key):
    return _PROBLEMS.get(key)


def remember(key, problem):
    """The problem kept for `key`: `problem`, or the one another thread stored first."""
    if len(_PROBLEMS) >= _LIMIT:
        _PROBLEMS.clear()
    return _PROBLEMS.setdefault(key, problem)


def check(**tensors) -> None:
    for name, tensor in tensors.items():
        check_input(name, tensor)


def dense_copy(tensor, strides):
    copy = torch.empty_strided(tensor.shape, strides, dtype=tensor.dtype, device=tensor.device)
    copy.copy_(tensor)
    return copy


class Output:
    """An output of `shape` laid out in the axis order of the input `like`'s strides (empty_like_layout)."""

    __slots__ = ("shape", "strides", "dtype", "device")

    def __init__(self, like, shape):
        self.shape = tuple(int(size) for size in shape)
        self.strides = tuple(dense_strides(like, self.shape))
        self.dtype = like.dtype
        self.device = like.device

    def empty(self, dtype=None):
        return torch.empty_strided(self.shape, self.strides, dtype=dtype or self.dtype, device=self.device)


class Backward:
    """A backward's gradient input (laid out like the forward's input) and the copies its operands need: `densify(grad)`
    and `densify(indices)` (dense_like) give the operands to describe. For the indices-based backwards the
    indices are laid out densely in their own axis order and the gradient like them; for MaxPoolV3Grad
    (indices None) the gradient like the forward's output."""

    __slots__ = ("grad_input", "grad_strides", "indices_strides")

    def __init__(self, grad_output, forward_input, indices, output=None):
        self.grad_input = Output(forward_input, forward_input.shape)
        self.indices_strides = None
        like = output
        if indices is not None:
            dense_indices = dense_like(indices, indices)
            if dense_indices is not indices:
                self.indices_strides = tuple(dense_indices.stride())
            like = dense_indices
        dense_grad = dense_like(grad_output, like)
        self.grad_strides = None if dense_grad is grad_output else tuple(dense_grad.stride())

    def operands(self, grad_output, indices):
        """(gradient, indices) as the library should read them: copied where their strides ask for it."""
        if self.indices_strides is not None:
            indices = dense_copy(indices, self.indices_strides)
        if self.grad_strides is not None:
            grad_output = dense_copy(grad_output, self.grad_strides)
        return grad_output, indices
