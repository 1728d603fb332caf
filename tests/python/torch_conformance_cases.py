"""Case generation and array helpers for test_conformance_torch.py (poolgrad vs PyTorch).

Everything here is numpy only; the PyTorch side lives in the test file. A case is a plain dict of
parameters (shapes, attributes in the exact form passed to poolgrad, dtype, layout names, data kinds) so that
an assertion message can print it, plus the arrays it describes. Every random choice comes from the case's own
generator (conftest.case_generators), so seed + case number replays a case exactly.
"""

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float16), BF16)
_UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


# ---------------------------------------------------------------------------------------------------------
# SPEC §3.3 / §3.4 / §5 shape arithmetic (used to pick valid attributes and to locate empty windows).

def pooled_size(size, kernel, stride, padding, dilation, ceil_mode):
    """SPEC §3.3 (identical to PyTorch's pooling_output_shape)."""
    effective = dilation * (kernel - 1) + 1
    out = (size + 2 * padding - effective + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return out


def non_empty_windows(size, out, kernel, stride, padding, dilation):
    """Per output coordinate of one axis: does the window {o*s-p+j*d} meet [0, size)? (SPEC §3.4)."""
    starts = np.arange(out)[:, None] * stride - padding + np.arange(kernel)[None, :] * dilation
    return ((starts >= 0) & (starts < size)).any(axis=1)


def empty_window_mask(spatial, out_spatial, kernel, stride, padding, dilation):
    """Boolean array of shape out_spatial: True where the window has no input element (only d > 1)."""
    mask = np.ones(out_spatial, dtype=bool)
    for axis, (n, o, k, s, p, d) in enumerate(zip(spatial, out_spatial, kernel, stride, padding, dilation)):
        shape = [1] * len(spatial)
        shape[axis] = o
        mask = mask & non_empty_windows(n, o, k, s, p, d).reshape(shape)
    return ~mask


def expand(value, axes):
    """An attribute in any accepted form (int, [], [v], [v]*axes, per-axis list) as a per-axis tuple."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * axes
    value = list(value)
    return tuple(value * axes) if len(value) == 1 else tuple(value)


# ---------------------------------------------------------------------------------------------------------
# Attribute forms (SPEC §3.2: kernel 1|axes, stride 0|1|axes, padding 1|axes, dilation 1|axes).

def _form(rng, values, default_is_none=False):
    """Writes per-axis `values` as one of the accepted list forms. Uniform values may become an int, [v] or
    the full list; stride may additionally be None / [] (both mean 'stride = kernel')."""
    values = [int(v) for v in values]
    if default_is_none:
        return None if rng.random() < 0.5 else []
    if len(set(values)) == 1:
        form = rng.integers(0, 3)
        return values[0] if form == 0 else [values[0]] if form == 1 else values
    return values


def _size(rng, largest):
    """Axis sizes with many 1s and odd sizes."""
    if rng.random() < 0.2:
        return 1
    return int(rng.integers(1, largest + 1))


def _uniform_or_per_axis(rng, axes, draw):
    if rng.random() < 0.35:
        return [draw()] * axes
    return [draw() for _ in range(axes)]


def _lead_and_largest(rng, axes):
    """(leading dims, largest spatial size): mostly small tensors; 4% larger ones (more planes than threads,
    longer rows) so blocked/parallel code paths of the library are reached too."""
    large = rng.random() < 0.04
    largest = (14 if axes == 3 else 40) if large else (7 if axes == 3 else 11)
    channels = 9 if large else 4
    if rng.random() < 0.6:
        return [int(rng.integers(1, 3)), int(rng.integers(1, channels))], largest
    return [int(rng.integers(1, channels + 1))], largest


def regular_case(rng, axes):
    """Attributes and shapes of one max_pool{2,3}d case; the output has >= 1 element on every axis."""
    lead, largest = _lead_and_largest(rng, axes)
    while True:
        spatial = [_size(rng, largest) for _ in range(axes)]
        kernel = _uniform_or_per_axis(rng, axes, lambda: int(rng.integers(1, 5)))
        dilation = ([1] * axes if rng.random() < 0.6
                    else _uniform_or_per_axis(rng, axes, lambda: int(rng.integers(1, 4))))
        if rng.random() < 0.35:
            padding = [int(rng.integers(0, min(kernel) // 2 + 1))] * axes
        else:
            padding = [int(rng.integers(0, k // 2 + 1)) for k in kernel]
        stride_default = rng.random() < 0.2
        stride = list(kernel) if stride_default else _uniform_or_per_axis(rng, axes, lambda: int(rng.integers(1, 4)))
        ceil_mode = bool(rng.random() < 0.5)
        out_spatial = [pooled_size(n, k, s, p, d, ceil_mode)
                       for n, k, s, p, d in zip(spatial, kernel, stride, padding, dilation)]
        if min(out_spatial) >= 1:
            break
    return {
        "shape": tuple(lead + spatial),
        "out_shape": tuple(lead + out_spatial),
        "kernel_size": _form(rng, kernel),
        "stride": _form(rng, stride, default_is_none=stride_default),
        "padding": _form(rng, padding),
        "dilation": _form(rng, dilation),
        "ceil_mode": ceil_mode,
        # per-axis tuples for PyTorch and for empty-window detection
        "k": tuple(kernel), "s": tuple(stride), "p": tuple(padding), "d": tuple(dilation),
        "spatial": tuple(spatial), "out_spatial": tuple(out_spatial),
    }


def adaptive_case(rng, axes):
    """Shapes and output_size form of one adaptive case (output sizes may exceed the input's)."""
    lead, largest = _lead_and_largest(rng, axes)
    spatial = [_size(rng, largest) for _ in range(axes)]
    choice = rng.random()
    if choice < 0.1:  # length 0: output spatial = input spatial
        output_size = None if rng.random() < 0.5 else []
        out_spatial = list(spatial)
    else:
        # mostly O <= I (windows of 1..I elements, overlapping when I % O != 0); 30% up to I + 3
        # (O > I repeats input elements in several windows)
        bound = max(spatial) + 3 if rng.random() < 0.3 else min(spatial)
        out_spatial = _uniform_or_per_axis(rng, axes, lambda: int(rng.integers(1, bound + 1)))
        output_size = _form(rng, out_spatial)
    return {"shape": tuple(lead + spatial), "out_shape": tuple(lead + out_spatial), "output_size": output_size,
            "spatial": tuple(spatial), "out_spatial": tuple(out_spatial)}


def pick_dtype(rng):
    return FLOAT_DTYPES[int(rng.choice(3, p=[0.5, 0.25, 0.25]))]


def pick_index_dtype(rng):
    return np.dtype(np.int32) if rng.random() < 0.5 else np.dtype(np.int64)


# ---------------------------------------------------------------------------------------------------------
# Data.

DATA_KINDS = ("ties", "ties01", "floats", "neg_inf_heavy")


def make_data(rng, shape, dtype):
    """(values as `dtype`, description). Tie-heavy small integers, signed zeros, random floats of varied
    magnitude, -inf-dominated windows; NaN/±Inf/±0.0 sprinkled in some cases."""
    kind = DATA_KINDS[int(rng.choice(4, p=[0.4, 0.1, 0.4, 0.1]))]
    if kind == "ties":
        values = rng.integers(-3, 4, size=shape).astype(np.float32)
    elif kind == "ties01":
        values = rng.choice(np.array([-0.0, 0.0, -1.0, 1.0], np.float32), size=shape)
    elif kind == "floats":
        values = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4)).astype(np.float32)
    else:
        values = np.where(rng.random(shape) < 0.8, -np.inf, rng.integers(-3, 4, size=shape)).astype(np.float32)
    specials = ""
    if rng.random() < 0.35:
        rate = float(rng.choice([0.02, 0.1, 0.3]))
        hit = rng.random(shape) < rate
        pool = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], np.float32)
        values[hit] = rng.choice(pool, size=int(hit.sum()))
        specials = f"+specials@{rate}"
    return values.astype(dtype), kind + specials


def make_grad(rng, shape, dtype):
    """gradOutput values: small integers (exact sums), floats, large+small mixes that make 16-bit rounding
    of the float32 sum matter (SPEC WE-10), and occasional NaN/±Inf (they propagate, SPEC §3.6) and -0.0
    (a lone -0.0 contribution still gives +0.0: the sum starts from +0.0)."""
    kind = int(rng.choice(3, p=[0.35, 0.45, 0.2]))
    if kind == 0:
        values, name = rng.integers(-4, 5, size=shape).astype(np.float32), "int"
    elif kind == 1:
        values, name = rng.standard_normal(shape).astype(np.float32), "normal"
    else:
        values = np.where(rng.random(shape) < 0.3, 2048.0, rng.integers(-3, 4, size=shape) * 0.5)
        values, name = values.astype(np.float32), "big+small"
    if rng.random() < 0.1:
        hit = rng.random(shape) < 0.05
        values[hit] = rng.choice(np.array([np.nan, np.inf, -np.inf, -0.0], np.float32), size=int(hit.sum()))
        name += "+specials"
    return values.astype(dtype), name


# ---------------------------------------------------------------------------------------------------------
# Strided views.

LAYOUTS = ("contiguous", "channels_last", "permuted", "stepped", "permuted_stepped", "offset", "reversed")
OUTPUT_LAYOUTS = ("allocated", "contiguous", "channels_last", "permuted", "stepped", "permuted_stepped", "offset")


def _channels_last_order(rank, axes):
    channel = rank - axes - 1
    return [a for a in range(rank) if a != channel] + [channel]


class Buffer:
    """A view of `shape` inside a larger base array filled with `fill`, laid out per `layout`; `covered`
    marks the base elements the view reaches, so writes outside it can be detected."""

    def __init__(self, rng, shape, dtype, fill, layout, axes, offset_unit=1):
        rank = len(shape)
        order = list(range(rank))
        if layout == "channels_last":
            order = _channels_last_order(rank, axes)
        elif layout in ("permuted", "permuted_stepped"):
            order = [int(a) for a in rng.permutation(rank)]
        steps, starts, extra = [1] * rank, [0] * rank, [0] * rank
        if layout in ("stepped", "permuted_stepped"):
            steps = [int(v) for v in rng.integers(1, 4, size=rank)]
            starts = [int(v) for v in rng.integers(0, 3, size=rank)]
            extra = [int(v) for v in rng.integers(0, 2, size=rank)]
        base_shape = [starts[a] + (shape[a] - 1) * steps[a] + 1 + extra[a] for a in order]
        if layout == "offset":  # a view at a non-zero element offset inside a flat buffer
            count = int(np.prod(shape))
            offset = int(rng.integers(1, 8)) * offset_unit
            self.base = np.full(count + offset + int(rng.integers(0, 4)), fill, dtype=dtype)
            self.view = self.base[offset:offset + count].reshape(shape)
            self.covered = np.zeros(self.base.shape, bool)
            self.covered[offset:offset + count] = True
        else:
            self.base = np.full(base_shape, fill, dtype=dtype)
            index = tuple(slice(starts[a], starts[a] + (shape[a] - 1) * steps[a] + 1, steps[a]) for a in order)
            inverse = list(np.argsort(order))
            self.view = self.base[index].transpose(inverse)
            self.covered = np.zeros(self.base.shape, bool)
            self.covered[index].transpose(inverse)[...] = True
            assert self.view.shape == tuple(shape)
        self.fill = np.array(fill, dtype=dtype)

    def untouched_outside(self):
        """True when every base element outside the view still holds the fill bit pattern."""
        uint = _UINT_OF_SIZE[self.base.dtype.itemsize]
        outside = self.base.view(uint)[~self.covered]
        return bool(np.all(outside == self.fill.view(uint)))


def input_view(rng, values, axes, layout=None):
    """(view holding `values`, layout name, Buffer or None). 'reversed' gives negative strides (the module
    copies those); every other layout is passed to the library as it is. The base is NaN-/poison-filled."""
    layout = layout or LAYOUTS[int(rng.integers(0, len(LAYOUTS)))]
    if layout == "reversed":
        # Only axes longer than 1: a flipped size-1 axis keeps numpy's C-contiguous flag with a negative
        # stride, which the module passes on unchanged (the bug pinned in test_conformance_torch.py).
        long_axes = [a for a in range(values.ndim) if values.shape[a] > 1]
        if not long_axes:
            return values.copy(), "contiguous", None
        axis = int(rng.choice(long_axes))
        flipped = np.flip(values, axis=axis).copy()
        return np.flip(flipped, axis=axis), f"reversed(axis={axis})", None
    fill = np.nan if values.dtype.kind == "f" or values.dtype == BF16 else -999
    buffer = Buffer(rng, values.shape, values.dtype, fill, layout, axes)
    buffer.view[...] = values
    return buffer.view, layout, buffer


def output_view(rng, shape, dtype, axes, layout=None, layouts=OUTPUT_LAYOUTS, offset_unit=1):
    """(view or None, layout name, Buffer or None): None lets the module allocate the output; otherwise a
    poisoned strided view the operator must fill in place. `offset_unit` scales the element offset of the
    'offset' layout."""
    layout = layout or layouts[int(rng.integers(0, len(layouts)))]
    if layout == "allocated":
        return None, layout, None
    dtype = np.dtype(dtype)
    if dtype.kind == "f" or dtype == BF16:
        fill = 7777.0
    elif dtype.itemsize == 1:
        fill = 0x5A
    else:
        fill = -123456
    buffer = Buffer(rng, shape, dtype, fill, layout, axes, offset_unit)
    return buffer.view, layout, buffer


def bits_equal(actual, expected):
    """Bitwise equality after exact widening to float32, NaN matching NaN whatever its payload."""
    a = np.asarray(actual).astype(np.float32)
    e = np.asarray(expected).astype(np.float32)
    if a.shape != e.shape:
        return False
    nan_a, nan_e = np.isnan(a), np.isnan(e)
    if not np.array_equal(nan_a, nan_e):
        return False
    return bool(np.array_equal(a.view(np.uint32)[~nan_a], e.view(np.uint32)[~nan_e]))


def first_difference(actual, expected):
    """A short description of the first differing element (for assertion messages)."""
    a = np.asarray(actual).astype(np.float64)
    e = np.asarray(expected).astype(np.float64)
    if a.shape != e.shape:
        return f"shape {a.shape} != {e.shape}"
    differ = ~((a == e) & (np.signbit(a) == np.signbit(e)) | (np.isnan(a) & np.isnan(e)))
    where = np.argwhere(differ)
    if where.size == 0:
        return "no difference"
    position = tuple(int(v) for v in where[0])
    return (f"{int(differ.sum())} element(s) differ; first at {position}: got {a[position]!r}, "
            f"expected {e[position]!r}")
