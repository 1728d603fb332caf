"""poolgrad.torch's executor cache (poolgrad/_executor_cache.py): phase 1 once per problem and thread, then
only phase 2 on the new tensors' memory (aclSetInputTensorAddr / aclSetOutputTensorAddr).

- Every operator, forward and backward, float32 and bfloat16 (float16 for max_pool2d_tf's backward, which
  refuses bfloat16), contiguous, channels-last and stepped inputs: repeated calls on new tensors (new
  addresses, the old ones kept alive) and on the same tensor give, bit for bit, what fresh one-shot calls
  (the cache off) give.
- Outputs written through the cache: poisoned with NaN before every run, whether the executor keeps its
  output address or moves between two buffers; the buffer left behind is never written again.
- The cache hits (its counters), the setters of poolgrad.controls invalidate it on every thread, and a forced
  implementation reaches an operator whose executor was kept; eviction; a refused run drops its entry and
  the next call works; empty tensors bypass it; two threads share problems concurrently; double backward
  still raises.
"""

import gc
import threading

import pytest
import torch

import poolgrad
import poolgrad.torch as pt
from poolgrad import _executor_cache
from poolgrad.torch._views import describe
from thread_runs import cache_hits_on_two_threads

pytestmark = pytest.mark.skipif(not _executor_cache.enabled(),
                                reason="libpoolgrad without aclSetInputTensorAddr, or the cache is off")

_BITS = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16,
         torch.int64: torch.int64}


def bits(tensor):
    return tensor.contiguous().view(_BITS[tensor.dtype])


def assert_bit_equal(actual, expected, what):
    assert actual.shape == expected.shape and actual.dtype == expected.dtype, what
    assert actual.stride() == expected.stride(), f"{what}: strides {actual.stride()} != {expected.stride()}"
    assert torch.equal(bits(actual), bits(expected)), f"{what}: differs"


@pytest.fixture
def fresh_cache():
    """This thread's executors dropped before and after the test."""
    _executor_cache.clear()
    yield
    _executor_cache.clear()


def without_cache(monkeypatch, function, *arguments):
    """function(*arguments) with every library call made afresh (run_operator), as before the cache."""
    with monkeypatch.context() as patch:
        patch.setattr(_executor_cache, "CAPACITY", 0)
        return function(*arguments)


# ---------------------------------------------------------------------------------------------- operators

OPS = {
    "max_pool3d": (3, lambda t: pt.max_pool3d(t, 3, 2, 1, return_indices=True)),
    "max_pool2d": (2, lambda t: pt.max_pool2d(t, 3, 2, 1, ceil_mode=True, return_indices=True)),
    "adaptive_max_pool3d": (3, lambda t: pt.adaptive_max_pool3d(t, (2, 3, 4), return_indices=True)),
    "adaptive_max_pool2d": (2, lambda t: pt.adaptive_max_pool2d(t, (3, 5), return_indices=True)),
    "max_pool2d_tf": (2, lambda t: pt.max_pool2d_tf(t, 3, 2, "SAME", "NCHW")),
    "max_pool2d_tf_nhwc": (2, lambda t: pt.max_pool2d_tf(t, (2, 3), (2, 1), "VALID", "NHWC")),
}


def make_input(generator, axes, dtype, layout):
    """Tie-heavy values (quarter steps) in a contiguous, channels-last or stepped-slice view."""
    shape = [2, 5] + [6, 9, 11][-axes:]
    values = (torch.randint(-8, 9, shape, generator=generator).float() / 4).to(dtype)
    if layout == "channels_last":
        return values.contiguous(memory_format=torch.channels_last_3d if axes == 3 else torch.channels_last)
    if layout == "stepped":
        big = torch.full([2 * s + 1 for s in shape], float("nan"), dtype=dtype)
        view = big[tuple(slice(1, 1 + 2 * s, 2) for s in shape)]
        view.copy_(values)
        return view
    return values


def nhwc(nchw, layout):
    view = nchw.permute(0, 2, 3, 1)
    return view.contiguous() if layout == "contiguous" else view


def forward_and_backward(op, x, grad_seed, backward=True):
    """(values, indices or None, gradient of x or None) through poolgrad.torch and loss.backward()."""
    leaf = x.detach().requires_grad_()
    result = OPS[op][1](leaf)
    values, indices = result if isinstance(result, tuple) else (result, None)
    if not backward:
        return values.detach(), indices, None
    generator = torch.Generator().manual_seed(grad_seed)
    grad = (torch.randint(-4, 5, values.shape, generator=generator).float() / 2).to(x.dtype)
    values.backward(grad)
    return values.detach(), indices, leaf.grad


def compare(actual, expected, what):
    for name, a, e in zip(("values", "indices", "gradient"), actual, expected):
        if e is None:
            assert a is None, what
        else:
            assert_bit_equal(a, e, f"{what}: {name}")


@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "stepped"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_repeated_calls_equal_fresh_calls(monkeypatch, fresh_cache, op, dtype, layout):
    axes = OPS[op][0]
    if op == "max_pool2d_tf_nhwc":  # NHWC axes: dense NHWC memory, or NCHW memory, or a stepped view
        make = lambda g: nhwc(make_input(g, 2, dtype, layout), layout)  # noqa: E731
    else:
        make = lambda g: make_input(g, axes, dtype, layout)  # noqa: E731
    # aclnnMaxPoolV3Grad refuses bfloat16 (docs/torch.md): the tf backward runs in float16 instead.
    backward_dtype = torch.float16 if op.startswith("max_pool2d_tf") and dtype == torch.bfloat16 else dtype
    generator = torch.Generator().manual_seed(3)
    kept = []  # every tensor of every call stays alive: each call gets new addresses
    before = _executor_cache.statistics()
    reused = make(generator)
    for call in range(4):
        for x, what in ((make(generator), "new tensors"), (reused, "the same input")):
            x = x.to(backward_dtype) if backward_dtype != dtype else x
            cached = forward_and_backward(op, x, call)
            fresh = without_cache(monkeypatch, forward_and_backward, op, x, call)
            compare(cached, fresh, f"{op} {dtype} {layout} call {call}, {what}")
            kept += [x, *cached, *fresh]
            if backward_dtype != dtype:  # and the bfloat16 forward, which works
                x = x.to(dtype)
                cached = forward_and_backward(op, x, call, backward=False)
                compare(cached, without_cache(monkeypatch, forward_and_backward, op, x, call, False), what)
                kept += [x, *cached]
    after = _executor_cache.statistics()
    problems = 2 if backward_dtype == dtype else 3  # forward and backward (and the bfloat16 forward)
    assert after["misses"] - before["misses"] == problems
    assert after["hits"] - before["hits"] == 7 * problems
    assert after["address_updates"] > before["address_updates"]


def test_descriptors_point_at_the_tensors_memory_on_every_call(fresh_cache):
    base = torch.randn(3, 4, 10, 9, 8).contiguous(memory_format=torch.channels_last_3d)
    x = base[1:, 1:3, 2:9:2]  # offset, sliced channels, stepped depth, channels-last strides
    kept = []
    for _ in range(3):
        out, indices = pt.max_pool3d(x, 2, 1, return_indices=True)
        name, addresses = _executor_cache.entries()[-1]
        assert name == "aclnnMaxPool3dWithArgmax"
        assert addresses == (x.data_ptr(), out.data_ptr(), indices.data_ptr())
        kept += [out, indices]
    grad = torch.empty_like(out).normal_()  # laid out like the indices: passed without a copy
    grad_input = torch.ops.poolgrad.max_pool3d_with_indices_backward(grad, x, indices, [2], [1], [0], [1], False) \
        if pt.REGISTERED else None
    if grad_input is not None:
        name, addresses = _executor_cache.entries()[-1]
        assert name == "aclnnMaxPool3dWithArgmaxBackward"
        assert addresses == (grad.data_ptr(), x.data_ptr(), indices.data_ptr(), grad_input.data_ptr())


# ------------------------------------------------------------------------------ outputs through the cache


def run_max_pool2d(x, out, indices, key):
    """aclnnMaxPool2dWithIndices (kernel 2, stride 1) into the given outputs, through the cache."""
    def build(arguments):
        xd, od, idd = describe(arguments, x), describe(arguments, out), describe(arguments, indices)
        return (xd, arguments.int_array([2]), arguments.int_array([1]), arguments.int_array([0]),
                arguments.int_array([1]), False, od, idd), (xd,), (od, idd)

    _executor_cache.run("aclnnMaxPool2dWithIndices", key, (x.data_ptr(), out.data_ptr(), indices.data_ptr()),
                        build)


def test_poisoned_outputs_are_written_on_every_run(fresh_cache):
    key = object()
    x = torch.randn(2, 3, 7, 6)
    expected, expected_indices = torch.nn.functional.max_pool2d(x, 2, 1, return_indices=True)
    buffers = [(torch.empty_like(expected), torch.empty_like(expected_indices)) for _ in range(2)]
    for run in range(6):
        inputs = [x, x.clone()][run % 2]  # the input moves too
        out, indices = buffers[(run // 2) % 2]  # two runs on one buffer pair, then on the other
        left = buffers[1 - (run // 2) % 2]
        for tensor in (out, *left[:1]):
            tensor.fill_(float("nan"))
        indices.fill_(-7)
        left[1].fill_(-9)
        run_max_pool2d(inputs, out, indices, key)
        assert torch.equal(out, expected) and torch.equal(indices, expected_indices), f"run {run}"
        # The buffers the executor pointed at before are not written through.
        assert bool(left[0].isnan().all()) and bool((left[1] == -9).all()), f"run {run}: stale address written"
    assert _executor_cache.statistics()["entries"] == 1


def test_a_refused_run_drops_its_entry_and_the_next_call_works(fresh_cache):
    key = object()
    x = torch.randn(1, 2, 5, 5)
    out, indices = torch.empty(1, 2, 4, 4), torch.empty(1, 2, 4, 4, dtype=torch.int64)
    run_max_pool2d(x, out, indices, key)
    assert _executor_cache.statistics()["entries"] == 1
    # An output over the input: phase 2 checks the new addresses and refuses, writing nothing.
    overlapping = x.view(-1)[:32].view(1, 2, 4, 4)
    with pytest.raises(poolgrad.PoolgradError) as error:
        run_max_pool2d(x, overlapping, indices, key)
    assert error.value.function == "aclnnMaxPool2dWithIndices"
    assert _executor_cache.statistics()["entries"] == 0
    fresh_out = torch.full_like(out, float("nan"))
    run_max_pool2d(x, fresh_out, indices, key)
    assert torch.equal(fresh_out, torch.nn.functional.max_pool2d(x, 2, 1))


def test_refused_problems_raise_every_time_and_are_not_kept(fresh_cache):
    x = torch.randn(1, 1, 4, 4, 4)
    for _ in range(3):
        with pytest.raises(poolgrad.PoolgradError, match="kernelSize must have length 1, 3, got length 2"):
            pt.max_pool3d(x, [2, 2])
    assert _executor_cache.statistics()["entries"] == 0
    leaf = torch.arange(16, dtype=torch.bfloat16).reshape(1, 1, 4, 4).requires_grad_()
    for _ in range(2):
        with pytest.raises(poolgrad.PoolgradError, match="aclnnMaxPoolV3Grad"):
            pt.max_pool2d_tf(leaf, 2, 2, "VALID").sum().backward()


def test_empty_tensors_bypass_the_cache(fresh_cache):
    before = _executor_cache.statistics()
    for _ in range(2):
        out = pt.max_pool2d(torch.empty(0, 3, 4, 4), 2)
        assert out.shape == (0, 3, 2, 2)
    after = _executor_cache.statistics()
    assert (after["hits"], after["misses"], after["entries"]) == (before["hits"], before["misses"], 0)


# ------------------------------------------------------------------------------------ hits, invalidation


def test_the_cache_hits(fresh_cache):
    x = torch.randn(2, 3, 8, 8, 8)
    before = _executor_cache.statistics()
    for _ in range(5):
        pt.max_pool3d(x, 2)
    after = _executor_cache.statistics()
    assert after["misses"] - before["misses"] == 1
    assert after["hits"] - before["hits"] == 4
    assert after["entries"] == 1


SETTERS = {
    "set_num_threads": lambda: poolgrad.set_num_threads(poolgrad.get_num_threads()),
    "set_streaming_stores": lambda: poolgrad.set_streaming_stores("default"),
    "force_implementation": lambda: poolgrad.force_implementation(None),
    "clear_plan_cache": poolgrad.clear_plan_cache,
}


@pytest.mark.parametrize("setter", sorted(SETTERS))
def test_controls_invalidate_the_cache(fresh_cache, setter):
    x = torch.randn(2, 3, 8, 8)
    pt.max_pool2d(x, 2)
    pt.adaptive_max_pool2d(x, 3)
    before = _executor_cache.statistics()
    assert before["entries"] == 2
    SETTERS[setter]()
    after = _executor_cache.statistics()
    assert after["entries"] == 0 and after["invalidations"] == before["invalidations"] + 1
    pt.max_pool2d(x, 2)
    assert _executor_cache.statistics()["misses"] == after["misses"] + 1


def test_a_setter_invalidates_other_threads_caches(fresh_cache):
    ready, changed, done = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def worker():
        x = torch.randn(2, 3, 8, 8)
        pt.max_pool2d(x, 2)
        seen["before"] = _executor_cache.statistics()["entries"]
        ready.set()
        changed.wait(30)
        seen["after"] = _executor_cache.statistics()["entries"]
        done.set()

    thread = threading.Thread(target=worker)
    thread.start()
    assert ready.wait(30)
    poolgrad.set_num_threads(poolgrad.get_num_threads())
    changed.set()
    thread.join(30)
    assert done.is_set() and seen == {"before": 1, "after": 0}


def test_a_forced_implementation_reaches_a_kept_problem(fresh_cache):
    reference = next(name for name, task in poolgrad.implementations()
                     if task == "argmax-forward" and name.endswith("_reference"))
    x = torch.randn(2, 16, 8, 18, 20)
    expected = pt.max_pool3d(x, 3, 2, 1)
    assert poolgrad.last_run_report()["implementation"] != reference
    with poolgrad.forced_implementation(reference):
        assert torch.equal(pt.max_pool3d(x, 3, 2, 1), expected)
        assert poolgrad.last_run_report()["implementation"] == reference
    assert torch.equal(pt.max_pool3d(x, 3, 2, 1), expected)
    assert poolgrad.last_run_report()["implementation"] != reference


def test_eviction_keeps_the_most_recent_problems(monkeypatch, fresh_cache):
    monkeypatch.setattr(_executor_cache, "CAPACITY", 3)
    inputs = [torch.randn(1, 2, 4 + size, 6) for size in range(5)]
    before = _executor_cache.statistics()
    for _ in range(2):
        for x in inputs:
            assert torch.equal(pt.max_pool2d(x, 2), torch.nn.functional.max_pool2d(x, 2))
    after = _executor_cache.statistics()
    assert after["entries"] == 3
    assert after["misses"] - before["misses"] == 10  # least recently used first: each problem was evicted
    assert after["evictions"] - before["evictions"] == 7
    pt.max_pool2d(inputs[-1], 2)
    assert _executor_cache.statistics()["hits"] == after["hits"] + 1


# ------------------------------------------------------------------------------------------------ threads


def test_two_threads_run_the_same_problems_concurrently():
    generator = torch.Generator().manual_seed(5)
    inputs = [make_input(generator, 3, torch.float32, ("contiguous", "channels_last")[i % 2]) for i in range(6)]
    expected = [forward_and_backward("max_pool3d", x, i) for i, x in enumerate(inputs)]
    expected_adaptive = [forward_and_backward("adaptive_max_pool3d", x, i) for i, x in enumerate(inputs)]
    def rounds(offset):
        for round_ in range(25):
            i = (round_ + offset) % len(inputs)
            compare(forward_and_backward("max_pool3d", inputs[i], i), expected[i], f"thread {offset} {i}")
            compare(forward_and_backward("adaptive_max_pool3d", inputs[i], i), expected_adaptive[i],
                    f"thread {offset} {i} adaptive")

    hits = cache_hits_on_two_threads(rounds)
    assert all(count >= 90 for count in hits), hits


def test_a_threads_executors_go_with_it():
    before = _executor_cache.live_executors()
    counts = []

    def worker():
        x = torch.randn(2, 3, 8, 8, 8).requires_grad_()
        pt.max_pool3d(x, 2).sum().backward()
        pt.adaptive_max_pool3d(x.detach(), 3)
        counts.append(_executor_cache.statistics()["entries"])

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(30)
    gc.collect()
    assert counts == [3] and _executor_cache.live_executors() == before


# --------------------------------------------------------------------------------------- double backward


@pytest.mark.parametrize("op", ["max_pool3d", "adaptive_max_pool2d", "max_pool2d_tf"])
def test_double_backward_still_raises_with_the_cache_warm(op):
    x = torch.randn(1, 2, 4, 4, 4) if op.endswith("3d") else torch.randn(1, 2, 4, 4)
    function = getattr(pt, op)
    for _ in range(2):  # the forward and backward problems are kept after the first round
        leaf = x.clone().requires_grad_()
        function(leaf, 2).sum().backward()
        first = leaf.grad
        leaf = x.clone().requires_grad_()
        grad, = torch.autograd.grad(function(leaf, 2).sum(), leaf, create_graph=True)
        assert torch.equal(grad.detach(), first)
        with pytest.raises(RuntimeError, match=f"poolgrad: {op} has no double backward"):
            grad.sum().backward()
