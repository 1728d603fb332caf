"""The poolgrad operators on numpy arrays: one function per aclnn operator, same argument order.

Inputs may be any numpy views (channels-last, sliced, ...); they are passed to the library by pointer and
strides. Outputs are allocated (C-contiguous) unless given as keyword arguments, in which case they are
written in place through their own strides. Errors raise PoolgradError with the aclnn status and the
library's aclGetRecentErrMsg() text.

Each function names phase 1's arguments in the order of the C parameters and _call runs them through the
executor cache (poolgrad._executor_cache, as poolgrad.torch does): phase 1 once per problem and thread, then
only phase 2, with the operands pointed at the new arrays' memory.
"""

import numpy as np

from . import _executor_cache, _shapes
from ._tensors import FORMAT_ND, FORMAT_NCHW, FORMAT_NHWC, as_input, check_output, data_address, int64_values, \
    layout, run_operator
from .errors import PoolgradError


def _split(shape, axes):
    """(leading dims, spatial dims) of an operand with `axes` spatial axes; odd ranks still split."""
    if len(shape) < axes:
        return list(shape), [1] * axes
    return list(shape[:len(shape) - axes]), list(shape[len(shape) - axes:])


def _output(name, given, shape, dtype):
    if given is None:
        return np.empty(shape, dtype=dtype)
    return check_output(name, given)


# Phase 1's arguments as _call takes them: _In / _Out for the aclTensor inputs and outputs, _Ints for an
# aclIntArray, _Scalar for an INT64 aclScalar, _As(convert, value) for a plain C value. Each gives its part of
# the problem's key (what phase 1 receives, addresses aside) and, on a problem's first call, what phase 1
# receives (made with the call's Arguments, exactly as the one-shot path makes it).

class _In:
    """An aclTensor input, described with aclFormat `tensor_format`."""
    __slots__ = ("array", "tensor_format")
    output = False

    def __init__(self, array, tensor_format=FORMAT_ND):
        self.array, self.tensor_format = array, tensor_format

    def key(self):
        return layout(self.array, self.tensor_format)

    def address(self):
        """The descriptor's data pointer; None for an array with no elements (run afresh: numpy gives those a
        non-null address that says nothing)."""
        return data_address(self.array) if self.array.size else None

    def make(self, arguments):
        return arguments.tensor(self.array, self.tensor_format)


class _Out(_In):
    """An aclTensor output, written in place."""
    __slots__ = ()
    output = True


class _Ints:
    """An aclIntArray of int64 values (None: a null pointer)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def key(self):
        values = int64_values(self.value)
        return None if values is None else tuple(values)

    def make(self, arguments):
        return arguments.int_array(self.value)


class _Scalar(_Ints):
    """An INT64 aclScalar (None: a null pointer)."""
    __slots__ = ()

    def key(self):
        return None if self.value is None else int(self.value)

    def make(self, arguments):
        return arguments.int64_scalar(self.value)


class _As:
    """A plain C argument: convert(value) (a bool, an int, a string's bytes)."""
    __slots__ = ("convert", "value")

    def __init__(self, convert, value):
        self.convert, self.value = convert, value

    def key(self):
        return self.convert(self.value)

    def make(self, arguments):
        return self.convert(self.value)


def _call(operator, *parameters):
    """Runs `operator` with phase 1's arguments `parameters` (in the order of its C parameters), through the
    executor cache when it is on (else, and for what _problem cannot key, one-shot: run_operator).

    A refusal of phase 1 is the one a fresh call gives. After any other refusal (phase 2, re-pointing an
    operand) the cache has dropped the problem's executor and the call is made again one-shot, which raises
    what a fresh call raises: a kept executor checks new addresses in phase 2 (an output over an input, ...)
    where a fresh call's phase 1 refuses them, with the same status and message but another function."""
    def build(arguments):
        made = [parameter.make(arguments) for parameter in parameters]
        tensors = [(parameter.output, value) for parameter, value in zip(parameters, made)
                   if isinstance(parameter, _In)]
        return (made, [value for output, value in tensors if not output],
                [value for output, value in tensors if output])

    problem = _problem(operator, parameters) if _executor_cache.enabled() else None
    if problem is not None:
        try:
            _executor_cache.run(operator, *problem, build)
            return
        except PoolgradError as error:
            if error.function == operator + "GetWorkspaceSize":
                raise
    run_operator(operator, lambda arguments: build(arguments)[0])


def _problem(operator, parameters):
    """(key, addresses) of a call for _executor_cache.run, or None.

    The key is everything phase 1 receives but the addresses: the operator, each tensor's sizes, element
    strides, aclDataType and aclFormat (its storage offset and shape follow from them), each attribute as
    phase 1 receives it. The addresses are the descriptors' data pointers, inputs then outputs; an array with
    no elements has None, which the cache runs one-shot. None where the key cannot express an argument (a
    dtype without an aclDataType, a value int() or encode() refuses): the one-shot call raises its error."""
    try:
        key = (operator,) + tuple(parameter.key() for parameter in parameters)
    except Exception:
        return None
    tensors = [parameter for parameter in parameters if isinstance(parameter, _In)]
    return key, tuple(tensor.address() for tensor in tensors if not tensor.output) + \
        tuple(tensor.address() for tensor in tensors if tensor.output)


def _regular_forward(operator, axes, self, kernel_size, stride, padding, dilation, ceil_mode, index_dtype, out,
                     indices, mask=False):
    self = as_input(self)
    leading, spatial = _split(self.shape, axes)
    out_spatial = _shapes.regular_spatial(spatial, kernel_size, stride, padding, dilation, ceil_mode)
    out = _output("out", out, leading + out_spatial, self.dtype)
    if mask:
        indices = _output("mask", indices, _shapes.mask_shape(leading, kernel_size, out_spatial), np.int8)
    else:
        indices = _output("indices", indices, leading + out_spatial, index_dtype)
    _call(operator, _In(self), _Ints(kernel_size), _Ints(_list(stride)), _Ints(padding), _Ints(dilation),
          _As(bool, ceil_mode), _Out(out), _Out(indices))
    return out, indices


def _regular_backward(operator, grad_output, self, indices, kernel_size, stride, padding, dilation, ceil_mode,
                      grad_input):
    grad_output, self, indices = as_input(grad_output), as_input(self), as_input(indices)
    grad_input = _output("grad_input", grad_input, self.shape, self.dtype)
    _call(operator, _In(grad_output), _In(self), _In(indices), _Ints(kernel_size), _Ints(_list(stride)),
          _Ints(padding), _Ints(dilation), _As(bool, ceil_mode), _Out(grad_input))
    return grad_input


def _list(stride):
    """stride=None means the empty list, which the ops read as 'stride = kernel size'."""
    return [] if stride is None else stride


def max_pool3d_with_argmax(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, *,
                           index_dtype=np.int32, out=None, indices=None):
    """aclnnMaxPool3dWithArgmax: (out, indices) of a (N,)C,D,H,W tensor; indices are flat in each plane."""
    return _regular_forward("aclnnMaxPool3dWithArgmax", 3, self, kernel_size, stride, padding, dilation, ceil_mode,
                            index_dtype, out, indices)


def max_pool3d_with_argmax_backward(grad_output, self, indices, kernel_size, stride=None, padding=0, dilation=1,
                                    ceil_mode=False, *, grad_input=None):
    """aclnnMaxPool3dWithArgmaxBackward: scatters grad_output to the positions `indices` names."""
    return _regular_backward("aclnnMaxPool3dWithArgmaxBackward", grad_output, self, indices, kernel_size, stride,
                             padding, dilation, ceil_mode, grad_input)


def max_pool2d_with_indices(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, *,
                            index_dtype=np.int32, out=None, indices=None):
    """aclnnMaxPool2dWithIndices on a (N,)C,H,W tensor; index = ih*W + iw."""
    return _regular_forward("aclnnMaxPool2dWithIndices", 2, self, kernel_size, stride, padding, dilation, ceil_mode,
                            index_dtype, out, indices)


def max_pool2d_with_indices_backward(grad_output, self, indices, kernel_size, stride=None, padding=0, dilation=1,
                                     ceil_mode=False, *, grad_input=None):
    """aclnnMaxPool2dWithIndicesBackward."""
    return _regular_backward("aclnnMaxPool2dWithIndicesBackward", grad_output, self, indices, kernel_size, stride,
                             padding, dilation, ceil_mode, grad_input)


def max_pool2d_with_mask(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, *, out=None,
                         mask=None):
    """aclnnMaxPool2dWithMask: (out, mask), the mask an INT8 (N,)C,kH*kW,(ceil(Ho*Wo/16)+1)*32 tensor that only
    the matching backward reads."""
    return _regular_forward("aclnnMaxPool2dWithMask", 2, self, kernel_size, stride, padding, dilation, ceil_mode,
                            None, out, mask, mask=True)


def max_pool2d_with_mask_backward(grad_output, self, mask, kernel_size, stride=None, padding=0, dilation=1,
                                  ceil_mode=False, *, grad_input=None):
    """aclnnMaxPool2dWithMaskBackward."""
    return _regular_backward("aclnnMaxPool2dWithMaskBackward", grad_output, self, mask, kernel_size, stride,
                             padding, dilation, ceil_mode, grad_input)


def _adaptive_forward(operator, axes, self, output_size, index_dtype, out, indices):
    self = as_input(self)
    leading, spatial = _split(self.shape, axes)
    out_spatial = _shapes.adaptive_spatial(spatial, output_size)
    out = _output("out", out, leading + out_spatial, self.dtype)
    indices = _output("indices", indices, leading + out_spatial, index_dtype)
    sizes = [] if output_size is None else output_size
    _call(operator, _In(self), _Ints(sizes), _Out(out), _Out(indices))
    return out, indices


def _adaptive_backward(operator, grad_output, self, indices, grad_input):
    grad_output, self, indices = as_input(grad_output), as_input(self), as_input(indices)
    grad_input = _output("grad_input", grad_input, self.shape, self.dtype)
    _call(operator, _In(grad_output), _In(self), _In(indices), _Out(grad_input))
    return grad_input


def adaptive_max_pool3d(self, output_size, *, index_dtype=np.int32, out=None, indices=None):
    """aclnnAdaptiveMaxPool3d: windows [floor(o*I/O), ceil((o+1)*I/O)) per axis; output_size of length 0, 1, 3."""
    return _adaptive_forward("aclnnAdaptiveMaxPool3d", 3, self, output_size, index_dtype, out, indices)


def adaptive_max_pool3d_backward(grad_output, self, indices, *, grad_input=None):
    """aclnnAdaptiveMaxPool3dBackward."""
    return _adaptive_backward("aclnnAdaptiveMaxPool3dBackward", grad_output, self, indices, grad_input)


def adaptive_max_pool2d(self, output_size, *, index_dtype=np.int32, out=None, indices=None):
    """aclnnAdaptiveMaxPool2d on a (N,)C,H,W tensor."""
    return _adaptive_forward("aclnnAdaptiveMaxPool2d", 2, self, output_size, index_dtype, out, indices)


def adaptive_max_pool2d_backward(grad_output, self, indices, *, grad_input=None):
    """aclnnAdaptiveMaxPool2dBackward."""
    return _adaptive_backward("aclnnAdaptiveMaxPool2dBackward", grad_output, self, indices, grad_input)


def _v3_layout(data_format):
    """(format tag, positions of H and W) for a data_format string; unknown strings go to the library."""
    if data_format == "NHWC":
        return FORMAT_NHWC, (1, 2)
    return FORMAT_NCHW, (2, 3)


def _v3_output_shape(x_shape, data_format, out_spatial):
    shape = list(x_shape)
    if len(shape) != 4:
        return shape
    _, (h_axis, w_axis) = _v3_layout(data_format)
    shape[h_axis], shape[w_axis] = out_spatial
    return shape


def _encode(text):
    return None if text is None else text.encode("utf-8")


def max_pool_v3_with_attrs(x, ksize, strides, padding_mode="CALCULATED", pads=(0, 0, 0, 0), data_format="NCHW",
                           global_pooling=False, ceil_mode=False, *, y=None):
    """aclnnMaxPoolV3WithAttrs: the forward that produces MaxPoolV3Grad's orig_output (TF-style 2-D).

    ksize/strides are length-4 lists in data_format order, pads = [top, bottom, left, right] (CALCULATED).
    None for padding_mode, pads or data_format passes a null pointer (the library's default)."""
    x = as_input(x)
    tensor_format, hw_axes = _v3_layout(data_format)
    spatial = [x.shape[a] for a in hw_axes] if x.ndim == 4 else [1, 1]
    out_spatial = _shapes.v3_spatial(spatial, ksize, strides, padding_mode, pads, global_pooling, ceil_mode,
                                     hw_axes)
    y = _output("y", y, _v3_output_shape(x.shape, data_format, out_spatial), x.dtype)
    _call("aclnnMaxPoolV3WithAttrs", _In(x, tensor_format), _Ints(ksize), _Ints(strides), _As(_encode, padding_mode),
          _Ints(pads), _As(_encode, data_format), _As(bool, global_pooling), _As(bool, ceil_mode),
          _Out(y, tensor_format))
    return y


def max_pool_v3_grad(orig_input, orig_output, grad, ksize, strides, padding_mode="CALCULATED", pads=(0, 0, 0, 0),
                     data_format="NCHW", global_pooling=False, ceil_mode=False, *, out_grad=None):
    """aclnnMaxPoolV3Grad (CANN's MaxPoolV3Grad): each grad value goes to the first element of its window equal
    to orig_output (IEEE equality), accumulated in float32."""
    orig_input, orig_output, grad = as_input(orig_input), as_input(orig_output), as_input(grad)
    tensor_format, _ = _v3_layout(data_format)
    out_grad = _output("out_grad", out_grad, orig_input.shape, orig_input.dtype)
    _call("aclnnMaxPoolV3Grad", _In(orig_input, tensor_format), _In(orig_output, tensor_format),
          _In(grad, tensor_format), _Ints(ksize), _Ints(strides), _As(_encode, padding_mode), _Ints(pads),
          _As(_encode, data_format), _As(bool, global_pooling), _As(bool, ceil_mode), _Out(out_grad, tensor_format))
    return out_grad


def max_pool(self, kernel_shape, strides=(), auto_pad=0, pads=(), dilations=(), ceil_mode=0, *, out=None):
    """aclnnMaxPool (ONNX MaxPool, 2-D, values only) on a (N,)C,H,W array of any of its dtypes (float16/32,
    bfloat16, int8/16/32/64, uint8/16). strides () means 1; pads are ONNX's {top, left, bottom, right} (or
    one value, or {H, W}); dilations must be 1; ceil_mode is an int (non-zero = ceil). Lists may also be given
    as one int; None is the empty list."""
    self = as_input(self)
    leading, spatial = _split(self.shape, 2)
    out_spatial = _shapes.onnx_spatial(spatial, kernel_shape, strides, pads, ceil_mode)
    out = _output("out", out, leading + out_spatial, self.dtype)
    listed = [[] if values is None else values for values in (strides, pads, dilations)]
    _call("aclnnMaxPool", _In(self), _Ints(kernel_shape), _Ints(listed[0]), _As(int, auto_pad), _Ints(listed[1]),
          _Ints(listed[2]), _As(int, ceil_mode), _Out(out))
    return out


def max_pool_v3(x, ksize, strides, pads=None, ceil_mode=None, *, out=None):
    """aclnnMaxPoolV3 on an NCHW array: ksize/strides [N, C, H, W], pads [top, bottom, left, right] (None: zeros),
    ceil_mode None (false) or an int passed as an INT64 scalar (non-zero = ceil)."""
    x = as_input(x)
    spatial = list(x.shape[2:4]) if x.ndim == 4 else [1, 1]
    out_spatial = _shapes.v3_spatial(spatial, ksize, strides, "CALCULATED", (0, 0, 0, 0) if pads is None else pads,
                                     False, bool(ceil_mode), (2, 3))
    out = _output("out", out, _v3_output_shape(x.shape, "NCHW", out_spatial), x.dtype)
    _call("aclnnMaxPoolV3", _In(x, FORMAT_NCHW), _Ints(ksize), _Ints(strides), _Ints(pads), _Scalar(ceil_mode),
          _Out(out, FORMAT_NCHW))
    return out
