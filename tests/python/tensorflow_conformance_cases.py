"""Random problems and TensorFlow adapters for test_conformance_tensorflow.py.

One case = one 2-D max-pooling problem in the attribute language of aclnnMaxPoolV3WithAttrs /
aclnnMaxPoolV3Grad (SPEC §6, §7.4), plus how its operands are laid out in memory. The same case can be
asked of TensorFlow: poolgrad's CALCULATED pads become TF's EXPLICIT paddings, ceil_mode (which TF lacks)
becomes extra bottom/right padding, NCHW problems are transposed to NHWC (TF's CPU kernels are NHWC only).

Only problems on which the two libraries are meant to agree are drawn: orig_input without NaN, pads smaller
than the kernel (TF refuses others), Ho and Wo >= 1 (TF's MaxPoolGrad leaves an uninitialised buffer when
Ho or Wo is 0 and poolgrad's forward refuses them). The by-design differences are tested one by one in the
test file.
"""

import dataclasses

import ml_dtypes
import numpy as np

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
FLOAT16 = np.dtype(np.float16)
FLOAT32 = np.dtype(np.float32)

# Bit patterns written around (and into) output views before a call: a signalling-looking NaN nobody
# computes, so an element the operator should have written but did not, or one it should not have
# touched but did, shows up bit-exactly.
POISON_BITS = {FLOAT32: np.uint32(0x7FBADBAD), FLOAT16: np.uint16(0x7D5B), BFLOAT16: np.uint16(0x7FDB)}
UINT_OF = {FLOAT32: np.uint32, FLOAT16: np.uint16, BFLOAT16: np.uint16}


# --------------------------------------------------------------------------------------------------------
# Geometry


def pooled_extent(size, kernel, stride, mode, before, after, ceil_mode):
    """Ho (or Wo) of SPEC §6: VALID, SAME, or CALCULATED with the §3.3 ceil rule."""
    if mode == "VALID":
        return max((size - kernel) // stride + 1, 0)
    if mode == "SAME":
        return -(-size // stride)
    numerator = size + before + after - kernel + (stride - 1 if ceil_mode else 0)
    out = numerator // stride + 1
    if ceil_mode and (out - 1) * stride >= size + before:
        out -= 1
    return max(out, 0)


def same_pads(size, kernel, stride):
    """(before, after) TF and SPEC §6 use for SAME."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def tf_explicit_pads(size, kernel, stride, before, after, ceil_mode):
    """TF EXPLICIT (before, after) with the windows and the output size of poolgrad's CALCULATED pads.

    ceil_mode only adds windows at the end, and (§3.3 last-window rule) the last one starts inside
    input + before pad, so extending the after-pad to reach that window is exact: padding never wins.
    """
    if not ceil_mode:
        return before, after
    out = pooled_extent(size, kernel, stride, "CALCULATED", before, after, True)
    return before, max(after, (out - 1) * stride + kernel - size - before)


@dataclasses.dataclass
class Layout:
    """How a logical array sits in a larger buffer: axis order in memory, per-axis step, offset, slack."""
    perm: tuple
    steps: tuple
    offsets: tuple
    slack: tuple

    def describe(self):
        if self.is_plain():
            return "contiguous"
        return f"perm{self.perm} step{self.steps} off{self.offsets} slack{self.slack}"

    def is_plain(self):
        return (self.perm == tuple(range(len(self.perm))) and set(self.steps) == {1} and set(self.offsets) == {0}
                and set(self.slack) == {0})

    def buffer_shape(self, shape):
        return tuple(self.offsets[a] + shape[a] * self.steps[a] + self.slack[a] for a in self.perm)

    def view_of(self, buffer, shape):
        """The logical view of `shape` inside `buffer` (whose axes are in self.perm order)."""
        index = tuple(slice(self.offsets[a], self.offsets[a] + shape[a] * self.steps[a], self.steps[a])
                      for a in self.perm)
        return buffer[index].transpose(np.argsort(self.perm))


def draw_layout(rng, data_format):
    """Plain (40%), the other channel order in memory, or a random permutation with steps/offsets/slack."""
    r = rng.random()
    if r < 0.4:
        return Layout((0, 1, 2, 3), (1,) * 4, (0,) * 4, (0,) * 4)
    if r < 0.6:
        # channels-last memory for an NCHW view, channels-first memory for an NHWC one
        perm = (0, 2, 3, 1) if data_format == "NCHW" else (0, 3, 1, 2)
        return Layout(perm, (1,) * 4, (0,) * 4, (0,) * 4)
    perm = tuple(int(a) for a in rng.permutation(4))
    steps = tuple(int(rng.choice([1, 1, 2, 3])) for _ in range(4))
    offsets = tuple(int(rng.integers(0, 3)) for _ in range(4))
    slack = tuple(int(rng.integers(0, 2)) for _ in range(4))
    return Layout(perm, steps, offsets, slack)


def placed(values, layout):
    """A view with layout `layout` holding `values` (buffer elements outside the view are poison)."""
    buffer = poisoned(layout.buffer_shape(values.shape), values.dtype)
    view = layout.view_of(buffer, values.shape)
    view[...] = values
    return view


def poisoned(shape, dtype):
    dtype = np.dtype(dtype)
    return np.full(shape, POISON_BITS[dtype], dtype=UINT_OF[dtype]).view(dtype)


class PoisonedOutput:
    """An output view inside a poisoned buffer; check_outside() proves nothing around it was written."""

    def __init__(self, shape, dtype, layout):
        self.layout = layout
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.buffer = poisoned(layout.buffer_shape(self.shape), self.dtype)
        self.view = layout.view_of(self.buffer, self.shape)

    def touched_outside(self):
        """Number of buffer elements outside the view whose bits are no longer the poison."""
        mask = np.ones(self.buffer.shape, dtype=bool)
        self.layout.view_of(mask, self.shape)[...] = False
        bits = self.buffer.view(UINT_OF[self.dtype])
        return int(np.count_nonzero(bits[mask] != POISON_BITS[self.dtype]))


# --------------------------------------------------------------------------------------------------------
# Values


def _cast(values, dtype):
    return np.asarray(values, dtype=np.float64).astype(np.float32).astype(dtype)


def draw_input_values(rng, shape, dtype, kind):
    """orig_input / x values; never NaN (TF ignores NaN in both MaxPool and MaxPoolGrad, see the tests),
    never a float32/bfloat16 subnormal (TF flushes them to zero)."""
    size = int(np.prod(shape))
    finfo_max = float(ml_dtypes.finfo(dtype).max)
    if kind == "ties":
        v = rng.integers(-3, 4, size).astype(np.float64)
    elif kind == "floats":
        v = rng.standard_normal(size) * float(rng.choice([1.0, 1e-3, 100.0]))
    elif kind == "specials":
        v = rng.integers(-3, 4, size).astype(np.float64) if rng.random() < 0.5 else rng.standard_normal(size)
        pick = rng.random(size)
        v[pick < 0.08] = np.inf
        v[(pick >= 0.08) & (pick < 0.2)] = -np.inf
        v[(pick >= 0.2) & (pick < 0.3)] = -0.0
        v[(pick >= 0.3) & (pick < 0.35)] = 0.0
    elif kind == "signed_zeros":
        v = rng.choice([-0.0, 0.0, -0.0, 0.0, -1.0], size)
    elif kind == "neg_inf":
        v = np.where(rng.random(size) < 0.75, -np.inf, rng.integers(-3, 4, size).astype(np.float64))
    elif kind == "extremes":
        # float32/bfloat16 subnormals are excluded: TF's CPU kernels run with denormals flushed to zero
        # (test_difference_subnormals); float16 ones widen to normal floats and are compared.
        info = ml_dtypes.finfo(dtype)
        tiny = float(info.smallest_subnormal if np.dtype(dtype) == FLOAT16 else info.smallest_normal)
        v = rng.choice([-finfo_max, finfo_max, -np.inf, np.inf, tiny, -tiny, 0.0, -0.0, 1.0], size)
    else:
        raise ValueError(kind)
    return _cast(v, dtype).reshape(shape)


INPUT_KINDS = ("ties", "ties", "floats", "floats", "specials", "specials", "signed_zeros", "neg_inf", "extremes")


def draw_grad_values(rng, shape, dtype, kind):
    """grad values: fp16 ones stay small enough that no fp16 partial sum can overflow (|g| <= 256)."""
    size = int(np.prod(shape))
    half = np.dtype(dtype) == FLOAT16
    if kind == "ties":
        v = rng.integers(-3, 4, size).astype(np.float64)
    elif kind == "floats":
        v = rng.standard_normal(size)
    elif kind == "wide":
        # mixed exponents: the accumulation order and precision show in the last bits
        low, high = (-12, 7) if half else (-30, 30)
        v = rng.standard_normal(size) * np.exp2(rng.integers(low, high, size))
    elif kind == "specials":
        v = rng.standard_normal(size)
        pick = rng.random(size)
        v[pick < 0.05] = np.inf
        v[(pick >= 0.05) & (pick < 0.1)] = -np.inf
        v[(pick >= 0.1) & (pick < 0.13)] = np.nan
        v[(pick >= 0.13) & (pick < 0.25)] = -0.0
    else:
        raise ValueError(kind)
    return _cast(v, dtype).reshape(shape)


GRAD_KINDS = ("ties", "floats", "wide", "wide", "specials")


# --------------------------------------------------------------------------------------------------------
# Cases


@dataclasses.dataclass
class Case:
    family: str
    seed: int
    number: int
    data_format: str
    dtype: np.dtype
    n: int
    c: int
    h: int
    w: int
    kernel: tuple          # (kh, kw)
    stride: tuple          # (sh, sw)
    mode: str              # VALID / SAME / CALCULATED
    pads: tuple            # (top, bottom, left, right), CALCULATED only
    ceil_mode: bool
    global_pooling: bool
    input_kind: str
    grad_kind: str
    layouts: dict          # operand name -> Layout (outputs: None = let poolgrad allocate)
    implementation: str    # forced poolgrad implementation, or "" for the dispatcher
    tf_api: str

    # derived
    @property
    def out_hw(self):
        if self.global_pooling:
            return 1, 1
        return (pooled_extent(self.h, self.kernel[0], self.stride[0], self.mode, self.pads[0], self.pads[1],
                              self.ceil_mode),
                pooled_extent(self.w, self.kernel[1], self.stride[1], self.mode, self.pads[2], self.pads[3],
                              self.ceil_mode))

    def shape(self, hw):
        h, w = hw
        return (self.n, self.c, h, w) if self.data_format == "NCHW" else (self.n, h, w, self.c)

    @property
    def input_shape(self):
        return self.shape((self.h, self.w))

    @property
    def output_shape(self):
        return self.shape(self.out_hw)

    def attr4(self, pair):
        """A (H, W) pair as a length-4 list in data_format order."""
        return [1, 1, pair[0], pair[1]] if self.data_format == "NCHW" else [1, pair[0], pair[1], 1]

    @property
    def tf_pads(self):
        """TF EXPLICIT paddings (top, bottom, left, right) equivalent to this CALCULATED case."""
        top, bottom = tf_explicit_pads(self.h, self.kernel[0], self.stride[0], self.pads[0], self.pads[1],
                                       self.ceil_mode)
        left, right = tf_explicit_pads(self.w, self.kernel[1], self.stride[1], self.pads[2], self.pads[3],
                                       self.ceil_mode)
        return top, bottom, left, right

    def to_nhwc(self, array):
        return np.transpose(array, (0, 2, 3, 1)) if self.data_format == "NCHW" else array

    def from_nhwc(self, array):
        return np.transpose(array, (0, 3, 1, 2)) if self.data_format == "NCHW" else array

    def describe(self):
        text = (f"seed={self.seed} case={self.number} {self.family} {self.data_format} {self.dtype.name} "
                f"NCHW-dims=({self.n},{self.c},{self.h},{self.w}) out_hw={self.out_hw} k={self.kernel} "
                f"s={self.stride} {self.mode}")
        if self.mode == "CALCULATED":
            text += f" pads={self.pads} ceil_mode={self.ceil_mode} tf_explicit_pads={self.tf_pads}"
        if self.global_pooling:
            text += " global_pooling=True"
        text += f" input={self.input_kind}"
        if self.family == "grad":
            text += f" grad={self.grad_kind}"
        text += f" tf={self.tf_api} impl={self.implementation or 'dispatch'}"
        text += " layouts{" + ", ".join(f"{k}: {'allocated' if v is None else v.describe()}"
                                        for k, v in self.layouts.items()) + "}"
        return text


def _draw_extent(rng):
    r = rng.random()
    if r < 0.15:
        return 1
    if r < 0.9:
        return int(rng.integers(1, 10))
    return int(rng.integers(10, 25))


def _draw_kernel(rng, extent, limit):
    r = rng.random()
    if r < 0.55:
        return int(rng.integers(1, 4))
    if r < 0.8:
        return int(rng.integers(1, extent + 4))            # often larger than the input
    if r < 0.9:
        return extent + int(rng.integers(0, 2))
    return int(rng.integers(1, limit + 1))                 # up to the §6 rule 9 limit


def _draw_stride(rng, limit):
    r = rng.random()
    if r < 0.55:
        return int(rng.integers(1, 3))
    if r < 0.85:
        return int(rng.integers(1, 8))                     # often larger than the kernel
    return int(rng.integers(1, limit + 1))


def _draw_pad(rng, kernel):
    """A CALCULATED pad TF can express: 0 <= pad < kernel."""
    return 0 if rng.random() < 0.3 else int(rng.integers(0, kernel))


def draw_case(rng, family, seed, number, implementations):
    """A random case on which TF and poolgrad must agree (see the module docstring)."""
    grad = family == "grad"
    # §6 rule 9 (grad only): kernel H/W in [1,255], strides in [1,63]; the forward has no limit.
    kernel_limit, stride_limit = (255, 63) if grad else (300, 80)
    dtypes = (FLOAT32, FLOAT32, FLOAT16) if grad else (FLOAT32, FLOAT32, FLOAT16, BFLOAT16)
    while True:
        data_format = str(rng.choice(["NCHW", "NHWC"]))
        n = int(rng.choice([1, 1, 2, 3]))
        c = int(rng.choice([1, 1, 2, 3, 4, 5, 8]))
        h, w = _draw_extent(rng), _draw_extent(rng)
        if n * c * h * w > 4000:
            continue
        kernel = (_draw_kernel(rng, h, kernel_limit), _draw_kernel(rng, w, kernel_limit))
        stride = (_draw_stride(rng, stride_limit), _draw_stride(rng, stride_limit))
        mode = str(rng.choice(["VALID", "SAME", "CALCULATED"]))
        pads, ceil_mode = (0, 0, 0, 0), False
        if mode == "CALCULATED":
            pads = (_draw_pad(rng, kernel[0]), _draw_pad(rng, kernel[0]), _draw_pad(rng, kernel[1]),
                    _draw_pad(rng, kernel[1]))
            ceil_mode = bool(rng.random() < 0.5)
        global_pooling = (not grad) and rng.random() < 0.06
        if global_pooling and mode != "CALCULATED":
            ceil_mode = False
        case = Case(family, seed, number, data_format, np.dtype(rng.choice(dtypes)), n, c, h, w, kernel, stride,
                    mode, pads, ceil_mode, global_pooling, str(rng.choice(INPUT_KINDS)),
                    str(rng.choice(GRAD_KINDS)) if grad else "", {}, "", "")
        ho, wo = case.out_hw
        if ho < 1 or wo < 1:
            continue
        break
    names = ("orig_input", "orig_output", "grad") if grad else ("x",)
    for name in names:
        case.layouts[name] = draw_layout(rng, data_format)
    output = "out_grad" if grad else "y"
    case.layouts[output] = draw_layout(rng, data_format) if rng.random() < 0.6 else None
    # "" = poolgrad's dispatcher (the fastest implementation that accepts the problem), else a forced one
    # that accepts every problem (the task's reference)
    case.implementation = str(rng.choice([""] + list(implementations))) if implementations else ""
    if grad:
        case.tf_api = "raw_ops.MaxPoolGrad"
    else:
        apis = ["raw_ops.MaxPool", "nn.max_pool2d"] + ([] if mode == "CALCULATED" else ["raw_ops.MaxPoolV2"])
        case.tf_api = str(rng.choice(apis))
    return case
