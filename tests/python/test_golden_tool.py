"""Tests of the golden-data tool, `python -m poolgrad.golden` (poolgrad/golden.py).

Run mode is checked for every operator against the poolgrad functions called directly and, for a few
cases, against hand-computed values (SPEC §9); compare mode on identical, out-of-tolerance, tie-induced and
real index and gradient differences, including randomized problems full of ties; bad usage and library
errors; and every example command of docs/golden_data.md. Most cases call golden.main(argv) in-process
(fast); a representative set goes through a real `python -m poolgrad.golden` subprocess.
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import poolgrad as pg
from poolgrad import golden

from conftest import case_generators

REPOSITORY = Path(__file__).resolve().parents[2]
DOC = REPOSITORY / "docs" / "golden_data.md"
BF16 = np.dtype(ml_dtypes.bfloat16)


# ----------------------------------------------------------------------------------------------------------
# helpers

def run_main(argv, capsys):
    """golden.main in-process: (exit status, stdout, stderr)."""
    code = golden.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_cli(argv, cwd):
    """A real `python -m poolgrad.golden` subprocess; PYTHONPATH/POOLGRAD_LIBRARY come from the environment."""
    return subprocess.run([sys.executable, "-m", "poolgrad.golden", *[str(a) for a in argv]], cwd=cwd,
                          env=dict(os.environ), capture_output=True, text=True, timeout=120)


def save(path, array):
    np.save(path, array)
    return str(path)


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def summary_count(text, name):
    match = re.search(rf"{name}: (\d+)", text)
    assert match, text
    return int(match.group(1))


# ----------------------------------------------------------------------------------------------------------
# run mode: every operator, outputs equal to the poolgrad function called directly

def _random(rng, shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(np.float32).astype(dtype)


def _case(name, rng):
    """(argv after `run OP`, inputs {name: array}, expected [(output, array)]) for one operator."""
    x3 = _random(rng, (2, 3, 4, 5, 7))
    x2 = _random(rng, (2, 3, 7, 8))
    if name == "max_pool3d_with_argmax":
        argv = ["--kernel-size", "2,2,3", "--stride", "2", "--padding", "0,1,1", "--ceil-mode",
                "--index-dtype", "int64"]
        out, idx = pg.max_pool3d_with_argmax(x3, [2, 2, 3], [2], [0, 1, 1], [1], True, index_dtype=np.int64)
        return argv, {"self": x3}, [("out", out), ("indices", idx)]
    if name == "max_pool3d_with_argmax_backward":
        _, idx = pg.max_pool3d_with_argmax(x3, [3], [2], [1], [1], True)
        grad = _random(rng, idx.shape)
        argv = ["--kernel-size", "3", "--stride", "2", "--padding", "1", "--ceil-mode"]
        expected = pg.max_pool3d_with_argmax_backward(grad, x3, idx, [3], [2], [1], [1], True)
        return argv, {"grad_output": grad, "self": x3, "indices": idx}, [("grad_input", expected)]
    if name == "adaptive_max_pool3d":
        out, idx = pg.adaptive_max_pool3d(x3, [3, 2, 4])
        return ["--output-size", "3,2,4"], {"self": x3}, [("out", out), ("indices", idx)]
    if name == "adaptive_max_pool3d_backward":
        _, idx = pg.adaptive_max_pool3d(x3, [3, 4, 5])
        grad = _random(rng, idx.shape)
        expected = pg.adaptive_max_pool3d_backward(grad, x3, idx)
        return [], {"grad_output": grad, "self": x3, "indices": idx}, [("grad_input", expected)]
    if name == "max_pool2d_with_indices":
        out, idx = pg.max_pool2d_with_indices(x2, [3, 2], [2, 1], [1, 0], [1], False)
        argv = ["--kernel-size", "3,2", "--stride", "2,1", "--padding", "1,0"]
        return argv, {"self": x2}, [("out", out), ("indices", idx)]
    if name == "max_pool2d_with_indices_backward":
        _, idx = pg.max_pool2d_with_indices(x2, [2], [1], [0], [2], False)
        grad = _random(rng, idx.shape)
        expected = pg.max_pool2d_with_indices_backward(grad, x2, idx, [2], [1], [0], [2], False)
        argv = ["--kernel-size", "2", "--stride", "1", "--dilation", "2"]
        return argv, {"grad_output": grad, "self": x2, "indices": idx}, [("grad_input", expected)]
    if name == "max_pool2d_with_mask":
        out, mask = pg.max_pool2d_with_mask(x2, [2, 3], [2], [1], [1], True)
        argv = ["--kernel-size", "2,3", "--stride", "2", "--padding", "1", "--ceil-mode"]
        return argv, {"self": x2}, [("out", out), ("mask", mask)]
    if name == "max_pool2d_with_mask_backward":
        out, mask = pg.max_pool2d_with_mask(x2, [3], [2], [1], [1], False)
        grad = _random(rng, out.shape)
        expected = pg.max_pool2d_with_mask_backward(grad, x2, mask, [3], [2], [1], [1], False)
        argv = ["--kernel-size", "3", "--stride", "2", "--padding", "1"]
        return argv, {"grad_output": grad, "self": x2, "mask": mask}, [("grad_input", expected)]
    if name == "adaptive_max_pool2d":
        out, idx = pg.adaptive_max_pool2d(x2, [3, 5], index_dtype=np.int64)
        return ["--output-size", "3,5", "--index-dtype", "int64"], {"self": x2}, [("out", out), ("indices", idx)]
    if name == "adaptive_max_pool2d_backward":
        _, idx = pg.adaptive_max_pool2d(x2, [4])
        grad = _random(rng, idx.shape)
        expected = pg.adaptive_max_pool2d_backward(grad, x2, idx)
        return [], {"grad_output": grad, "self": x2, "indices": idx}, [("grad_input", expected)]
    if name == "max_pool_v3_with_attrs":
        x = np.moveaxis(x2, 1, 3).copy()
        y = pg.max_pool_v3_with_attrs(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME", None, "NHWC")
        argv = ["--ksize", "1,3,3,1", "--strides", "1,2,2,1", "--padding-mode", "SAME", "--data-format", "NHWC"]
        return argv, {"x": x}, [("y", y)]
    if name == "max_pool_v3_grad":
        x = x2.astype(np.float16)
        args = ([1, 1, 3, 2], [1, 1, 2, 2], "CALCULATED", [1, 0, 1, 1], "NCHW", False, True)
        y = pg.max_pool_v3_with_attrs(x, *args)
        grad = _random(rng, y.shape, np.float16)
        expected = pg.max_pool_v3_grad(x, y, grad, *args)
        argv = ["--ksize", "1,1,3,2", "--strides", "1,1,2,2", "--pads", "1,0,1,1", "--ceil-mode"]
        return argv, {"orig_input": x, "orig_output": y, "grad": grad}, [("out_grad", expected)]
    if name == "max_pool":  # ONNX pads {top, left, bottom, right}, on int16 values
        x = rng.integers(-30000, 30000, size=(2, 3, 7, 8)).astype(np.int16)
        expected = pg.max_pool(x, [3, 2], [2, 1], 0, [1, 0, 1, 1], [1, 1], 1)
        argv = ["--kernel-shape", "3,2", "--strides", "2,1", "--pads", "1,0,1,1", "--dilations", "1,1",
                "--ceil-mode"]
        return argv, {"self": x}, [("out", expected)]
    if name == "max_pool_v3":
        expected = pg.max_pool_v3(x2, [1, 1, 3, 2], [1, 1, 2, 2], [1, 0, 0, 1], 1)
        argv = ["--ksize", "1,1,3,2", "--strides", "1,1,2,2", "--pads", "1,0,0,1", "--ceil-mode"]
        return argv, {"x": x2}, [("out", expected)]
    raise AssertionError(name)


@pytest.mark.parametrize("name", [op.name for op in golden.OPERATORS])
def test_run_every_operator_matches_the_function(name, tmp_path, capsys):
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    argv, inputs, expected = _case(name, rng)
    files = [f"--input={key}={save(tmp_path / f'in_{key}.npy', value)}" for key, value in inputs.items()]
    code, out, err = run_main(["run", name, *files, *argv, "--out-dir", tmp_path / "out"], capsys)
    assert code == 0, err
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == sorted(f"{output}.npy" for output, _ in expected)
    lines = out.strip().splitlines()
    assert len(lines) == len(expected)
    for line, (output, array) in zip(lines, expected):
        assert line == f"{tmp_path / 'out' / (output + '.npy')}: shape {tuple(array.shape)}, dtype {array.dtype.name}"
        written = np.load(tmp_path / "out" / f"{output}.npy")
        if output == "mask":  # INT32 indices in the first bytes, zeros after them (np.empty in the direct call)
            used = 4 * inputs["self"].shape[0] * inputs["self"].shape[1] * int(np.prod(expected[0][1].shape[-2:]))
            assert written.shape == array.shape and written.dtype == array.dtype
            assert written.tobytes()[:used] == array.tobytes()[:used]
            assert not written.reshape(-1)[used:].any()
        else:
            assert same_bits(written, array), output


@pytest.mark.parametrize("spelling", ["max_pool3d_with_argmax", "aclnnMaxPool3dWithArgmax", "MaxPool3dWithArgmax",
                                      "MAX_POOL3D_WITH_ARGMAX", "max-pool3d-with-argmax"])
def test_operator_name_spellings(spelling, tmp_path, capsys):
    x = save(tmp_path / "x.npy", np.arange(16, dtype=np.float32).reshape(1, 1, 2, 2, 4))
    code, out, err = run_main(["run", spelling, "--input", f"self={x}", "--kernel-size", "2", "-o", tmp_path], capsys)
    assert code == 0, err
    assert np.load(tmp_path / "out.npy").ravel().tolist() == [13, 15]
    assert np.load(tmp_path / "indices.npy").ravel().tolist() == [13, 15]


def test_run_worked_examples_2_and_7_by_hand(tmp_path):
    """SPEC WE-2 (3-D overlap) and WE-7 (adaptive overlap), through a real subprocess."""
    save(tmp_path / "x.npy", np.array([1, 2, 3, 4, 9, 5, 6, 7, 8], np.float32).reshape(1, 1, 1, 3, 3))
    save(tmp_path / "g.npy", np.array([1, 2, 3, 4], np.float32).reshape(1, 1, 1, 2, 2))
    result = run_cli(["run", "aclnnMaxPool3dWithArgmax", "--input", "self=x.npy", "--kernel-size", "1,2,2",
                      "--stride", "1,1,1", "-o", "fwd"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "fwd/out.npy: shape (1, 1, 1, 2, 2), dtype float32" in result.stdout
    assert np.load(tmp_path / "fwd/out.npy").ravel().tolist() == [9, 9, 9, 9]
    assert np.load(tmp_path / "fwd/indices.npy").ravel().tolist() == [4, 4, 4, 4]
    assert np.load(tmp_path / "fwd/indices.npy").dtype == np.int32
    result = run_cli(["run", "max_pool3d_with_argmax_backward", "--input", "gradOutput=g.npy", "--input", "self=x.npy",
                      "--input", "indices=fwd/indices.npy", "--kernel-size", "1,2,2", "--stride", "1", "-o", "bwd"],
                     tmp_path)
    assert result.returncode == 0, result.stderr
    assert np.load(tmp_path / "bwd/grad_input.npy").ravel().tolist() == [0, 0, 0, 0, 10, 0, 0, 0, 0]

    save(tmp_path / "a.npy", np.array([1, 9, 2], np.float32).reshape(1, 1, 3, 1, 1))
    save(tmp_path / "ga.npy", np.array([0.5, 0.25], np.float32).reshape(1, 1, 2, 1, 1))
    result = run_cli(["run", "adaptive_max_pool3d", "--input", "self=a.npy", "--output-size", "2,1,1", "-o", "afwd"],
                     tmp_path)
    assert result.returncode == 0, result.stderr
    assert np.load(tmp_path / "afwd/out.npy").ravel().tolist() == [9, 9]
    assert np.load(tmp_path / "afwd/indices.npy").ravel().tolist() == [1, 1]
    result = run_cli(["run", "adaptive_max_pool3d_backward", "--input", "grad_output=ga.npy", "--input", "self=a.npy",
                      "--input", "indices=afwd/indices.npy", "-o", "abwd"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert np.load(tmp_path / "abwd/grad_input.npy").ravel().tolist() == [0, 0.75, 0]


def test_run_worked_example_16_v3_same_nhwc_by_hand(tmp_path, capsys):
    """SPEC WE-16: MaxPoolV3 forward and grad, SAME padding, NHWC, C = 2."""
    x = save(tmp_path / "x.npy", np.array([1, 9, 2, 8, 3, 7, 4, 6, 5, 5, 6, 4, 7, 3, 8, 2, 9, 1],
                                          np.float32).reshape(1, 3, 3, 2))
    attrs = ["--ksize", "1,2,2,1", "--strides", "1,2,2,1", "--padding-mode", "SAME", "--data-format", "NHWC"]
    code, out, err = run_main(["run", "max_pool_v3_with_attrs", "--input", f"x={x}", *attrs, "-o", tmp_path], capsys)
    assert code == 0, err
    assert np.load(tmp_path / "y.npy").ravel().tolist() == [5, 9, 6, 7, 8, 3, 9, 1]
    grad = save(tmp_path / "grad.npy", np.array([1, 10, 2, 20, 3, 30, 4, 40], np.float32).reshape(1, 2, 2, 2))
    code, out, err = run_main(["run", "aclnnMaxPoolV3Grad", "--input", f"orig_input={x}", "--input",
                               f"orig_output={tmp_path / 'y.npy'}", "--input", f"grad={grad}", *attrs, "-o", tmp_path],
                              capsys)
    assert code == 0, err
    assert np.load(tmp_path / "out_grad.npy").ravel().tolist() == [0, 10, 0, 0, 0, 20, 0, 0, 1, 0, 2, 0, 0, 30, 3, 0,
                                                                   4, 40]


# ----------------------------------------------------------------------------------------------------------
# raw .bin inputs and outputs, bfloat16

@pytest.mark.parametrize("dtype_name", ["float32", "float16", "bfloat16"])
def test_bin_input_for_each_float_dtype(dtype_name, tmp_path, capsys):
    dtype = BF16 if dtype_name == "bfloat16" else np.dtype(dtype_name)
    x = np.random.default_rng(3).standard_normal((2, 3, 5, 6)).astype(np.float32).astype(dtype)
    x.tofile(tmp_path / "x.bin")
    code, out, err = run_main(["run", "max_pool2d_with_indices", "--input", f"self={tmp_path / 'x.bin'}:{dtype_name}:"
                               "2,3,5,6", "--kernel-size", "2", "--stride", "1", "-o", tmp_path, "--save-bin"], capsys)
    assert code == 0, err
    expected_out, expected_idx = pg.max_pool2d_with_indices(x, [2], [1], [0], [1], False)
    out_array = np.load(tmp_path / "out.npy")
    if dtype_name == "bfloat16":
        assert out_array.dtype == np.dtype("V2")          # numpy stores bfloat16 as a 2-byte void
        out_array = out_array.view(BF16)
    assert same_bits(out_array, expected_out)
    assert same_bits(np.load(tmp_path / "indices.npy"), expected_idx)
    assert f"dtype {dtype_name}" in out.splitlines()[0] and "(+ out.bin)" in out
    raw = np.fromfile(tmp_path / "out.bin", dtype=dtype).reshape(expected_out.shape)
    assert same_bits(raw, expected_out)


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_bin_indices_input(index_dtype, tmp_path, capsys):
    x = np.random.default_rng(4).standard_normal((1, 2, 3, 4, 4)).astype(np.float16)
    _, idx = pg.max_pool3d_with_argmax(x, [1, 2, 2], index_dtype=np.dtype(index_dtype))
    grad = np.random.default_rng(5).standard_normal(idx.shape).astype(np.float16)
    x.tofile(tmp_path / "x.bin")
    grad.tofile(tmp_path / "g.bin")
    idx.tofile(tmp_path / "i.bin")
    shape_x, shape_o = ",".join(map(str, x.shape)), "x".join(map(str, idx.shape))
    code, out, err = run_main(["run", "max_pool3d_with_argmax_backward",
                               "--input", f"grad_output={tmp_path}/g.bin:fp16:{shape_o}",
                               "--input", f"self={tmp_path}/x.bin:float16:{shape_x}",
                               "--input", f"indices={tmp_path}/i.bin:{index_dtype}:{shape_o}",
                               "--kernel-size", "1,2,2", "-o", tmp_path], capsys)
    assert code == 0, err
    expected = pg.max_pool3d_with_argmax_backward(grad, x, idx, [1, 2, 2])
    assert same_bits(np.load(tmp_path / "grad_input.npy"), expected)


def test_bin_int8_mask_input(tmp_path, capsys):
    x = np.random.default_rng(6).standard_normal((2, 6, 6)).astype(np.float32)
    out, mask = pg.max_pool2d_with_mask(x, [2])
    grad = np.ones(out.shape, np.float32)
    mask.tofile(tmp_path / "m.bin")
    code, _, err = run_main(["run", "max_pool2d_with_mask_backward",
                             "--input", f"grad_output={save(tmp_path / 'g.npy', grad)}",
                             "--input", f"self={save(tmp_path / 'x.npy', x)}",
                             "--input", f"mask={tmp_path}/m.bin:int8:{','.join(map(str, mask.shape))}",
                             "--kernel-size", "2", "-o", tmp_path], capsys)
    assert code == 0, err
    assert same_bits(np.load(tmp_path / "grad_input.npy"), pg.max_pool2d_with_mask_backward(grad, x, mask, [2]))


def test_bfloat16_npy_input_and_dtype_conversion(tmp_path, capsys):
    x = np.arange(8, dtype=np.float32).reshape(1, 1, 2, 2, 2)
    save(tmp_path / "x32.npy", x)
    save(tmp_path / "xbf.npy", x.astype(BF16))
    for spec in ("xbf.npy", "x32.npy:bfloat16"):
        code, out, err = run_main(["run", "max_pool3d_with_argmax", "--input", f"self={tmp_path / spec}",
                                   "--kernel-size", "2", "-o", tmp_path], capsys)
        assert code == 0, err
        assert "out.npy: shape (1, 1, 1, 1, 1), dtype bfloat16" in out
        assert np.load(tmp_path / "out.npy").view(BF16).astype(np.float32).ravel().tolist() == [7]


# ----------------------------------------------------------------------------------------------------------
# compare mode: tolerance

def test_compare_identical_and_within_tolerance(tmp_path, capsys):
    a = np.random.default_rng(7).standard_normal((3, 4, 5)).astype(np.float32)
    e = save(tmp_path / "e.npy", a)
    code, out, _ = run_main(["compare", e, e], capsys)
    assert code == 0 and "mismatches: 0" in out and out.strip().endswith("PASS")
    b = a.copy()
    b[1, 2, 3] += 1e-5 * (1 + abs(b[1, 2, 3]))
    code, out, _ = run_main(["compare", e, save(tmp_path / "b.npy", b)], capsys)
    assert code == 0 and "mismatches: 0" in out


def test_compare_reports_tolerance_exceeding_differences(tmp_path, capsys):
    a = np.zeros((2, 3, 4), np.float32) + 2
    b = a.copy()
    b[1, 0, 2] = 2.5
    b[0, 2, 3] = 1.75
    e, f = save(tmp_path / "e.npy", a), save(tmp_path / "f.npy", b)
    code, out, _ = run_main(["compare", e, f], capsys)
    assert code == 1
    assert summary_count(out, "mismatches") == 2 and summary_count(out, "real") == 2
    assert "max abs error: 0.5  max rel error: 0.25" in out
    assert "[0, 2, 3]  expected 2  actual 1.75  real" in out and "[1, 0, 2]  expected 2  actual 2.5  real" in out
    code, out, _ = run_main(["compare", e, f, "--atol", "0.5", "--rtol", "0"], capsys)
    assert code == 0
    code, out, _ = run_main(["compare", e, f, "--atol", "0.49", "--rtol", "0"], capsys)
    assert code == 1 and summary_count(out, "mismatches") == 1


def test_compare_raw_actual_nan_and_shape_mismatch(tmp_path, capsys):
    a = np.array([1, np.nan, np.inf, -2], np.float16)
    e = save(tmp_path / "e.npy", a.reshape(2, 2))
    a.tofile(tmp_path / "a.bin")
    code, out, _ = run_main(["compare", e, f"{tmp_path}/a.bin:float16"], capsys)   # shape taken from EXPECTED
    assert code == 0 and "mismatches: 0" in out                                     # NaN == NaN, Inf == Inf
    b = a.copy()
    b[1] = 0
    b.tofile(tmp_path / "b.bin")
    code, out, _ = run_main(["compare", e, f"{tmp_path}/b.bin:float16:2,2"], capsys)
    assert code == 1 and summary_count(out, "real") == 1
    code, out, _ = run_main(["compare", e, save(tmp_path / "c.npy", a)], capsys)
    assert code == 1 and "shapes differ" in out


# ----------------------------------------------------------------------------------------------------------
# compare mode: ties in index outputs

# 2x2 windows (row 0 cols 2w..2w+1 over row 1 cols 2w..2w+1; flat positions 0-5 row 0, 6-11 row 1):
# window 0 = {0: 3, 1: 3, 6: 1, 7: 3}, window 1 = {2: 1, 3: NaN, 8: 5, 9: NaN}, window 2 = {4, 5, 10, 11: all 5}
TIE_INPUT = np.array([3, 3, 1, np.nan, 5, 5, 1, 3, 5, np.nan, 5, 5], np.float32).reshape(1, 1, 1, 2, 6)


def _index_compare(tmp_path, capsys, actual, *extra, expected=None):
    x = save(tmp_path / "x.npy", TIE_INPUT)
    if expected is None:
        _, expected = pg.max_pool3d_with_argmax(TIE_INPUT, [1, 2, 2])
    e = save(tmp_path / "e.npy", expected)
    a = save(tmp_path / "a.npy", np.array(actual, np.int32).reshape(expected.shape))
    return run_main(["compare", e, a, "--op", "max_pool3d_with_argmax", "--input", f"self={x}",
                     "--kernel-size", "1,2,2", *extra], capsys)


def test_index_tie_is_recognised(tmp_path, capsys):
    _, golden_idx = pg.max_pool3d_with_argmax(TIE_INPUT, [1, 2, 2])
    assert golden_idx.ravel().tolist() == [0, 9, 4]    # first of the 3s, last NaN, first of the 5s
    code, out, _ = _index_compare(tmp_path, capsys, [7, 9, 10])   # another 3, another 5
    assert code == 0, out
    assert summary_count(out, "mismatches") == 2 and summary_count(out, "tie-induced") == 2
    assert summary_count(out, "real") == 0
    assert "expected 4  actual 10  tie  (input values 5 | 5)" in out
    code, out, _ = _index_compare(tmp_path, capsys, [7, 9, 10], "--strict")
    assert code == 1 and "--strict" in out


def test_index_nan_tie_and_real_differences(tmp_path, capsys):
    code, out, _ = _index_compare(tmp_path, capsys, [0, 3, 4])     # the other NaN: a tie by decision
    assert code == 0 and summary_count(out, "tie-induced") == 1
    code, out, _ = _index_compare(tmp_path, capsys, [6, 9, 4])     # 1 is not a maximum
    assert code == 1 and summary_count(out, "real") == 1
    assert "expected 0  actual 6  real  (input values 3 | 1)" in out
    code, out, _ = _index_compare(tmp_path, capsys, [0, 8, 4])     # 5 next to NaNs is not the maximum
    assert code == 1 and summary_count(out, "real") == 1


def test_index_equal_value_in_another_window_is_real(tmp_path, capsys):
    x = np.full((1, 1, 1, 1, 4), 5, np.float32)                    # windows {0,1}, {2,3}: all 5
    save(tmp_path / "x.npy", x)
    e = save(tmp_path / "e.npy", np.array([0, 2], np.int32).reshape(1, 1, 1, 1, 2))
    a = save(tmp_path / "a.npy", np.array([2, 2], np.int32).reshape(1, 1, 1, 1, 2))
    code, out, _ = run_main(["compare", e, a, "--op", "max_pool3d_with_argmax", "--input",
                             f"self={tmp_path / 'x.npy'}", "--kernel-size", "1,1,2"], capsys)
    assert code == 1 and summary_count(out, "real") == 1
    code, out, _ = run_main(["compare", e, save(tmp_path / "b.npy", np.array([1, 3], np.int32).reshape(1, 1, 1, 1, 2)),
                             "--op", "max_pool3d_with_argmax", "--input", f"self={tmp_path / 'x.npy'}",
                             "--kernel-size", "1,1,2"], capsys)
    assert code == 0 and summary_count(out, "tie-induced") == 2


def test_index_rule_is_symmetric(tmp_path, capsys):
    """Both indices must be tied maxima: a wrong EXPECTED file is not excused by a right ACTUAL one."""
    _, golden_idx = pg.max_pool3d_with_argmax(TIE_INPUT, [1, 2, 2])
    wrong_expected = np.array([6, 9, 4], np.int32).reshape(golden_idx.shape)     # 6 holds 1, not 3
    code, out, _ = _index_compare(tmp_path, capsys, golden_idx.ravel(), expected=wrong_expected)
    assert code == 1 and summary_count(out, "real") == 1


def test_index_difference_without_op_is_real(tmp_path, capsys):
    e = save(tmp_path / "e.npy", np.array([0, 7, 4], np.int32))
    a = save(tmp_path / "a.npy", np.array([1, 7, 4], np.int32))
    code, out, _ = run_main(["compare", e, a], capsys)
    assert code == 1 and "kind: indices" in out and "tie analysis is off" in out


def test_mask_tie_through_decoded_indices(tmp_path, capsys):
    x = np.array([[4, 4, 1, 2], [0, 4, 3, 3], [7, 1, 2, 2], [0, 7, 2, 0]], np.float32).reshape(1, 1, 4, 4)
    _, mask = pg.max_pool2d_with_mask(x, [2])
    indices = mask.reshape(-1)[:16].view(np.int32)
    assert indices.tolist() == [0, 6, 8, 10]
    other = mask.copy()
    other.reshape(-1)[:16].view(np.int32)[:] = [5, 7, 13, 11]       # all tied maxima
    args = ["--op", "max_pool2d_with_mask", "--input", f"self={save(tmp_path / 'x.npy', x)}", "--kernel-size", "2"]
    e = save(tmp_path / "e.npy", mask)
    code, out, _ = run_main(["compare", e, save(tmp_path / "a.npy", other), *args], capsys)
    assert code == 0 and summary_count(out, "tie-induced") == 4 and "masks decoded" in out
    other.reshape(-1)[:16].view(np.int32)[:] = [5, 7, 13, 15]      # 15 holds 0, not the maximum 2
    code, out, _ = run_main(["compare", e, save(tmp_path / "b.npy", other), *args], capsys)
    assert code == 1 and summary_count(out, "real") == 1


# ----------------------------------------------------------------------------------------------------------
# compare mode: ties in gradients

def _gradient_compare(tmp_path, capsys, x, g, actual, kernel="1,1,2", stride="1", extra=()):
    k = [int(v) for v in kernel.split(",")]
    s = [int(v) for v in stride.split(",")]
    _, idx = pg.max_pool3d_with_argmax(x, k, s)
    expected = pg.max_pool3d_with_argmax_backward(g, x, idx, k, s)
    e = save(tmp_path / "e.npy", expected)
    a = save(tmp_path / "a.npy", np.asarray(actual, np.float32).reshape(expected.shape))
    code, out, err = run_main(["compare", e, a, "--op", "max_pool3d_with_argmax_backward", "--input",
                               f"self={save(tmp_path / 'x.npy', x)}", "--input",
                               f"grad_output={save(tmp_path / 'g.npy', g)}", "--kernel-size", kernel, "--stride",
                               stride, *extra], capsys)
    assert "error" not in err, err
    return code, out, expected


def test_gradient_tie_in_one_window(tmp_path, capsys):
    x = np.array([1, 9, 9, 2], np.float32).reshape(1, 1, 1, 1, 4)   # windows {0,1} {1,2} {2,3}; {1,2} tied
    g = np.array([1, 2, 4], np.float32).reshape(1, 1, 1, 1, 3)
    code, out, expected = _gradient_compare(tmp_path, capsys, x, g, [0, 1, 6, 0])
    assert expected.ravel().tolist() == [0, 3, 4, 0]
    assert code == 0 and summary_count(out, "tie-induced") == 2 and "kind: gradient" in out
    assert "tie groups holding differences: 1, explained by moving gradient between tied maxima: 1" in out


@pytest.mark.parametrize("actual, why", [
    ([1, 2, 4, 0], "gradient moved to a position that is no maximum"),
    ([0, 0, 7, 0], "more moved than the tied window's gradient"),
    ([0, 2, 5, 0], "gradient split between the tied maxima"),
    ([0, 3, 5, 0], "a tied maximum off by one: the group's sum changes"),
    ([0, 3, 4, 1], "a stray value at a position that is no maximum"),
])
def test_gradient_real_differences(actual, why, tmp_path, capsys):
    x = np.array([1, 9, 9, 2], np.float32).reshape(1, 1, 1, 1, 4)
    g = np.array([1, 2, 4], np.float32).reshape(1, 1, 1, 1, 3)
    code, out, _ = _gradient_compare(tmp_path, capsys, x, g, actual)
    assert code == 1, why
    assert summary_count(out, "real") >= 1 and summary_count(out, "tie-induced") == 0, why


@pytest.mark.parametrize("actual, tie", [([0, 1, 2], True), ([1, 0, 2], True), ([0, 3, 0], True),
                                         ([0, 0, 3], False), ([3, 0, 0], False), ([0.5, 1.5, 1], False),
                                         ([-1, 4, 0], False)])
def test_gradient_tie_group_of_overlapping_windows(actual, tie, tmp_path, capsys):
    x = np.full((1, 1, 1, 1, 3), 9, np.float32)                    # windows {0,1} {1,2}, gradients 1 and 2
    g = np.array([1, 2], np.float32).reshape(1, 1, 1, 1, 2)
    code, out, expected = _gradient_compare(tmp_path, capsys, x, g, actual)
    assert expected.ravel().tolist() == [1, 2, 0]
    assert code == (0 if tie else 1)
    assert (summary_count(out, "real") == 0) == tie


@pytest.mark.parametrize("actual, tie", [([0, 1, 2], True), ([0, 2, 1], False), ([1, 2, 0], False)])
def test_gradient_of_a_window_with_one_maximum_must_stay(actual, tie, tmp_path, capsys):
    """[5, 9, 9]: window {0,1} has the single maximum 1 (gradient 1), window {1,2} ties 1 and 2 (gradient 2).
    Moving the tied window's 2 is fine; moving the single-maximum window's 1 (to 2 or to 0) is not, even
    though the tie group {1, 2} keeps its sum in the first case."""
    x = np.array([5, 9, 9], np.float32).reshape(1, 1, 1, 1, 3)
    g = np.array([1, 2], np.float32).reshape(1, 1, 1, 1, 2)
    code, out, expected = _gradient_compare(tmp_path, capsys, x, g, actual)
    assert expected.ravel().tolist() == [0, 3, 0]
    assert code == (0 if tie else 1)
    assert (summary_count(out, "real") == 0) == tie


def test_gradient_positions_in_many_windows(tmp_path, capsys):
    """A plateau of 30 equal values under 18 windows of 13: middle elements are tied in 13 windows, more
    than the subset-sum search takes, so they are checked against the interval of reachable sums."""
    x = np.full((1, 1, 1, 1, 30), 4, np.float32)
    g = np.arange(1, 19, dtype=np.float32).reshape(1, 1, 1, 1, 18)
    expected = np.zeros(30, np.float32)
    expected[:18] = g.ravel()                                       # window w -> its first element w
    moved = expected.copy()
    moved[[15, 20]] = [0, 16]                                        # window 15's gradient to element 20
    code, out, golden_gradient = _gradient_compare(tmp_path, capsys, x, g, moved, kernel="1,1,13")
    assert golden_gradient.ravel().tolist() == expected.tolist()
    assert code == 0 and summary_count(out, "tie-induced") == 2
    negative = expected.copy()
    negative[[14, 15]] = [-1, 32]                                    # sums agree, but -1 is unreachable
    code, out, _ = _gradient_compare(tmp_path, capsys, x, g, negative, kernel="1,1,13")
    assert code == 1 and summary_count(out, "real") == 2


def test_gradient_tie_v3_grad(tmp_path, capsys):
    """WE-14: orig_input [3,3,1,3], grad 5: the golden puts it on the first 3."""
    x = save(tmp_path / "x.npy", np.array([3, 3, 1, 3], np.float32).reshape(1, 1, 2, 2))
    grad = save(tmp_path / "g.npy", np.array([5], np.float32).reshape(1, 1, 1, 1))
    attrs = ["--ksize", "1,1,2,2", "--strides", "1,1,2,2", "--padding-mode", "VALID"]
    code, _, err = run_main(["run", "max_pool_v3_with_attrs", "--input", f"x={x}", *attrs, "-o", tmp_path], capsys)
    assert code == 0, err
    code, _, err = run_main(["run", "max_pool_v3_grad", "--input", f"orig_input={x}", "--input",
                             f"orig_output={tmp_path / 'y.npy'}", "--input", f"grad={grad}", *attrs, "-o", tmp_path],
                            capsys)
    assert code == 0, err
    assert np.load(tmp_path / "out_grad.npy").ravel().tolist() == [5, 0, 0, 0]
    analysis = ["--op", "max_pool_v3_grad", "--input", f"orig_input={x}", "--input", f"grad={grad}", *attrs]
    tie = save(tmp_path / "tie.npy", np.array([0, 0, 0, 5], np.float32).reshape(1, 1, 2, 2))
    code, out, _ = run_main(["compare", tmp_path / "out_grad.npy", tie, *analysis], capsys)
    assert code == 0 and summary_count(out, "tie-induced") == 2
    real = save(tmp_path / "real.npy", np.array([0, 0, 5, 0], np.float32).reshape(1, 1, 2, 2))
    code, out, _ = run_main(["compare", tmp_path / "out_grad.npy", real, *analysis], capsys)
    assert code == 1 and summary_count(out, "real") == 2


# ----------------------------------------------------------------------------------------------------------
# randomized: any tie-breaking of a correct kernel passes, a misplaced window's gradient fails

def _cells_to_windows(axis_ranges, in_spatial):
    """axis_ranges[a][o] = input coordinates of output o on axis a (padding already left out) -> for every
    output position (row-major) the plane-flat positions of its window (row-major)."""
    windows = []
    for o in np.ndindex(*[len(r) for r in axis_ranges]):
        cells = np.array(np.meshgrid(*[axis_ranges[a][o[a]] for a in range(len(o))], indexing="ij"))
        windows.append([int(np.ravel_multi_index(tuple(c), in_spatial)) for c in cells.reshape(len(o), -1).T])
    return [len(r) for r in axis_ranges], windows


def _tie_family(family, rng):
    """A problem full of ties, its windows written independently of golden.py, and the command lines."""
    if family == "max_pool3d":
        in_spatial, kernel, stride = (2, 4, 5), (1, 2, 2), tuple(int(v) for v in rng.choice([1, 2], 3))
        ranges = [[list(range(o * s, o * s + k)) for o in range((n - k) // s + 1)]
                  for n, k, s in zip(in_spatial, kernel, stride)]
        attrs = ["--kernel-size", ",".join(map(str, kernel)), "--stride", ",".join(map(str, stride))]
        names = ("max_pool3d_with_argmax", "max_pool3d_with_argmax_backward")
    elif family == "adaptive3d":
        in_spatial, out_size = (3, 5, 7), (2, 3, 4)
        ranges = [[list(range(o * n // m, -(-(o + 1) * n // m))) for o in range(m)]
                  for n, m in zip(in_spatial, out_size)]
        attrs = ["--output-size", "2,3,4"]
        names = ("adaptive_max_pool3d", "adaptive_max_pool3d_backward")
    else:  # MaxPoolV3, SAME padding, NHWC: H 5 -> 3 (pad top 1), W 7 -> 4 (pad left 1), 3x3 windows, stride 2
        in_spatial = (5, 7)
        ranges = [[[i for i in range(o * 2 - 1, o * 2 + 2) if 0 <= i < n] for o in range(m)]
                  for n, m in zip(in_spatial, (3, 4))]
        attrs = ["--ksize", "1,3,3,1", "--strides", "1,2,2,1", "--padding-mode", "SAME", "--data-format", "NHWC"]
        names = ("max_pool_v3_with_attrs", "max_pool_v3_grad")
    out_spatial, windows = _cells_to_windows(ranges, in_spatial)
    return in_spatial, tuple(out_spatial), windows, attrs, names


@pytest.mark.parametrize("family", ["max_pool3d", "adaptive3d", "v3_same_nhwc"])
def test_random_tie_breaking_is_tie_induced_and_misplacement_is_real(family, seed, tmp_path, capsys):
    """A kernel that breaks every tie at random passes; moving one window's gradient (or index) to an
    element that is not a maximum of that window fails, as does the same kernel with --strict."""
    v3 = family == "v3_same_nhwc"
    for case, rng in enumerate(case_generators(seed, 2)):
        dtype = [np.float32, np.float16, BF16][(case + len(family)) % (2 if v3 else 3)]
        in_spatial, out_spatial, windows, attrs, (forward, backward) = _tie_family(family, rng)
        planes_x = rng.integers(0, 3, size=(4, int(np.prod(in_spatial)))).astype(np.float32)   # ties everywhere
        planes_g = rng.integers(1, 8, size=(4, len(windows))).astype(np.float32)

        def to_file(planes, spatial):   # planes (N*C = 2*2, ...) -> the operator's layout
            array = planes.reshape((2, 2) + tuple(spatial))
            return (np.moveaxis(array, 1, 3) if v3 else array).astype(dtype)

        actual_idx = np.zeros(planes_g.shape, np.int64)
        actual = np.zeros(planes_x.shape, np.float64)
        wrong = None
        for p in range(4):
            for q, cells in enumerate(windows):
                values = planes_x[p, cells]
                tied = [c for c, v in zip(cells, values) if v == values.max()]
                actual_idx[p, q] = tied[rng.integers(len(tied))]
                actual[p, actual_idx[p, q]] += planes_g[p, q]
                others = [c for c, v in zip(cells, values) if v != values.max()]
                if wrong is None and others:
                    wrong = (p, q, others[0])
        x, g = save(tmp_path / "x.npy", to_file(planes_x, in_spatial)), save(tmp_path / "g.npy",
                                                                             to_file(planes_g, out_spatial))
        if v3:
            code, _, err = run_main(["run", forward, "--input", f"x={x}", *attrs, "-o", tmp_path / "fwd"], capsys)
            assert code == 0, err
            inputs = ["--input", f"orig_input={x}", "--input", f"orig_output={tmp_path / 'fwd/y.npy'}",
                      "--input", f"grad={g}"]
            analysis = ["--input", f"orig_input={x}", "--input", f"grad={g}", *attrs]
        else:
            code, _, err = run_main(["run", forward, "--input", f"self={x}", *attrs, "-o", tmp_path / "fwd"], capsys)
            assert code == 0, err
            inputs = ["--input", f"grad_output={g}", "--input", f"self={x}", "--input",
                      f"indices={tmp_path / 'fwd/indices.npy'}"]
            analysis = ["--input", f"self={x}", "--input", f"grad_output={g}", *attrs]
        backward_attrs = [] if family == "adaptive3d" else attrs     # the adaptive backward takes none
        code, _, err = run_main(["run", backward, *inputs, *backward_attrs, "-o", tmp_path / "bwd"], capsys)
        assert code == 0, err
        golden_grad = tmp_path / "bwd" / ("out_grad.npy" if v3 else "grad_input.npy")

        code, out, _ = run_main(["compare", golden_grad, save(tmp_path / "a_grad.npy", to_file(actual, in_spatial)),
                                 "--op", backward, *analysis], capsys)
        assert code == 0 and summary_count(out, "real") == 0, (seed, case, out)
        if summary_count(out, "tie-induced"):
            code, out, _ = run_main(["compare", golden_grad, tmp_path / "a_grad.npy", "--strict", "--op", backward,
                                     *analysis], capsys)
            assert code == 1, (seed, case, out)
        assert wrong is not None
        p, q, position = wrong
        bad = actual.copy()
        bad[p, actual_idx[p, q]] -= planes_g[p, q]
        bad[p, position] += planes_g[p, q]
        code, out, _ = run_main(["compare", golden_grad, save(tmp_path / "b_grad.npy", to_file(bad, in_spatial)),
                                 "--op", backward, *analysis], capsys)
        assert code == 1 and summary_count(out, "real") >= 1, (seed, case, out)

        if not v3:
            shape_o = (2, 2) + out_spatial
            code, out, _ = run_main(["compare", tmp_path / "fwd/indices.npy",
                                     save(tmp_path / "a_idx.npy", actual_idx.reshape(shape_o).astype(np.int32)),
                                     "--op", forward, *analysis], capsys)
            assert code == 0 and summary_count(out, "real") == 0, (seed, case, out)
            bad_idx = actual_idx.copy()
            bad_idx[p, q] = position
            code, out, _ = run_main(["compare", tmp_path / "fwd/indices.npy",
                                     save(tmp_path / "b_idx.npy", bad_idx.reshape(shape_o).astype(np.int32)),
                                     "--op", forward, *analysis], capsys)
            assert code == 1 and summary_count(out, "real") == 1, (seed, case, out)


# ----------------------------------------------------------------------------------------------------------
# bad usage and library errors

@pytest.mark.parametrize("argv, message", [
    (["run", "max_pool3d_with_argmax", "--input", "self=X"], "needs --kernel-size"),
    (["run", "max_pool3d", "--input", "self=X", "--kernel-size", "2"], "unknown operator 'max_pool3d'"),
    (["run", "max_pool3d_with_argmax", "--input", "self=X", "--kernel-size", "2", "--ksize", "1,1,2,2"],
     "does not take --ksize"),
    (["run", "max_pool3d_with_argmax_backward", "--input", "self=X", "--kernel-size", "2"],
     "needs --input for grad_output, indices"),
    (["run", "max_pool3d_with_argmax", "--input", "x=X", "--kernel-size", "2"], "has no input 'x'"),
    (["run", "max_pool3d_with_argmax", "--input", "self=RAW", "--kernel-size", "2"], "needs its dtype and shape"),
    (["run", "max_pool3d_with_argmax", "--input", "self=RAW:float32", "--kernel-size", "2"], "needs a shape"),
    (["run", "max_pool3d_with_argmax", "--input", "self=RAW:float32:2,2,2,2,2", "--kernel-size", "2"],
     "holds 16 elements"),
    (["run", "max_pool3d_with_argmax", "--input", "self=missing.npy", "--kernel-size", "2"], "no such file"),
    (["run", "max_pool3d_with_argmax", "--input", "self=X", "--kernel-size", "two"], "not a list of integers"),
    (["run", "max_pool_v3_grad", "--input", "orig_input=X", "--ksize", "1,1,2,2"], "needs --strides"),
    (["compare", "X", "X", "--kernel-size", "2"], "give --op too"),
    (["compare", "X", "X", "--kind", "indices"], "--kind indices compares integer files"),
])
def test_bad_usage(argv, message, tmp_path, capsys):
    x = save(tmp_path / "x.npy", np.zeros((1, 1, 2, 2, 2), np.float32))
    np.zeros(16, np.float32).tofile(tmp_path / "raw.bin")
    argv = [a.replace("RAW", str(tmp_path / "raw.bin")).replace("X", x) if "X" in a or "RAW" in a else a
            for a in argv]
    code, out, err = run_main(argv, capsys)
    assert code == 2
    assert message in err, err
    assert out == ""


def test_bad_usage_and_library_error_through_the_command(tmp_path):
    save(tmp_path / "x.npy", np.zeros((1, 1, 2, 2, 2), np.float32))
    result = run_cli(["run", "nonsense_op", "--input", "self=x.npy"], tmp_path)
    assert result.returncode == 2 and "unknown operator 'nonsense_op'" in result.stderr
    result = run_cli(["run", "max_pool3d_with_argmax", "--input", "self=x.npy"], tmp_path)
    assert result.returncode == 2 and "needs --kernel-size" in result.stderr
    result = run_cli(["run", "max_pool3d_with_argmax", "--kernel-size", "2"], tmp_path)
    assert result.returncode == 2 and "needs --input for self" in result.stderr
    result = run_cli(["frobnicate"], tmp_path)
    assert result.returncode == 2 and "invalid choice" in result.stderr
    result = run_cli(["run", "max_pool3d_with_argmax", "--input", "self=x.npy", "--kernel-size", "0", "-o", "o"],
                     tmp_path)
    assert result.returncode == 2
    assert "status 161002" in result.stderr and "kernelSize" in result.stderr
    assert not (tmp_path / "o").exists()
    result = run_cli(["compare", "x.npy", "x.npy", "--op", "max_pool3d_with_argmax_backward", "--kind", "gradient",
                      "--input", "self=x.npy", "--input", "grad_output=x.npy", "--kernel-size", "2", "--padding",
                      "2"], tmp_path)
    assert result.returncode == 2 and "status 161002" in result.stderr


def test_float64_input_is_refused_or_converted(tmp_path, capsys):
    x = save(tmp_path / "x.npy", np.arange(8.0).reshape(1, 1, 2, 2, 2))
    code, out, err = run_main(["run", "max_pool3d_with_argmax", "--input", f"self={x}", "--kernel-size", "2",
                               "-o", tmp_path], capsys)
    assert code == 2 and "input self is float64" in err and out == ""
    code, out, err = run_main(["run", "max_pool3d_with_argmax", "--input", f"self={x}:float16", "--kernel-size", "2",
                               "-o", tmp_path], capsys)
    assert code == 0, err
    assert np.load(tmp_path / "out.npy").dtype == np.float16 and np.load(tmp_path / "out.npy").ravel()[0] == 7


def test_list_and_help(capsys):
    code, out, _ = run_main(["list"], capsys)
    assert code == 0
    for op in golden.OPERATORS:
        assert f"{op.name} ({op.aclnn})" in out
    code, out, _ = run_main(["run", "--help"], capsys)
    assert code == 0 and "--kernel-size" in out and "--out-dir" in out


# ----------------------------------------------------------------------------------------------------------
# every example command of docs/golden_data.md

def _doc_commands():
    """(command, expected exit status) for each line of the ```bash blocks, in order; a command ending in
    `# exit status N` must exit with N, every other one with 0."""
    text = DOC.read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            match = re.search(r"#\s*exit status (\d+)\s*$", line)
            status = int(match.group(1)) if match else 0
            commands.append((line, status))
    return commands


def test_doc_examples_run(tmp_path, monkeypatch, capsys):
    """Each example in order, in one folder: `python -c CODE` is executed, `python -m poolgrad.golden ARGS`
    goes to golden.main (in-process, for speed; the subprocess tests above cover the real command)."""
    commands = _doc_commands()
    assert len(commands) >= 10
    monkeypatch.chdir(tmp_path)
    printed = []
    for command, status in commands:
        words = shlex.split(command, comments=True)
        if words[:3] == ["python", "-m", "poolgrad.golden"]:
            code = golden.main(words[3:])
            output = capsys.readouterr()
            assert code == status, f"{command}\n{output.out}\n{output.err}"
            printed.append(output.out)
        else:
            assert words[:2] == ["python", "-c"] and len(words) == 3 and status == 0, command
            exec(compile(words[2], "<doc example>", "exec"), {})
    # The sample outputs the page shows are what the examples print.
    samples = [b for b in re.findall(r"```text\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
               if not b.startswith("python")]
    assert len(samples) >= 3
    for sample in samples:
        assert sample in "".join(printed), sample


def test_value_only_operators_compare_without_tie_analysis(tmp_path, capsys):
    """max_pool / max_pool_v3 have no indices or gradients: compare takes --op without asking for inputs,
    integer values are compared exactly, --kind gradient is a usage error."""
    x = np.arange(-8, 8, dtype=np.int32).reshape(1, 1, 4, 4)
    golden_out = save(tmp_path / "golden.npy", pg.max_pool(x, [2, 2], [2, 2]))
    same = save(tmp_path / "same.npy", pg.max_pool(x, [2, 2], [2, 2]))
    code, out, err = run_main(["compare", golden_out, same, "--op", "max_pool"], capsys)
    assert code == 0 and "no tie analysis" in out, err
    other = save(tmp_path / "other.npy", pg.max_pool(x, [2, 2], [2, 2]) + 1)
    code, out, err = run_main(["compare", golden_out, other, "--op", "max_pool"], capsys)
    assert code == 1, out + err
    code, out, err = run_main(["compare", golden_out, same, "--op", "max_pool_v3", "--kind", "gradient"], capsys)
    assert code == 2 and "no gradient" in err
