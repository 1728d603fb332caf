"""The poolgrad operators on torch tensors: each allocates its outputs with torch in the input's memory
format and has the library write them in place (no copy of any operand).

These are the kernels behind the custom operators torch.ops.poolgrad.* (and behind the autograd functions
where torch.library is missing). Attribute lists arrive normalised (see functional.py); the library's phase 1
checks them and a refusal raises PoolgradError with its message.

Each call builds the key of its problem (operator, every tensor's dtype, shape, strides and device, every
attribute). The first call of a problem checks the tensors and works out its output layouts (_problems.py);
later calls take them from there. The library call itself goes through the executor cache
(poolgrad._executor_cache): phase 1 once per problem and thread, then only phase 2, on the new tensors.
"""

import torch

from .. import _executor_cache, _shapes
from .._tensors import FORMAT_NCHW, FORMAT_NHWC
from ..operators import _split
from . import _problems
from ._problems import Backward, Output, check
from ._views import describe

_REGULAR = {2: ("aclnnMaxPool2dWithIndices", "aclnnMaxPool2dWithIndicesBackward"),
            3: ("aclnnMaxPool3dWithArgmax", "aclnnMaxPool3dWithArgmaxBackward")}
_ADAPTIVE = {2: ("aclnnAdaptiveMaxPool2d", "aclnnAdaptiveMaxPool2dBackward"),
             3: ("aclnnAdaptiveMaxPool3d", "aclnnAdaptiveMaxPool3dBackward")}
_run = _executor_cache.run
_find = _problems.find


def _frozen(values):
    """An attribute as part of a key: lists become tuples (ints, strings and None are keys already)."""
    return tuple(values) if isinstance(values, (list, tuple)) else values


def _regular_key(name, self, kernel_size, stride, padding, dilation, ceil_mode):
    try:
        return (name, self.dtype, self.shape, self.stride(), self.device, _frozen(kernel_size), _frozen(stride),
                _frozen(padding), _frozen(dilation), bool(ceil_mode))
    except Exception:
        check(self=self)  # raises the error that names the argument
        raise


def _backward_key(name, grad_output, self, third, attributes, third_name="indices"):
    try:
        return (name, grad_output.dtype, grad_output.shape, grad_output.stride(), grad_output.device, self.dtype,
                self.shape, self.stride(), self.device, third.dtype, third.shape, third.stride(), third.device,
                attributes)
    except Exception:
        check(grad_output=grad_output, self=self, **{third_name: third})
        raise


def max_pool_with_indices(axes, self, kernel_size, stride, padding, dilation, ceil_mode):
    """(out, int64 indices) of aclnnMaxPool3dWithArgmax (axes 3) or aclnnMaxPool2dWithIndices (axes 2)."""
    name = _REGULAR[axes][0]
    key = _regular_key(name, self, kernel_size, stride, padding, dilation, ceil_mode)
    problem = _find(key)
    if problem is None:
        check(self=self)
        leading, spatial = _split(self.shape, axes)
        shape = leading + _shapes.regular_spatial(spatial, kernel_size, stride, padding, dilation, ceil_mode)
        problem = _problems.remember(key, Output(self, shape))
    out = problem.empty()
    indices = problem.empty(torch.int64)

    def build(a):
        x, o, i = describe(a, self), describe(a, out), describe(a, indices)
        return (x, a.int_array(kernel_size), a.int_array(stride), a.int_array(padding), a.int_array(dilation),
                bool(ceil_mode), o, i), (x,), (o, i)

    _run(name, problem, (self.data_ptr(), out.data_ptr(), indices.data_ptr()), build)
    return out, indices


def _index_backward(key, grad_output, self, indices):
    """(problem, gradient and indices as the library reads them, a new gradInput) of an indices-based backward:
    the problem worked out on its first call (checks, dense copies needed, gradInput's layout)."""
    problem = _find(key)
    if problem is None:
        check(grad_output=grad_output, self=self, indices=indices)
        problem = _problems.remember(key, Backward(grad_output, self, indices))
    grad_output, indices = problem.operands(grad_output, indices)
    return problem, grad_output, indices, problem.grad_input.empty()


def max_pool_with_indices_backward(axes, grad_output, self, indices, kernel_size, stride, padding, dilation,
                                   ceil_mode):
    name = _REGULAR[axes][1]
    attributes = (_frozen(kernel_size), _frozen(stride), _frozen(padding), _frozen(dilation), bool(ceil_mode))
    key = _backward_key(name, grad_output, self, indices, attributes)
    problem, grad_output, indices, grad_input = _index_backward(key, grad_output, self, indices)

    def build(a):
        g, x, i, gi = describe(a, grad_output), describe(a, self), describe(a, indices), describe(a, grad_input)
        return (g, x, i, a.int_array(kernel_size), a.int_array(stride), a.int_array(padding),
                a.int_array(dilation), bool(ceil_mode), gi), (g, x, i), (gi,)

    _run(name, problem, (grad_output.data_ptr(), self.data_ptr(), indices.data_ptr(), grad_input.data_ptr()),
         build)
    return grad_input


def adaptive_max_pool(axes, self, output_size):
    name = _ADAPTIVE[axes][0]
    try:
        key = (name, self.dtype, self.shape, self.stride(), self.device, _frozen(output_size))
    except Exception:
        check(self=self)
        raise
    problem = _find(key)
    if problem is None:
        check(self=self)
        leading, spatial = _split(self.shape, axes)
        problem = _problems.remember(key, Output(self, leading + _shapes.adaptive_spatial(spatial, output_size)))
    out = problem.empty()
    indices = problem.empty(torch.int64)

    def build(a):
        x, o, i = describe(a, self), describe(a, out), describe(a, indices)
        return (x, a.int_array(output_size), o, i), (x,), (o, i)

    _run(name, problem, (self.data_ptr(), out.data_ptr(), indices.data_ptr()), build)
    return out, indices


def adaptive_max_pool_backward(axes, grad_output, self, indices):
    name = _ADAPTIVE[axes][1]
    key = _backward_key(name, grad_output, self, indices, None)
    problem, grad_output, indices, grad_input = _index_backward(key, grad_output, self, indices)

    def build(a):
        g, x, i, gi = describe(a, grad_output), describe(a, self), describe(a, indices), describe(a, grad_input)
        return (g, x, i, gi), (g, x, i), (gi,)

    _run(name, problem, (grad_output.data_ptr(), self.data_ptr(), indices.data_ptr(), grad_input.data_ptr()),
         build)
    return grad_input


def _tf_attributes(kernel_size, stride, data_format):
    """Length-4 ksize/strides in data_format order, the tensor format tag, and the H, W axes."""
    if data_format == "NHWC":
        return [1, *kernel_size, 1], [1, *stride, 1], FORMAT_NHWC, (1, 2)
    return [1, 1, *kernel_size], [1, 1, *stride], FORMAT_NCHW, (2, 3)


class _TFForward:
    __slots__ = ("out", "ksize", "strides", "tensor_format")


def max_pool2d_tf(self, kernel_size, stride, padding, data_format):
    """aclnnMaxPoolV3WithAttrs with padding "SAME"/"VALID" on an NCHW or NHWC tensor."""
    name = "aclnnMaxPoolV3WithAttrs"
    try:
        key = (name, self.dtype, self.shape, self.stride(), self.device, _frozen(kernel_size), _frozen(stride),
               padding, data_format)
    except Exception:
        check(self=self)
        raise
    problem = _find(key)
    if problem is None:
        check(self=self)
        problem = _TFForward()
        problem.ksize, problem.strides, problem.tensor_format, hw_axes = _tf_attributes(kernel_size, stride,
                                                                                        data_format)
        shape = list(self.shape)
        if self.dim() == 4:
            spatial = [shape[axis] for axis in hw_axes]
            out_spatial = _shapes.v3_spatial(spatial, problem.ksize, problem.strides, padding, None, False, False,
                                             hw_axes)
            for axis, size in zip(hw_axes, out_spatial):
                shape[axis] = size
        problem.out = Output(self, shape)
        problem = _problems.remember(key, problem)
    out = problem.out.empty()
    tensor_format = problem.tensor_format

    def build(a):
        x, y = describe(a, self, tensor_format), describe(a, out, tensor_format)
        return (x, a.int_array(problem.ksize), a.int_array(problem.strides), padding.encode(),
                a.int_array([0, 0, 0, 0]), data_format.encode(), False, False, y), (x,), (y,)

    _run(name, problem, (self.data_ptr(), out.data_ptr()), build)
    return out


class _TFBackward:
    __slots__ = ("backward", "ksize", "strides", "tensor_format")


def max_pool2d_tf_backward(grad_output, self, output, kernel_size, stride, padding, data_format):
    """aclnnMaxPoolV3Grad: each gradient to the first window element equal to `output`."""
    name = "aclnnMaxPoolV3Grad"
    key = _backward_key(name, grad_output, self, output,
                        (_frozen(kernel_size), _frozen(stride), padding, data_format), "output")
    problem = _find(key)
    if problem is None:
        check(grad_output=grad_output, self=self, output=output)
        problem = _TFBackward()
        problem.ksize, problem.strides, problem.tensor_format, _ = _tf_attributes(kernel_size, stride, data_format)
        problem.backward = Backward(grad_output, self, None, output)
        problem = _problems.remember(key, problem)
    grad_output, _ = problem.backward.operands(grad_output, None)
    grad_input = problem.backward.grad_input.empty()
    tensor_format = problem.tensor_format

    def build(a):
        x, y = describe(a, self, tensor_format), describe(a, output, tensor_format)
        g, gi = describe(a, grad_output, tensor_format), describe(a, grad_input, tensor_format)
        return (x, y, g, a.int_array(problem.ksize), a.int_array(problem.strides), padding.encode(),
                a.int_array([0, 0, 0, 0]), data_format.encode(), False, False, gi), (x, y, g), (gi,)

    _run(name, problem, (self.data_ptr(), output.data_ptr(), grad_output.data_ptr(), grad_input.data_ptr()), build)
    return grad_input
