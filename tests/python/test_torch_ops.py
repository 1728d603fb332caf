"""poolgrad.torch against PyTorch's own pooling ops: forward values, indices and autograd gradients.

Each op runs CASES_PER_SEED random cases per seed (conftest's three seeds, >= 1,000 per op per run):
random ranks, sizes, attributes, ties, layouts (contiguous, channels-last, stepped slices inside larger
storage, permuted) and dtypes, forward through poolgrad.torch and backward through loss.backward().

  max_pool3d / max_pool2d      <-> F.max_pool3d / F.max_pool2d (return_indices=True)
  adaptive_max_pool3d / 2d     <-> F.adaptive_max_pool3d / 2d (return_indices=True)
  max_pool2d_tf (SAME, VALID)  <-> F.max_pool2d on the input padded with -inf as TensorFlow pads
                                   (top/left get floor(total/2)), NCHW and NHWC

Exactness: forward values and indices bit-exact; float32 gradients bit-exact (PyTorch's CPU backward adds
gI[idx] += gO in float32 in increasing output order, poolgrad's contract order). float16/bfloat16: the
reference is PyTorch on the exactly widened float32 values and gradients, rounded once to the 16-bit type;
poolgrad must match it bit for bit. Where the installed torch has native 16-bit kernels they are compared
too: forward bit-exact; backward bit-exact where no input element receives two gradients (PyTorch's
native 16-bit backward rounds after every addition, poolgrad once: docs/torch.md).
"""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import poolgrad
import poolgrad.torch as pt
from conftest import AGREEING_CASES, case_generators

CASES_PER_SEED = 340
DTYPES = (torch.float32, torch.float16, torch.bfloat16)
_BITS = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}


def bits(tensor):
    """The raw bit patterns (so -0.0 != +0.0 and NaN == NaN of the same payload)."""
    return tensor.contiguous().view(_BITS[tensor.dtype])


def assert_bit_equal(actual, expected, what, any_nan_payload=False):
    """Bit for bit; with any_nan_payload, NaN positions must agree but not their payloads (PyTorch's native
    16-bit kernels compute in float32 and write back a canonical NaN; poolgrad moves the input's bits)."""
    assert actual.shape == expected.shape, f"{what}: shape {tuple(actual.shape)} != {tuple(expected.shape)}"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    differ = bits(actual) != bits(expected)
    if any_nan_payload:
        differ &= ~(actual.isnan() & expected.isnan())
    if differ.any():
        where = differ.nonzero()[0].tolist()
        raise AssertionError(f"{what}: {int(differ.sum())} elements differ, first at {where}: "
                             f"poolgrad {actual[tuple(where)].item()!r}, torch {expected[tuple(where)].item()!r}")


# ---------------------------------------------------------------------------------------------- inputs


def values(rng, shape, dtype, allow_nan=True):
    """Tie-heavy small integers, or normal floats, with NaN sometimes sprinkled in (PyTorch and poolgrad
    both pick the last NaN of a window); representable in every dtype."""
    kind = rng.integers(0, 3)
    if kind == 0:
        data = rng.integers(-3, 4, size=shape).astype(np.float32)
    else:
        data = rng.standard_normal(size=shape).astype(np.float32)
    if allow_nan and kind == 2 and data.size:
        data[rng.random(size=shape) < 0.05] = np.nan
    return torch.from_numpy(data).to(dtype)


def laid_out(rng, tensor, spatial_axes):
    """The same values as a contiguous, channels-last, stepped-slice-in-larger-storage or permuted view."""
    layout = rng.integers(0, 4)
    if layout == 1 and tensor.dim() == spatial_axes + 2:
        fmt = torch.channels_last_3d if spatial_axes == 3 else torch.channels_last
        return tensor.contiguous(memory_format=fmt), "channels_last"
    if layout == 2:
        big = torch.full([2 * s + 1 for s in tensor.shape], float("nan"), dtype=tensor.dtype)
        view = big[tuple(slice(1, 1 + 2 * s, 2) for s in tensor.shape)]
        view.copy_(tensor)
        return view, "stepped"
    if layout == 3:
        order = list(rng.permutation(tensor.dim()))
        inverse = [order.index(axis) for axis in range(tensor.dim())]
        return tensor.permute(order).contiguous().permute(inverse), "permuted"
    return tensor.contiguous(), "contiguous"


def widened(tensor):
    return tensor.detach().float()


def reference_backward(function, x, grad):
    """Gradient of torch's op at x (widened to float32) for grad (widened), rounded once to x.dtype."""
    x32 = widened(x).contiguous().requires_grad_()
    out = function(x32)
    out = out[0] if isinstance(out, tuple) else out
    out.backward(widened(grad))
    return x32.grad.to(x.dtype)


def run_case(function_pg, function_torch, x, rng, what, native=True, axes=None):
    """Forward and backward of both; returns nothing, raises on any difference."""
    x = x.detach().requires_grad_()
    out_pg = function_pg(x)
    with torch.no_grad():
        out_ref = function_torch(widened(x).contiguous())  # torch 2.x refuses some permuted layouts
    values_pg, values_ref = (out_pg[0], out_ref[0]) if isinstance(out_pg, tuple) else (out_pg, out_ref)
    # torch's float32 kernels may rewrite NaN payloads (torch 2.x does); the bits are checked just below.
    assert_bit_equal(values_pg, values_ref.to(x.dtype), what + " forward", any_nan_payload=True)
    if isinstance(out_pg, tuple):
        indices = out_pg[1]
        assert indices.dtype == torch.int64
        assert torch.equal(indices, out_ref[1]), f"{what}: indices differ"
        # Every output is the input element its index names, bit for bit (NaN payloads and -0.0 included).
        planes = x.detach().flatten(x.dim() - axes)
        named = torch.gather(planes, -1, indices.flatten(indices.dim() - axes)).view(indices.shape)
        assert_bit_equal(values_pg, named, what + " forward vs input[indices]")
    grad = values(rng, values_pg.shape, x.dtype, allow_nan=False)
    values_pg.backward(grad)
    expected = reference_backward(function_torch, x, grad)
    assert_bit_equal(x.grad, expected, what + " backward")
    if native and x.dtype != torch.float32:
        compare_native(function_pg, function_torch, x, grad, values_pg, what)


def compare_native(function_pg, function_torch, x, grad, values_pg, what):
    """PyTorch's own 16-bit kernel, where this torch has one."""
    native_x = x.detach().contiguous().requires_grad_()
    try:
        native = function_torch(native_x)
    except RuntimeError:  # "not implemented for 'Half'" (torch 1.13 and others)
        return
    native_values = native[0] if isinstance(native, tuple) else native
    assert_bit_equal(values_pg, native_values.detach(), what + " forward vs native 16-bit", any_nan_payload=True)
    native_values.backward(grad)
    counts = reference_backward(function_torch, x, torch.ones_like(grad))
    if bool((counts <= 1).all()):  # each input gets at most one gradient: no rounding order involved
        assert_bit_equal(x.grad, native_x.grad, what + " backward vs native 16-bit")


def count(op):
    AGREEING_CASES[("PyTorch", f"torch layer {op}")] += 1


# ------------------------------------------------------------------------------------------ max_pool


def regular_case(rng, axes):
    batched = rng.random() < 0.7
    shape = ([int(rng.integers(1, 3))] if batched else []) + [int(rng.integers(1, 4))]
    shape += [int(rng.integers(1, 8)) for _ in range(axes)]
    kernel = [int(rng.integers(1, 4)) for _ in range(axes)]
    dilation = [int(rng.integers(1, 3)) for _ in range(axes)] if rng.random() < 0.3 else [1] * axes
    # Padding only without dilation: a dilated window inside the padding is empty (docs/conformance.md #4).
    padding = [int(rng.integers(0, k // 2 + 1)) if d == 1 else 0 for k, d in zip(kernel, dilation)]
    stride = None if rng.random() < 0.2 else [int(rng.integers(1, 4)) for _ in range(axes)]
    ceil_mode = bool(rng.random() < 0.3)
    for i in range(axes):
        reach = dilation[i] * (kernel[i] - 1) + 1
        shape[-axes + i] = max(shape[-axes + i], reach - 2 * padding[i])
    return shape, kernel, stride, padding, dilation, ceil_mode


@pytest.mark.parametrize("axes", [3, 2])
def test_max_pool_matches_torch(seed, axes):
    torch_op = F.max_pool3d if axes == 3 else F.max_pool2d
    ours = pt.max_pool3d if axes == 3 else pt.max_pool2d
    for case, rng in enumerate(case_generators(seed, CASES_PER_SEED)):
        shape, kernel, stride, padding, dilation, ceil_mode = regular_case(rng, axes)
        dtype = DTYPES[rng.integers(0, 3)]
        x, layout = laid_out(rng, values(rng, shape, dtype), axes)
        what = (f"seed {seed} case {case}: max_pool{axes}d {shape} {dtype} {layout} k={kernel} s={stride} "
                f"p={padding} d={dilation} ceil={ceil_mode}")
        run_case(lambda t: ours(t, kernel, stride, padding, dilation, ceil_mode, return_indices=True),
                 lambda t: torch_op(t, kernel, stride, padding, dilation, ceil_mode, return_indices=True), x, rng,
                 what, axes=axes)
        count(f"max_pool{axes}d")


@pytest.mark.parametrize("axes", [3, 2])
def test_adaptive_max_pool_matches_torch(seed, axes):
    torch_op = F.adaptive_max_pool3d if axes == 3 else F.adaptive_max_pool2d
    ours = pt.adaptive_max_pool3d if axes == 3 else pt.adaptive_max_pool2d
    for case, rng in enumerate(case_generators(seed, CASES_PER_SEED)):
        batched = rng.random() < 0.7
        shape = ([int(rng.integers(1, 3))] if batched else []) + [int(rng.integers(1, 4))]
        shape += [int(rng.integers(1, 9)) for _ in range(axes)]
        output_size = [int(rng.integers(1, s + 3)) for s in shape[-axes:]]
        if rng.random() < 0.2:
            output_size[0] = None  # torch's "keep this axis"
        dtype = DTYPES[rng.integers(0, 3)]
        # torch 1.13's native bfloat16 adaptive_max_pool2d rounds its indices (docs/conformance.md).
        native = not (dtype == torch.bfloat16 and axes == 2)
        x, layout = laid_out(rng, values(rng, shape, dtype), axes)
        what = f"seed {seed} case {case}: adaptive_max_pool{axes}d {shape} {dtype} {layout} -> {output_size}"
        run_case(lambda t: ours(t, output_size, return_indices=True),
                 lambda t: torch_op(t, output_size, return_indices=True), x, rng, what, native, axes)
        count(f"adaptive_max_pool{axes}d")


# ------------------------------------------------------------------------------------- max_pool2d_tf


def tf_reference(kernel, stride, padding, data_format):
    """TensorFlow's max pooling through torch: SAME pads with -inf, floor(total/2) before, rest after."""

    def function(x):
        nchw = x.permute(0, 3, 1, 2) if data_format == "NHWC" else x
        if padding == "SAME":
            pads = []
            for size, k, s in zip(reversed(nchw.shape[2:]), reversed(kernel), reversed(stride)):
                total = max((math.ceil(size / s) - 1) * s + k - size, 0)
                pads += [total // 2, total - total // 2]
            nchw = F.pad(nchw, pads, value=float("-inf"))
        out = F.max_pool2d(nchw, kernel, stride)
        return out.permute(0, 2, 3, 1) if data_format == "NHWC" else out

    return function


def test_max_pool2d_tf_matches_torch(seed):
    for case, rng in enumerate(case_generators(seed, CASES_PER_SEED)):
        data_format = ("NCHW", "NHWC")[rng.integers(0, 2)]
        padding = ("SAME", "VALID")[rng.integers(0, 2)]
        kernel = [int(rng.integers(1, 5)) for _ in range(2)]
        stride = [int(rng.integers(1, 5)) for _ in range(2)]
        spatial = [int(rng.integers(k, k + 7)) for k in kernel]
        channels = int(rng.integers(1, 4))
        shape = [int(rng.integers(1, 3))] + ([channels] + spatial if data_format == "NCHW" else spatial + [channels])
        # V3Grad refuses bfloat16 (docs/torch.md); NaN: V3Grad gives the gradient to the first element equal
        # to the output, torch to its argmax (conformance.md, TensorFlow #1).
        dtype = (torch.float32, torch.float16)[rng.integers(0, 2)]
        x, layout = laid_out(rng, values(rng, shape, dtype, allow_nan=False), 2)
        what = (f"seed {seed} case {case}: max_pool2d_tf {shape} {dtype} {layout} {data_format} {padding} "
                f"k={kernel} s={stride}")
        run_case(lambda t: pt.max_pool2d_tf(t, kernel, stride, padding, data_format),
                 tf_reference(kernel, stride, padding, data_format), x, rng, what)
        count("max_pool2d_tf")


def test_max_pool2d_tf_bfloat16_forward_and_refused_backward():
    x = torch.arange(16, dtype=torch.bfloat16).reshape(1, 1, 4, 4).requires_grad_()
    out = pt.max_pool2d_tf(x, 2, 2, "VALID")
    assert out.tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]
    with pytest.raises(poolgrad.PoolgradError, match="aclnnMaxPoolV3Grad") as error:
        out.sum().backward()
    assert error.value.status == 161002


# --------------------------------------------------------------------------- memory, layout, registration


def test_inputs_are_passed_without_a_copy(monkeypatch):
    """Every descriptor points at the tensor's own first element: channels-last and sliced inputs included.
    (The descriptors of a first call; later calls re-point them: test_torch_executor_cache.py.)"""
    from poolgrad import _executor_cache, _tensors
    _executor_cache.clear()  # descriptors are made on this thread's first call of a problem
    addresses = []
    original = _tensors.Arguments.view

    def recording(self, sizes, strides, data_type, address, tensor_format=0):
        addresses.append((tuple(sizes), tuple(strides), address))
        return original(self, sizes, strides, data_type, address, tensor_format)

    monkeypatch.setattr(_tensors.Arguments, "view", recording)
    base = torch.randn(3, 4, 10, 9, 8).contiguous(memory_format=torch.channels_last_3d)
    x = base[1:, 1:3, 2:9:2]  # offset, sliced channels, stepped depth, channels-last strides
    out = pt.max_pool3d(x, 2, 1)
    assert addresses[0] == (tuple(x.shape), tuple(x.stride()), x.data_ptr())
    assert addresses[1][2] == out.data_ptr() and addresses[1][1] == tuple(out.stride())


@pytest.mark.parametrize("op", ["max_pool3d", "max_pool2d", "adaptive_max_pool3d", "max_pool2d_tf"])
@pytest.mark.parametrize("channels_last", [False, True])
def test_an_expanded_gradient_reaches_a_fast_kernel(op, channels_last):
    """The gradient of sum() comes as an expanded view (every stride 0); the backward lays it out like the
    indices first, so the dispatch takes a fast kernel instead of the reference, and the result is torch's."""
    torch.manual_seed(7)
    if op == "max_pool2d_tf":
        x = torch.randint(-4, 5, (2, 8, 15, 17)).float()
        if channels_last:
            x = x.permute(0, 2, 3, 1).contiguous()  # NHWC
        ours = lambda t: pt.max_pool2d_tf(t, 3, 2, "SAME", "NHWC" if channels_last else "NCHW")
        reference = None
    else:
        axes = 3 if op.endswith("3d") else 2
        x = torch.randint(-4, 5, [2, 16] + [8, 18, 20][-axes:]).float()
        if channels_last:
            x = x.contiguous(memory_format=torch.channels_last_3d if axes == 3 else torch.channels_last)
        if op.startswith("adaptive"):
            ours, reference = (lambda t: pt.adaptive_max_pool3d(t, (4, 9, 10))), (
                lambda t: F.adaptive_max_pool3d(t, (4, 9, 10)))
        else:
            ours = lambda t: getattr(pt, op)(t, 3, 2, 1)
            reference = lambda t: getattr(F, op)(t, 3, 2, 1)
    leaf = x.clone().requires_grad_()
    ours(leaf).sum().backward()
    report = poolgrad.last_run_report()
    assert not report["implementation"].endswith("_reference") and report["fallback"] == "", report
    if reference is not None:
        expected = x.clone().requires_grad_()
        reference(expected).sum().backward()
        assert_bit_equal(leaf.grad, expected.grad, f"{op} channels_last={channels_last}: gradient of sum()")
    else:
        dense = x.clone().requires_grad_()
        out = ours(dense)
        out.backward(torch.ones_like(out))
        assert_bit_equal(leaf.grad, dense.grad, f"{op} channels_last={channels_last}: gradient of sum()")


@pytest.mark.parametrize("axes", [3, 2])
def test_outputs_and_gradients_keep_channels_last(axes):
    fmt = torch.channels_last_3d if axes == 3 else torch.channels_last
    x = torch.randn([2, 5] + [6] * axes).contiguous(memory_format=fmt).requires_grad_()
    pool = pt.max_pool3d if axes == 3 else pt.max_pool2d
    out, indices = pool(x, 2, return_indices=True)
    assert out.is_contiguous(memory_format=fmt) and indices.is_contiguous(memory_format=fmt)
    backward = getattr(torch.ops.poolgrad, f"max_pool{axes}d_with_indices_backward") if pt.REGISTERED else None
    if backward is not None:
        grad_input = backward(torch.ones_like(out), x.detach(), indices, [2], [], [0], [1], False)
        assert grad_input.is_contiguous(memory_format=fmt)
    adaptive = (pt.adaptive_max_pool3d if axes == 3 else pt.adaptive_max_pool2d)(x, 3)
    assert adaptive.is_contiguous(memory_format=fmt)


def test_nhwc_tf_output_stays_nhwc():
    x = torch.randn(2, 7, 7, 3)
    out = pt.max_pool2d_tf(x, 3, 2, "SAME", "NHWC")
    assert out.shape == (2, 4, 4, 3) and out.is_contiguous()


def test_registered_as_torch_custom_operators():
    if not hasattr(torch, "library"):
        pytest.skip(f"torch {torch.__version__} has no torch.library")
    assert pt.REGISTERED
    x = torch.randn(1, 2, 4, 4, 4, requires_grad=True)
    out, indices = torch.ops.poolgrad.max_pool3d_with_indices(x, [2], [], [0], [1], False)
    out.sum().backward()
    expected = torch.zeros_like(x).flatten(2).scatter_(2, indices.flatten(2), 1.0).view_as(x)
    assert torch.equal(x.grad, expected)
    for name in ("max_pool2d_with_indices", "adaptive_max_pool3d", "adaptive_max_pool2d", "max_pool2d_tf",
                 "max_pool3d_with_indices_backward", "max_pool2d_tf_backward"):
        assert hasattr(torch.ops.poolgrad, name)


def test_modules_match_functional():
    x = torch.randn(2, 3, 6, 6, 6)
    assert torch.equal(pt.MaxPool3d(3, 2, 1)(x), F.max_pool3d(x, 3, 2, 1))
    assert torch.equal(pt.MaxPool2d(2, ceil_mode=True)(x[:, :, 0]), F.max_pool2d(x[:, :, 0], 2, ceil_mode=True))
    assert torch.equal(pt.AdaptiveMaxPool3d((2, None, 3))(x), F.adaptive_max_pool3d(x, (2, None, 3)))
    assert torch.equal(pt.AdaptiveMaxPool2d(4)(x[:, :, 0]), F.adaptive_max_pool2d(x[:, :, 0], 4))
    assert torch.equal(pt.MaxPool2dTF(2, 2, "VALID")(x[:, :, 0]), F.max_pool2d(x[:, :, 0], 2))
    assert "kernel_size=3" in repr(pt.MaxPool3d(3))


# ------------------------------------------------------------------------------------------------ errors


def test_library_errors_carry_poolgrads_message():
    x = torch.randn(1, 1, 4, 4, 4)
    with pytest.raises(poolgrad.PoolgradError, match="kernelSize must have length 1, 3, got length 2") as error:
        pt.max_pool3d(x, [2, 2])
    assert error.value.status == 161002
    with pytest.raises(poolgrad.PoolgradError, match="aclnnMaxPoolV3WithAttrs"):
        pt.max_pool2d_tf(x[0], 2, 2, "FULL")


def test_bad_tensors_are_refused_before_the_library():
    with pytest.raises(TypeError, match="float32, float16 and bfloat16"):
        pt.max_pool2d(torch.zeros(1, 1, 4, 4, dtype=torch.float64), 2)
    with pytest.raises(ValueError, match="CPU tensors only"):
        pt.max_pool2d(torch.empty(1, 1, 4, 4, device="meta"), 2)
    with pytest.raises(TypeError, match="torch.Tensor"):
        pt.max_pool2d(np.zeros((1, 1, 4, 4), np.float32), 2)


@pytest.mark.parametrize("op", ["max_pool3d", "max_pool2d", "adaptive_max_pool3d", "adaptive_max_pool2d",
                                "max_pool2d_tf"])
def test_double_backward_is_refused_with_a_clear_message(op):
    x = torch.randn(1, 2, 4, 4, 4) if op.endswith("3d") else torch.randn(1, 2, 4, 4)
    x.requires_grad_()
    out = getattr(pt, op)(x, 2)
    grad, = torch.autograd.grad(out.sum(), x, create_graph=True)  # the first derivative works
    assert grad.sum().item() == out.numel()
    with pytest.raises(RuntimeError, match=f"poolgrad: {op} has no double backward"):
        grad.sum().backward()
