"""Differential conformance: poolgrad's TF-style 2-D max pooling against TensorFlow's CPU kernels.

  * aclnnMaxPoolV3Grad        <-> tf.raw_ops.MaxPoolGrad           (SPEC §6)
  * aclnnMaxPoolV3WithAttrs   <-> tf.raw_ops.MaxPool / MaxPoolV2, tf.nn.max_pool2d   (SPEC §7.4)

Mapping. SAME and VALID are the same words in both libraries. CALCULATED pads [top, bottom, left, right]
are TF's EXPLICIT paddings; ceil_mode (TF has none) is the same problem with the bottom/right padding
extended to reach the extra windows (tensorflow_conformance_cases.tf_explicit_pads), which is exact because
padding never wins. TF's CPU kernels refuse NCHW, so NCHW problems are run through TF transposed to NHWC.
global_pooling (forward only) is TF VALID with ksize = the whole plane.

Where they agree by design (orig_output is the forward's output, no NaN in orig_input, no float32/bfloat16
subnormal input, pads smaller than the kernel, Ho/Wo >= 1) the random suites require:
  * forward, every dtype: bit-exact equality (signed zeros included), except that a window whose valid
    elements are all -Inf gives -Inf in poolgrad and the dtype's lowest finite value in TF;
  * grad float32: bit-exact equality (NaN == NaN). TF's CPU MaxPoolGrad recomputes the argmax taking
    the first strictly greater element in row-major window order, which is the seed's "first element equal
    to orig_output" when orig_output is the true max, and it adds the gradients into a float32 buffer in
    increasing output order, which is SPEC §3.6's canonical order;
  * grad float16: (1) bit-exact equality with TF's float32 MaxPoolGrad on the widened operands, rounded
    once to float16 (that is SPEC §3.6 exactly: same argmax, fp32 sum in canonical order, one rounding);
    (2) against TF's own float16 kernel, which adds in float16 (a rounding after every addition):
    |poolgrad - tf16| <= (1.01 * (m - 1) * u + u) * S + m * 2**-24 per element, where u = 2**-11, m is the
    number of contributions and S the sum of their magnitudes (both obtained from TF's float32 kernel):
    the classic bound for recursive summation plus poolgrad's own final rounding plus the subnormal
    spacing (random runs use up to ~65% of it). Elements with a non-finite contribution must give the
    same Inf or both NaN; elements where S could overflow float16 partial sums are only checked by (1).

Each random case also passes its inputs as views (channels-last memory, steps, offsets, slack; the buffer
around them is NaN poison), passes y / out_grad as poisoned strided views in ~60% of the cases (no poison
may remain inside, none of the buffer around may change), and runs either poolgrad's dispatcher or the
task's reference implementation (forced). A failure names the seed, the case number and every parameter;
POOLGRAD_ROTATING_SEED=<seed> replays a rotating-seed case.

The by-design differences are the explicit test_difference_* tests at the end; each asserts both
libraries' actual outputs, so the list in docs/conformance.md cannot go stale silently.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")   # stock Eigen kernels, whatever the build default

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
ml_dtypes = pytest.importorskip("ml_dtypes")

import poolgrad  # noqa: E402
from conftest import AGREEING_CASES, case_generators  # noqa: E402
import tensorflow_conformance_cases as cases  # noqa: E402
from tensorflow_conformance_cases import BFLOAT16, FLOAT16, FLOAT32, UINT_OF, POISON_BITS  # noqa: E402

try:
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
except RuntimeError:   # TF already initialised by another test module: keep its settings
    pass

CASES_PER_SEED = 1000         # x 3 seeds = 3,000 cases per family per run
MAX_REPORTED = 8

TF_DTYPES = {FLOAT32: tf.float32, FLOAT16: tf.float16, BFLOAT16: tf.bfloat16}
NAN, INF = np.nan, np.inf


# --------------------------------------------------------------------------------------------------------
# TensorFlow adapters (NHWC numpy in, NHWC numpy out)


def tf_constant(array):
    # Always give the dtype: numpy float16 arrays handed straight to tf.raw_ops are sometimes converted to
    # float32 by TF 2.17's eager fast path (observed: the first call is half, later ones float).
    array = np.ascontiguousarray(array)
    return tf.constant(array, dtype=TF_DTYPES[array.dtype])


def tf_padding(case):
    """(padding, explicit_paddings) of raw_ops for a case."""
    if case.mode != "CALCULATED":
        return case.mode, []
    top, bottom, left, right = case.tf_pads
    return "EXPLICIT", [0, 0, top, bottom, left, right, 0, 0]


def tf_forward(case, x_nhwc):
    x = tf_constant(x_nhwc)
    if case.global_pooling:
        ksize, strides, padding, explicit = [1, case.h, case.w, 1], [1, 1, 1, 1], "VALID", []
    else:
        ksize = [1, case.kernel[0], case.kernel[1], 1]
        strides = [1, case.stride[0], case.stride[1], 1]
        padding, explicit = tf_padding(case)
    if case.tf_api == "raw_ops.MaxPoolV2":
        y = tf.raw_ops.MaxPoolV2(input=x, ksize=ksize, strides=strides, padding=padding, data_format="NHWC")
    elif case.tf_api == "nn.max_pool2d":
        if padding == "EXPLICIT":
            padding = [[0, 0], explicit[2:4], explicit[4:6], [0, 0]]
        y = tf.nn.max_pool2d(x, ksize=ksize[1:3], strides=strides[1:3], padding=padding, data_format="NHWC")
    else:
        y = tf.raw_ops.MaxPool(input=x, ksize=ksize, strides=strides, padding=padding, explicit_paddings=explicit,
                               data_format="NHWC")
    assert y.dtype == x.dtype
    return y.numpy()


def tf_grad(case, x_nhwc, y_nhwc, g_nhwc):
    padding, explicit = tf_padding(case)
    r = tf.raw_ops.MaxPoolGrad(orig_input=tf_constant(x_nhwc), orig_output=tf_constant(y_nhwc),
                               grad=tf_constant(g_nhwc), ksize=[1, case.kernel[0], case.kernel[1], 1],
                               strides=[1, case.stride[0], case.stride[1], 1], padding=padding,
                               explicit_paddings=explicit, data_format="NHWC")
    assert r.dtype == TF_DTYPES[np.dtype(x_nhwc.dtype)]
    return r.numpy()


def raw_tf_grad(x, y, g, ksize, strides, padding, explicit=()):
    """MaxPoolGrad on NHWC arrays with raw TF attributes (explicit tests)."""
    return tf.raw_ops.MaxPoolGrad(orig_input=tf_constant(x), orig_output=tf_constant(y), grad=tf_constant(g),
                                  ksize=ksize, strides=strides, padding=padding, explicit_paddings=list(explicit),
                                  data_format="NHWC").numpy()


def raw_tf_forward(x, ksize, strides, padding, explicit=()):
    return tf.raw_ops.MaxPool(input=tf_constant(x), ksize=ksize, strides=strides, padding=padding,
                              explicit_paddings=list(explicit), data_format="NHWC").numpy()


# --------------------------------------------------------------------------------------------------------
# Comparison helpers


def bits(array):
    return np.ascontiguousarray(array).view(UINT_OF[np.dtype(array.dtype)])


def mismatch_mask(actual, expected):
    """Elements whose bits differ, NaN matching any NaN (but never the poison pattern)."""
    a, e = np.asarray(actual), np.asarray(expected)
    differ = bits(a) != bits(e)
    both_nan = np.isnan(a.astype(np.float32)) & np.isnan(e.astype(np.float32))
    return (differ & ~both_nan) | (bits(a) == POISON_BITS[np.dtype(a.dtype)])


def describe_mismatch(mask, actual, expected, extra=None):
    where = np.argwhere(mask)
    lines = [f"{len(where)} of {mask.size} elements differ"]
    for index in where[:4]:
        index = tuple(int(i) for i in index)
        line = f"  at {index}: poolgrad {actual[index]!r} vs expected {expected[index]!r}"
        if extra is not None:
            line += f" ({extra(index)})"
        lines.append(line)
    return "\n".join(lines)


def implementations(task):
    """The implementations of a task that accept every problem: its reference (listed last)."""
    names = [name for name, t in poolgrad.implementations() if t == task]
    return [name for name in names if name.endswith("_reference")] or names[-1:]


def run_forced(name, function):
    if not name:
        return function()
    with poolgrad.forced_implementation(name):
        return function()


FAMILY_NAMES = {"forward": "MaxPoolV3WithAttrs (MaxPool)", "grad": "MaxPoolV3Grad (MaxPoolGrad)"}


def report(failures, case_count, family, seed):
    AGREEING_CASES[("TensorFlow", FAMILY_NAMES[family])] += case_count - len(failures)
    assert not failures, (f"{len(failures)} of {case_count} {family} cases differ from TensorFlow "
                          f"(seed {seed}); first ones:\n\n" + "\n\n".join(failures[:MAX_REPORTED]))


# --------------------------------------------------------------------------------------------------------
# Random forward: aclnnMaxPoolV3WithAttrs vs tf MaxPool / MaxPoolV2 / nn.max_pool2d


def forward_case(rng, seed, number, impls):
    case = cases.draw_case(rng, "forward", seed, number, impls)
    x = cases.draw_input_values(rng, case.input_shape, case.dtype, case.input_kind)
    return case, x


def check_forward_case(case, x):
    """None when poolgrad and TF agree on the case, else the failure text."""
    x_view = cases.placed(x, case.layouts["x"])
    out = None
    if case.layouts["y"] is not None:
        out = cases.PoisonedOutput(case.output_shape, case.dtype, case.layouts["y"])
    try:
        y = run_forced(case.implementation, lambda: poolgrad.max_pool_v3_with_attrs(
            x_view, case.attr4(case.kernel), case.attr4(case.stride), case.mode, list(case.pads), case.data_format,
            case.global_pooling, case.ceil_mode, y=None if out is None else out.view))
    except poolgrad.PoolgradError as error:
        return f"{case.describe()}\n  poolgrad raised {error}"
    if out is not None and y is not out.view:
        return f"{case.describe()}\n  the y view was not returned"
    x_nhwc = case.to_nhwc(x)
    expected = case.from_nhwc(tf_forward(case, x_nhwc))
    if np.isneginf(x.astype(np.float32)).any():
        # TF starts each window at the dtype's lowest finite value, so a window of -Inf only gives lowest;
        # poolgrad gives the true max, -Inf (test_difference_all_neg_inf_window).
        live = case.from_nhwc(tf_forward(case, (~np.isneginf(x_nhwc.astype(np.float32))).astype(x.dtype)))
        expected = np.where(live == 0, np.array(-INF, dtype=case.dtype), expected)
    if y.shape != expected.shape:
        return f"{case.describe()}\n  shape {y.shape} vs TF {expected.shape}"
    mask = mismatch_mask(y, expected)
    if mask.any():
        return (f"{case.describe()}\n  {describe_mismatch(mask, y, expected)}\n"
                f"  x (logical, {case.data_format}) = {x.tolist()}")
    if out is not None and out.touched_outside():
        return f"{case.describe()}\n  {out.touched_outside()} elements around the y view were written"
    if case.mode == "CALCULATED" and case.data_format == "NCHW" and not case.global_pooling:
        # aclnnMaxPoolV3 is exactly this operator (SPEC §7.5), its ceilMode an INT64 scalar.
        try:
            y_v3 = poolgrad.max_pool_v3(x_view, case.attr4(case.kernel), case.attr4(case.stride), list(case.pads),
                                        int(case.ceil_mode))
        except poolgrad.PoolgradError as error:
            return f"{case.describe()}\n  aclnnMaxPoolV3 raised {error}"
        mask = mismatch_mask(y_v3, expected)
        if y_v3.shape != expected.shape or mask.any():
            return f"{case.describe()}\n  aclnnMaxPoolV3 differs from TF"
        AGREEING_CASES[("TensorFlow", "MaxPoolV3 (MaxPool, CALCULATED NCHW)")] += 1
    return None


def test_forward_random_vs_tensorflow(seed):
    impls = implementations("argmax-forward")
    failures = []
    for number, rng in enumerate(case_generators(seed, CASES_PER_SEED)):
        case, x = forward_case(rng, seed, number, impls)
        failure = check_forward_case(case, x)
        if failure:
            failures.append(failure)
    report(failures, CASES_PER_SEED, "forward", seed)


# --------------------------------------------------------------------------------------------------------
# Random grad: aclnnMaxPoolV3Grad vs tf.raw_ops.MaxPoolGrad


def grad_case(rng, seed, number, impls):
    case = cases.draw_case(rng, "grad", seed, number, impls)
    x = cases.draw_input_values(rng, case.input_shape, case.dtype, case.input_kind)
    g = cases.draw_grad_values(rng, case.output_shape, case.dtype, case.grad_kind)
    return case, x, g


FP16_UNIT_ROUNDOFF = 2.0 ** -11
FP16_SUBNORMAL_SPACING = 2.0 ** -24


def check_grad_case(case, x, g):
    # orig_output is the true forward output (poolgrad's own forward; the forward suite ties it to TF).
    y = poolgrad.max_pool_v3_with_attrs(x, case.attr4(case.kernel), case.attr4(case.stride), case.mode,
                                        list(case.pads), case.data_format, False, case.ceil_mode)
    views = {name: cases.placed(value, case.layouts[name]) for name, value in
             (("orig_input", x), ("orig_output", y), ("grad", g))}
    out = None
    if case.layouts["out_grad"] is not None:
        out = cases.PoisonedOutput(case.input_shape, case.dtype, case.layouts["out_grad"])
    try:
        result = run_forced(case.implementation, lambda: poolgrad.max_pool_v3_grad(
            views["orig_input"], views["orig_output"], views["grad"], case.attr4(case.kernel),
            case.attr4(case.stride), case.mode, list(case.pads), case.data_format, False, case.ceil_mode,
            out_grad=None if out is None else out.view))
    except poolgrad.PoolgradError as error:
        return f"{case.describe()}\n  poolgrad raised {error}"
    if out is not None and result is not out.view:
        return f"{case.describe()}\n  the out_grad view was not returned"
    x_nhwc, y_nhwc, g_nhwc = case.to_nhwc(x), case.to_nhwc(y), case.to_nhwc(g)
    reproducer = (f"x (logical, {case.data_format}) = {x.tolist()}\n  orig_output = {y.tolist()}\n"
                  f"  grad = {g.tolist()}")

    if case.dtype == FLOAT32:
        expected = case.from_nhwc(tf_grad(case, x_nhwc, y_nhwc, g_nhwc))
        mask = mismatch_mask(result, expected)
        if mask.any():
            return f"{case.describe()}\n  vs TF float32: {describe_mismatch(mask, result, expected)}\n  {reproducer}"
    else:
        wide = [a.astype(np.float32) for a in (x_nhwc, y_nhwc, g_nhwc)]
        sum32 = case.from_nhwc(tf_grad(case, *wide))
        expected = sum32.astype(np.float16)
        mask = mismatch_mask(result, expected)
        if mask.any():
            return (f"{case.describe()}\n  vs TF float32 on the widened operands, rounded once: "
                    f"{describe_mismatch(mask, result, expected)}\n  {reproducer}")
        # Against TF's own float16 kernel (16-bit accumulation): within the recursive-summation bound.
        tf16 = case.from_nhwc(tf_grad(case, x_nhwc, y_nhwc, g_nhwc)).astype(np.float32)
        g32 = wide[2]
        count = case.from_nhwc(tf_grad(case, wide[0], wide[1], np.ones_like(g32)))
        magnitude = case.from_nhwc(tf_grad(case, wide[0], wide[1], np.where(np.isfinite(g32), np.abs(g32), 0)))
        has_nonfinite = case.from_nhwc(tf_grad(case, wide[0], wide[1], (~np.isfinite(g32)).astype(np.float32)))
        mine = result.astype(np.float32)
        tolerance = ((1.01 * np.maximum(count - 1, 0) * FP16_UNIT_ROUNDOFF + FP16_UNIT_ROUNDOFF) * magnitude
                     + count * FP16_SUBNORMAL_SPACING)
        checkable = magnitude < 30000          # no float16 partial sum can overflow
        finite = checkable & (has_nonfinite == 0)
        with np.errstate(invalid="ignore"):
            bad = finite & ~(np.abs(mine - tf16) <= tolerance)
        # a non-finite contribution: both are the same Inf, or both NaN
        nonfinite = checkable & (has_nonfinite > 0)
        bad |= nonfinite & mismatch_mask(result, tf16.astype(np.float16))
        if bad.any():
            return (f"{case.describe()}\n  vs TF float16 kernel (tolerance (1.01(m-1)u+u)S + m 2^-24): "
                    + describe_mismatch(bad, mine, tf16, lambda i: f"m={count[i]:g} S={magnitude[i]:g} "
                                                              f"tol={tolerance[i]:.3g}") + f"\n  {reproducer}")
    if out is not None and out.touched_outside():
        return f"{case.describe()}\n  {out.touched_outside()} elements around the out_grad view were written"
    return None


def test_grad_random_vs_tensorflow(seed):
    impls = implementations("recompute-argmax-backward")
    failures = []
    for number, rng in enumerate(case_generators(seed, CASES_PER_SEED)):
        case, x, g = grad_case(rng, seed, number, impls)
        failure = check_grad_case(case, x, g)
        if failure:
            failures.append(failure)
    report(failures, CASES_PER_SEED, "grad", seed)


def test_random_cases_cover_the_space(seed):
    """The generator really produces what the suites claim to vary (cheap: no operator runs)."""
    seen = {"NCHW": 0, "NHWC": 0, "VALID": 0, "SAME": 0, "CALCULATED": 0, "ceil": 0, "kernel>input": 0,
            "stride>kernel": 0, "float16": 0, "float32": 0, "bfloat16": 0, "axis of 1": 0, "big kernel": 0,
            "big stride": 0, "strided output": 0, "global": 0, "pads>0": 0}
    for family in ("forward", "grad"):
        for number, rng in enumerate(case_generators(seed, CASES_PER_SEED)):
            case = cases.draw_case(rng, family, seed, number, [])
            seen[case.data_format] += 1
            seen[case.mode] += 1
            seen[case.dtype.name] += 1
            seen["ceil"] += case.ceil_mode
            seen["global"] += case.global_pooling
            seen["pads>0"] += any(case.pads)
            seen["kernel>input"] += case.kernel[0] > case.h or case.kernel[1] > case.w
            seen["stride>kernel"] += case.stride[0] > case.kernel[0] or case.stride[1] > case.kernel[1]
            seen["axis of 1"] += 1 in (case.n, case.c, case.h, case.w)
            seen["big kernel"] += max(case.kernel) > 32
            seen["big stride"] += max(case.stride) > 16
            seen["strided output"] += any(v is not None and not v.is_plain() for k, v in case.layouts.items()
                                          if k in ("y", "out_grad"))
    missing = [name for name, count in seen.items() if count < 10]
    assert not missing, f"seed={seed}: generator rarely/never produces {missing}: {seen}"


# --------------------------------------------------------------------------------------------------------
# SPEC worked examples, checked against both libraries


def nchw_to_nhwc(a):
    return np.ascontiguousarray(np.transpose(a, (0, 2, 3, 1)))


def assert_grad_example(name, x_nchw, y_nchw, g_nchw, ksize, strides, mode, pads, expected_nchw, ceil_mode=False,
                        tf_pads=None):
    x_nchw, y_nchw, g_nchw = (np.asarray(a, np.float32) for a in (x_nchw, y_nchw, g_nchw))
    expected_nchw = np.asarray(expected_nchw, np.float32).reshape(x_nchw.shape)
    mine = poolgrad.max_pool_v3_grad(x_nchw, y_nchw, g_nchw, [1, 1] + list(ksize), [1, 1] + list(strides), mode,
                                     list(pads), "NCHW", False, ceil_mode)
    np.testing.assert_array_equal(mine, expected_nchw, err_msg=f"{name}: poolgrad NCHW vs SPEC")
    mine_nhwc = poolgrad.max_pool_v3_grad(nchw_to_nhwc(x_nchw), nchw_to_nhwc(y_nchw), nchw_to_nhwc(g_nchw),
                                          [1] + list(ksize) + [1], [1] + list(strides) + [1], mode, list(pads), "NHWC",
                                          False, ceil_mode)
    np.testing.assert_array_equal(mine_nhwc, nchw_to_nhwc(expected_nchw), err_msg=f"{name}: poolgrad NHWC vs SPEC")
    padding, explicit = mode, []
    if mode == "CALCULATED":
        padding, explicit = "EXPLICIT", [0, 0] + list(tf_pads or pads) + [0, 0]
    theirs = raw_tf_grad(nchw_to_nhwc(x_nchw), nchw_to_nhwc(y_nchw), nchw_to_nhwc(g_nchw), [1] + list(ksize) + [1],
                         [1] + list(strides) + [1], padding, explicit)
    np.testing.assert_array_equal(theirs, nchw_to_nhwc(expected_nchw), err_msg=f"{name}: TensorFlow vs SPEC")


def test_we14_tie_goes_to_first():
    assert_grad_example("WE-14", np.reshape([3, 3, 1, 3], (1, 1, 2, 2)), [[[[3]]]], [[[[5]]]], (2, 2), (2, 2),
                        "VALID", (0, 0, 0, 0), [5, 0, 0, 0])


def test_we16_same_nhwc_two_channels():
    x = np.float32([1, 9, 2, 8, 3, 7, 4, 6, 5, 5, 6, 4, 7, 3, 8, 2, 9, 1]).reshape(1, 3, 3, 2)
    y_expected = np.float32([5, 9, 6, 7, 8, 3, 9, 1]).reshape(1, 2, 2, 2)
    np.testing.assert_array_equal(poolgrad.max_pool_v3_with_attrs(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME",
                                                                  [0, 0, 0, 0], "NHWC"), y_expected)
    np.testing.assert_array_equal(raw_tf_forward(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"), y_expected)
    g = np.float32([1, 10, 2, 20, 3, 30, 4, 40]).reshape(1, 2, 2, 2)
    expected = np.float32([0, 10, 0, 0, 0, 20, 0, 0, 1, 0, 2, 0, 0, 30, 3, 0, 4, 40]).reshape(1, 3, 3, 2)
    np.testing.assert_array_equal(poolgrad.max_pool_v3_grad(x, y_expected, g, [1, 2, 2, 1], [1, 2, 2, 1], "SAME",
                                                            [0, 0, 0, 0], "NHWC"), expected)
    np.testing.assert_array_equal(raw_tf_grad(x, y_expected, g, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"), expected)


WE17_X = np.float32([1, 2, 3, 4, 8, 7, 6, 5, 9, 10, 11, 12, 16, 15, 14, 13]).reshape(1, 1, 4, 4)


def test_we17_calculated_overlap():
    y = np.float32([8, 7, 16, 15]).reshape(1, 1, 2, 2)
    np.testing.assert_array_equal(poolgrad.max_pool_v3_with_attrs(WE17_X, [1, 1, 3, 3], [1, 1, 2, 2], "CALCULATED",
                                                                  [1, 1, 1, 1], "NCHW"), y)
    np.testing.assert_array_equal(raw_tf_forward(nchw_to_nhwc(WE17_X), [1, 3, 3, 1], [1, 2, 2, 1], "EXPLICIT",
                                                 [0, 0, 1, 1, 1, 1, 0, 0]), nchw_to_nhwc(y))
    assert_grad_example("WE-17 ceil=false", WE17_X, y, np.reshape([1, 2, 3, 4], (1, 1, 2, 2)), (3, 3), (2, 2),
                        "CALCULATED", (1, 1, 1, 1), [0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 3, 4, 0, 0])


def test_we17_ceil_mode_is_tf_with_extended_padding():
    """TF has no ceil_mode; pads [1,1,1,1] + ceil is pads [1,2,1,2] in TF (tf_explicit_pads)."""
    assert cases.tf_explicit_pads(4, 3, 2, 1, 1, True) == (1, 2)
    y = np.float32([8, 7, 5, 16, 15, 13, 16, 15, 13]).reshape(1, 1, 3, 3)
    np.testing.assert_array_equal(poolgrad.max_pool_v3_with_attrs(WE17_X, [1, 1, 3, 3], [1, 1, 2, 2], "CALCULATED",
                                                                  [1, 1, 1, 1], "NCHW", False, True), y)
    np.testing.assert_array_equal(raw_tf_forward(nchw_to_nhwc(WE17_X), [1, 3, 3, 1], [1, 2, 2, 1], "EXPLICIT",
                                                 [0, 0, 1, 2, 1, 2, 0, 0]), nchw_to_nhwc(y))
    assert_grad_example("WE-17 ceil=true", WE17_X, y, np.arange(1, 10).reshape(1, 1, 3, 3), (3, 3), (2, 2),
                        "CALCULATED", (1, 1, 1, 1), [0, 0, 0, 0, 1, 2, 0, 3, 0, 0, 0, 0, 11, 13, 0, 15],
                        ceil_mode=True, tf_pads=(1, 2, 1, 2))


def test_we18_valid_overlap():
    x = np.reshape([1, 2, 3, 4, 9, 5, 6, 7, 8], (1, 1, 3, 3))
    assert_grad_example("WE-18", x, np.full((1, 1, 2, 2), 9), np.reshape([1, 2, 3, 4], (1, 1, 2, 2)), (2, 2),
                        (1, 1), "VALID", (0, 0, 0, 0), [0, 0, 0, 0, 10, 0, 0, 0, 0])


def test_signed_zero_ties_keep_the_first_in_both():
    x = np.float32([-0.0, 0.0, 0.0, -0.0]).reshape(1, 1, 4, 1)
    mine = poolgrad.max_pool_v3_with_attrs(x, [1, 1, 2, 1], [1, 1, 2, 1], "VALID", [0, 0, 0, 0], "NHWC")
    theirs = raw_tf_forward(x, [1, 1, 2, 1], [1, 1, 2, 1], "VALID")
    assert np.signbit(mine).ravel().tolist() == np.signbit(theirs).ravel().tolist() == [True, False]


# --------------------------------------------------------------------------------------------------------
# Differences by design: each test pins both libraries' actual behaviour on a small example.


def row(values, dtype=np.float32):
    """A (1, 1, len, 1) NHWC tensor: a single row of W values."""
    return np.asarray(values, dtype=dtype).reshape(1, 1, -1, 1)


def test_difference_nan_in_orig_input_grad():
    """SPEC §6 / WE-15 / §11 #2-3: the seed drops the gradient when no element equals orig_output (a NaN
    orig_output, or NaN elements never match); TF recomputes the argmax with `max < v` from the first element,
    so a leading NaN takes the gradient and later NaN are skipped."""
    k = [1, 1, 4, 1]
    g = row([7])
    for values, orig_output, tf_expected, pg_expected in (
            ([NAN, 2, 1, 0], NAN, [7, 0, 0, 0], [0, 0, 0, 0]),       # WE-15 (poolgrad forward gives NaN)
            ([NAN, 2, 1, 0], 2, [7, 0, 0, 0], [0, 7, 0, 0]),         # WE-15 with orig_output 2
            ([1, NAN, 5, 2], NAN, [0, 0, 7, 0], [0, 0, 0, 0]),
            ([NAN] * 4, NAN, [7, 0, 0, 0], [0, 0, 0, 0])):
        x = row(values)
        np.testing.assert_array_equal(raw_tf_grad(x, row([orig_output]), g, k, k, "VALID").ravel(), tf_expected)
        np.testing.assert_array_equal(poolgrad.max_pool_v3_grad(x, row([orig_output]), g, k, k, "VALID",
                                                                [0, 0, 0, 0], "NHWC").ravel(), pg_expected)


def test_difference_nan_forward():
    """SPEC §7.4 / §11 #22: NaN propagates in poolgrad; TF's CPU MaxPool skips NaN (Eigen max from the lowest
    value), and a window of NaN only gives the dtype's lowest finite value."""
    k = [1, 1, 4, 1]
    for dtype in (np.float32, np.float16, BFLOAT16):
        lowest = ml_dtypes.finfo(dtype).min
        x = row([1, NAN, 5, 2, NAN, NAN, NAN, NAN], dtype)
        np.testing.assert_array_equal(raw_tf_forward(x, k, k, "VALID").astype(np.float32).ravel(),
                                      np.float32([5, lowest]))
        assert np.isnan(poolgrad.max_pool_v3_with_attrs(x, k, k, "VALID", [0, 0, 0, 0], "NHWC")
                        .astype(np.float32)).all()


def test_difference_subnormals():
    """TF runs its CPU kernels with float32 denormals flushed to zero (FTZ/DAZ): a float32 or bfloat16
    subnormal compares equal to 0 in its max, float32 results and gradient sums that are subnormal become
    +-0. poolgrad compares and adds exactly (§7.4 value bit-exact, §3.6 fp32 accumulation). float16
    subnormals widen to normal floats, so there the two agree (and the random suites cover them)."""
    k = [1, 1, 2, 1]
    d = np.float32(1e-45)                                # smallest float32 subnormal, 2**-149
    for values, tf_expected, pg_expected in (([d, 2 * d], 0.0, 2 * d), ([-0.0, d], -0.0, d)):
        x = row(values)
        assert bits(raw_tf_forward(x, k, k, "VALID")).tolist() == bits(np.float32([[[[tf_expected]]]])).tolist()
        assert bits(poolgrad.max_pool_v3_with_attrs(x, k, k, "VALID", [0, 0, 0, 0], "NHWC")).tolist() == \
            bits(np.float32([[[[pg_expected]]]])).tolist()
    b = ml_dtypes.finfo(BFLOAT16).smallest_subnormal
    x = row([b, 2 * b], BFLOAT16)
    assert raw_tf_forward(x, k, k, "VALID").ravel()[0] == b                       # the first one: a "tie"
    assert poolgrad.max_pool_v3_with_attrs(x, k, k, "VALID", [0, 0, 0, 0], "NHWC").ravel()[0] == 2 * b
    h = np.finfo(np.float16).smallest_subnormal
    x = row([h, 2 * h], np.float16)
    assert raw_tf_forward(x, k, k, "VALID").ravel()[0] == 2 * h
    assert poolgrad.max_pool_v3_with_attrs(x, k, k, "VALID", [0, 0, 0, 0], "NHWC").ravel()[0] == 2 * h
    # grad: the argmax (TF: -0.0 first, a tie; seed: the element equal to orig_output = d) ...
    x, y, g = row([-0.0, d]), row([d]), row([1])
    np.testing.assert_array_equal(raw_tf_grad(x, y, g, k, k, "VALID").ravel(), [1, 0])
    np.testing.assert_array_equal(poolgrad.max_pool_v3_grad(x, y, g, k, k, "VALID", [0, 0, 0, 0], "NHWC").ravel(),
                                  [0, 1])
    # ... and a subnormal gradient, flushed by TF's float32 addition
    x, y, g = row([1, 0]), row([1]), row([d])
    np.testing.assert_array_equal(raw_tf_grad(x, y, g, k, k, "VALID").ravel(), [0, 0])
    np.testing.assert_array_equal(poolgrad.max_pool_v3_grad(x, y, g, k, k, "VALID", [0, 0, 0, 0], "NHWC").ravel(),
                                  [d, 0])


def test_difference_all_neg_inf_window():
    """Forward: a window whose valid elements are all -Inf is -Inf in poolgrad (the true max, §7.4) and the
    dtype's lowest finite value in TF. The grad agrees (both give the first -Inf the gradient)."""
    k = [1, 1, 2, 1]
    for dtype, lowest in ((np.float32, np.finfo(np.float32).min), (np.float16, np.finfo(np.float16).min),
                          (BFLOAT16, ml_dtypes.finfo(BFLOAT16).min)):
        x = row([-INF, -INF, 3, -INF], dtype)
        np.testing.assert_array_equal(raw_tf_forward(x, k, k, "VALID").astype(np.float32).ravel(),
                                      np.float32([lowest, 3]))
        np.testing.assert_array_equal(poolgrad.max_pool_v3_with_attrs(x, k, k, "VALID", [0, 0, 0, 0], "NHWC")
                                      .astype(np.float32).ravel(), [-INF, 3])
    x = row([-INF, -INF, 3, -INF])
    y, g = row([-INF, 3]), row([1, 2])
    np.testing.assert_array_equal(raw_tf_grad(x, y, g, k, k, "VALID").ravel(), [1, 0, 2, 0])
    np.testing.assert_array_equal(poolgrad.max_pool_v3_grad(x, y, g, k, k, "VALID", [0, 0, 0, 0], "NHWC").ravel(),
                                  [1, 0, 2, 0])


def test_difference_orig_output_not_the_forward():
    """SPEC §6 / §11 #2: poolgrad gives the gradient to the first element equal to orig_output; TF's CPU
    kernel ignores orig_output's values (only its shape is checked) and recomputes the argmax."""
    x, k, g = row([1, 2, 3, 4]), [1, 1, 4, 1], row([7])
    np.testing.assert_array_equal(raw_tf_grad(x, row([2]), g, k, k, "VALID").ravel(), [0, 0, 0, 7])
    np.testing.assert_array_equal(poolgrad.max_pool_v3_grad(x, row([2]), g, k, k, "VALID", [0, 0, 0, 0], "NHWC")
                                  .ravel(), [0, 7, 0, 0])
    # an orig_output found nowhere: dropped in poolgrad
    np.testing.assert_array_equal(poolgrad.max_pool_v3_grad(x, row([9]), g, k, k, "VALID", [0, 0, 0, 0], "NHWC")
                                  .ravel(), [0, 0, 0, 0])


def test_difference_float16_accumulation():
    """SPEC §3.6 (WE-10 on V3Grad): poolgrad adds float16 gradients in float32 and rounds once; TF's CPU
    MaxPoolGrad adds in float16, rounding 2048 + 1 back to 2048 each time."""
    x = np.float16([1, 2, 3, 4, 9, 5, 6, 7, 8]).reshape(1, 3, 3, 1)
    y, g = np.full((1, 2, 2, 1), 9, np.float16), np.float16([2048, 1, 1, 0]).reshape(1, 2, 2, 1)
    k, s = [1, 2, 2, 1], [1, 1, 1, 1]
    assert raw_tf_grad(x, y, g, k, s, "VALID").ravel()[4] == 2048
    assert poolgrad.max_pool_v3_grad(x, y, g, k, s, "VALID", [0, 0, 0, 0], "NHWC").ravel()[4] == 2050
    # TF's float32 kernel on the widened operands, rounded once, is poolgrad's answer
    assert np.float16(raw_tf_grad(*(a.astype(np.float32) for a in (x, y, g)), k, s, "VALID").ravel()[4]) == 2050


def test_difference_pads_not_smaller_than_kernel():
    """SPEC §6 rule 10: CALCULATED pads >= kernel are allowed; windows lying wholly in padding give -Inf in
    the forward and drop their gradient. TF refuses such explicit paddings."""
    x, k, s = row([1, 2, 3, 4]), [1, 1, 2, 1], [1, 1, 2, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="padding 2 needs to be smaller than the window"):
        raw_tf_forward(x, k, s, "EXPLICIT", [0, 0, 0, 0, 2, 0, 0, 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="padding 2 needs to be smaller than the window"):
        raw_tf_grad(x, row([0, 2, 4]), row([1, 2, 3]), k, s, "EXPLICIT", [0, 0, 0, 0, 2, 0, 0, 0])
    y = poolgrad.max_pool_v3_with_attrs(x, k, s, "CALCULATED", [0, 0, 2, 0], "NHWC")
    np.testing.assert_array_equal(y.ravel(), [-INF, 2, 4])
    np.testing.assert_array_equal(poolgrad.max_pool_v3_grad(x, y, row([1, 2, 3]), k, s, "CALCULATED", [0, 0, 2, 0],
                                                            "NHWC").ravel(), [0, 2, 0, 3])


def test_difference_empty_output():
    """VALID with kernel > input: TF's forward returns an empty (Ho = 0) tensor and its MaxPoolGrad returns an
    uninitialised buffer; poolgrad's forward refuses (§7.4, 161002) and its grad writes zeros (§6 rule 13)."""
    x, k = row([1, 2, 3, 4]), [1, 1, 5, 1]
    assert raw_tf_forward(x, k, [1, 1, 1, 1], "VALID").shape == (1, 1, 0, 1)
    with pytest.raises(poolgrad.PoolgradError) as error:
        poolgrad.max_pool_v3_with_attrs(x, k, [1, 1, 1, 1], "VALID", [0, 0, 0, 0], "NHWC")
    assert error.value.status == 161002
    empty = np.zeros((1, 1, 0, 1), np.float32)
    out = np.full(x.shape, NAN, np.float32)
    poolgrad.max_pool_v3_grad(x, empty, empty, k, [1, 1, 1, 1], "VALID", [0, 0, 0, 0], "NHWC", out_grad=out)
    np.testing.assert_array_equal(out, np.zeros_like(x))


def test_difference_grad_attribute_limits():
    """SPEC §6 rules 2, 5, 9 (seed artifacts): poolgrad's V3Grad refuses bf16, global_pooling, kernel > 255,
    stride > 63, all of which TF's MaxPoolGrad accepts (TF has no global_pooling attribute: it is VALID with
    ksize = H x W)."""
    x = np.float32([[1, 2], [3, 4]]).reshape(1, 1, 2, 2)

    def refused(**kwargs):
        arguments = dict(orig_input=x, orig_output=np.float32([[[[4]]]]), grad=np.float32([[[[1]]]]),
                         ksize=[1, 1, 2, 2], strides=[1, 1, 1, 1], padding_mode="VALID", pads=[0, 0, 0, 0],
                         data_format="NCHW", global_pooling=False, ceil_mode=False)
        arguments.update(kwargs)
        with pytest.raises(poolgrad.PoolgradError) as error:
            poolgrad.max_pool_v3_grad(**arguments)
        return error.value.status

    bf = {name: np.asarray(v, BFLOAT16) for name, v in (("orig_input", x), ("orig_output", [[[[4]]]]),
                                                        ("grad", [[[[1]]]]))}
    assert refused(**bf) == 161002
    assert refused(global_pooling=True) == 161002
    assert refused(ksize=[1, 1, 256, 1], padding_mode="SAME", orig_output=x, grad=x) == 161002
    assert refused(strides=[1, 1, 64, 1], ksize=[1, 1, 1, 1], padding_mode="SAME",
                   orig_output=x[:, :, :1, :], grad=x[:, :, :1, :]) == 161002
    xn = nchw_to_nhwc(x)
    np.testing.assert_array_equal(raw_tf_grad(xn.astype(BFLOAT16), np.asarray([[[[4]]]], BFLOAT16),
                                              np.asarray([[[[1]]]], BFLOAT16), [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
                                  .astype(np.float32).ravel(), [0, 0, 0, 1])
    np.testing.assert_array_equal(raw_tf_grad(xn, xn, xn, [1, 256, 1, 1], [1, 1, 1, 1], "SAME").ravel(), [0, 0, 4, 6])
    np.testing.assert_array_equal(raw_tf_grad(xn, xn[:, :1], xn[:, :1], [1, 1, 1, 1], [1, 64, 1, 1], "SAME").ravel(),
                                  [1, 2, 0, 0])


def test_tf_cpu_kernels_are_nhwc_only():
    """Why NCHW problems are compared through a transposition: TF's CPU MaxPool/MaxPoolGrad refuse NCHW."""
    x = tf.zeros((1, 1, 2, 2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="only supports NHWC"):
        tf.raw_ops.MaxPool(input=x, ksize=[1, 1, 2, 2], strides=[1, 1, 2, 2], padding="VALID", data_format="NCHW")
    with pytest.raises(tf.errors.InvalidArgumentError, match="only supports NHWC"):
        tf.raw_ops.MaxPoolGrad(orig_input=x, orig_output=tf.zeros((1, 1, 1, 1)), grad=tf.zeros((1, 1, 1, 1)),
                               ksize=[1, 1, 2, 2], strides=[1, 1, 2, 2], padding="VALID", data_format="NCHW")
