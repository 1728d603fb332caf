"""poolgrad's max pooling shaped like torch.nn.functional: same names, arguments and results, forward and
backward both run by poolgrad on the tensors' own memory (see docs/torch.md for the differences).

Attribute forms are torch's (an int or a sequence; stride None means the kernel size); lengths other than
1 or the number of spatial axes go to the library, which refuses them with its message.
"""

from ._registration import OPS
from ._views import check_input


def _ints(value):
    if value is None:
        return []
    if isinstance(value, int) or hasattr(value, "__index__"):
        return [int(value)]
    return [int(v) for v in value]


def _regular(axes, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    check_input("input", input)  # before the dispatcher, whose refusal would not name poolgrad's rule
    out, indices = OPS[f"max_pool{axes}d_with_indices"](input, _ints(kernel_size), _ints(stride), _ints(padding),
                                                         _ints(dilation), bool(ceil_mode))
    return (out, indices) if return_indices else out


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """torch.nn.functional.max_pool3d on a (N,)C,D,H,W tensor; indices (int64) are flat in each D*H*W plane."""
    return _regular(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """torch.nn.functional.max_pool2d on a (N,)C,H,W tensor; indices (int64) are flat in each H*W plane."""
    return _regular(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _output_size(axes, input, output_size):
    """torch's forms: an int, or a sequence whose None entries keep the input's size on that axis."""
    if output_size is None or isinstance(output_size, int) or hasattr(output_size, "__index__"):
        return _ints(output_size)
    sizes = list(output_size)
    spatial = list(input.shape[-axes:]) if input.dim() >= axes else []
    return [int(spatial[i]) if size is None and i < len(spatial) else int(-1 if size is None else size)
            for i, size in enumerate(sizes)]


def _adaptive(axes, input, output_size, return_indices):
    check_input("input", input)
    out, indices = OPS[f"adaptive_max_pool{axes}d"](input, _output_size(axes, input, output_size))
    return (out, indices) if return_indices else out


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """torch.nn.functional.adaptive_max_pool3d: windows [floor(o*I/O), ceil((o+1)*I/O)) on each axis."""
    return _adaptive(3, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """torch.nn.functional.adaptive_max_pool2d."""
    return _adaptive(2, input, output_size, return_indices)


def _pair(value):
    values = _ints(value)
    return values * 2 if len(values) == 1 else values


def max_pool2d_tf(input, kernel_size, stride=None, padding="VALID", data_format="NCHW"):
    """TensorFlow-style 2-D max pooling: forward aclnnMaxPoolV3WithAttrs, backward aclnnMaxPoolV3Grad (each
    gradient to the first window element equal to the output). kernel_size/stride: int or (h, w);
    padding "SAME" or "VALID"; data_format "NCHW" or "NHWC" (the layout of the 4-D input's axes)."""
    check_input("input", input)
    kernel = _pair(kernel_size)
    step = kernel if stride is None else _pair(stride)
    return OPS["max_pool2d_tf"](input, kernel, step, str(padding), str(data_format))
