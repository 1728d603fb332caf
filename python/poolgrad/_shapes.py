"""Output shapes the operators expect, so the module can allocate them (SPEC §3.3, §5, §6, §8).

Attributes the library will reject still produce some shape here (never an exception): the library's
phase 1 then reports the broken rule with its own code and message.
"""

import math


def _as_list(values):
    if values is None:
        return []
    if isinstance(values, int) or hasattr(values, "__index__"):
        return [int(values)]
    return [int(v) for v in values]


def _expand(values, axes, default=None):
    values = _as_list(values)
    if not values and default is not None:
        return list(default)
    if len(values) == 1:
        return values * axes
    if len(values) == axes:
        return values
    raise ValueError("length")


def pooled_size(size, kernel, stride, pad_before, pad_total, dilation, ceil_mode):
    """§3.3: floor division, ceil mode with the rule that the last window starts inside input + pad."""
    effective = dilation * (kernel - 1) + 1
    numerator = size + pad_total - effective + (stride - 1 if ceil_mode else 0)
    out = numerator // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad_before:
        out -= 1
    return out


def regular_spatial(spatial, kernel_size, stride, padding, dilation, ceil_mode):
    """Output spatial sizes of the regular (kernel/stride/padding/dilation) ops; len(spatial) axes."""
    axes = len(spatial)
    try:
        kernel = _expand(kernel_size, axes)
        strides = _expand(stride, axes, default=kernel)
        pads = _expand(padding, axes)
        dilations = _expand(dilation, axes)
        return [max(pooled_size(n, k, s, p, 2 * p, d, ceil_mode), 0)
                for n, k, s, p, d in zip(spatial, kernel, strides, pads, dilations)]
    except (ValueError, ZeroDivisionError):
        return [1] * axes


def adaptive_spatial(spatial, output_size):
    """Output spatial sizes of the adaptive ops; a size the library refuses (< 1, a wrong length) gets a
    placeholder allocation, so that the library, not numpy, judges it and its 161002 is raised."""
    try:
        sizes = _expand(output_size, len(spatial), default=spatial)
    except ValueError:
        return [1] * len(spatial)
    return sizes if all(size >= 1 for size in sizes) else [1] * len(spatial)


def onnx_spatial(spatial, kernel_shape, strides, pads, ceil_mode):
    """aclnnMaxPool (SPEC §7.3): strides default 1, pads {top, left, bottom, right} in ONNX order."""
    try:
        kernel = _expand(kernel_shape, 2)
        steps = _expand(strides, 2, default=[1, 1])
        pads = _as_list(pads)
        if len(pads) == 0:
            pads = [0, 0, 0, 0]
        elif len(pads) == 1:
            pads = pads * 4
        elif len(pads) == 2:
            pads = [pads[0], pads[1], pads[0], pads[1]]
        return [max(pooled_size(n, k, s, before, before + after, 1, bool(ceil_mode)), 1)
                for n, k, s, before, after in zip(spatial, kernel, steps, pads[:2], pads[2:4])]
    except (ValueError, ZeroDivisionError, IndexError, TypeError):
        return [1, 1]


def mask_shape(leading, kernel_size, out_spatial):
    """Ascend mask of aclnnMaxPool2dWithMask: (N,) C, kH*kW, (ceil(Ho*Wo/16)+1)*32 (INT8)."""
    try:
        kernel = _expand(kernel_size, 2)
    except ValueError:
        kernel = [1, 1]
    windows = out_spatial[0] * out_spatial[1]
    return list(leading) + [kernel[0] * kernel[1], (math.ceil(windows / 16) + 1) * 32]


def v3_spatial(spatial, ksize, strides, padding_mode, pads, global_pooling, ceil_mode, height_width_axes):
    """§6 / §7.4: Ho, Wo for VALID, SAME, CALCULATED (ksize/strides are length-4 lists in data order)."""
    if global_pooling:
        return [1, 1]
    try:
        kernel = [_as_list(ksize)[axis] for axis in height_width_axes]
        step = [_as_list(strides)[axis] for axis in height_width_axes]
        mode = padding_mode or "CALCULATED"
        pad_list = _as_list(pads) if pads is not None else [0, 0, 0, 0]
        result = []
        for axis, (size, k, s) in enumerate(zip(spatial, kernel, step)):
            if mode == "VALID":
                out = (size - k) // s + 1
            elif mode == "SAME":
                out = -(-size // s)
            else:
                before, after = pad_list[2 * axis], pad_list[2 * axis + 1]
                out = pooled_size(size, k, s, before, before + after, 1, ceil_mode)
            result.append(max(out, 0))
        return result
    except (ValueError, IndexError, ZeroDivisionError):
        return [1, 1]
