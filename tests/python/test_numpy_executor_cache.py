"""The numpy operators (poolgrad/operators.py) through the executor cache (poolgrad/_executor_cache.py):
phase 1 once per problem and thread, then only phase 2 with the operands pointed at the new arrays' memory.

- Every operator function, forward and backward, in float32, float16 and bfloat16 (and int32 for max_pool),
  contiguous, channels-last (np.moveaxis views) and stepped (slices with steps of a poisoned buffer):
  repeated calls on new arrays and on the same arrays give, bit for bit, what a fresh one-shot call
  (the cache off) gives on the same arrays; the first call is a miss and every later one a hit.
- Outputs given by the caller (out=, indices=, mask=, grad_input=, y=, out_grad=), poisoned before every
  call: written in place, nothing outside the view written, and the arrays of an earlier call never
  written again when the next call gives other ones.
- The addresses the executor points at are the arrays' data pointers, inputs then outputs in C order.
- A different shape, layout, dtype or attribute is a miss; equal phase-1 arguments spelled differently hit.
- Refusals (phase 1, phase 2, an output over an input after the problem was kept, a dtype without an
  aclDataType) raise what the one-shot call raises (type, status, function, message) and leave no broken
  entry: the next valid call works. Arrays with no elements bypass the cache. The controls drop the
  executors; two threads share problems.
"""

import ml_dtypes
import numpy as np
import pytest

import poolgrad as pg
from poolgrad import _executor_cache
from thread_runs import cache_hits_on_two_threads

pytestmark = pytest.mark.skipif(not _executor_cache.enabled(),
                                reason="libpoolgrad without aclSetInputTensorAddr, or the cache is off")

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
LAYOUTS = ("contiguous", "channels_last", "stepped")


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch):
    """This thread's executors dropped before and after each test, and room for every problem a test keeps
    (whatever POOLGRAD_EXECUTOR_CACHE_SIZE says, when it is not 0)."""
    monkeypatch.setattr(_executor_cache, "CAPACITY", max(_executor_cache.CAPACITY, 16))
    _executor_cache.clear()
    yield
    _executor_cache.clear()


def one_shot(monkeypatch, function, *arguments, **keywords):
    """function(...) with every library call made afresh (run_operator), as before the cache."""
    with monkeypatch.context() as patch:
        patch.setattr(_executor_cache, "CAPACITY", 0)
        return function(*arguments, **keywords)


def raw(array):
    return np.ascontiguousarray(array).view(np.uint8)


def as_tuple(result):
    return result if isinstance(result, tuple) else (result,)


def assert_bit_equal(actual, expected, what):
    actual, expected = as_tuple(actual), as_tuple(expected)
    assert len(actual) == len(expected), what
    for position, (a, e) in enumerate(zip(actual, expected)):
        assert a.shape == e.shape and a.dtype == e.dtype, f"{what}, result {position}: {a.shape} {a.dtype}"
        assert np.array_equal(raw(a), raw(e)), f"{what}, result {position}: differs"


def significant(op, results):
    """The results as compared: of max_pool2d_with_mask's mask only the bytes the library writes (INT32
    indices, 4 bytes per output element; docs/decisions.md), the rest being padding it leaves alone."""
    results = as_tuple(results)
    if op == "max_pool2d_with_mask":
        out, mask = results
        return out, np.ascontiguousarray(mask).reshape(-1).view(np.uint8)[:4 * out.size]
    return results


def poison_value(dtype):
    return np.nan if np.dtype(dtype).kind == "f" or np.dtype(dtype) == BF16 else -7


def laid_out(values, layout):
    """`values` copied into a contiguous, channels-last (axis 1 innermost in memory) or stepped view (every
    other element of a buffer poisoned elsewhere: an index there is out of range, a value there NaN)."""
    if layout == "contiguous":
        return values.copy()
    if layout == "channels_last":
        return np.moveaxis(np.ascontiguousarray(np.moveaxis(values, 1, -1)), -1, 1)
    poison = np.nan if values.dtype.kind == "f" or values.dtype == BF16 else 12345
    big = np.full([2 * size + 1 for size in values.shape], poison, dtype=values.dtype)
    view = big[tuple(slice(1, 1 + 2 * size, 2) for size in values.shape)]
    view[...] = values
    return view


def quarters(rng, shape, dtype):
    """Tie-heavy values (quarter steps, exact in every dtype)."""
    return (rng.integers(-8, 9, shape) / 4).astype(dtype)


# ------------------------------------------------------------------------------------------- the operators
# name -> (function, names of its output keywords, make(rng, dtype, layout) -> (positional, keyword arguments)).
# A backward's make runs its forward on the new input for indices, a mask or orig_output. The mask stays dense
# (the library requires it: docs/decisions.md).

REGULAR_3D = ([3, 2, 3], [2, 1, 2], [1, 0, 1], 1, True)  # kernel, stride, padding, dilation, ceil_mode
REGULAR_2D = ([3, 2], [2, 2], [1, 1], 1, True)
MASK_2D = ([3, 3], [2, 2], [1, 1], 1, False)
V3_NCHW = ([1, 1, 3, 3], [1, 1, 2, 2], "SAME", [0, 0, 0, 0], "NCHW", False, False)
V3_NHWC = ([1, 2, 3, 1], [1, 2, 1, 1], "CALCULATED", [1, 0, 1, 1], "NHWC", False, True)


def regular_forward(shape, attributes):
    def make(rng, dtype, layout):
        return (laid_out(quarters(rng, shape, dtype), layout), *attributes), {}
    return make


def regular_backward(forward, shape, attributes):
    def make(rng, dtype, layout):
        x = laid_out(quarters(rng, shape, dtype), layout)
        out, indices = forward(x, *attributes)
        grad = laid_out(quarters(rng, out.shape, dtype), layout)
        if forward is not pg.max_pool2d_with_mask:
            indices = laid_out(indices, layout)
        return (grad, x, indices, *attributes), {}
    return make


def adaptive_forward(shape, output_size, index_dtype=np.int32):
    def make(rng, dtype, layout):
        return (laid_out(quarters(rng, shape, dtype), layout), output_size), {"index_dtype": index_dtype}
    return make


def adaptive_backward(forward, shape, output_size):
    def make(rng, dtype, layout):
        x = laid_out(quarters(rng, shape, dtype), layout)
        out, indices = forward(x, output_size, index_dtype=np.int64)
        grad = laid_out(quarters(rng, out.shape, dtype), layout)
        return (grad, x, laid_out(indices, layout)), {}
    return make


def v3_forward(shape, attributes):
    def make(rng, dtype, layout):
        return (laid_out(quarters(rng, shape, dtype), layout), *attributes), {}
    return make


def v3_backward(shape, attributes):
    def make(rng, dtype, layout):
        x = laid_out(quarters(rng, shape, dtype), layout)
        y = pg.max_pool_v3_with_attrs(x, *attributes)
        grad = laid_out(quarters(rng, y.shape, dtype), layout)
        return (x, laid_out(y, layout), grad, *attributes), {}
    return make


def onnx_max_pool(rng, dtype, layout):
    return (laid_out(quarters(rng, (2, 3, 9, 8), dtype), layout), [3, 2], [2, 1], 0, [1, 0, 1, 1], (), 1), {}


def max_pool_v3_case(rng, dtype, layout):
    return (laid_out(quarters(rng, (2, 3, 9, 8), dtype), layout), [1, 1, 3, 2], [1, 1, 2, 2], [1, 1, 0, 1], 1), {}


OPS = {
    "max_pool3d_with_argmax": (pg.max_pool3d_with_argmax, ("out", "indices"),
                               regular_forward((2, 3, 5, 7, 6), REGULAR_3D)),
    "max_pool3d_with_argmax_backward": (pg.max_pool3d_with_argmax_backward, ("grad_input",),
                                        regular_backward(pg.max_pool3d_with_argmax, (2, 3, 5, 7, 6), REGULAR_3D)),
    "max_pool2d_with_indices": (pg.max_pool2d_with_indices, ("out", "indices"),
                                regular_forward((2, 3, 7, 9), REGULAR_2D)),
    "max_pool2d_with_indices_backward": (pg.max_pool2d_with_indices_backward, ("grad_input",),
                                         regular_backward(pg.max_pool2d_with_indices, (2, 3, 7, 9), REGULAR_2D)),
    "max_pool2d_with_mask": (pg.max_pool2d_with_mask, ("out", "mask"), regular_forward((2, 3, 7, 9), MASK_2D)),
    "max_pool2d_with_mask_backward": (pg.max_pool2d_with_mask_backward, ("grad_input",),
                                      regular_backward(pg.max_pool2d_with_mask, (2, 3, 7, 9), MASK_2D)),
    "adaptive_max_pool3d": (pg.adaptive_max_pool3d, ("out", "indices"),
                            adaptive_forward((2, 3, 5, 7, 6), [2, 3, 4])),
    "adaptive_max_pool3d_backward": (pg.adaptive_max_pool3d_backward, ("grad_input",),
                                     adaptive_backward(pg.adaptive_max_pool3d, (2, 3, 5, 7, 6), [2, 3, 4])),
    "adaptive_max_pool2d": (pg.adaptive_max_pool2d, ("out", "indices"),
                            adaptive_forward((2, 3, 7, 9), [3, 5], np.int64)),
    "adaptive_max_pool2d_backward": (pg.adaptive_max_pool2d_backward, ("grad_input",),
                                     adaptive_backward(pg.adaptive_max_pool2d, (2, 3, 7, 9), [3, 5])),
    "max_pool_v3_with_attrs": (pg.max_pool_v3_with_attrs, ("y",), v3_forward((2, 3, 7, 9), V3_NCHW)),
    "max_pool_v3_with_attrs_nhwc": (pg.max_pool_v3_with_attrs, ("y",), v3_forward((2, 7, 9, 3), V3_NHWC)),
    "max_pool_v3_grad": (pg.max_pool_v3_grad, ("out_grad",), v3_backward((2, 3, 7, 9), V3_NCHW)),
    "max_pool_v3_grad_nhwc": (pg.max_pool_v3_grad, ("out_grad",), v3_backward((2, 7, 9, 3), V3_NHWC)),
    "max_pool": (pg.max_pool, ("out",), onnx_max_pool),
    "max_pool_v3": (pg.max_pool_v3, ("out",), max_pool_v3_case),
}


def dtypes_of(op):
    names = ["float32", "float16"]
    if not op.startswith("max_pool_v3_grad"):  # aclnnMaxPoolV3Grad refuses bfloat16
        names.append("bfloat16")
    if op == "max_pool":
        names.append("int32")
    return names


CASES = [(op, dtype, layout) for op in sorted(OPS) for dtype in dtypes_of(op) for layout in LAYOUTS]


def counted(function, *arguments, **keywords):
    """(result, change of this thread's hits, misses and address updates) of one call."""
    before = _executor_cache.statistics()
    result = function(*arguments, **keywords)
    after = _executor_cache.statistics()
    return result, tuple(after[name] - before[name] for name in ("hits", "misses", "address_updates"))


@pytest.mark.parametrize("op,dtype,layout", CASES)
def test_repeated_calls_equal_fresh_calls(monkeypatch, op, dtype, layout):
    function, _, make = OPS[op]
    dtype = np.dtype(DTYPES.get(dtype, dtype))
    rng = np.random.default_rng(11)
    reused = make(rng, dtype, layout)
    kept = []  # every array of every call stays alive: each new call gets new addresses
    calls = 0
    for call in range(3):
        for (arguments, keywords), what in ((make(rng, dtype, layout), "new arrays"), (reused, "reused arrays")):
            result, (hits, misses, _) = counted(function, *arguments, **keywords)
            expected = one_shot(monkeypatch, function, *arguments, **keywords)
            assert_bit_equal(significant(op, result), significant(op, expected),
                             f"{op} {dtype} {layout} call {call}, {what}")
            assert (hits, misses) == ((0, 1) if calls == 0 else (1, 0)), f"call {call}, {what}: {hits} hits"
            calls += 1
            kept += [arguments, result, expected]
    assert _executor_cache.statistics()["entries"] >= 1


# ------------------------------------------------------------------------------------- outputs in place


def poisoned_like(array, layout):
    """A view laid out like `layout` holding the poison of array's dtype; its buffer is poisoned too."""
    return laid_out(np.full(array.shape, poison_value(array.dtype), dtype=array.dtype), layout)


def written_count(name, view, out):
    """The elements of an output's buffer a call writes: its view's, and of a mask only its first 4 bytes per
    element of `out` (the INT32 indices, the rest untouched)."""
    return 4 * out.size if name == "mask" else view.size


def buffer_of(view):
    return view if view.base is None else view.base


def poisoned_elements_outside(view):
    """The number of elements of view's buffer that do not hold the poison, minus the view's own."""
    base = buffer_of(view)
    poison = np.full(base.shape, poison_value(base.dtype), dtype=base.dtype)
    differing = (raw(base).reshape(base.size, -1) != raw(poison).reshape(base.size, -1)).any(axis=1)
    return int(differing.sum())


def assert_all_poison(view, what):
    assert poisoned_elements_outside(view) == 0, f"{what}: written"


def repoison(view):
    buffer_of(view)[...] = poison_value(view.dtype)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", sorted(OPS))
def test_given_outputs_are_written_in_place_and_old_ones_never_again(monkeypatch, op, layout):
    function, output_names, make = OPS[op]
    arguments, keywords = make(np.random.default_rng(5), np.dtype(np.float32), layout)
    expected = as_tuple(one_shot(monkeypatch, function, *arguments, **keywords))
    layouts = {name: "contiguous" if name == "mask" else layout for name in output_names}
    first = {name: poisoned_like(e, layouts[name]) for name, e in zip(output_names, expected)}
    second = {name: poisoned_like(e, layouts[name]) for name, e in zip(output_names, expected)}
    # first, second, first again, second again: the executor moves between the two sets each call.
    for call, (given, left) in enumerate(((first, second), (second, first), (first, second), (second, first))):
        for view in (*given.values(), *left.values()):
            repoison(view)
        result, (hits, misses, updates) = counted(function, *arguments, **keywords, **given)
        assert (hits, misses) == ((0, 1) if call == 0 else (1, 0))
        assert call == 0 or updates == len(output_names), f"call {call}: {updates} operands re-pointed"
        for name, value in zip(output_names, as_tuple(result)):
            assert value is given[name], f"{name} not returned as given"
        assert_bit_equal(significant(op, tuple(given.values())), significant(op, expected),
                         f"{op} {layout} call {call}")
        for name, view in given.items():  # nothing outside the view written
            assert poisoned_elements_outside(view) == written_count(name, view, expected[0]), \
                f"call {call}: {name} written outside its view"
        for name, view in left.items():  # the arrays of the call before are not written through
            assert_all_poison(view, f"call {call}: the {name} left behind")


# ------------------------------------------------------------------------------------------ the addresses


def test_the_executor_points_at_the_arrays_data_inputs_then_outputs():
    base = np.random.default_rng(3).standard_normal((3, 9, 10, 11, 4)).astype(np.float32)
    x = np.moveaxis(base, -1, 1)[1:, 1:3, 2:9:2]  # offset, channels-last strides, sliced channels, stepped depth
    kept = []
    for _ in range(3):
        out, indices = pg.max_pool3d_with_argmax(x, 2, 1)
        name, addresses = _executor_cache.entries()[-1]
        assert name == "aclnnMaxPool3dWithArgmax"
        assert addresses == (x.ctypes.data, out.ctypes.data, indices.ctypes.data)
        kept += [out, indices]
    grad = np.ones_like(out)
    grad_input = pg.max_pool3d_with_argmax_backward(grad, x, indices, 2, 1)
    name, addresses = _executor_cache.entries()[-1]
    assert name == "aclnnMaxPool3dWithArgmaxBackward"
    assert addresses == (grad.ctypes.data, x.ctypes.data, indices.ctypes.data, grad_input.ctypes.data)
    x2 = np.ascontiguousarray(np.random.default_rng(4).standard_normal((2, 3, 8, 6)).astype(np.float32))
    y = pg.max_pool_v3_with_attrs(x2, [1, 1, 2, 2], [1, 1, 2, 2])
    dy = np.ones_like(y)
    dx = pg.max_pool_v3_grad(x2, y, dy, [1, 1, 2, 2], [1, 1, 2, 2])
    assert _executor_cache.entries()[-1] == ("aclnnMaxPoolV3Grad", (x2.ctypes.data, y.ctypes.data, dy.ctypes.data,
                                                                    dx.ctypes.data))


# ------------------------------------------------------------------------------------------------ the key

X5 = np.random.default_rng(8).standard_normal((2, 3, 6, 8, 8)).astype(np.float32)
BASE_3D = ((X5, [2, 2, 2], [2, 2, 2], 0), {})

DIFFERENT_3D = {
    "shape": ((X5[:, :, :, :, :7], [2, 2, 2], [2, 2, 2], 0), {}),
    "strides": ((np.moveaxis(np.ascontiguousarray(np.moveaxis(X5, 1, -1)), -1, 1), [2, 2, 2], [2, 2, 2], 0), {}),
    "dtype": ((X5.astype(np.float16), [2, 2, 2], [2, 2, 2], 0), {}),
    "kernel": ((X5, [2, 2, 3], [2, 2, 2], 0), {}),
    "stride": ((X5, [2, 2, 2], [2, 1, 2], 0), {}),
    "stride None": ((X5, [2, 2, 2], None, 0), {}),
    "padding": ((X5, [2, 2, 2], [2, 2, 2], 1), {}),
    "dilation": ((X5, [2, 2, 2], [2, 2, 2], 0, 2), {}),
    "ceil_mode": ((X5, [2, 2, 2], [2, 2, 2], 0, 1, True), {}),
    "index dtype": ((X5, [2, 2, 2], [2, 2, 2], 0), {"index_dtype": np.int64}),
}
# Pairs of calls whose phase 1 receives the same arguments: the second hits.
SAME_3D = {
    "one int and a list of one": ((X5, [2], [2], [0]), (X5, 2, 2, 0)),
    "tuples and lists": ((X5, [2, 2, 2], [2, 2, 2], [0]), (X5, (2, 2, 2), (2, 2, 2), (0,))),
    "numpy ints and ints": ((X5, [2, 2, 2], [2, 2, 2], [0]), (X5, [np.int64(2)] * 3, (np.int32(2),) * 3, np.int32(0))),
    "a copy of the input": ((X5, [2, 2, 2], [2, 2, 2], 0), (X5.copy(), [2, 2, 2], [2, 2, 2], 0)),
    "ceil_mode 0 and False": ((X5, 3, 2, 0, 1, False), (X5, 3, 2, 0, 1, 0)),
}


@pytest.mark.parametrize("variant", sorted(DIFFERENT_3D))
def test_a_different_problem_is_a_miss(monkeypatch, variant):
    arguments, keywords = BASE_3D
    counted(pg.max_pool3d_with_argmax, *arguments, **keywords)
    arguments, keywords = DIFFERENT_3D[variant]
    result, (hits, misses, _) = counted(pg.max_pool3d_with_argmax, *arguments, **keywords)
    assert (hits, misses) == (0, 1)
    assert_bit_equal(result, one_shot(monkeypatch, pg.max_pool3d_with_argmax, *arguments, **keywords), variant)
    assert counted(pg.max_pool3d_with_argmax, *BASE_3D[0])[1][:2] == (1, 0)  # both kept
    assert _executor_cache.statistics()["entries"] == 2


@pytest.mark.parametrize("variant", sorted(SAME_3D))
def test_the_same_phase_one_arguments_spelled_otherwise_hit(monkeypatch, variant):
    first, second = SAME_3D[variant]
    expected, (_, misses, _) = counted(pg.max_pool3d_with_argmax, *first)
    assert misses == 1
    result, (hits, misses, _) = counted(pg.max_pool3d_with_argmax, *second)
    assert (hits, misses) == (1, 0)
    assert_bit_equal(result, expected, variant)


X4 = np.random.default_rng(9).standard_normal((2, 3, 8, 10)).astype(np.float32)
V3_BASE = (X4, [1, 1, 3, 3], [1, 1, 2, 2], "CALCULATED", [1, 1, 1, 1], "NCHW", False, False)
V3_DIFFERENT = {
    "padding_mode": (3, "SAME"),
    "padding_mode None": (3, None),
    "pads": (4, [1, 0, 1, 1]),
    "pads None": (4, None),
    "data_format": (5, "NHWC"),
    "global_pooling": (6, True),
    "ceil_mode": (7, True),
}


@pytest.mark.parametrize("variant", sorted(V3_DIFFERENT))
def test_a_different_v3_attribute_is_a_miss(monkeypatch, variant):
    counted(pg.max_pool_v3_with_attrs, *V3_BASE)
    position, value = V3_DIFFERENT[variant]
    arguments = list(V3_BASE)
    arguments[position] = value
    if variant == "data_format":
        arguments[1], arguments[2] = [1, 3, 3, 1], [1, 2, 2, 1]
    result, (hits, misses, _) = counted(pg.max_pool_v3_with_attrs, *arguments)
    assert (hits, misses) == (0, 1)
    assert_bit_equal(result, one_shot(monkeypatch, pg.max_pool_v3_with_attrs, *arguments), variant)


@pytest.mark.parametrize("variant", ["ceil_mode", "dilations", "pads"])
def test_a_different_onnx_attribute_is_a_miss(variant):
    base = dict(kernel_shape=[2, 2], strides=[2, 2], auto_pad=0, pads=[0, 0, 0, 0], dilations=[1, 1], ceil_mode=0)
    changed = dict(base, **{"ceil_mode": {"ceil_mode": 1},
                            "dilations": {"dilations": None}, "pads": {"pads": [0, 0, 1, 1]}}[variant])
    counted(pg.max_pool, X4, **base)
    assert counted(pg.max_pool, X4, **changed)[1][:2] == (0, 1)
    assert counted(pg.max_pool, X4, **base)[1][:2] == (1, 0)


def test_max_pool_v3_ceil_mode_scalar_is_in_the_key():
    arguments = (X4, [1, 1, 3, 3], [1, 1, 2, 2], [0, 0, 0, 0])
    assert counted(pg.max_pool_v3, *arguments, None)[1][:2] == (0, 1)
    assert counted(pg.max_pool_v3, *arguments, 0)[1][:2] == (0, 1)  # a scalar 0, not a null pointer
    assert counted(pg.max_pool_v3, *arguments, 1)[1][:2] == (0, 1)
    assert counted(pg.max_pool_v3, *arguments, 2)[1][:2] == (0, 1)  # ceil as well, but another INT64 value
    assert counted(pg.max_pool_v3, *arguments, None)[1][:2] == (1, 0)


# ------------------------------------------------------------------------------------------------ refusals


def error_of(function, *arguments, **keywords):
    with pytest.raises(Exception) as caught:
        function(*arguments, **keywords)
    error = caught.value
    return type(error), getattr(error, "status", None), getattr(error, "function", None), str(error)


def assert_same_refusal(monkeypatch, function, *arguments, **keywords):
    """The cached call and the one-shot call raise the same error; returns it."""
    cached = error_of(function, *arguments, **keywords)
    fresh = error_of(lambda: one_shot(monkeypatch, function, *arguments, **keywords))
    assert cached == fresh
    return cached


def backward_problem(rng):
    x = quarters(rng, (2, 3, 6, 8), np.float32)
    out, indices = pg.max_pool2d_with_indices(x, 2, 2)
    return x, out, indices


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "kept"])
def test_indices_out_of_range_refused_as_before_and_the_next_call_works(monkeypatch, warm):
    x, out, indices = backward_problem(np.random.default_rng(1))
    grad = np.ones_like(out)
    if warm:
        counted(pg.max_pool2d_with_indices_backward, grad, x, indices, 2, 2)
    bad = indices.copy()
    bad[1, 2, 0, 1] = x.shape[2] * x.shape[3]
    error = assert_same_refusal(monkeypatch, pg.max_pool2d_with_indices_backward, grad, x, bad, 2, 2)
    assert error[:3] == (pg.PoolgradError, 161002, "aclnnMaxPool2dWithIndicesBackward")
    assert _executor_cache.statistics()["entries"] == 1  # only the forward's: the refused problem was dropped
    # A refused run into a given grad_input leaves what the one-shot call leaves.
    given, fresh_given = np.full_like(x, np.nan), np.full_like(x, np.nan)
    with pytest.raises(pg.PoolgradError):
        pg.max_pool2d_with_indices_backward(grad, x, bad, 2, 2, grad_input=given)
    with pytest.raises(pg.PoolgradError):
        one_shot(monkeypatch, pg.max_pool2d_with_indices_backward, grad, x, bad, 2, 2, grad_input=fresh_given)
    assert_bit_equal(given, fresh_given, "grad_input after a refusal")
    for _ in range(2):
        result = pg.max_pool2d_with_indices_backward(grad, x, indices, 2, 2)
        assert_bit_equal(result, one_shot(monkeypatch, pg.max_pool2d_with_indices_backward, grad, x, indices, 2, 2),
                         "after the refusal")
    assert _executor_cache.statistics()["entries"] == 2


def test_a_wrong_out_shape_refused_in_phase_one_and_not_kept(monkeypatch):
    x = quarters(np.random.default_rng(2), (2, 3, 6, 8), np.float32)
    for _ in range(2):
        error = assert_same_refusal(monkeypatch, pg.max_pool2d_with_indices, x, 2, 2,
                                    out=np.empty((2, 3, 2, 2), np.float32))
        assert error[:3] == (pg.PoolgradError, 161002, "aclnnMaxPool2dWithIndicesGetWorkspaceSize")
        assert _executor_cache.statistics()["entries"] == 0
    assert_bit_equal(pg.max_pool2d_with_indices(x, 2, 2), one_shot(monkeypatch, pg.max_pool2d_with_indices, x, 2, 2),
                     "after the refusal")


def test_an_output_over_an_input_of_a_kept_problem_refused_as_a_fresh_call_refuses_it(monkeypatch):
    """A kept executor meets the overlap in phase 2 (a fresh call in phase 1): the same error all the same."""
    memory = quarters(np.random.default_rng(3), (200,), np.float32)
    x = memory[:96].reshape(2, 3, 4, 4)
    counted(pg.max_pool2d_with_indices, x, 2, 2)  # the problem is kept
    overlapping = memory[8:32].reshape(2, 3, 2, 2)
    for _ in range(2):
        error = assert_same_refusal(monkeypatch, pg.max_pool2d_with_indices, x, 2, 2, out=overlapping)
        assert error[:3] == (pg.PoolgradError, 161002, "aclnnMaxPool2dWithIndicesGetWorkspaceSize")
    out = np.full((2, 3, 2, 2), np.nan, np.float32)
    assert_bit_equal(pg.max_pool2d_with_indices(x, 2, 2, out=out),
                     one_shot(monkeypatch, pg.max_pool2d_with_indices, x, 2, 2), "after the refusal")


def test_a_refused_dtype_raises_every_time_and_is_not_kept(monkeypatch):
    x = quarters(np.random.default_rng(4), (1, 2, 6, 6), BF16)
    y = pg.max_pool_v3_with_attrs(x, [1, 1, 2, 2], [1, 1, 2, 2])
    for _ in range(2):
        error = assert_same_refusal(monkeypatch, pg.max_pool_v3_grad, x, y, np.ones_like(y), [1, 1, 2, 2],
                                    [1, 1, 2, 2])
        assert error[:3] == (pg.PoolgradError, 161002, "aclnnMaxPoolV3GradGetWorkspaceSize")
    assert [name for name, _ in _executor_cache.entries()] == ["aclnnMaxPoolV3WithAttrs"]
    before = _executor_cache.statistics()
    for _ in range(2):  # no aclDataType: the one-shot path's TypeError, the cache untouched
        error = assert_same_refusal(monkeypatch, pg.max_pool2d_with_indices, np.ones((1, 1, 4, 4), np.complex64), 2)
        assert error[0] is TypeError
    after = _executor_cache.statistics()
    assert (after["hits"], after["misses"]) == (before["hits"], before["misses"])


# ---------------------------------------------------------------------------------------- empty, controls


@pytest.mark.parametrize("axes", [2, 3])
def test_arrays_with_no_elements_bypass_the_cache(monkeypatch, axes):
    """numpy gives an array with no elements a non-null address: the cache must not be keyed on it."""
    forward, backward = ((pg.max_pool2d_with_indices, pg.max_pool2d_with_indices_backward) if axes == 2 else
                         (pg.adaptive_max_pool3d, pg.adaptive_max_pool3d_backward))
    shape = (0, 3) + (4,) * axes
    arguments = (2,) if axes == 2 else ([2, 2, 2],)
    before = _executor_cache.statistics()
    for _ in range(3):
        x = np.empty(shape, np.float32)
        out, indices = forward(x, *arguments)
        assert out.shape == shape[:2] + (2,) * axes
        assert_bit_equal((out, indices), one_shot(monkeypatch, forward, x, *arguments), "empty forward")
        keywords = {"kernel_size": 2} if axes == 2 else {}
        grad_input = backward(out, x, indices, **keywords)
        assert grad_input.shape == shape
        assert_bit_equal(grad_input, one_shot(monkeypatch, backward, out, x, indices, **keywords), "empty backward")
    after = _executor_cache.statistics()
    assert (after["hits"], after["misses"], after["entries"]) == (before["hits"], before["misses"], 0)


def test_controls_drop_the_executors():
    pg.max_pool2d_with_indices(X4, 2)
    assert _executor_cache.statistics()["entries"] == 1
    pg.set_num_threads(pg.get_num_threads())
    assert _executor_cache.statistics()["entries"] == 0
    assert counted(pg.max_pool2d_with_indices, X4, 2)[1][:2] == (0, 1)


def test_two_threads_run_the_same_problems(monkeypatch):
    rng = np.random.default_rng(6)
    inputs = [laid_out(quarters(rng, (2, 3, 5, 7, 6), np.float32), LAYOUTS[i % 3]) for i in range(6)]
    expected = []
    for x in inputs:
        out, indices = one_shot(monkeypatch, pg.max_pool3d_with_argmax, x, 3, 2, 1)
        expected.append((out, indices, one_shot(monkeypatch, pg.max_pool3d_with_argmax_backward, out, x, indices,
                                                 3, 2, 1)))
    def rounds(offset):
        for round_ in range(30):
            i = (round_ + offset) % len(inputs)
            out, indices = pg.max_pool3d_with_argmax(inputs[i], 3, 2, 1)
            grad = pg.max_pool3d_with_argmax_backward(out, inputs[i], indices, 3, 2, 1)
            assert_bit_equal((out, indices, grad), expected[i], f"thread {offset}, input {i}")

    hits = cache_hits_on_two_threads(rounds)
    assert all(count >= 50 for count in hits), hits
