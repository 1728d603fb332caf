"""The poolgrad operators on torch tensors: each allocates its outputs with torch in the input's memory
format and has the library write them in place (no copy of any operand).

These are the kernels behind the custom operators torch.ops.poolgrad.* (and behind the autograd functions
where torch.library is missing). Attribute lists arrive normalised (see functional.py); the library's phase 1
checks them and a refusal raises PoolgradError with its message.
"""

import torch

from .. import _shapes
from .._tensors import FORMAT_NCHW, FORMAT_NHWC, run_operator
from ..operators import _split
from ._views import check_input, dense_like, describe, empty_like_layout

_REGULAR = {2: ("aclnnMaxPool2dWithIndices", "aclnnMaxPool2dWithIndicesBackward"),
            3: ("aclnnMaxPool3dWithArgmax", "aclnnMaxPool3dWithArgmaxBackward")}
_ADAPTIVE = {2: ("aclnnAdaptiveMaxPool2d", "aclnnAdaptiveMaxPool2dBackward"),
             3: ("aclnnAdaptiveMaxPool3d", "aclnnAdaptiveMaxPool3dBackward")}


def _check(**tensors):
    for name, tensor in tensors.items():
        check_input(name, tensor)


def max_pool_with_indices(axes, self, kernel_size, stride, padding, dilation, ceil_mode):
    """(out, int64 indices) of aclnnMaxPool3dWithArgmax (axes 3) or aclnnMaxPool2dWithIndices (axes 2)."""
    _check(self=self)
    leading, spatial = _split(self.shape, axes)
    out_shape = leading + _shapes.regular_spatial(spatial, kernel_size, stride, padding, dilation, ceil_mode)
    out = empty_like_layout(self, out_shape)
    indices = empty_like_layout(self, out_shape, torch.int64)
    run_operator(_REGULAR[axes][0], lambda a: (describe(a, self), a.int_array(kernel_size), a.int_array(stride),
                                               a.int_array(padding), a.int_array(dilation), bool(ceil_mode),
                                               describe(a, out), describe(a, indices)))
    return out, indices


def max_pool_with_indices_backward(axes, grad_output, self, indices, kernel_size, stride, padding, dilation,
                                   ceil_mode):
    _check(grad_output=grad_output, self=self, indices=indices)
    indices = dense_like(indices, indices)
    grad_output = dense_like(grad_output, indices)
    grad_input = empty_like_layout(self, self.shape)
    run_operator(_REGULAR[axes][1], lambda a: (describe(a, grad_output), describe(a, self), describe(a, indices),
                                               a.int_array(kernel_size), a.int_array(stride), a.int_array(padding),
                                               a.int_array(dilation), bool(ceil_mode), describe(a, grad_input)))
    return grad_input


def adaptive_max_pool(axes, self, output_size):
    _check(self=self)
    leading, spatial = _split(self.shape, axes)
    out_shape = leading + _shapes.adaptive_spatial(spatial, output_size)
    out = empty_like_layout(self, out_shape)
    indices = empty_like_layout(self, out_shape, torch.int64)
    run_operator(_ADAPTIVE[axes][0], lambda a: (describe(a, self), a.int_array(output_size), describe(a, out),
                                                describe(a, indices)))
    return out, indices


def adaptive_max_pool_backward(axes, grad_output, self, indices):
    _check(grad_output=grad_output, self=self, indices=indices)
    indices = dense_like(indices, indices)
    grad_output = dense_like(grad_output, indices)
    grad_input = empty_like_layout(self, self.shape)
    run_operator(_ADAPTIVE[axes][1], lambda a: (describe(a, grad_output), describe(a, self), describe(a, indices),
                                                describe(a, grad_input)))
    return grad_input


def _tf_attributes(kernel_size, stride, data_format):
    """Length-4 ksize/strides in data_format order, the tensor format tag, and the H, W axes."""
    if data_format == "NHWC":
        return [1, *kernel_size, 1], [1, *stride, 1], FORMAT_NHWC, (1, 2)
    return [1, 1, *kernel_size], [1, 1, *stride], FORMAT_NCHW, (2, 3)


def max_pool2d_tf(self, kernel_size, stride, padding, data_format):
    """aclnnMaxPoolV3WithAttrs with padding "SAME"/"VALID" on an NCHW or NHWC tensor."""
    _check(self=self)
    ksize, strides, tensor_format, hw_axes = _tf_attributes(kernel_size, stride, data_format)
    shape = list(self.shape)
    if self.dim() == 4:
        spatial = [shape[axis] for axis in hw_axes]
        out_spatial = _shapes.v3_spatial(spatial, ksize, strides, padding, None, False, False, hw_axes)
        for axis, size in zip(hw_axes, out_spatial):
            shape[axis] = size
    out = empty_like_layout(self, shape)
    run_operator("aclnnMaxPoolV3WithAttrs",
                 lambda a: (describe(a, self, tensor_format), a.int_array(ksize), a.int_array(strides),
                            padding.encode(), a.int_array([0, 0, 0, 0]), data_format.encode(), False, False,
                            describe(a, out, tensor_format)))
    return out


def max_pool2d_tf_backward(grad_output, self, output, kernel_size, stride, padding, data_format):
    """aclnnMaxPoolV3Grad: each gradient to the first window element equal to `output`."""
    _check(grad_output=grad_output, self=self, output=output)
    grad_output = dense_like(grad_output, output)
    ksize, strides, tensor_format, _ = _tf_attributes(kernel_size, stride, data_format)
    grad_input = empty_like_layout(self, self.shape)
    run_operator("aclnnMaxPoolV3Grad",
                 lambda a: (describe(a, self, tensor_format), describe(a, output, tensor_format),
                            describe(a, grad_output, tensor_format), a.int_array(ksize), a.int_array(strides),
                            padding.encode(), a.int_array([0, 0, 0, 0]), data_format.encode(), False, False,
                            describe(a, grad_input, tensor_format)))
    return grad_input
