"""The Python module itself: argument passing, dtypes, views, outputs in place, errors, controls, install.

Expected values are the worked examples of SPEC §9 (exact); the conformance files compare with the
frameworks on random data.
"""

import os
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import poolgrad as pg

WE1_SELF = np.array([0.0850, -0.5147, -0.0212, -0.5654, -0.3222, 0.5847, 1.7510, 0.9954],
                    np.float32).reshape(1, 1, 2, 2, 2)
POISON = np.float32(-777.0)


def test_seed_sample_forward_and_backward():  # WE-1
    out, indices = pg.max_pool3d_with_argmax(WE1_SELF, [2, 2, 2], [2, 2, 2], [0, 0, 0])
    assert out.dtype == np.float32 and indices.dtype == np.int32
    assert out.shape == indices.shape == (1, 1, 1, 1, 1)
    assert out.item() == np.float32(1.7510) and indices.item() == 6
    grad = pg.max_pool3d_with_argmax_backward(np.full((1, 1, 1, 1, 1), 0.4757, np.float32), WE1_SELF, indices,
                                              [2, 2, 2], [2, 2, 2], [0, 0, 0])
    expected = np.zeros(8, np.float32)
    expected[6] = np.float32(0.4757)
    np.testing.assert_array_equal(grad.ravel(), expected)


@pytest.mark.parametrize("ceil_mode,expected_out,expected_indices", [(False, [5, 3], [1, 3]),
                                                                     (True, [5, 3, 9], [1, 3, 4])])
def test_ceil_mode_output_size(ceil_mode, expected_out, expected_indices):  # WE-3
    self = np.array([1, 5, 2, 3, 9], np.float32).reshape(1, 1, 1, 1, 5)
    out, indices = pg.max_pool3d_with_argmax(self, [1, 1, 2], [1, 1, 2], 0, ceil_mode=ceil_mode, index_dtype=np.int64)
    assert indices.dtype == np.int64
    np.testing.assert_array_equal(out.ravel(), expected_out)
    np.testing.assert_array_equal(indices.ravel(), expected_indices)


def test_last_window_rule():  # WE-4
    self = np.array([1, 5, 2, 3, 9], np.float32).reshape(1, 1, 1, 1, 5)
    out, indices = pg.max_pool3d_with_argmax(self, [1, 1, 2], [1, 1, 2], [0, 0, 1], ceil_mode=True)
    np.testing.assert_array_equal(out.ravel(), [1, 5, 9])
    grad = pg.max_pool3d_with_argmax_backward(np.array([1, 2, 3], np.float32).reshape(out.shape), self, indices,
                                              [1, 1, 2], [1, 1, 2], [0, 0, 1], ceil_mode=True)
    np.testing.assert_array_equal(grad.ravel(), [1, 2, 0, 0, 3])


def test_adaptive_non_divisible_windows():  # WE-8
    self = np.array([3, 1, 4, 1, 5], np.float32).reshape(1, 1, 1, 1, 5)
    out, indices = pg.adaptive_max_pool3d(self, [1, 1, 3])
    np.testing.assert_array_equal(out.ravel(), [3, 4, 5])
    np.testing.assert_array_equal(indices.ravel(), [0, 2, 4])
    grad = pg.adaptive_max_pool3d_backward(np.array([1, 10, 100], np.float32).reshape(out.shape), self, indices)
    np.testing.assert_array_equal(grad.ravel(), [1, 0, 10, 0, 100])


def test_float16_accumulates_in_float32():  # WE-10
    self = np.zeros((1, 1, 1, 3, 3), np.float16)
    indices = np.full((1, 1, 1, 2, 2), 4, np.int32)
    grad_output = np.array([2048, 1, 1, 0], np.float16).reshape(1, 1, 1, 2, 2)
    grad = pg.max_pool3d_with_argmax_backward(grad_output, self, indices, [1, 2, 2], [1, 1, 1], 0)
    assert grad.dtype == np.float16
    assert grad.ravel()[4] == 2050 and np.count_nonzero(grad) == 1


def test_bfloat16_arrays_from_ml_dtypes():
    self = np.array([0, 1, 2, 3, 4.1, 5, 6, 7, 8, 9, 10, 11], np.float32).astype(ml_dtypes.bfloat16)
    out, indices = pg.adaptive_max_pool2d(self.reshape(1, 3, 4), [1, 2])
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out.astype(np.float32).ravel(), [9, 11])
    np.testing.assert_array_equal(indices.ravel(), [9, 11])


def test_v3_grad_same_nhwc():  # WE-16
    orig_input = np.array([1, 9, 2, 8, 3, 7, 4, 6, 5, 5, 6, 4, 7, 3, 8, 2, 9, 1], np.float32).reshape(1, 3, 3, 2)
    y = pg.max_pool_v3_with_attrs(orig_input, [1, 2, 2, 1], [1, 2, 2, 1], "SAME", None, "NHWC")
    np.testing.assert_array_equal(y.ravel(), [5, 9, 6, 7, 8, 3, 9, 1])
    grad = np.array([1, 10, 2, 20, 3, 30, 4, 40], np.float32).reshape(y.shape)
    out_grad = pg.max_pool_v3_grad(orig_input, y, grad, [1, 2, 2, 1], [1, 2, 2, 1], "SAME", None, "NHWC")
    np.testing.assert_array_equal(out_grad.ravel(), [0, 10, 0, 0, 0, 20, 0, 0, 1, 0, 2, 0, 0, 30, 3, 0, 4, 40])


def test_v3_defaults_are_null_pointers():  # WE-18 with paddingMode/pads/dataFormat = null → CALCULATED, 0, NCHW
    orig_input = np.array([1, 2, 3, 4, 9, 5, 6, 7, 8], np.float32).reshape(1, 1, 3, 3)
    y = pg.max_pool_v3_with_attrs(orig_input, [1, 1, 2, 2], [1, 1, 1, 1], None, None, None)
    out_grad = pg.max_pool_v3_grad(orig_input, y, np.array([1, 2, 3, 4], np.float32).reshape(y.shape), [1, 1, 2, 2],
                                   [1, 1, 1, 1], None, None, None)
    np.testing.assert_array_equal(out_grad.ravel(), [0, 0, 0, 0, 10, 0, 0, 0, 0])


def test_mask_round_trip():
    rng = np.random.default_rng(3)
    self = rng.standard_normal((2, 3, 7, 9)).astype(np.float32)
    out, mask = pg.max_pool2d_with_mask(self, [3, 3], [2, 2], [1, 1])
    assert mask.dtype == np.int8 and mask.shape == (2, 3, 9, (int(np.ceil(4 * 5 / 16)) + 1) * 32)
    reference_out, indices = pg.max_pool2d_with_indices(self, [3, 3], [2, 2], [1, 1])
    np.testing.assert_array_equal(out, reference_out)
    grad_output = rng.standard_normal(out.shape).astype(np.float32)
    np.testing.assert_array_equal(
        pg.max_pool2d_with_mask_backward(grad_output, self, mask, [3, 3], [2, 2], [1, 1]),
        pg.max_pool2d_with_indices_backward(grad_output, self, indices, [3, 3], [2, 2], [1, 1]))


def _strided_views(array):
    """The same values as `array` in several memory layouts the library must read through strides."""
    channels_last = np.ascontiguousarray(np.moveaxis(array, 1, -1))
    filler = np.nan if np.issubdtype(array.dtype, np.floating) else -99
    padded = np.full(tuple(d + 2 for d in array.shape), filler, array.dtype)
    padded[tuple(slice(1, 1 + d) for d in array.shape)] = array
    every_other = np.zeros(array.shape[:-1] + (2 * array.shape[-1],), array.dtype)[..., ::2]
    every_other[...] = array
    return {"channels_last": np.moveaxis(channels_last, -1, 1),
            "offset_in_padding": padded[tuple(slice(1, 1 + d) for d in array.shape)],
            "every_other_column": every_other, "reversed": array[..., ::-1].copy()[..., ::-1]}


def test_input_views_give_the_contiguous_result():
    rng = np.random.default_rng(11)
    self = rng.integers(-3, 4, (2, 3, 5, 6, 7)).astype(np.float32)
    out, indices = pg.max_pool3d_with_argmax(self, [3, 2, 3], [2, 1, 2], [1, 1, 1])
    grad_output = rng.standard_normal(out.shape).astype(np.float32)
    grad = pg.max_pool3d_with_argmax_backward(grad_output, self, indices, [3, 2, 3], [2, 1, 2], [1, 1, 1])
    for name, view in _strided_views(self).items():
        view_out, view_indices = pg.max_pool3d_with_argmax(view, [3, 2, 3], [2, 1, 2], [1, 1, 1])
        np.testing.assert_array_equal(view_out, out, err_msg=name)
        np.testing.assert_array_equal(view_indices, indices, err_msg=name)
        go_view = _strided_views(grad_output)[name]
        idx_view = _strided_views(indices)[name]
        np.testing.assert_array_equal(
            pg.max_pool3d_with_argmax_backward(go_view, view, idx_view, [3, 2, 3], [2, 1, 2], [1, 1, 1]), grad,
            err_msg=name)


def test_outputs_written_in_place_through_their_strides():
    rng = np.random.default_rng(12)
    self = rng.standard_normal((2, 4, 6, 8)).astype(np.float32)
    expected_out, expected_indices = pg.max_pool2d_with_indices(self, 2, 2, 0, index_dtype=np.int64)
    out_storage = np.full((2, 4 + 2, 3, 4 * 2), POISON)
    out_storage_before = out_storage.copy()
    out_view = out_storage[:, 1:5, :, ::2]  # offset into its storage, with gaps between columns
    assert out_view.shape == expected_out.shape
    indices = np.full(expected_indices.shape, -5, np.int64)
    returned, returned_indices = pg.max_pool2d_with_indices(self, 2, 2, 0, out=out_view, indices=indices)
    assert returned is out_view and returned_indices is indices
    np.testing.assert_array_equal(out_view, expected_out)
    np.testing.assert_array_equal(indices, expected_indices)
    untouched = np.ones(out_storage.shape, bool)
    untouched[:, 1:5, :, ::2] = False
    np.testing.assert_array_equal(out_storage[untouched], out_storage_before[untouched])


def test_errors_carry_status_and_message():
    with pytest.raises(pg.PoolgradError) as error:
        pg.max_pool3d_with_argmax(WE1_SELF, [2, 2], [2, 2, 2], [0, 0, 0])
    assert error.value.status == 161002
    assert "kernelSize" in error.value.message and "length" in error.value.message
    assert error.value.function == "aclnnMaxPool3dWithArgmaxGetWorkspaceSize"
    with pytest.raises(pg.PoolgradError) as error:
        pg.max_pool3d_with_argmax(WE1_SELF, [2, 2, 2], [2, 2, 2], [2, 0, 0])
    assert error.value.status == 161002 and "padding" in error.value.message
    with pytest.raises(pg.PoolgradError) as error:
        pg.max_pool3d_with_argmax(WE1_SELF, None, [2, 2, 2], [0, 0, 0])
    assert error.value.status == 161001 and "kernelSize" in error.value.message
    with pytest.raises(pg.PoolgradError) as error:
        pg.max_pool_v3_grad(np.zeros((1, 1, 2, 2), np.float32), np.zeros((1, 1, 1, 1), np.float32),
                            np.zeros((1, 1, 1, 1), np.float32), [1, 1, 2, 2], [1, 1, 64, 2], "VALID")
    assert error.value.status == 161002 and "strides" in error.value.message


def test_bad_index_is_refused_and_gradient_left_zero():
    self = np.zeros((1, 1, 2, 2, 2), np.float32)
    grad_input = np.full(self.shape, POISON)
    with pytest.raises(pg.PoolgradError) as error:
        pg.max_pool3d_with_argmax_backward(np.ones((1, 1, 1, 1, 1), np.float32), self,
                                           np.full((1, 1, 1, 1, 1), 8, np.int32), 2, 2, 0, grad_input=grad_input)
    assert error.value.status == 161002 and "8" in error.value.message
    np.testing.assert_array_equal(grad_input, np.zeros_like(grad_input))


def test_refused_arrays():
    with pytest.raises(TypeError, match="complex64"):
        pg.max_pool3d_with_argmax(WE1_SELF.astype(np.complex64), 2)
    # float64 has an aclDataType (aclnnAdaptiveMaxPool2d takes it): the library judges it for the others.
    with pytest.raises(pg.PoolgradError, match="DOUBLE") as error:
        pg.max_pool3d_with_argmax(WE1_SELF.astype(np.float64), 2)
    assert error.value.status == 161002
    frozen = np.zeros((1, 1, 1, 1, 1), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        pg.max_pool3d_with_argmax(WE1_SELF, 2, out=frozen)
    with pytest.raises(ValueError, match="strides"):
        pg.max_pool3d_with_argmax(WE1_SELF, [1, 1, 2], out=np.zeros((1, 1, 2, 2, 1), np.float32)[:, :, ::-1])


def test_outputs_overlapping_themselves_or_other_operands_are_refused():
    grad_input = np.full((1, 1, 2, 2, 2), POISON)
    in_place = grad_input.reshape(-1)[:1].reshape(1, 1, 1, 1, 1)  # grad_output over grad_input's first element
    with pytest.raises(pg.PoolgradError) as error:
        pg.max_pool3d_with_argmax_backward(in_place, WE1_SELF, np.zeros((1, 1, 1, 1, 1), np.int32), 2,
                                           grad_input=grad_input)
    assert error.value.status == 161002 and "share memory" in error.value.message
    colliding = np.lib.stride_tricks.as_strided(np.zeros(4, np.float32), (1, 1, 1, 2, 2), (0, 0, 0, 4, 4))
    with pytest.raises(pg.PoolgradError) as error:
        pg.adaptive_max_pool3d(WE1_SELF, [1, 2, 2], out=colliding)
    assert error.value.status == 161002 and "overlaps itself" in error.value.message
    # self only gives the backward its shape: grad_input may be written over it.
    self = WE1_SELF.copy()
    result = pg.max_pool3d_with_argmax_backward(np.ones((1, 1, 1, 1, 1), np.float32), self,
                                                np.full((1, 1, 1, 1, 1), 6, np.int32), 2, grad_input=self)
    assert result is self
    np.testing.assert_array_equal(self.ravel(), [0, 0, 0, 0, 0, 0, 1, 0])


def test_negative_stride_inputs_are_copied():
    self = np.arange(10, dtype=np.float32).reshape(1, 1, 10)
    out, indices = pg.max_pool2d_with_indices(self[..., ::-1], [1, 2])
    np.testing.assert_array_equal(out.ravel(), [9, 7, 5, 3, 1])
    np.testing.assert_array_equal(indices.ravel(), [0, 2, 4, 6, 8])


def test_every_implementation_agrees_with_the_dispatcher():
    rng = np.random.default_rng(5)
    self = rng.integers(-2, 3, (2, 3, 4, 9, 10)).astype(np.float32)
    out, indices = pg.max_pool3d_with_argmax(self, [2, 3, 3], [1, 2, 2], [1, 1, 1])
    grad_output = rng.standard_normal(out.shape).astype(np.float32)
    expected = pg.max_pool3d_with_argmax_backward(grad_output, self, indices, [2, 3, 3], [1, 2, 2], [1, 1, 1])
    names = [name for name, task in pg.implementations() if task == "index-scatter-backward"]
    assert len(names) >= 2 and names[-1].endswith("reference")
    for name in names:
        with pg.forced_implementation(name):
            try:
                grad = pg.max_pool3d_with_argmax_backward(grad_output, self, indices, [2, 3, 3], [1, 2, 2],
                                                          [1, 1, 1])
            except pg.PoolgradError as error:  # an implementation may decline this problem, with a reason
                assert error.status == 561003 and error.message, name
                continue
        np.testing.assert_array_equal(grad, expected, err_msg=name)
        report = pg.last_run_report()
        assert report["implementation"] == name and report["plan"] and report["status"] == 0, report
        assert report["fallback"] == "", report  # the forward's own indices never leave their windows


def test_last_run_report_names_the_fallback_of_a_stray_index():
    # 600 input rows of 256 floats: the dense scatter sums a plane in slabs of at most 256 rows. Output 0's
    # window spans rows 0..301; its index points into row 599, a slab that never visits output 0.
    rng = np.random.default_rng(7)
    self = rng.standard_normal((1, 1, 2, 300, 256)).astype(np.float32)
    _, indices = pg.max_pool3d_with_argmax(self, [2, 2, 2], [2, 2, 2], [0, 0, 0])
    indices.reshape(-1)[0] = 599 * 256
    grad_output = rng.standard_normal(indices.shape).astype(np.float32)
    with pg.forced_implementation("cpu_index_scatter_backward_dense"):
        grad = pg.max_pool3d_with_argmax_backward(grad_output, self, indices, [2, 2, 2], [2, 2, 2], [0, 0, 0])
    report = pg.last_run_report()
    expected = np.zeros(self.size, np.float32)
    np.add.at(expected, indices.ravel(), grad_output.ravel())  # at most two contributions meet: exact order
    np.testing.assert_array_equal(grad.ravel(), expected)
    assert report["implementation"] == "cpu_index_scatter_backward_dense", report
    assert report["fallback"].startswith("cpu_index_scatter_backward_reference: indices leave"), report


def test_thread_count_control():
    previous = pg.get_num_threads()
    try:
        pg.set_num_threads(1)
        assert pg.get_num_threads() == 1
        with pytest.raises(pg.PoolgradError):
            pg.set_num_threads(-1)
    finally:
        pg.set_num_threads(0)
    assert pg.get_num_threads() == previous or previous >= 1
    assert pg.version().count(".") == 2


def test_streaming_stores_control_and_results_do_not_depend_on_it():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 8, 16, 64)).astype(np.float32)
    try:
        results = {}
        for choice in ("never", "always", "automatic"):
            pg.set_streaming_stores(choice)
            assert pg.get_streaming_stores() == choice
            out, indices = pg.max_pool3d_with_argmax(x, [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], False)
            grad = pg.max_pool3d_with_argmax_backward(np.ones_like(out), x, indices, [2, 2, 2], [2, 2, 2],
                                                      [0, 0, 0], [1, 1, 1], False)
            results[choice] = (out.tobytes(), indices.tobytes(), grad.tobytes())
        assert results["never"] == results["always"] == results["automatic"]
        with pytest.raises(pg.PoolgradError) as refused:
            pg.set_streaming_stores("sometimes")
        assert "sometimes" in str(refused.value) and "choice" in str(refused.value)
        assert pg.get_streaming_stores() == "automatic", "a refused choice must not be applied"
    finally:
        pg.set_streaming_stores("default")


def test_a_kept_plan_gives_what_a_fresh_plan_gives():
    rng = np.random.default_rng(11)
    x = rng.integers(-8, 8, (2, 4, 8, 24, 24)).astype(np.float32)  # ties everywhere
    args = ([3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1], False)
    runs = []
    for clear in (True, False, False, True):
        if clear:
            pg.clear_plan_cache()
        out, indices = pg.max_pool3d_with_argmax(x, *args)
        grad = pg.max_pool3d_with_argmax_backward(np.ones_like(out), x, indices, *args)
        runs.append((out.tobytes(), indices.tobytes(), grad.tobytes(), pg.last_run_report()["plan"]))
    assert runs[1] == runs[0] and runs[2] == runs[0] and runs[3] == runs[0]


def test_missing_library_is_a_clear_import_error(tmp_path):
    environment = dict(os.environ, POOLGRAD_LIBRARY=str(tmp_path / "missing.so"))
    result = subprocess.run([sys.executable, "-c", "import poolgrad"], env=environment, capture_output=True,
                            text=True)
    assert result.returncode != 0 and "POOLGRAD_LIBRARY" in result.stderr and "missing.so" in result.stderr


def test_installed_package_finds_its_library(tmp_path):
    build = os.environ.get("POOLGRAD_BUILD_DIR")
    if not build:
        pytest.skip("POOLGRAD_BUILD_DIR not set (scripts/test.sh sets it)")
    subprocess.run(["cmake", "--install", build, "--prefix", str(tmp_path)], check=True, capture_output=True)
    site = tmp_path / "lib" / "python3" / "site-packages"
    environment = {k: v for k, v in os.environ.items() if k not in ("POOLGRAD_LIBRARY", "PYTHONPATH")}
    environment["PYTHONPATH"] = str(site)
    probe = ("import poolgrad, numpy as np; o, i = poolgrad.max_pool2d_with_indices(np.arange(4, dtype=np.float32)"
             ".reshape(1, 2, 2), 2); print(poolgrad.__file__, o.item(), i.item())")
    result = subprocess.run([sys.executable, "-c", probe], env=environment, capture_output=True, text=True,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(str(site)) and result.stdout.split()[1:] == ["3.0", "3"]
    environment["PYTHON"] = sys.executable  # the interpreter the wrapper script runs
    golden = subprocess.run([str(tmp_path / "bin" / "poolgrad-golden"), "--help"], env=environment,
                            capture_output=True, text=True)
    assert golden.returncode == 0 and "compare" in golden.stdout


def test_broadcast_input_is_read_through_zero_strides():
    row = np.array([3, 1, 4, 1, 5, 9, 2, 6], np.float32)
    broadcast = np.broadcast_to(row, (2, 3, 4, 8))
    assert broadcast.strides[:3] == (0, 0, 0)
    out, indices = pg.max_pool2d_with_indices(broadcast, [2, 2], [2, 2], 0)
    expected_out, expected_indices = pg.max_pool2d_with_indices(np.ascontiguousarray(broadcast), [2, 2], [2, 2], 0)
    np.testing.assert_array_equal(out, expected_out)
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_array_equal(out[0, 0, 0], [3, 4, 9, 6])


def test_python_example_prints_what_the_c_sample_prints():
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, str(root / "examples" / "python" / "max_pool3d_with_argmax_backward.py")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    expected = (root / "tests" / "packaging" / "expected" / "max_pool3d_with_argmax_backward.txt").read_text()
    assert result.stdout == expected


@pytest.mark.parametrize("operator, spatial", [(pg.adaptive_max_pool2d, 2), (pg.adaptive_max_pool3d, 3)])
@pytest.mark.parametrize("sizes", [(-1, 0), (0,), (-5,), (2, -1)])
def test_adaptive_output_sizes_the_library_refuses_reach_the_library(operator, spatial, sizes):
    """Sizes below 1 are judged by the library (161002 naming outputSize), not by numpy's allocation."""
    x = np.zeros((1, 2) + (4,) * spatial, np.float32)
    sizes = tuple(sizes) + (1,) * (spatial - len(sizes)) if len(sizes) > 1 else sizes
    with pytest.raises(pg.PoolgradError) as error:
        operator(x, sizes)
    assert error.value.status == 161002 and "outputSize" in error.value.message


def test_max_pool_onnx_pad_order_and_max_pool_v3():
    x = np.arange(1, 37, dtype=np.float32).reshape(2, 2, 3, 3)
    expected = np.array([4, 6, 7, 9], np.float32) + 9 * np.arange(4, dtype=np.float32)[:, None]
    np.testing.assert_array_equal(pg.max_pool(x, (2, 2), (2, 2), 0, (0, 1, 0, 0), (1, 1), 1), expected.reshape(2, 2, 2, 2))
    np.testing.assert_array_equal(pg.max_pool_v3(x, [1, 1, 2, 2], [1, 1, 2, 2], [0, 0, 1, 0], 1),
                                  expected.reshape(2, 2, 2, 2))


def test_max_pool_takes_ints_for_lists():
    x = np.arange(16, dtype=np.int8).reshape(1, 1, 4, 4)
    np.testing.assert_array_equal(pg.max_pool(x, 2, 2, 0, 0, 1), [[[[5, 7], [13, 15]]]])
    np.testing.assert_array_equal(pg.max_pool(x, 2, None, 0, None, None), pg.max_pool(x, [2, 2], [1, 1]))


def test_adaptive_max_pool2d_takes_float64():
    x = np.array([[[[1.0, 1.0 + 2.0**-40], [0.0, -1.0]]]])
    out, indices = pg.adaptive_max_pool2d(x, (1, 1))
    assert out.dtype == np.float64 and out[0, 0, 0, 0] == 1.0 + 2.0**-40 and indices[0, 0, 0, 0] == 1
