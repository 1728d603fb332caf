"""Conformance of poolgrad.max_pool (aclnnMaxPool, ONNX MaxPool) with PyTorch, and of poolgrad.max_pool_v3
(aclnnMaxPoolV3) with the same reference.

ONNX MaxPool with pads {top, left, bottom, right} is PyTorch's max_pool2d (padding 0) of the input padded
with -inf explicitly (F.pad, asymmetric): padding never wins a window that holds an input element (SPEC §7.3
keeps every pad below its kernel), and NaN propagates in both. Where the two semantics part — ceil mode with
bottom/right padding, where PyTorch keeps a last window that starts inside the explicit padding and
aclnnMaxPool (like CANN) drops it — the random cases keep bottom = right = 0 in ceil mode; the difference is
pinned in test_by_design_ceil_window_in_bottom_padding. Values are compared bit for bit (float32; NaN
positions equal), CASES random cases per seed, on strided input views.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import poolgrad
from conftest import AGREEING_CASES

torch.set_num_threads(1)
CASES = 200


def random_case(rng):
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    h, w = int(rng.integers(1, 12)), int(rng.integers(1, 12))
    kh, kw = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    sh, sw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    ceil = int(rng.integers(0, 2))
    top, left = int(rng.integers(0, kh)), int(rng.integers(0, kw))
    bottom = 0 if ceil else int(rng.integers(0, min(kh - 1, kh - top) + 1))
    right = 0 if ceil else int(rng.integers(0, min(kw - 1, kw - left) + 1))
    return n, c, h, w, (kh, kw), (sh, sw), (top, left, bottom, right), ceil


def torch_reference(x, kernel, strides, pads, ceil):
    top, left, bottom, right = pads
    padded = F.pad(torch.from_numpy(np.ascontiguousarray(x)), (left, right, top, bottom), value=float("-inf"))
    return F.max_pool2d(padded, kernel, strides, 0, 1, bool(ceil)).numpy()


def same_bits(a, b):
    return a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(
        np.where(np.isnan(a), 0, a).view(np.uint32), np.where(np.isnan(b), 0, b).view(np.uint32))


def strided_input(rng, shape):
    """A view with a gap after every axis and, sometimes, channels-last storage."""
    n, c, h, w = shape
    if rng.integers(0, 2):
        base = np.empty((n, h + 1, w + 2, c + 1), dtype=np.float32)
        return base[:, :h, :w, :c].transpose(0, 3, 1, 2)
    base = np.empty((n, c + 1, h + 2, w + 1), dtype=np.float32)
    return base[:, :c, 1:h + 1, :w]


def random_values(rng, shape):
    values = (rng.integers(-40, 41, size=shape) / 8.0).astype(np.float32)
    values[rng.random(shape) < 0.03] = np.nan
    values[rng.random(shape) < 0.03] = -np.inf
    return values


def test_max_pool_random_cases_vs_torch(seed):
    rng = np.random.default_rng(seed)
    agreeing = 0
    for case in range(CASES):
        n, c, h, w, kernel, strides, pads, ceil = random_case(rng)
        try:
            torch_reference(np.zeros((n, c, h, w), np.float32), kernel, strides, pads, ceil)
        except RuntimeError:  # output smaller than 1x1: both refuse
            continue
        x = strided_input(rng, (n, c, h, w))
        x[...] = random_values(rng, (n, c, h, w))
        expected = torch_reference(x, kernel, strides, pads, ceil)
        got = poolgrad.max_pool(x, kernel, strides, 0, pads, (1, 1), ceil)
        assert same_bits(got, expected), (f"seed {seed} case {case}: x {x.shape} kernel {kernel} strides {strides} "
                                          f"pads {pads} ceil {ceil}")
        # aclnnMaxPoolV3 is the same operator with pads {top, bottom, left, right} and [N, C, H, W] lists.
        top, left, bottom, right = pads
        got_v3 = poolgrad.max_pool_v3(x, [1, 1, *kernel], [1, 1, *strides], [top, bottom, left, right], ceil)
        assert same_bits(got_v3, expected), f"seed {seed} case {case} (max_pool_v3)"
        agreeing += 1
    assert agreeing >= CASES // 2
    AGREEING_CASES[("torch", "ONNX max pool: aclnnMaxPool and aclnnMaxPoolV3 (-inf padded max_pool2d)")] += agreeing


def test_max_pool_integer_dtypes_vs_torch_on_int64():
    """Integers: PyTorch's CPU max_pool2d takes none, so the reference is its float64 run on values that
    float64 holds exactly (every int32 and below; int64 within 2^53)."""
    rng = np.random.default_rng(11)
    for dtype in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64):
        info = np.iinfo(dtype)
        low, high = max(info.min, -(1 << 53)), min(info.max, 1 << 53)
        x = rng.integers(low, high, size=(2, 3, 7, 6), dtype=np.int64, endpoint=True).astype(dtype)
        got = poolgrad.max_pool(x, (3, 2), (2, 1), 0, (1, 0, 1, 1), (), 0)
        padded = F.pad(torch.from_numpy(x.astype(np.float64)), (0, 1, 1, 1), value=float("-inf"))
        expected = F.max_pool2d(padded, (3, 2), (2, 1)).numpy().astype(dtype)
        assert got.dtype == dtype and np.array_equal(got, expected), dtype


def test_by_design_ceil_window_in_bottom_padding():
    """Ceil mode with bottom padding: PyTorch on the explicitly padded input keeps a last window that starts in
    the bottom padding (all -inf); aclnnMaxPool drops it (CANN's rule: a window must start inside
    input + top padding, SPEC §7.3)."""
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    ours = poolgrad.max_pool(x, (2, 2), (2, 2), 0, (0, 0, 1, 0), (), 1)
    theirs = torch_reference(x, (2, 2), (2, 2), (0, 0, 1, 0), 1)
    assert ours.shape == (1, 1, 1, 1) and ours[0, 0, 0, 0] == 3
    assert theirs.shape == (1, 1, 2, 1) and theirs[0, 0, 1, 0] == -np.inf


def test_max_pool_refusals_raise_the_library_error():
    x = np.zeros((1, 1, 4, 4), np.float32)
    with pytest.raises(poolgrad.PoolgradError) as error:
        poolgrad.max_pool(x, (2, 2), (), 1)  # autoPad other than NOTSET
    assert error.value.status == 161002 and "autoPad" in str(error.value)
    with pytest.raises(poolgrad.PoolgradError) as error:
        poolgrad.max_pool_v3(x, [1, 1, 2, 2], [1, 1, 0, 2])
    assert error.value.status == 161002
