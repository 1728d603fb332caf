"""Differential conformance: poolgrad against PyTorch (CPU, torch 1.13) on the same inputs.

Four operator families, each run on CASES_PER_SEED random cases per seed (conftest's three seeds):

  3-D           F.max_pool3d(return_indices=True) / aten.max_pool3d_with_indices_backward
                  <-> max_pool3d_with_argmax / max_pool3d_with_argmax_backward
  adaptive 3-D  F.adaptive_max_pool3d / aten.adaptive_max_pool3d_backward
                  <-> adaptive_max_pool3d / adaptive_max_pool3d_backward
  2-D           F.max_pool2d / aten.max_pool2d_with_indices_backward
                  <-> max_pool2d_with_indices(_backward) and max_pool2d_with_mask(_backward) (mask opaque)
  adaptive 2-D  F.adaptive_max_pool2d / aten.adaptive_max_pool2d_backward
                  <-> adaptive_max_pool2d / adaptive_max_pool2d_backward

What is compared, and how exactly:
  * forward values: bit-exact (+0.0 and -0.0 distinguished, NaN positions equal);
  * indices: exactly equal (ties -> first occurrence, NaN -> last NaN of the window: SPEC §3.7, which is also
    PyTorch's `val > max || isnan(val)` rule), except where a window is empty (test_by_design_4);
  * gradients: bit-exact, no tolerance. PyTorch's CPU backward kernels (2-D, 3-D, adaptive) scatter
    `grad_input[idx] += grad_output[o]` in float32 in increasing output order per plane, which is exactly
    SPEC §3.6's canonical order, so float32 sums agree to the bit even where windows overlap (checked here on
    every case). For float16/bfloat16 the PyTorch reference is computed on the exactly widened float32
    gradOutput and rounded ONCE to the 16-bit type with round-to-nearest-even (numpy/ml_dtypes astype), which
    is SPEC §3.6's rule; poolgrad must match that bit for bit. (PyTorch's own bf16 backward accumulates in
    bf16 and therefore differs by design: test_by_design_3.)

Dtypes: PyTorch 1.13's CPU kernels implement float16 for none of these ops and bfloat16 only for the 2-D ones
(max_pool2d, adaptive_max_pool2d). The reference for 16-bit cases is therefore PyTorch on the widened float32
values: widening fp16/bf16 -> fp32 is exact and injective and preserves order, NaN-ness and the sign of
zero, so max/argmax of the widened values is the max/argmax of the originals, and narrowing the selected
value back is exact. For bfloat16 2-D cases the native bf16 PyTorch forward is compared as well (adaptive:
planes of <= 256 elements only, see test_torch_defect_bf16_adaptive_indices).

Inputs are handed to poolgrad as strided views (channels-last, permuted, stepped slices, non-zero offsets,
negative strides on axes longer than 1; see test_input_with_negative_stride_on_size_one_axis for the others);
PyTorch gets contiguous copies. Backward `self` arguments are sometimes NaN-filled (their data is never read).
Outputs are either allocated by the module or passed as poisoned strided views (out=/indices=/mask=/grad_input=),
and the poison outside the view must survive.

By-design differences (SPEC deliberately differs from PyTorch) are excluded from the random cases and pinned in
the test_by_design_* tests below; each one's docstring names the SPEC section.

Replay: every assertion message carries the seed, the case number and the case's parameters; a rotating seed is
replayed with POOLGRAD_ROTATING_SEED=<seed>, and POOLGRAD_CONFORMANCE_CASE=<n> restricts the random tests to
case n.
"""

import os

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import poolgrad
from conftest import AGREEING_CASES, SEEDS, case_generators
from torch_conformance_cases import (BF16, adaptive_case, bits_equal, empty_window_mask, first_difference,
                                     input_view, make_data, make_grad, output_view, pick_dtype, pick_index_dtype,
                                     regular_case)

torch.set_num_threads(1)
aten = torch.ops.aten

CASES_PER_SEED = 700
ONLY_CASE = os.environ.get("POOLGRAD_CONFORMANCE_CASE")


def _run_cases(family, seed, run_case, axes):
    """Runs every case of `seed`; an exception other than a failed comparison (e.g. a PoolgradError on a valid
    case) is re-raised as a failure carrying the same replay information."""
    for case, rng in enumerate(case_generators(seed, CASES_PER_SEED)):
        if ONLY_CASE is not None and int(ONLY_CASE) != case:
            continue
        Context.current = None
        try:
            run_case(family, seed, case, rng, axes)
        except AssertionError:
            raise
        except Exception as error:
            ctx = Context.current or Context(family, seed, case, {})
            raise AssertionError(ctx(f"raised {type(error).__name__}: {error}")) from error
        AGREEING_CASES[("PyTorch", family)] += 1


class Context:
    """The replay information every assertion message carries."""
    current = None

    def __init__(self, family, seed, case, params):
        self.prefix = f"[{family}] seed={seed} case={case}"
        self.params = params
        Context.current = self

    def __call__(self, what, detail=""):
        parameters = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.prefix}: {what} {detail}\n  parameters: {parameters}"


def _check_values(ctx, what, actual, expected):
    assert actual.dtype == expected.dtype, ctx(what, f"dtype {actual.dtype} != {expected.dtype}")
    assert bits_equal(actual, expected), ctx(what, first_difference(actual, expected))


def _check_indices(ctx, what, actual, expected, index_dtype):
    assert actual.dtype == index_dtype, ctx(what, f"dtype {actual.dtype} != {index_dtype}")
    assert np.array_equal(actual.astype(np.int64), expected), ctx(what, first_difference(actual, expected))


def _check_in_place(ctx, what, result, view, buffer):
    if view is None:
        assert result.flags.c_contiguous, ctx(what, "allocated output is not C-contiguous")
        return
    assert result is view, ctx(what, "the in-place output view was not returned")
    assert buffer.untouched_outside(), ctx(what, "wrote outside the output view")


def _self_argument(rng, x_view, dtype, axes):
    """Backward ops read only self's shape and dtype (SPEC §3.6): pass the input view, or a NaN-filled array
    (contiguous or strided) of the same shape."""
    choice = int(rng.integers(0, 3))
    if choice == 0:
        return x_view, "input view"
    if choice == 1:
        return np.full(x_view.shape, np.nan, dtype=dtype), "NaN-filled"
    view, layout, _ = output_view(rng, x_view.shape, dtype, axes, layout="permuted_stepped")
    view[...] = np.nan
    return view, "NaN-filled permuted_stepped"


def _widened(array):
    return torch.from_numpy(np.ascontiguousarray(np.asarray(array).astype(np.float32)))


def _kw(**kwargs):
    return {k: v for k, v in kwargs.items() if v is not None}


class _BackwardOperands:
    """The operands both libraries' backwards get: gradOutput (a random view), indices (usually the
    forward's, sometimes random positions from `lowest_index` up), self and a gradInput view."""

    def __init__(self, rng, ctx, case, x_view, dtype, index_dtype, axes, expected_idx, lowest_index):
        self.go, go_kind = make_grad(rng, case["out_shape"], dtype)
        self.go_view, go_layout, _ = input_view(rng, self.go, axes)
        plane = int(np.prod(case["spatial"]))
        self.random_indices = rng.random() < 0.15
        self.indices = (rng.integers(lowest_index, plane, size=case["out_shape"]) if self.random_indices
                        else expected_idx)
        self.indices_view, indices_layout, _ = input_view(rng, self.indices.astype(index_dtype), axes)
        self.self_arg, self_kind = _self_argument(rng, x_view, dtype, axes)
        self.gi_view, gi_layout, self.gi_buffer = output_view(rng, case["shape"], dtype, axes)
        ctx.params.update(grad_output=go_kind, grad_output_layout=go_layout, random_indices=self.random_indices,
                          backward_indices_layout=indices_layout, backward_self=self_kind,
                          grad_input_layout=gi_layout)


def _check_backward(ctx, ops, backward, reference, expected_idx, pg_idx):
    """poolgrad's backward against PyTorch's (`reference(indices)`) on the same indices, written in place,
    then on poolgrad's own forward indices; returns the expected gradInput for those."""
    expected_gi = reference(ops.indices)
    pg_gi = backward(ops.go_view, ops.self_arg, ops.indices_view, **_kw(grad_input=ops.gi_view))
    _check_values(ctx, "backward gradInput (same indices as torch)", pg_gi, expected_gi)
    _check_in_place(ctx, "backward grad_input", pg_gi, ops.gi_view, ops.gi_buffer)
    forward_gi = expected_gi if not ops.random_indices else reference(expected_idx)
    pg_gi_own = backward(ops.go_view, ops.self_arg, pg_idx)
    _check_values(ctx, "backward gradInput (poolgrad's own forward indices)", pg_gi_own, forward_gi)
    return forward_gi


# ---------------------------------------------------------------------------------------------------------
# Families 1 and 3: max_pool3d / max_pool2d (+ mask).

def _run_regular_case(family, seed, case, rng, axes):
    c = regular_case(rng, axes)
    dtype, index_dtype = pick_dtype(rng), pick_index_dtype(rng)
    x, data_kind = make_data(rng, c["shape"], dtype)
    x_view, in_layout, x_buffer = input_view(rng, x, axes)
    x_base_before = None if x_buffer is None else x_buffer.base.copy()
    out_view, out_layout, out_buffer = output_view(rng, c["out_shape"], dtype, axes)
    idx_view, idx_layout, idx_buffer = output_view(rng, c["out_shape"], index_dtype, axes)
    attrs = (c["kernel_size"], c["stride"], c["padding"], c["dilation"], c["ceil_mode"])
    ctx = Context(family, seed, case, dict(
        shape=c["shape"], out_shape=c["out_shape"], dtype=dtype.name, index_dtype=index_dtype.name,
        kernel_size=c["kernel_size"], stride=c["stride"], padding=c["padding"], dilation=c["dilation"],
        ceil_mode=c["ceil_mode"], data=data_kind, self_layout=in_layout, out_layout=out_layout,
        indices_layout=idx_layout))

    # PyTorch forward on the (exactly) widened values.
    xt = _widened(x)
    pool = F.max_pool3d if axes == 3 else F.max_pool2d
    t_out, t_idx = pool(xt, c["k"], c["s"], c["p"], c["d"], c["ceil_mode"], return_indices=True)
    lead = c["shape"][:len(c["shape"]) - axes]
    empty = np.broadcast_to(empty_window_mask(c["spatial"], c["out_spatial"], c["k"], c["s"], c["p"], c["d"]),
                            c["out_shape"])
    # test_by_design_4: an empty window (dilation > 1) is -inf in both; PyTorch's index there is not -1.
    assert np.all(np.isneginf(t_out.numpy()[empty])), ctx("torch value at an empty window is not -inf")
    expected_idx = np.where(empty, -1, t_idx.numpy())
    expected_out = t_out.numpy().astype(dtype)

    forward = poolgrad.max_pool3d_with_argmax if axes == 3 else poolgrad.max_pool2d_with_indices
    pg_out, pg_idx = forward(x_view, *attrs, index_dtype=index_dtype, **_kw(out=out_view, indices=idx_view))
    _check_values(ctx, "forward values", pg_out, expected_out)
    _check_indices(ctx, "forward indices", pg_idx, expected_idx, index_dtype)
    _check_in_place(ctx, "forward out", pg_out, out_view, out_buffer)
    _check_in_place(ctx, "forward indices", pg_idx, idx_view, idx_buffer)

    if axes == 2 and dtype == BF16:  # PyTorch's native bf16 2-D forward must agree as well
        n_out, n_idx = F.max_pool2d(xt.bfloat16(), c["k"], c["s"], c["p"], c["d"], c["ceil_mode"],
                                    return_indices=True)
        assert bits_equal(n_out.float().numpy(), expected_out), ctx("torch native bf16 forward values differ")
        assert np.array_equal(np.where(empty, -1, n_idx.numpy()), expected_idx), ctx("torch bf16 indices")

    # Backward: the same gradOutput and indices to both; indices usually the forward's, sometimes random
    # in-range positions (scattered even when outside the window, SPEC §3.6) and -1 (skipped by both).
    ops = _BackwardOperands(rng, ctx, c, x_view, dtype, index_dtype, axes, expected_idx, lowest_index=-1)
    torch_backward = aten.max_pool3d_with_indices_backward if axes == 3 else aten.max_pool2d_with_indices_backward
    got = _widened(ops.go)

    def reference(indices):
        t = torch_backward(got, xt, list(c["k"]), list(c["s"]), list(c["p"]), list(c["d"]), c["ceil_mode"],
                           torch.from_numpy(np.ascontiguousarray(indices, dtype=np.int64)))
        with np.errstate(over="ignore"):  # a float32 sum beyond the 16-bit range rounds to ±Inf (SPEC §3.6)
            return t.numpy().astype(dtype)  # float32 sums rounded once (RNE) to the 16-bit types

    backward = poolgrad.max_pool3d_with_argmax_backward if axes == 3 else poolgrad.max_pool2d_with_indices_backward
    forward_gi = _check_backward(
        ctx, ops, lambda go, self_arg, indices, **kw: backward(go, self_arg, indices, *attrs, **kw), reference,
        expected_idx, pg_idx)

    if axes == 2:  # the mask pair: opaque mask, compare values and the gradient it routes
        windows = int(np.prod(c["out_spatial"]))
        mask_shape = tuple(lead) + (c["k"][0] * c["k"][1], (-(-windows // 16) + 1) * 32)
        # The mask is opaque bytes holding INT32 values: poolgrad requires it dense row-major at a 4-byte
        # aligned address (docs/decisions.md "Mask layout", a documented departure from SPEC §2.4).
        mask_view, mask_layout, mask_buffer = output_view(rng, mask_shape, np.int8, axes,
                                                          layouts=("allocated", "contiguous", "offset"),
                                                          offset_unit=4)
        m_out_view, m_out_layout, m_out_buffer = output_view(rng, c["out_shape"], dtype, axes)
        ctx.params.update(mask_layout=mask_layout, mask_out_layout=m_out_layout)
        m_out, mask = poolgrad.max_pool2d_with_mask(x_view, *attrs, **_kw(out=m_out_view, mask=mask_view))
        _check_values(ctx, "mask forward values", m_out, expected_out)
        assert mask.dtype == np.int8 and mask.shape == mask_shape, ctx("mask", f"{mask.dtype} {mask.shape}")
        _check_in_place(ctx, "mask forward out", m_out, m_out_view, m_out_buffer)
        _check_in_place(ctx, "mask forward mask", mask, mask_view, mask_buffer)
        gm_view, gm_layout, gm_buffer = output_view(rng, c["shape"], dtype, axes)
        ctx.params.update(mask_grad_input_layout=gm_layout)
        pg_gm = poolgrad.max_pool2d_with_mask_backward(ops.go_view, ops.self_arg, mask, *attrs,
                                                       **_kw(grad_input=gm_view))
        _check_values(ctx, "mask backward gradInput", pg_gm, forward_gi)
        _check_in_place(ctx, "mask backward grad_input", pg_gm, gm_view, gm_buffer)

    if x_buffer is not None:
        assert np.array_equal(x_buffer.base.view(np.uint8), x_base_before.view(np.uint8)), ctx("self was modified")


@pytest.mark.parametrize("family,axes", [("3-D", 3), ("2-D", 2)], ids=["max_pool3d", "max_pool2d"])
def test_max_pool_random_cases(seed, family, axes):
    _run_cases(family, seed, _run_regular_case, axes)


# ---------------------------------------------------------------------------------------------------------
# Families 2 and 4: adaptive max pooling.

def _run_adaptive_case(family, seed, case, rng, axes):
    c = adaptive_case(rng, axes)
    dtype, index_dtype = pick_dtype(rng), pick_index_dtype(rng)
    x, data_kind = make_data(rng, c["shape"], dtype)
    x_view, in_layout, x_buffer = input_view(rng, x, axes)
    out_view, out_layout, out_buffer = output_view(rng, c["out_shape"], dtype, axes)
    idx_view, idx_layout, idx_buffer = output_view(rng, c["out_shape"], index_dtype, axes)
    ctx = Context(family, seed, case, dict(
        shape=c["shape"], output_size=c["output_size"], out_shape=c["out_shape"], dtype=dtype.name,
        index_dtype=index_dtype.name, data=data_kind, self_layout=in_layout, out_layout=out_layout,
        indices_layout=idx_layout))

    xt = _widened(x)
    pool = F.adaptive_max_pool3d if axes == 3 else F.adaptive_max_pool2d
    t_out, t_idx = pool(xt, c["out_spatial"], return_indices=True)
    expected_out, expected_idx = t_out.numpy().astype(dtype), t_idx.numpy()

    forward = poolgrad.adaptive_max_pool3d if axes == 3 else poolgrad.adaptive_max_pool2d
    pg_out, pg_idx = forward(x_view, c["output_size"], index_dtype=index_dtype,
                             **_kw(out=out_view, indices=idx_view))
    _check_values(ctx, "forward values", pg_out, expected_out)
    _check_indices(ctx, "forward indices", pg_idx, expected_idx, index_dtype)
    _check_in_place(ctx, "forward out", pg_out, out_view, out_buffer)
    _check_in_place(ctx, "forward indices", pg_idx, idx_view, idx_buffer)

    if axes == 2 and dtype == BF16 and int(np.prod(c["spatial"])) <= 256:
        # PyTorch 1.13's native bf16 adaptive_max_pool2d rounds its indices to bf16 (exact only up to 256):
        # see test_torch_defect_bf16_adaptive_indices. Smaller planes are compared.
        n_out, n_idx = F.adaptive_max_pool2d(xt.bfloat16(), c["out_spatial"], return_indices=True)
        assert bits_equal(n_out.float().numpy(), expected_out), ctx("torch native bf16 forward values differ")
        assert np.array_equal(n_idx.numpy(), expected_idx), ctx("torch native bf16 indices differ")

    # Random indices stay in [0, plane): PyTorch's adaptive backward writes grad_input[-1] for an index -1
    # (heap corruption), where poolgrad skips it (test_by_design_5).
    ops = _BackwardOperands(rng, ctx, c, x_view, dtype, index_dtype, axes, expected_idx, lowest_index=0)
    torch_backward = aten.adaptive_max_pool3d_backward if axes == 3 else aten.adaptive_max_pool2d_backward
    got = _widened(ops.go)

    def reference(indices):
        t = torch_backward(got, xt, torch.from_numpy(np.ascontiguousarray(indices, dtype=np.int64)))
        with np.errstate(over="ignore"):
            return t.numpy().astype(dtype)

    backward = poolgrad.adaptive_max_pool3d_backward if axes == 3 else poolgrad.adaptive_max_pool2d_backward
    _check_backward(ctx, ops, backward, reference, expected_idx, pg_idx)


@pytest.mark.parametrize("family,axes", [("adaptive 3-D", 3), ("adaptive 2-D", 2)],
                         ids=["adaptive_max_pool3d", "adaptive_max_pool2d"])
def test_adaptive_max_pool_random_cases(seed, family, axes):
    _run_cases(family, seed, _run_adaptive_case, axes)


def test_random_case_budget():
    """The issue's floor: at least 2,000 random cases per family per run (summed over the seeds)."""
    assert CASES_PER_SEED * len(SEEDS) >= 2000


# ---------------------------------------------------------------------------------------------------------
# Small exact cases: hand-checkable expectations that BOTH libraries must meet (SPEC §9 worked examples and
# the selection rules of §3.7). Each row: op, input, attributes, expected out / indices, gradOutput, gradInput.

NAN, INF = float("nan"), float("inf")

EXACT_CASES = [
    # WE-2: overlapping windows, all pick the 9; gradient accumulates 1+2+3+4.
    dict(id="WE-2 overlap 3-D", op="3d", x=[1, 2, 3, 4, 9, 5, 6, 7, 8], shape=(1, 1, 1, 3, 3),
         attrs=([1, 2, 2], [1, 1, 1], [0, 0, 0], 1, False), out=[9, 9, 9, 9], idx=[4, 4, 4, 4],
         go=[1, 2, 3, 4], gi=[0, 0, 0, 0, 10, 0, 0, 0, 0]),
    # WE-3 ceil mode: a third, partial window.
    dict(id="WE-3 ceil", op="3d", x=[1, 5, 2, 3, 9], shape=(1, 1, 1, 1, 5),
         attrs=([1, 1, 2], [1, 1, 2], [0, 0, 0], 1, True), out=[5, 3, 9], idx=[1, 3, 4], go=[1, 2, 3],
         gi=[0, 1, 0, 2, 3]),
    # WE-4: the ceil-mode window that would start in the right padding is dropped.
    dict(id="WE-4 last-window rule", op="3d", x=[1, 5, 2, 3, 9], shape=(1, 1, 1, 1, 5),
         attrs=([1, 1, 2], [1, 1, 2], [0, 0, 1], 1, True), out=[1, 5, 9], idx=[0, 1, 4], go=[1, 2, 3],
         gi=[1, 2, 0, 0, 3]),
    # WE-5: padding never wins, even against negative values.
    dict(id="WE-5 padding never wins", op="3d", x=[-5, -1, -7, -2], shape=(1, 1, 1, 1, 4),
         attrs=([1, 1, 3], [1, 1, 2], [0, 0, 1], 1, False), out=[-1, -1], idx=[1, 1], go=[1, 2],
         gi=[0, 3, 0, 0]),
    # WE-6: 4-D (C,D,H,W) input, indices are plane-relative.
    dict(id="WE-6 4-D planes", op="3d", x=list(range(16)), shape=(2, 2, 2, 2),
         attrs=([2], None, [0], 1, False), out=[7, 15], idx=[7, 7], go=[1, 2],
         gi=[0] * 7 + [1] + [0] * 7 + [2]),
    # WE-11 (as 2-D, one window per channel): ties -> first, NaN -> last NaN, all -inf -> first.
    dict(id="WE-11 tie/NaN/-inf 2-D", op="2d",
         x=[3, 3, 1, 3, 1, NAN, 5, NAN, 1, NAN, 5, 2, -INF, -INF, -INF, -INF], shape=(4, 2, 2),
         attrs=([2, 2], [], [0], [1], False), out=[3, NAN, NAN, -INF], idx=[0, 3, 1, 0], go=[1, 2, 3, 4],
         gi=[1, 0, 0, 0, 0, 0, 0, 2, 0, 3, 0, 0, 4, 0, 0, 0]),
    # Signed zeros tie: the first one is kept with its sign.
    dict(id="-0.0 before +0.0", op="2d", x=[-0.0, 0.0, -1, -2, 0.0, -0.0, -1, -2], shape=(2, 2, 2),
         attrs=(2, None, 0, 1, False), out=[-0.0, 0.0], idx=[0, 0], go=[1, 1], gi=[1, 0, 0, 0, 1, 0, 0, 0]),
    # Dilation 2 along W: windows {0,2}, {1,3}, {2,4}.
    dict(id="dilation 2-D", op="2d", x=[3, 1, 4, 1, 5], shape=(1, 1, 1, 5),
         attrs=([1, 2], [1], [0], [1, 2], False), out=[4, 1, 5], idx=[2, 1, 4], go=[1, 2, 3],
         gi=[0, 2, 1, 0, 3]),
    # Padding 1, stride 2 on 3x3: corner windows.
    dict(id="padding 2-D", op="2d", x=list(range(1, 10)), shape=(1, 1, 3, 3),
         attrs=(2, 2, 1, 1, False), out=[1, 3, 7, 9], idx=[0, 2, 6, 8], go=[1, 2, 3, 4],
         gi=[1, 0, 2, 0, 0, 0, 3, 0, 4]),
    # WE-7: adaptive overlap (D windows [0,2), [1,3)).
    dict(id="WE-7 adaptive overlap", op="a3d", x=[1, 9, 2], shape=(1, 1, 3, 1, 1), attrs=([2, 1, 1],),
         out=[9, 9], idx=[1, 1], go=[0.5, 0.25], gi=[0, 0.75, 0]),
    # WE-8: adaptive non-divisible windows [0,2), [1,4), [3,5).
    dict(id="WE-8 adaptive non-divisible", op="a3d", x=[3, 1, 4, 1, 5], shape=(1, 1, 1, 1, 5),
         attrs=([1, 1, 3],), out=[3, 4, 5], idx=[0, 2, 4], go=[1, 10, 100], gi=[1, 0, 10, 0, 100]),
    # WE-12 (ops-nn example) as adaptive 2-D on (2,3,4) with element 4 = 4.1.
    dict(id="WE-12 adaptive 2-D", op="a2d", x=[0, 1, 2, 3, 4.1] + list(range(5, 24)), shape=(2, 3, 4),
         attrs=([2, 2],), out=[5, 7, 9, 11, 17, 19, 21, 23], idx=[5, 7, 9, 11, 5, 7, 9, 11],
         go=[1, 2, 3, 4, 5, 6, 7, 8], gi=[0] * 5 + [1, 0, 2, 0, 3, 0, 4] + [0] * 5 + [5, 0, 6, 0, 7, 0, 8]),
]

_OPS = {
    "3d": (poolgrad.max_pool3d_with_argmax, poolgrad.max_pool3d_with_argmax_backward),
    "2d": (poolgrad.max_pool2d_with_indices, poolgrad.max_pool2d_with_indices_backward),
    "a3d": (poolgrad.adaptive_max_pool3d, poolgrad.adaptive_max_pool3d_backward),
    "a2d": (poolgrad.adaptive_max_pool2d, poolgrad.adaptive_max_pool2d_backward),
}


def _torch_exact(op, x, attrs, go):
    """PyTorch's (out, indices, gradInput) for an exact case, float32."""
    xt, got = torch.from_numpy(x), torch.from_numpy(go)
    if op in ("3d", "2d"):
        axes = 3 if op == "3d" else 2
        kernel_size, stride, padding, dilation, ceil_mode = attrs
        k = [int(v) for v in np.broadcast_to(kernel_size, (axes,))]
        s = k if not stride else [int(v) for v in np.broadcast_to(stride, (axes,))]
        p = [int(v) for v in np.broadcast_to(padding, (axes,))]
        d = [int(v) for v in np.broadcast_to(dilation, (axes,))]
        pool = F.max_pool3d if axes == 3 else F.max_pool2d
        backward = aten.max_pool3d_with_indices_backward if axes == 3 else aten.max_pool2d_with_indices_backward
        out, idx = pool(xt, k, s, p, d, ceil_mode, return_indices=True)
        gi = backward(got.reshape(out.shape), xt, k, s, p, d, ceil_mode, idx)
    else:
        pool = F.adaptive_max_pool3d if op == "a3d" else F.adaptive_max_pool2d
        backward = aten.adaptive_max_pool3d_backward if op == "a3d" else aten.adaptive_max_pool2d_backward
        out, idx = pool(xt, tuple(attrs[0]), return_indices=True)
        gi = backward(got.reshape(out.shape), xt, idx)
    return out.numpy(), idx.numpy(), gi.numpy()


@pytest.mark.parametrize("row", EXACT_CASES, ids=[row["id"] for row in EXACT_CASES])
def test_exact_cases(row):
    x = np.array(row["x"], np.float32).reshape(row["shape"])
    go = np.array(row["go"], np.float32)
    expected_out, expected_idx = np.array(row["out"], np.float32), np.array(row["idx"])
    expected_gi = np.array(row["gi"], np.float32)
    forward, backward = _OPS[row["op"]]
    out, idx = forward(x, *row["attrs"])
    assert bits_equal(out.ravel(), expected_out), f"poolgrad out {out.ravel()}"
    assert np.array_equal(idx.ravel(), expected_idx), f"poolgrad indices {idx.ravel()}"
    if row["op"] in ("a3d", "a2d"):
        gi = backward(go.reshape(out.shape), x, idx)
    else:
        gi = backward(go.reshape(out.shape), x, idx, *row["attrs"])
    assert bits_equal(gi.ravel(), expected_gi), f"poolgrad gradInput {gi.ravel()}"
    t_out, t_idx, t_gi = _torch_exact(row["op"], x, row["attrs"], go)
    assert bits_equal(t_out.ravel(), expected_out), f"torch out {t_out.ravel()}"
    assert np.array_equal(t_idx.ravel(), expected_idx), f"torch indices {t_idx.ravel()}"
    assert bits_equal(t_gi.ravel(), expected_gi), f"torch gradInput {t_gi.ravel()}"


def test_exact_fp16_accumulation_and_mask_pair():
    """WE-10 on the 2-D indices and mask pairs: the float32 sum 2048+1+1 = 2050 is rounded once, giving 2050 in
    float16 (naive fp16 summation would stay at 2048) and 2048 in bfloat16 (8 significant bits)."""
    x = np.array([1, 2, 3, 4, 9, 5, 6, 7, 8], np.float32).reshape(1, 1, 3, 3)
    for dtype, expected in ((np.float16, 2050.0), (BF16, 2048.0)):
        xs = x.astype(dtype)
        out, idx = poolgrad.max_pool2d_with_indices(xs, 2, 1, 0)
        go = np.array([2048, 1, 1, 0], np.float32).reshape(out.shape).astype(dtype)
        gi = poolgrad.max_pool2d_with_indices_backward(go, xs, idx, 2, 1, 0)
        m_out, mask = poolgrad.max_pool2d_with_mask(xs, 2, 1, 0)
        gm = poolgrad.max_pool2d_with_mask_backward(go, xs, mask, 2, 1, 0)
        want = np.zeros(9, np.float32)
        want[4] = expected
        assert bits_equal(gi.ravel(), want.astype(dtype)), f"{np.dtype(dtype).name}: {gi.ravel()}"
        assert bits_equal(gm.ravel(), want.astype(dtype)), f"{np.dtype(dtype).name} mask: {gm.ravel()}"


# ---------------------------------------------------------------------------------------------------------
# By-design differences (SPEC deliberately differs from PyTorch 1.13). Each test pins both sides; the random
# generator above never produces these situations (or handles them explicitly, as noted).

def test_by_design_1_index_dtype():
    """Indices: poolgrad defaults to INT32 and accepts INT64 (SPEC §3.5, §7.1, §11 #15); PyTorch produces
    and accepts int64 only (its backward refuses int32 indices). The random cases compare values, not dtypes."""
    x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    _, idx = poolgrad.max_pool2d_with_indices(x, 2)
    assert idx.dtype == np.int32
    _, idx64 = poolgrad.max_pool2d_with_indices(x, 2, index_dtype=np.int64)
    assert idx64.dtype == np.int64
    t_out, t_idx = F.max_pool2d(torch.from_numpy(x), 2, return_indices=True)
    assert t_idx.dtype == torch.int64
    with pytest.raises(RuntimeError, match="Long"):
        aten.max_pool2d_with_indices_backward(t_out, torch.from_numpy(x), [2, 2], [2, 2], [0, 0], [1, 1], False,
                                              t_idx.int())


def _torch_16_bit_or_missing(call):
    """PyTorch's answer for a 16-bit input, or None where its CPU kernel is not implemented (1.13's float16
    kernels and its 3-D bfloat16 ones; 2.x implements them)."""
    try:
        return call()
    except RuntimeError as error:
        assert "not implemented" in str(error), str(error)
        return None


def test_by_design_2_sixteen_bit_dtypes():
    """FLOAT16 everywhere and BF16 for the 3-D ops are poolgrad dtypes (SPEC §4, §7.1, §7.2) that PyTorch 1.13's
    CPU kernels do not implement; the random cases use PyTorch on the exactly widened float32 values. PyTorch
    2.x implements them: there its 16-bit answer must be poolgrad's, value and index."""
    x = np.arange(8, dtype=np.float32).reshape(1, 1, 2, 2, 2)
    x[0, 0, 1, 0, 1] = 9  # the maximum off the last position, so that an index mix-up shows
    torch_1 = int(torch.__version__.split(".")[0]) < 2
    for dtype, t_dtype in ((np.float16, torch.float16), (BF16, torch.bfloat16)):
        t_x = torch.from_numpy(x).to(t_dtype)
        calls = {
            "max_pool3d": (lambda: poolgrad.max_pool3d_with_argmax(x.astype(dtype), 2),
                           lambda: F.max_pool3d(t_x, 2, return_indices=True), True),
            "adaptive_max_pool3d": (lambda: poolgrad.adaptive_max_pool3d(x.astype(dtype), [1, 1, 1]),
                                    lambda: F.adaptive_max_pool3d(t_x, 1, return_indices=True), True),
            "max_pool2d": (lambda: poolgrad.max_pool2d_with_indices(x[0].astype(dtype), 2),
                           lambda: F.max_pool2d(t_x[0], 2, return_indices=True), dtype == np.float16),
            "adaptive_max_pool2d": (lambda: poolgrad.adaptive_max_pool2d(x[0].astype(dtype), [1, 1]),
                                    lambda: F.adaptive_max_pool2d(t_x[0], 1, return_indices=True),
                                    dtype == np.float16),
        }
        for name, (ours, theirs, missing_in_1_13) in calls.items():
            out, idx = ours()
            assert out.dtype == dtype, name
            answer = _torch_16_bit_or_missing(theirs)
            if torch_1 and missing_in_1_13:
                assert answer is None, f"{name} {t_dtype}: PyTorch 1.13 was expected to lack this kernel"
                continue
            assert answer is not None, f"{name} {t_dtype}: PyTorch {torch.__version__} lacks this kernel"
            t_out, t_idx = answer
            assert t_out.float().numpy().ravel().tolist() == out.astype(np.float32).ravel().tolist(), name
            assert t_idx.numpy().ravel().tolist() == idx.astype(np.int64).ravel().tolist(), name


def test_by_design_3_bf16_backward_accumulation():
    """Backward accumulation: poolgrad sums in float32 in canonical order and rounds once (SPEC §3.6); PyTorch's
    native bf16 2-D backward accumulates in bf16. gradOutput [256,1,1,1] all routed to one element:
    float32 sum 259 -> bf16 260 (round-half-even); PyTorch bf16: 256+1 = 256 (three times) -> 256."""
    x = np.zeros((1, 1, 1, 5), np.float32)
    idx = np.array([2, 2, 2, 2]).reshape(1, 1, 1, 4)
    go = np.array([256, 1, 1, 1], np.float32).reshape(1, 1, 1, 4)
    pg = poolgrad.max_pool2d_with_indices_backward(go.astype(BF16), x.astype(BF16), idx.astype(np.int32),
                                                   [1, 2], [1, 1], [0, 0])
    assert pg.astype(np.float32).ravel().tolist() == [0, 0, 260, 0, 0]
    t = aten.max_pool2d_with_indices_backward(torch.from_numpy(go).bfloat16(), torch.from_numpy(x).bfloat16(),
                                              [1, 2], [1, 1], [0, 0], [1, 1], False, torch.from_numpy(idx))
    assert t.float().numpy().ravel().tolist() == [0, 0, 256, 0, 0]
    ta = aten.adaptive_max_pool2d_backward(torch.from_numpy(go).bfloat16(), torch.from_numpy(x).bfloat16(),
                                           torch.from_numpy(idx))
    assert ta.float().numpy().ravel().tolist() == [0, 0, 256, 0, 0]


def test_by_design_4_empty_window_index():
    """A window that meets no input element (possible only with dilation > 1, padding <= k/2 still holding):
    both return -inf, but poolgrad's index is -1 (SPEC §3.4), which every backward skips, while PyTorch's is
    ih0*W + iw0 of the first dilated position past the padding: outside the plane, or INSIDE it at an element
    that is not in the window (its own backward would route gradient there). The random cases expect -1
    wherever the window is empty and give both backwards those -1 indices."""
    # 2-D: x (1,1,2,1) = [3, 4], kernel (1,2), stride 1, padding (0,1), dilation (1,2): W windows {-1, 1}.
    x = np.array([3, 4], np.float32).reshape(1, 1, 2, 1)
    out, idx = poolgrad.max_pool2d_with_indices(x, [1, 2], [1], [0, 1], [1, 2])
    assert np.isneginf(out).all() and idx.ravel().tolist() == [-1, -1]
    t_out, t_idx = F.max_pool2d(torch.from_numpy(x), (1, 2), 1, (0, 1), (1, 2), return_indices=True)
    assert np.isneginf(t_out.numpy()).all() and t_idx.numpy().ravel().tolist() == [1, 2]
    gi = poolgrad.max_pool2d_with_indices_backward(np.ones((1, 1, 2, 1), np.float32), x, idx, [1, 2], [1], [0, 1],
                                                   [1, 2])
    assert gi.ravel().tolist() == [0, 0]
    # 3-D: x (1,1,1,1,1), kernel (1,1,2), padding (0,0,1), dilation (1,1,2).
    x = np.full((1, 1, 1, 1, 1), 5.0, np.float32)
    out, idx = poolgrad.max_pool3d_with_argmax(x, [1, 1, 2], [1], [0, 0, 1], [1, 1, 2])
    assert np.isneginf(out.item()) and idx.item() == -1
    t_out, t_idx = F.max_pool3d(torch.from_numpy(x), (1, 1, 2), 1, (0, 0, 1), (1, 1, 2), return_indices=True)
    assert np.isneginf(t_out.item()) and t_idx.item() == 1


def test_by_design_5_bad_indices_in_backward():
    """Indices outside [0, plane) given to a backward: poolgrad phase 2 returns 161002 naming the position and
    leaves gradInput all +0.0 (SPEC §3.6, §11 #16). PyTorch's CPU backward does not check: it writes outside
    grad_input (a silent out-of-bounds write; an index -1 in the adaptive backward corrupted the heap in our
    probe), so PyTorch is deliberately not called here. An index of -1 is skipped by poolgrad (all ops) and by
    PyTorch's max_pool2d/3d backward, which the random cases exercise."""
    x = np.zeros((1, 1, 3, 3), np.float32)
    go = np.ones((1, 1, 2, 2), np.float32)
    grad_input = np.full((1, 1, 3, 3), 7.0, np.float32)
    with pytest.raises(poolgrad.PoolgradError) as error:
        poolgrad.max_pool2d_with_indices_backward(go, x, np.array([9, 0, 0, 0], np.int32).reshape(1, 1, 2, 2),
                                                  2, 1, 0, grad_input=grad_input)
    assert error.value.status == 161002 and "9" in error.value.message
    assert np.array_equal(grad_input, np.zeros_like(grad_input)) and not np.signbit(grad_input).any()
    with pytest.raises(poolgrad.PoolgradError) as error:
        poolgrad.adaptive_max_pool2d_backward(go, x, np.array([20, 0, 0, 0], np.int64).reshape(1, 1, 2, 2))
    assert error.value.status == 161002
    gi = poolgrad.adaptive_max_pool2d_backward(go, x, np.array([-1, 1, 1, 1], np.int64).reshape(1, 1, 2, 2))
    assert gi.ravel().tolist() == [0, 3, 0, 0, 0, 0, 0, 0, 0]


def test_by_design_6_grad_output_shape_checked_in_3d_backward():
    """3-D backward with a gradOutput whose spatial shape is not the forward's: poolgrad 161002 (SPEC §4 #10,
    §11 #12, as CANN's 2-D wrapper and PyTorch's 2-D backward do); PyTorch 1.13's 3-D backward accepts it."""
    x = np.zeros((1, 1, 3, 3, 3), np.float32)
    go, idx = np.ones((1, 1, 1, 1, 1), np.float32), np.zeros((1, 1, 1, 1, 1), np.int64)
    with pytest.raises(poolgrad.PoolgradError) as error:
        poolgrad.max_pool3d_with_argmax_backward(go, x, idx, 2, 1, 0)
    assert error.value.status == 161002
    t = aten.max_pool3d_with_indices_backward(torch.from_numpy(go), torch.from_numpy(x), [2, 2, 2], [1, 1, 1],
                                              [0, 0, 0], [1, 1, 1], False, torch.from_numpy(idx))
    assert t.numpy().ravel()[0] == 1 and t.numpy().sum() == 1
    with pytest.raises(RuntimeError):  # the 2-D backward checks, in both
        aten.max_pool2d_with_indices_backward(torch.ones(1, 1, 1, 1), torch.zeros(1, 1, 3, 3), [2, 2], [1, 1],
                                              [0, 0], [1, 1], False, torch.zeros(1, 1, 1, 1, dtype=torch.long))
    with pytest.raises(poolgrad.PoolgradError):
        poolgrad.max_pool2d_with_indices_backward(np.ones((1, 1, 1, 1), np.float32), x[0], idx[0], 2, 1, 0)


def test_by_design_7_empty_tensors():
    """Empty inputs: poolgrad's 3-D forward succeeds as a no-op on any empty self with the computed output
    shape (SPEC §7.1 #6): max_pool3d on 4-D (0,3,3,3) -> (0,1,1,1); PyTorch rejects it (non-batch dims must be
    non-zero). The 2-D forwards follow CANN's and PyTorch's rule since issue #14: only the batch may be 0, so
    both reject (1,0,3,3). Both accept an empty batch (N = 0), and both reject C = 0 for the adaptive ops
    (SPEC §7.2 #7). Random cases never generate empty tensors."""
    with pytest.raises(poolgrad.PoolgradError) as error:
        poolgrad.max_pool2d_with_indices(np.zeros((1, 0, 3, 3), np.float32), 2)
    assert error.value.status == 161002
    with pytest.raises(RuntimeError):
        F.max_pool2d(torch.zeros(1, 0, 3, 3), 2, return_indices=True)
    out, _ = poolgrad.max_pool3d_with_argmax(np.zeros((0, 3, 3, 3), np.float32), 2)
    assert out.shape == (0, 1, 1, 1)
    with pytest.raises(RuntimeError):
        F.max_pool3d(torch.zeros(0, 3, 3, 3), 2, return_indices=True)
    assert poolgrad.max_pool2d_with_indices(np.zeros((0, 1, 3, 3), np.float32), 2)[0].shape == (0, 1, 1, 1)
    assert F.max_pool2d(torch.zeros(0, 1, 3, 3), 2).shape == (0, 1, 1, 1)
    with pytest.raises(poolgrad.PoolgradError):
        poolgrad.adaptive_max_pool2d(np.zeros((1, 0, 3, 3), np.float32), 2)
    with pytest.raises(RuntimeError):
        F.adaptive_max_pool2d(torch.zeros(1, 0, 3, 3), 2, return_indices=True)


def test_by_design_8_adaptive_output_size_forms():
    """output_size: poolgrad accepts length 0 (= the input's spatial size; SPEC §7.2 #5, a 950 feature) and
    rejects 0 entries with 161002 (§7.2 #7); PyTorch rejects an empty tuple (its spelling is (None, None)) and
    returns an empty tensor for output size 0. Random cases use length 0/1/full with sizes >= 1."""
    x = np.arange(6, dtype=np.float32).reshape(1, 1, 2, 3)
    out, _ = poolgrad.adaptive_max_pool2d(x, [])
    assert out.shape == (1, 1, 2, 3)
    assert F.adaptive_max_pool2d(torch.from_numpy(x), (None, None)).shape == (1, 1, 2, 3)
    with pytest.raises(RuntimeError):
        F.adaptive_max_pool2d(torch.from_numpy(x), ())
    with pytest.raises(poolgrad.PoolgradError) as error:
        poolgrad.adaptive_max_pool2d(x, 0)
    assert error.value.status == 161002
    assert F.adaptive_max_pool2d(torch.from_numpy(x), 0).shape == (1, 1, 0, 0)


def test_same_validation_as_torch():
    """Where both refuse: padding > kernel/2, wrong list lengths, output size < 1. Not a difference, but the
    reason the generator keeps padding <= floor(k/2) and output sizes >= 1."""
    x = np.zeros((1, 1, 3, 3), np.float32)
    xt = torch.from_numpy(x)
    refusals = [
        (lambda: poolgrad.max_pool2d_with_indices(x, 2, None, 2), lambda: F.max_pool2d(xt, 2, None, 2)),
        (lambda: poolgrad.max_pool2d_with_indices(x, [2, 2, 2]), lambda: F.max_pool2d(xt, (2, 2, 2))),
        (lambda: poolgrad.max_pool2d_with_indices(x, 4), lambda: F.max_pool2d(xt, 4)),
        (lambda: poolgrad.max_pool3d_with_argmax(x[None], [2, 2]), lambda: F.max_pool3d(xt[None], (2, 2))),
    ]
    for pg_call, torch_call in refusals:
        with pytest.raises(poolgrad.PoolgradError) as error:
            pg_call()
        assert error.value.status == 161002
        with pytest.raises(RuntimeError):
            torch_call()


def test_torch_defect_bf16_adaptive_indices():
    """Not a poolgrad difference but a PyTorch 1.13 CPU defect met by this suite: native bf16
    adaptive_max_pool2d returns the right values but indices rounded to bf16 precision (257 -> 256, 299 -> 300,
    i.e. sometimes outside the plane). max_pool2d's bf16 kernel is correct. This is why the reference for
    16-bit cases is PyTorch on widened float32 values; poolgrad returns the exact index. PyTorch 2.x returns
    it too (checked with 2.15)."""
    x = np.zeros((1, 1, 1, 300), np.float32)
    x[0, 0, 0, 257] = 1
    out, idx = poolgrad.adaptive_max_pool2d(x.astype(BF16), [1, 1])
    assert out.astype(np.float32).item() == 1 and idx.item() == 257
    t_out, t_idx = F.adaptive_max_pool2d(torch.from_numpy(x).bfloat16(), (1, 1), return_indices=True)
    torch_1 = int(torch.__version__.split(".")[0]) < 2
    assert t_out.float().item() == 1 and t_idx.item() == (256 if torch_1 else 257)
    assert F.adaptive_max_pool2d(torch.from_numpy(x), (1, 1), return_indices=True)[1].item() == 257
    assert F.max_pool2d(torch.from_numpy(x).bfloat16(), (1, 300), return_indices=True)[1].item() == 257


# ---------------------------------------------------------------------------------------------------------
# Known poolgrad defect found by this suite (kept visible; strict, so the fix turns it into a reminder).

def test_input_with_negative_stride_on_size_one_axis():
    x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)[:, ::-1]   # strides (36, -36, 12, 4)
    out, idx = poolgrad.max_pool2d_with_indices(x, 2)
    assert out.ravel().tolist() == [4] and idx.ravel().tolist() == [4]
