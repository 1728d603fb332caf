"""poolgrad-golden: golden data for testing your own CANN max-pooling kernels against poolgrad.

    python -m poolgrad.golden run OP --input NAME=FILE[:DTYPE[:SHAPE]] ... [attributes] [--out-dir DIR]
    python -m poolgrad.golden compare EXPECTED ACTUAL [--kind ...] [--rtol R] [--atol A] [--op OP --input ...]
    python -m poolgrad.golden list

`run` calls one poolgrad operator on arrays read from .npy or raw .bin files and writes every output as
.npy (and .bin with --save-bin). `compare` checks a kernel's output against such a golden file and, for
index outputs and gradients, tells differences caused by tied maxima apart from real ones. Exit status:
0 success / within tolerance, 1 differences found, 2 bad usage or an error status from the library.
The user documentation is docs/golden_data.md.
"""

import argparse
import difflib
import re
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np

EXIT_OK, EXIT_DIFFERENT, EXIT_USAGE = 0, 1, 2
PROG = "poolgrad-golden"

# ----------------------------------------------------------------------------------------------------------
# The operators

_REGULAR = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")
_V3 = ("ksize", "strides", "padding_mode", "pads", "data_format", "global_pooling", "ceil_mode")


class Operator(NamedTuple):
    name: str            # snake name = the poolgrad function
    aclnn: str           # aclnn operator name
    family: str          # regular3d, regular2d, mask, adaptive3d, adaptive2d, v3 (window geometry)
    backward: bool
    inputs: tuple        # argument names of the poolgrad function, in order
    outputs: tuple       # output file stems, in the order the function returns them
    attributes: tuple    # command-line attributes the operator takes
    required: tuple      # attributes without a default


OPERATORS = (
    Operator("max_pool3d_with_argmax", "aclnnMaxPool3dWithArgmax", "regular3d", False, ("self",),
             ("out", "indices"), _REGULAR + ("index_dtype",), ("kernel_size",)),
    Operator("max_pool3d_with_argmax_backward", "aclnnMaxPool3dWithArgmaxBackward", "regular3d", True,
             ("grad_output", "self", "indices"), ("grad_input",), _REGULAR, ("kernel_size",)),
    Operator("adaptive_max_pool3d", "aclnnAdaptiveMaxPool3d", "adaptive3d", False, ("self",), ("out", "indices"),
             ("output_size", "index_dtype"), ("output_size",)),
    Operator("adaptive_max_pool3d_backward", "aclnnAdaptiveMaxPool3dBackward", "adaptive3d", True,
             ("grad_output", "self", "indices"), ("grad_input",), (), ()),
    Operator("max_pool2d_with_indices", "aclnnMaxPool2dWithIndices", "regular2d", False, ("self",),
             ("out", "indices"), _REGULAR + ("index_dtype",), ("kernel_size",)),
    Operator("max_pool2d_with_indices_backward", "aclnnMaxPool2dWithIndicesBackward", "regular2d", True,
             ("grad_output", "self", "indices"), ("grad_input",), _REGULAR, ("kernel_size",)),
    Operator("max_pool2d_with_mask", "aclnnMaxPool2dWithMask", "mask", False, ("self",), ("out", "mask"),
             _REGULAR, ("kernel_size",)),
    Operator("max_pool2d_with_mask_backward", "aclnnMaxPool2dWithMaskBackward", "mask", True,
             ("grad_output", "self", "mask"), ("grad_input",), _REGULAR, ("kernel_size",)),
    Operator("adaptive_max_pool2d", "aclnnAdaptiveMaxPool2d", "adaptive2d", False, ("self",), ("out", "indices"),
             ("output_size", "index_dtype"), ("output_size",)),
    Operator("adaptive_max_pool2d_backward", "aclnnAdaptiveMaxPool2dBackward", "adaptive2d", True,
             ("grad_output", "self", "indices"), ("grad_input",), (), ()),
    Operator("max_pool_v3_with_attrs", "aclnnMaxPoolV3WithAttrs", "v3", False, ("x",), ("y",), _V3,
             ("ksize", "strides")),
    Operator("max_pool_v3_grad", "aclnnMaxPoolV3Grad", "v3", True, ("orig_input", "orig_output", "grad"),
             ("out_grad",), _V3, ("ksize", "strides")),
    Operator("max_pool", "aclnnMaxPool", "onnx", False, ("self",), ("out",),
             ("kernel_shape", "strides", "auto_pad", "pads", "dilations", "ceil_mode"), ("kernel_shape",)),
    Operator("max_pool_v3", "aclnnMaxPoolV3", "v3_nchw", False, ("x",), ("out",),
             ("ksize", "strides", "pads", "ceil_mode"), ("ksize", "strides")),
)

# Value-only operators: no indices and no gradient, so nothing for the tie analysis.
_VALUE_ONLY_FAMILIES = ("onnx", "v3_nchw")

# The input dtypes each operator takes beyond float32/float16/bfloat16 data and int8/int32/int64 indices and
# masks: the library judges the rest of its rules.
_EXTRA_INPUT_DTYPES = {"max_pool": ("uint8", "int16", "uint16"), "adaptive_max_pool2d": ("float64",)}

_FORWARD_OF_FAMILY = {op.family: op for op in OPERATORS if not op.backward}

# Defaults of the optional attributes (what the poolgrad functions use).
_DEFAULTS = {"stride": None, "padding": [0], "dilation": [1], "ceil_mode": False, "index_dtype": "int32",
             "padding_mode": "CALCULATED", "pads": [0, 0, 0, 0], "data_format": "NCHW", "global_pooling": False,
             "auto_pad": 0, "dilations": []}

# Command-line spelling of each attribute (for messages).
_FLAGS = {"kernel_size": "--kernel-size", "stride": "--stride", "padding": "--padding", "dilation": "--dilation",
          "ceil_mode": "--ceil-mode", "index_dtype": "--index-dtype", "output_size": "--output-size",
          "ksize": "--ksize", "strides": "--strides", "padding_mode": "--padding-mode", "pads": "--pads",
          "data_format": "--data-format", "global_pooling": "--global-pooling", "kernel_shape": "--kernel-shape",
          "auto_pad": "--auto-pad", "dilations": "--dilations"}


class UsageError(Exception):
    """A mistake on the command line or in an input file: reported like argparse does (exit status 2)."""


def _squash(name):
    return re.sub(r"[^a-z0-9]", "", name.lower())


def find_operator(name):
    """The Operator named `name`: the snake name, the aclnn name, or the aclnn name without 'aclnn'."""
    key = _squash(name)
    for op in OPERATORS:
        if key in (_squash(op.name), _squash(op.aclnn), _squash(op.aclnn[len("aclnn"):])):
            return op
    choices = [op.name for op in OPERATORS] + [op.aclnn for op in OPERATORS]
    close = difflib.get_close_matches(name, choices, n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise UsageError(f"unknown operator '{name}'{hint}; known operators: " + ", ".join(op.name for op in OPERATORS))


def _input_key(name):
    """camelCase input names (gradOutput, origInput) are accepted next to snake_case ones."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower().replace("-", "_")


# ----------------------------------------------------------------------------------------------------------
# Files: .npy, or raw .bin given with a dtype and a shape

_DTYPE_ALIASES = {"float32": "float32", "fp32": "float32", "float": "float32", "float16": "float16",
                  "fp16": "float16", "half": "float16", "bfloat16": "bfloat16", "bf16": "bfloat16",
                  "float64": "float64", "fp64": "float64", "double": "float64", "int8": "int8", "uint8": "uint8",
                  "int16": "int16", "uint16": "uint16", "int32": "int32", "int64": "int64"}


def resolve_dtype(name):
    """numpy dtype for a dtype name; bfloat16 is ml_dtypes.bfloat16 (imported only when asked for)."""
    canonical = _DTYPE_ALIASES.get(str(name).lower())
    if canonical is None:
        raise UsageError(f"unknown dtype '{name}'; use one of " + ", ".join(sorted(set(_DTYPE_ALIASES.values()))))
    if canonical == "bfloat16":
        return _bfloat16()
    return np.dtype(canonical).newbyteorder("<")


def _bfloat16():
    try:
        import ml_dtypes
    except ImportError:
        raise UsageError("bfloat16 data needs the ml_dtypes package (pip install ml_dtypes)") from None
    return np.dtype(ml_dtypes.bfloat16)


def _is_bfloat16(dtype):
    return np.dtype(dtype).name == "bfloat16"


def _parse_shape(text):
    text = text.strip().strip("()[]")
    if not text:
        return ()
    try:
        shape = tuple(int(v) for v in re.split(r"[,x\s]+", text) if v)
    except ValueError:
        raise UsageError(f"bad shape '{text}': write it as 2,3,4") from None
    if any(v < 0 for v in shape):
        raise UsageError(f"bad shape '{text}': negative dimension")
    return shape


class FileSpec(NamedTuple):
    path: str
    dtype: object   # numpy dtype or None
    shape: object   # tuple or None


def parse_file_spec(text):
    """PATH[:DTYPE[:SHAPE]] (the path may itself contain ':')."""
    parts = text.rsplit(":", 2)
    if len(parts) == 3 and parts[1].lower() in _DTYPE_ALIASES and re.fullmatch(r"[\s0-9,x()\[\]]*", parts[2]):
        return FileSpec(parts[0], resolve_dtype(parts[1]), _parse_shape(parts[2]))
    parts = text.rsplit(":", 1)
    if len(parts) == 2 and parts[1].lower() in _DTYPE_ALIASES:
        return FileSpec(parts[0], resolve_dtype(parts[1]), None)
    return FileSpec(text, None, None)


def load_array(spec, what, need_shape=True):
    """Reads a FileSpec. .npy: loaded (a 2-byte void dtype, which is how numpy stores bfloat16, is read as
    bfloat16), converted to DTYPE and reshaped to SHAPE when given. Anything else is raw little-endian
    data and needs DTYPE (and SHAPE when need_shape)."""
    path = Path(spec.path)
    if not path.is_file():
        raise UsageError(f"{what}: no such file '{spec.path}'")
    if path.suffix.lower() == ".npy":
        try:
            array = np.load(path, allow_pickle=False)
        except (ValueError, OSError) as error:
            raise UsageError(f"{what}: cannot read '{spec.path}' as .npy: {error}") from None
        if array.dtype.kind == "V" and array.dtype.itemsize == 2 and array.dtype.names is None:
            array = array.view(_bfloat16())
        if spec.dtype is not None and array.dtype != spec.dtype:
            array = array.astype(np.float32).astype(spec.dtype) if _is_bfloat16(array.dtype) \
                else array.astype(spec.dtype)
    else:
        if spec.dtype is None:
            raise UsageError(f"{what}: raw file '{spec.path}' needs its dtype and shape, e.g. "
                             f"{spec.path}:float16:2,3,4,5,6")
        raw = path.read_bytes()
        if len(raw) % spec.dtype.itemsize:
            raise UsageError(f"{what}: '{spec.path}' has {len(raw)} bytes, not a multiple of the "
                             f"{spec.dtype.itemsize}-byte {spec.dtype.name}")
        array = np.frombuffer(raw, dtype=spec.dtype).copy()
        if spec.shape is None and need_shape:
            raise UsageError(f"{what}: raw file '{spec.path}' needs a shape, e.g. {spec.path}:"
                             f"{spec.dtype.name}:2,3,4,5,6")
    if spec.shape is not None:
        if int(np.prod(spec.shape, dtype=np.int64)) != array.size:
            raise UsageError(f"{what}: '{spec.path}' holds {array.size} elements, shape {list(spec.shape)} "
                             f"needs {int(np.prod(spec.shape, dtype=np.int64))}")
        array = array.reshape(spec.shape)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    return array


def _dtype_text(dtype):
    return np.dtype(dtype).name


# ----------------------------------------------------------------------------------------------------------
# Command line

def _int_list(text):
    text = text.strip().strip("()[]")
    if not text:
        return []
    try:
        return [int(v) for v in re.split(r"[,\s]+", text) if v]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a list of integers such as 2,2,2") from None


def _add_operator_arguments(parser, op_positional):
    if op_positional:
        parser.add_argument("op", metavar="OP", help="operator: snake name (max_pool3d_with_argmax) or aclnn name "
                                                     "(aclnnMaxPool3dWithArgmax); `list` shows them all")
    else:
        parser.add_argument("--op", metavar="OP", help="operator whose inputs and attributes follow, for the tie "
                                                       "analysis of indices and gradients")
    parser.add_argument("--input", "-i", action="append", default=[], metavar="NAME=FILE[:DTYPE[:SHAPE]]",
                        help="an operator input (repeat per input), e.g. self=x.npy or self=x.bin:float16:2,3,4,5,6")
    group = parser.add_argument_group("attributes (as the operator takes them)")
    group.add_argument("--kernel-size", type=_int_list, metavar="K", help="kernelSize, e.g. 2,2,2 or 2")
    group.add_argument("--stride", type=_int_list, metavar="S",
                       help="stride (absent or empty: the kernel size)")
    group.add_argument("--padding", type=_int_list, metavar="P", help="padding (default 0)")
    group.add_argument("--dilation", type=_int_list, metavar="D", help="dilation (default 1)")
    group.add_argument("--ceil-mode", action="store_true", default=None, help="ceilMode = true (default false)")
    group.add_argument("--output-size", type=_int_list, metavar="SIZE",
                       help="adaptive outputSize, e.g. 4,5,6 or 4; an empty value (--output-size=) is the "
                            "length-0 list (output size = input size)")
    group.add_argument("--index-dtype", choices=("int32", "int64"), help="dtype of indices (default int32)")
    group.add_argument("--ksize", type=_int_list, metavar="K4", help="MaxPoolV3 ksize, length 4 in data_format "
                                                                     "order, e.g. 1,1,3,3")
    group.add_argument("--strides", type=_int_list, metavar="S4",
                       help="MaxPoolV3 strides, length 4; max_pool (ONNX): length 0 (= 1), 1 or 2")
    group.add_argument("--padding-mode", metavar="MODE", help="CALCULATED (default), SAME or VALID")
    group.add_argument("--pads", type=_int_list, metavar="P4",
                       help="MaxPoolV3 pads [top,bottom,left,right] (default 0,0,0,0); max_pool (ONNX): "
                            "[top,left,bottom,right], or one value, or H,W")
    group.add_argument("--data-format", metavar="FORMAT", help="NCHW (default) or NHWC")
    group.add_argument("--global-pooling", action="store_true", default=None, help="globalPooling = true")
    group.add_argument("--kernel-shape", type=_int_list, metavar="K", help="max_pool (ONNX) kernelShape, e.g. 3,3")
    group.add_argument("--auto-pad", type=int, metavar="N", help="max_pool (ONNX) autoPad (only 0, NOTSET)")
    group.add_argument("--dilations", type=_int_list, metavar="D",
                       help="max_pool (ONNX) dilations (every value 1; default empty)")


def build_parser():
    parser = argparse.ArgumentParser(
        prog=PROG, allow_abbrev=False,
        description="Golden data from poolgrad for testing CANN max-pooling kernels: run an operator on "
                    "files, or compare a kernel's output with a golden file (telling tie-induced index and "
                    "gradient differences apart from real ones). Exit status: 0 ok, 1 differences, 2 bad "
                    "usage or a library error.")
    commands = parser.add_subparsers(dest="command", metavar="{run,compare,list}")
    commands.required = True

    run = commands.add_parser("run", allow_abbrev=False, help="run an operator and write its outputs as .npy",
                              description="Runs one poolgrad operator on the given inputs and writes each output "
                                          "as OUT_DIR/<name>.npy (out, indices, mask, grad_input, y, out_grad).")
    _add_operator_arguments(run, op_positional=True)
    run.add_argument("--out-dir", "-o", default="golden", metavar="DIR",
                     help="folder for the outputs (created; default ./golden)")
    run.add_argument("--save-bin", action="store_true",
                     help="also write each output as raw little-endian <name>.bin")

    compare = commands.add_parser(
        "compare", allow_abbrev=False, help="compare a kernel's output with a golden file",
        description="Compares ACTUAL with EXPECTED. Exit status 0 when they agree within tolerance (or differ "
                    "only by ties, see --op), 1 otherwise.")
    compare.add_argument("expected", metavar="EXPECTED", help="golden file: .npy, or raw FILE:DTYPE[:SHAPE]")
    compare.add_argument("actual", metavar="ACTUAL",
                         help="file to check: .npy, or raw FILE:DTYPE[:SHAPE] (without SHAPE: EXPECTED's)")
    compare.add_argument("--kind", choices=("auto", "values", "indices", "gradient"), default="auto",
                         help="values: tolerance only; indices: exact, ties recognised; gradient: tolerance, "
                              "ties recognised. auto (default): indices for integer files, gradient when --op "
                              "is a backward operator, values otherwise")
    compare.add_argument("--rtol", type=float, metavar="R", help="relative tolerance (default by dtype)")
    compare.add_argument("--atol", type=float, metavar="A", help="absolute tolerance (default by dtype)")
    compare.add_argument("--strict", action="store_true", help="tie-induced differences fail too")
    compare.add_argument("--show", type=int, default=10, metavar="N", help="mismatching positions listed "
                                                                           "(default 10)")
    _add_operator_arguments(compare, op_positional=False)

    listing = commands.add_parser("list", help="list the operators with their inputs, attributes and outputs")
    parser.commands = {"run": run, "compare": compare, "list": listing}
    return parser


def _attributes(op, args, analysis=False):
    """The attribute values for `op` from the parsed arguments; a UsageError for missing or foreign ones.
    For the tie analysis (analysis=True) the attributes of the family's forward are accepted too."""
    given = {name for name in _FLAGS if getattr(args, name) is not None}
    accepted = set(op.attributes)
    if analysis:
        accepted |= set(_FORWARD_OF_FAMILY[op.family].attributes)
    foreign = sorted(given - accepted)
    if foreign:
        takes = ", ".join(_FLAGS[a] for a in op.attributes) or "no attributes"
        raise UsageError(f"{op.name} does not take {', '.join(_FLAGS[a] for a in foreign)} (it takes {takes})")
    missing = [a for a in op.required if getattr(args, a) is None]
    if missing:
        raise UsageError(f"{op.name} needs {', '.join(_FLAGS[a] for a in missing)}")
    values = {}
    for name in sorted(accepted - set(op.attributes)) + list(op.attributes):
        value = getattr(args, name)
        values[name] = _DEFAULTS.get(name) if value is None else value
    return values


def _inputs(op, texts, analysis=False):
    """{input name: array} from --input NAME=FILE entries; for `run` every input of op is required."""
    accepted = set(op.inputs)
    aliases = {"x": "orig_input", "orig_input": "x"} if op.family == "v3" else {}
    if analysis:  # compare: the inputs of the family's forward and backward both make sense
        accepted = {name for other in OPERATORS if other.family == op.family for name in other.inputs}
    arrays = {}
    for text in texts:
        if "=" not in text:
            raise UsageError(f"--input '{text}' must be NAME=FILE (inputs of {op.name}: {', '.join(op.inputs)})")
        name, file_text = text.split("=", 1)
        key = _input_key(name.strip())
        if key not in accepted:
            raise UsageError(f"{op.name} has no input '{name}' (its inputs: {', '.join(op.inputs)})")
        if key in arrays:
            raise UsageError(f"input '{key}' given twice")
        arrays[key] = load_array(parse_file_spec(file_text), f"input {key}")
    for key, alias in aliases.items():
        if key not in arrays and alias in arrays:
            arrays[key] = arrays[alias]
    if not analysis:
        missing = [name for name in op.inputs if name not in arrays]
        if missing:
            raise UsageError(f"{op.name} needs --input for {', '.join(missing)} (inputs: {', '.join(op.inputs)})")
    return arrays


def _zeroed_mask(self, attributes):
    """A zero-filled mask buffer: the library writes only the indices it holds, so the rest of the golden
    file is zeros rather than whatever memory held."""
    from . import _shapes

    self = np.asarray(self)
    leading, spatial = (list(self.shape[:-2]), list(self.shape[-2:])) if self.ndim >= 2 else ([], [1, 1])
    out_spatial = _shapes.regular_spatial(spatial, attributes["kernel_size"], attributes["stride"] or None,
                                          attributes["padding"], attributes["dilation"], attributes["ceil_mode"])
    return np.zeros(_shapes.mask_shape(leading, attributes["kernel_size"], out_spatial), dtype=np.int8)


def call_operator(op, inputs, attributes):
    """Runs op through the poolgrad module; returns [(output name, array)]."""
    from . import operators

    for name, array in inputs.items():
        if _dtype_text(array.dtype) not in ("float32", "float16", "bfloat16", "int8", "int32", "int64") + \
                _EXTRA_INPUT_DTYPES.get(op.name, ()):
            raise UsageError(f"input {name} is {_dtype_text(array.dtype)}; the operators take float32, float16, "
                             f"bfloat16 (indices int32/int64, masks int8): convert it with {name}=FILE:DTYPE")
    function = getattr(operators, op.name)
    a = dict(attributes)
    if "index_dtype" in a:
        a["index_dtype"] = np.dtype(a["index_dtype"])
    if op.family in ("regular3d", "regular2d", "mask"):
        args = [inputs[name] for name in op.inputs]
        keywords = {"index_dtype": a["index_dtype"]} if "index_dtype" in a else {}
        if op.family == "mask" and not op.backward:
            keywords["mask"] = _zeroed_mask(inputs["self"], a)
        result = function(*args, a["kernel_size"], a["stride"], a["padding"], a["dilation"], a["ceil_mode"],
                          **keywords)
    elif op.family == "onnx":
        result = function(inputs["self"], a["kernel_shape"], a["strides"] or [], a["auto_pad"], a["pads"],
                          a["dilations"], int(bool(a["ceil_mode"])))
    elif op.family == "v3_nchw":
        result = function(inputs["x"], a["ksize"], a["strides"], a["pads"], int(bool(a["ceil_mode"])))
    elif op.family in ("adaptive3d", "adaptive2d"):
        args = [inputs[name] for name in op.inputs]
        result = function(*args, a["output_size"], index_dtype=a["index_dtype"]) if not op.backward \
            else function(*args)
    else:
        args = [inputs[name] for name in op.inputs]
        result = function(*args, a["ksize"], a["strides"], a["padding_mode"], a["pads"], a["data_format"],
                          a["global_pooling"], a["ceil_mode"])
    if not isinstance(result, tuple):
        result = (result,)
    return list(zip(op.outputs, result))


# ----------------------------------------------------------------------------------------------------------
# run

def command_run(args):
    op = find_operator(args.op)
    attributes = _attributes(op, args)
    inputs = _inputs(op, args.input)
    outputs = call_operator(op, inputs, attributes)
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, array in outputs:
        path = out_dir / f"{name}.npy"
        np.save(path, array)
        extra = ""
        if args.save_bin:
            np.ascontiguousarray(array).tofile(out_dir / f"{name}.bin")
            extra = f" (+ {name}.bin)"
        print(f"{path}: shape {tuple(array.shape)}, dtype {_dtype_text(array.dtype)}{extra}")
    return EXIT_OK


# ----------------------------------------------------------------------------------------------------------
# Window geometry (for the tie analysis): per output position of a plane, the plane-flat input positions of
# its window. table: (Q, K) int64, valid: (Q, K) bool; the positions of padding are not valid.

def _expand(values, axes, default=None):
    values = list(values) if values is not None else []
    if not values and default is not None:
        return list(default)
    return values * axes if len(values) == 1 else values


def _combine_axes(in_spatial, per_axis):
    """per_axis: [(coords (O_a, L_a), valid (O_a, L_a))] -> (table (Q, K), valid (Q, K)), row-major in both."""
    axes = len(per_axis)
    strides = [int(np.prod(in_spatial[a + 1:], dtype=np.int64)) for a in range(axes)]
    table = np.zeros((1,) * (2 * axes), dtype=np.int64)
    valid = np.ones((1,) * (2 * axes), dtype=bool)
    for a, (coords, ok) in enumerate(per_axis):
        shape = [1] * (2 * axes)
        shape[a], shape[axes + a] = coords.shape
        table = table + (coords * strides[a]).reshape(shape)
        valid = valid & ok.reshape(shape)
    q = int(np.prod([c.shape[0] for c, _ in per_axis], dtype=np.int64))
    k = int(np.prod([c.shape[1] for c, _ in per_axis], dtype=np.int64))
    return table.reshape(q, k), valid.reshape(q, k)


def _strided_axis(size, out, kernel, stride, pad_before, dilation=1):
    coords = (np.arange(out)[:, None] * stride - pad_before + np.arange(kernel)[None, :] * dilation)
    return coords.astype(np.int64), (coords >= 0) & (coords < size)


def _adaptive_axis(size, out):
    o = np.arange(out)
    start = (o * size) // out
    end = ((o + 1) * size + out - 1) // out
    length = int((end - start).max()) if out else 0
    coords = start[:, None] + np.arange(max(length, 1))[None, :]
    return coords.astype(np.int64), coords < end[:, None]


def _regular_geometry(in_shape, out_shape, axes, attributes):
    """Per-axis windows of the kernel/stride/padding/dilation operators (attribute lists as the library
    accepted them: length 1 means every axis, an empty stride the kernel size)."""
    in_spatial, out_spatial = in_shape[-axes:], out_shape[-axes:]
    kernel = _expand(attributes["kernel_size"], axes)
    stride = _expand(attributes["stride"], axes, default=kernel)
    padding = _expand(attributes["padding"], axes)
    dilation = _expand(attributes["dilation"], axes)
    return [_strided_axis(n, o, k, s, p, d)
            for n, o, k, s, p, d in zip(in_spatial, out_spatial, kernel, stride, padding, dilation)]


def _v3_axes(data_format):
    return (1, 2) if data_format == "NHWC" else (2, 3)


def _v3_geometry(in_hw, out_hw, attributes):
    """Per-axis windows of MaxPoolV3 (H then W): VALID, SAME (pad top/left = half the total, rounded down),
    CALCULATED (pads[0], pads[2]); global pooling is one window over the whole plane."""
    if attributes["global_pooling"]:
        return [(np.arange(n, dtype=np.int64)[None, :], np.ones((1, n), dtype=bool)) for n in in_hw]
    h_axis, w_axis = _v3_axes(attributes["data_format"])
    kernel = [attributes["ksize"][h_axis], attributes["ksize"][w_axis]]
    stride = [attributes["strides"][h_axis], attributes["strides"][w_axis]]
    mode = attributes["padding_mode"]
    per_axis = []
    for axis, (n, o, k, s) in enumerate(zip(in_hw, out_hw, kernel, stride)):
        if mode == "VALID":
            before = 0
        elif mode == "SAME":
            before = max((o - 1) * s + k - n, 0) // 2
        else:
            before = list(attributes["pads"])[2 * axis]
        per_axis.append(_strided_axis(n, o, k, s, before))
    return per_axis


# ----------------------------------------------------------------------------------------------------------
# Tie analysis

def _as_float64(array):
    if _is_bfloat16(array.dtype):
        array = array.astype(np.float32)
    return np.asarray(array, dtype=np.float64)


class TieContext:
    """What the tie analysis knows about one operator call: the input values per plane, the windows, the
    gradient per window, and how to map the compared arrays to (plane, position) form and back."""

    def __init__(self, op, inputs, attributes, kind):
        self.op = op
        family = op.family
        self.v3 = family == "v3"
        self.v3_nhwc = self.v3 and attributes.get("data_format") == "NHWC"
        forward = _FORWARD_OF_FAMILY[family]
        values_name = "orig_input" if self.v3 else "self"
        if values_name not in inputs:
            raise UsageError(f"tie analysis for {op.name} needs --input {values_name}=FILE (the forward input)")
        values = inputs[values_name]
        forward_attributes = {a: attributes.get(a, _DEFAULTS.get(a)) for a in forward.attributes}
        if "index_dtype" in forward_attributes:
            forward_attributes["index_dtype"] = "int64"
        if "output_size" in forward_attributes and forward_attributes["output_size"] is None:
            shape_source = inputs.get("grad_output", inputs.get("indices"))
            if shape_source is None:
                raise UsageError(f"tie analysis for {op.name} needs --output-size or --input grad_output=FILE")
            forward_attributes["output_size"] = list(shape_source.shape[-(3 if family == "adaptive3d" else 2):])
        results = dict(call_operator(forward, {forward.inputs[0]: values}, forward_attributes))
        out = results["y"] if self.v3 else results["out"]
        self.out_shape = tuple(out.shape)
        self.in_shape = tuple(values.shape)
        self.kernel_elements = None
        if family == "mask":
            self.kernel_elements = int(np.prod(_expand(attributes["kernel_size"], 2)))

        if self.v3:
            h_axis, w_axis = _v3_axes(attributes["data_format"])
            in_hw = (values.shape[h_axis], values.shape[w_axis])
            out_hw = (out.shape[h_axis], out.shape[w_axis])
            per_axis = _v3_geometry(in_hw, out_hw, attributes)
            target = inputs.get("orig_output")
            if target is None:
                target = out
            elif tuple(target.shape) != self.out_shape:
                raise UsageError(f"orig_output has shape {tuple(target.shape)}, the forward gives {self.out_shape}")
            self.targets = self._planes(_as_float64(target))
        else:
            axes = 3 if family in ("regular3d", "adaptive3d") else 2
            if family.startswith("adaptive"):
                per_axis = [_adaptive_axis(n, o) for n, o in zip(values.shape[-axes:], self.out_shape[-axes:])]
            else:
                per_axis = _regular_geometry(values.shape, self.out_shape, axes, attributes)
            self.targets = None
        self.table, self.valid = _combine_axes(self.in_spatial_of(values.shape), per_axis)
        self.values = self._planes(_as_float64(values))
        self.window_grads = None
        if kind == "gradient":
            name = "grad" if self.v3 else "grad_output"
            if name not in inputs:
                raise UsageError(f"gradient tie analysis for {op.name} needs --input {name}=FILE")
            grads = inputs[name]
            if tuple(grads.shape) != self.out_shape:
                raise UsageError(f"{name} has shape {tuple(grads.shape)}, the forward output has {self.out_shape}")
            self.window_grads = self._planes(_as_float64(grads))

    # ---- layouts: every array handled here is turned into (planes, plane-flat position)
    def in_spatial_of(self, shape):
        if self.v3:
            h_axis, w_axis = _v3_axes("NHWC" if self.v3_nhwc else "NCHW")
            return (shape[h_axis], shape[w_axis])
        axes = 3 if self.op.family in ("regular3d", "adaptive3d") else 2
        return tuple(shape[-axes:])

    def _planes(self, array):
        if self.v3_nhwc:
            array = np.moveaxis(array, 3, 1)
        spatial = 2 if self.v3 else (3 if self.op.family in ("regular3d", "adaptive3d") else 2)
        planes = int(np.prod(array.shape[:-spatial], dtype=np.int64))
        return np.ascontiguousarray(array).reshape(planes, -1)

    def to_planes(self, array):
        return self._planes(array)

    def original_positions(self, shape):
        """For (plane, position) form of an array of `shape`: the flat index in the original layout."""
        return self._planes(np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape))

    # ---- tied maxima
    def tied(self, plane_rows, window_rows):
        """Tied-maximum mask (M, K) of the windows `window_rows` in planes `plane_rows`."""
        positions = np.where(self.valid[window_rows], self.table[window_rows], 0)
        valid = self.valid[window_rows]
        vals = self.values[plane_rows[:, None], positions]
        if self.targets is not None:  # MaxPoolV3Grad: the positions equal to orig_output
            return valid & (vals == self.targets[plane_rows, window_rows][:, None]), positions
        nan = np.isnan(vals) & valid
        has_nan = nan.any(axis=1)
        maximum = np.where(valid & ~nan, vals, -np.inf).max(axis=1, initial=-np.inf)
        return np.where(has_nan[:, None], nan, valid & (vals == maximum[:, None])), positions


def _chunks(count, per_item, budget=1 << 20):
    step = max(1, budget // max(per_item, 1))
    for start in range(0, count, step):
        yield slice(start, min(count, start + step))


def classify_index_differences(ctx, expected, actual, mismatch):
    """tie mask (planes, Q): a differing index is tie-induced when the expected and the actual index are both
    tied maxima of that output position's window."""
    tie = np.zeros(mismatch.shape, dtype=bool)
    planes, windows = np.nonzero(mismatch)
    for part in _chunks(len(planes), ctx.table.shape[1]):
        p, q = planes[part], windows[part]
        tied, positions = ctx.tied(p, q)
        e = expected[p, q][:, None]
        a = actual[p, q][:, None]
        tie[p, q] = ((positions == e) & tied).any(axis=1) & ((positions == a) & tied).any(axis=1)
    return tie


class GroupReport(NamedTuple):
    groups: int       # connected groups of tied windows holding a difference
    consistent: int   # of those, the ones whose differences a move of gradient between ties explains


_SUBSET_LIMIT = 12   # positions tied in more ambiguous windows than this skip the subset-sum test


def _reachable(targets, grads, count, tolerance):
    """For each row i: is targets[i] (within tolerance[i]) the sum of a subset of grads[i, :count[i]]?
    Rows with more than _SUBSET_LIMIT gradients: is it between the sum of the negative and the sum of the
    positive ones?"""
    result = np.zeros(len(targets), dtype=bool)
    width = grads.shape[1]
    valid = np.arange(width)[None, :] < count[:, None]
    g = np.where(valid, grads, 0.0)
    many = count > _SUBSET_LIMIT
    low = np.where(g < 0, g, 0).sum(axis=1) - tolerance
    high = np.where(g > 0, g, 0).sum(axis=1) + tolerance
    result[many] = (low[many] <= targets[many]) & (targets[many] <= high[many])
    for n in np.unique(count[~many]):
        rows = np.nonzero((count == n) & ~many)[0]
        choices = ((np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.float64)  # (2^n, n)
        for part in _chunks(len(rows), 1 << n):
            r = rows[part]
            sums = g[r, :n] @ choices.T                                                           # (rows, 2^n)
            result[r] = (np.abs(sums - targets[r, None]) <= tolerance[r, None]).any(axis=1)
    return result


def _components(size, ids):
    """Connected components of the positions 0..size-1 when the positions of each row of ids are linked:
    label = smallest position of the component (hooking of roots onto smaller roots, full path
    compression, until no link joins two trees)."""
    parent = np.arange(size)
    u = np.repeat(ids[:, 0], ids.shape[1] - 1)
    v = ids[:, 1:].ravel()
    while True:
        ru, rv = parent[u], parent[v]
        apart = ru != rv
        if not apart.any():
            return parent
        high, low = np.maximum(ru, rv)[apart], np.minimum(ru, rv)[apart]
        parent[high] = low              # any of the competing smaller roots will do
        while True:
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand


def classify_gradient_differences(ctx, expected, actual, mismatch, rtol, atol):
    """tie mask (planes, P) and a GroupReport. See docs/golden_data.md, "How ties are recognised".

    A window is ambiguous when it has two or more tied maxima and a non-zero gradient. Positions tied in a
    common ambiguous window form connected groups. A differing position is tie-induced when it is a tied
    maximum of an ambiguous window and its group passes both tests:
      1. sum:      the group's actual sum equals its expected sum (moving gradient keeps it);
      2. position: at each differing position, actual - (gradient of the windows with a single maximum
                   there) is the sum of a subset of the gradients of the ambiguous windows tied there
                   (more than _SUBSET_LIMIT such windows: lies between the sums of their negative and of
                   their positive gradients).
    """
    tie = np.zeros(mismatch.shape, dtype=bool)
    plane_list = np.unique(np.nonzero(mismatch)[0])
    size = expected.shape[1]
    q_count, k_count = ctx.table.shape
    groups = consistent = 0
    for part in _chunks(len(plane_list), q_count * k_count):
        chosen = plane_list[part]
        count = len(chosen)
        p_rows = np.repeat(np.arange(count), q_count)
        q_rows = np.tile(np.arange(q_count), count)
        tied, positions = ctx.tied(chosen[p_rows], q_rows)
        grads = ctx.window_grads[chosen[p_rows], q_rows]
        tied_count = tied.sum(axis=1)
        ambiguous = (tied_count >= 2) & (grads != 0)
        if not ambiguous.any():
            continue
        ids_all = p_rows[:, None] * size + positions                # chunk-wide position ids
        # Gradient of the windows with a single maximum: the same in every correct result.
        single = tied_count == 1
        fixed = np.bincount(ids_all[single][tied[single]], grads[single], count * size)

        members = ids_all[ambiguous]
        member_ok = tied[ambiguous]
        window_grad = grads[ambiguous]
        first = members[np.arange(len(members)), member_ok.argmax(axis=1)]
        ids = np.where(member_ok, members, first[:, None])
        member_ids = members[member_ok]
        member_grads = np.repeat(window_grad, member_ok.sum(axis=1))

        in_tie = np.zeros(count * size, dtype=bool)
        in_tie[member_ids] = True
        reach = np.bincount(member_ids, np.abs(member_grads), count * size)   # sum of |g| of the ambiguous
        labels = _components(count * size, ids)                               # windows a position is tied in

        e = expected[chosen].ravel()
        a = actual[chosen].ravel()
        mis = mismatch[chosen].ravel()
        tie_positions = np.nonzero(in_tie)[0]
        group_ids, position_group = np.unique(labels[tie_positions], return_inverse=True)
        window_group = np.searchsorted(group_ids, labels[ids[:, 0]])
        n_groups = len(group_ids)
        ep, ap, mp = e[tie_positions], a[tie_positions], mis[tie_positions]
        sum_e = np.bincount(position_group, ep, n_groups)
        sum_a = np.bincount(position_group, ap, n_groups)
        abs_e = np.bincount(position_group, np.abs(ep), n_groups)
        sum_g = np.bincount(window_group, np.abs(window_grad), n_groups)
        tolerance = atol + rtol * (abs_e + sum_g)
        with np.errstate(invalid="ignore"):
            ok = np.abs(sum_a - sum_e) <= tolerance                 # 1. sum

        # 2. position: the differing positions, each with the gradients of the ambiguous windows it is tied in
        order = np.argsort(member_ids, kind="stable")
        sorted_ids, sorted_grads = member_ids[order], member_grads[order]
        differing = tie_positions[mp]
        lo = np.searchsorted(sorted_ids, differing)
        count_here = np.searchsorted(sorted_ids, differing, side="right") - lo
        width = int(count_here.max()) if len(differing) else 0
        take = np.minimum(lo[:, None] + np.arange(width)[None, :], len(sorted_grads) - 1)
        reachable = _reachable(a[differing] - fixed[differing], sorted_grads[take], count_here,
                               atol + rtol * (np.abs(e[differing]) + reach[differing] + np.abs(fixed[differing])))
        ok &= np.bincount(position_group[mp], ~reachable, n_groups) == 0

        holding = np.bincount(position_group, mp, n_groups) > 0
        groups += int(holding.sum())
        consistent += int((holding & ok).sum())
        explained = np.zeros(count * size, dtype=bool)
        explained[tie_positions] = ok[position_group]
        tie[chosen] = (explained & mis).reshape(count, size)
    return tie, GroupReport(groups, consistent)


# ----------------------------------------------------------------------------------------------------------
# compare

_TOLERANCES = {"float64": (1e-10, 1e-10), "float32": (1e-4, 1e-4), "float16": (1e-3, 1e-3),
               "bfloat16": (8e-3, 8e-3)}


def _decode_mask(mask, ctx, what):
    """poolgrad's (and CANN A2/A3's) mask: INT32 flat indices h*W+w in its first N*C*Ho*Wo*4 bytes."""
    count = int(np.prod(ctx.out_shape, dtype=np.int64))
    raw = np.ascontiguousarray(mask).reshape(-1).view(np.uint8)
    if raw.size < 4 * count:
        raise UsageError(f"{what}: a mask of {raw.size} bytes cannot hold {count} INT32 indices")
    return raw[:4 * count].view("<i4").reshape(ctx.out_shape)


def _format_value(value, integer):
    if integer:
        return str(int(value))
    return np.format_float_positional(value, trim="-", precision=8) if np.isfinite(value) else str(value)


def _index_detail(ctx, index, expected, actual):
    """The input values the two indices point at, for the listing."""
    axes = len(ctx.in_spatial_of(ctx.in_shape))
    plane = int(np.ravel_multi_index(index[:-axes], ctx.out_shape[:-axes])) if len(index) > axes else 0
    size = ctx.values.shape[1]

    def value(i):
        return _format_value(ctx.values[plane, i], False) if 0 <= i < size else "outside the plane"
    return f"  (input values {value(int(expected))} | {value(int(actual))})"


def command_compare(args):
    expected_spec = parse_file_spec(args.expected)
    expected = load_array(expected_spec, "EXPECTED", need_shape=False)
    actual_spec = parse_file_spec(args.actual)
    actual = load_array(actual_spec, "ACTUAL", need_shape=False)
    raw_actual = Path(actual_spec.path).suffix.lower() != ".npy"
    if raw_actual and actual_spec.shape is None and actual.ndim == 1 and actual.size == expected.size:
        actual = actual.reshape(expected.shape)

    op = find_operator(args.op) if args.op else None
    if op is None and (args.input or any(getattr(args, a) is not None for a in _FLAGS)):
        raise UsageError("--input and attributes describe the operator for the tie analysis: give --op too")
    integer = np.issubdtype(expected.dtype, np.integer)
    value_only = op is not None and op.family in _VALUE_ONLY_FAMILIES
    kind = args.kind
    if kind == "auto":
        kind = "indices" if integer else ("gradient" if op is not None and op.backward else "values")
    if value_only and kind == "gradient":
        raise UsageError(f"{op.name} has no gradient output; compare its values with --kind values")
    if kind == "indices" and not (integer and np.issubdtype(actual.dtype, np.integer)):
        raise UsageError(f"--kind indices compares integer files; got {_dtype_text(expected.dtype)} and "
                         f"{_dtype_text(actual.dtype)}")
    if kind in ("values", "gradient") and (integer or np.issubdtype(actual.dtype, np.integer)):
        raise UsageError(f"--kind {kind} compares floating-point files; use --kind indices for integer files")

    ctx = None
    notes = []
    if value_only:
        notes.append(f"{op.name} outputs values only: no tie analysis" +
                     (" (integer values compared exactly)" if integer else ""))
    elif op is not None and kind != "values":
        if kind == "indices" and op.family == "v3":
            raise UsageError(f"{op.name} has no index output; compare its gradient with --kind gradient")
        attributes = _attributes(op, args, analysis=True)
        inputs = _inputs(op, args.input, analysis=True)
        ctx = TieContext(op, inputs, attributes, kind)
    elif op is not None:
        notes.append("values are not subject to ties: --op only matters for indices and gradients")
    elif kind != "values":
        notes.append("no --op given: tie analysis is off, every difference counts as real")

    print(f"expected: {expected_spec.path}  {_dtype_text(expected.dtype)} {tuple(expected.shape)}")
    print(f"actual:   {actual_spec.path}  {_dtype_text(actual.dtype)} {tuple(actual.shape)}")
    if ctx is not None and op.family == "mask" and kind == "indices":
        if ctx.kernel_elements == 1:
            notes.append("a 1x1-kernel mask carries no indices; comparing its bytes")
            ctx = None
        else:
            expected = _decode_mask(expected, ctx, "EXPECTED")
            actual = _decode_mask(actual, ctx, "ACTUAL")
            notes.append(f"masks decoded to INT32 indices of shape {ctx.out_shape}")
    if expected.shape != actual.shape:
        print(f"FAIL: shapes differ: expected {tuple(expected.shape)}, actual {tuple(actual.shape)}")
        return EXIT_DIFFERENT
    if expected.dtype != actual.dtype:
        notes.append(f"dtypes differ ({_dtype_text(expected.dtype)} vs {_dtype_text(actual.dtype)}); values are "
                     f"compared as float64 / int64")
    if ctx is not None:
        wanted = ctx.out_shape if kind == "indices" else ctx.in_shape
        if tuple(expected.shape) != wanted:
            raise UsageError(f"for --kind {kind} with {op.name} the files should have shape {wanted} "
                             f"({'the forward output' if kind == 'indices' else 'the forward input'}), "
                             f"got {tuple(expected.shape)}")

    if kind == "indices":
        e = expected.astype(np.int64)
        a = actual.astype(np.int64)
        mismatch = e != a
        abs_error = np.abs(e - a).astype(np.float64)
        tolerance_text = "exact"
    else:
        dtype_name = _dtype_text(expected.dtype)
        default_rtol, default_atol = _TOLERANCES.get(dtype_name, (1e-4, 1e-4))
        rtol = default_rtol if args.rtol is None else args.rtol
        atol = default_atol if args.atol is None else args.atol
        e = _as_float64(expected)
        a = _as_float64(actual)
        same_special = (np.isnan(e) & np.isnan(a)) | (np.isinf(e) & (e == a))
        with np.errstate(invalid="ignore"):
            abs_error = np.where(same_special, 0.0, np.abs(a - e))
        abs_error = np.where(np.isnan(abs_error), np.inf, abs_error)
        mismatch = abs_error > atol + rtol * np.abs(np.where(np.isfinite(e), e, 0))
        tolerance_text = f"rtol {rtol:g}, atol {atol:g}"
    with np.errstate(divide="ignore", invalid="ignore"):
        nonzero = (e != 0) & np.isfinite(e)
        rel_error = np.where(nonzero, abs_error / np.where(nonzero, np.abs(e), 1), 0.0)

    tie = np.zeros(mismatch.shape, dtype=bool)
    group_report = None
    if ctx is not None and mismatch.any():
        order = ctx.original_positions(expected.shape)       # (plane, position) -> original flat index
        e_planes, a_planes, mis_planes = (ctx.to_planes(x) for x in (e, a, mismatch))
        if kind == "indices":
            tie_planes = classify_index_differences(ctx, e_planes, a_planes, mis_planes)
        else:
            tie_planes, group_report = classify_gradient_differences(ctx, e_planes, a_planes, mis_planes, rtol, atol)
        tie.reshape(-1)[order.ravel()] = tie_planes.ravel()
    real = mismatch & ~tie

    analysis = f", tie analysis: {op.name}" if ctx is not None else ""
    print(f"kind: {kind} ({tolerance_text}){analysis}")
    for note in notes:
        print(f"note: {note}")
    mismatches, ties, reals = int(mismatch.sum()), int(tie.sum()), int(real.sum())
    print(f"elements: {expected.size}  mismatches: {mismatches}  tie-induced: {ties}  real: {reals}")
    max_abs = float(abs_error.max()) if abs_error.size else 0.0
    max_rel = float(rel_error.max()) if rel_error.size else 0.0
    print(f"max abs error: {_format_value(max_abs, False)}  max rel error: {_format_value(max_rel, False)}")
    if group_report is not None:
        print(f"tie groups holding differences: {group_report.groups}, explained by moving gradient between "
              f"tied maxima: {group_report.consistent}")
    if mismatches and args.show > 0:
        shown = np.argwhere(mismatch)[:args.show]
        print(f"first mismatching positions (of {mismatches}):")
        for position in shown:
            index = tuple(int(i) for i in position)
            label = "tie" if tie[index] else "real"
            detail = _index_detail(ctx, index, e[index], a[index]) if kind == "indices" and ctx else ""
            print(f"  {list(index)}  expected {_format_value(e[index], kind == 'indices')}  actual "
                  f"{_format_value(a[index], kind == 'indices')}  {label}{detail}")
    if reals:
        print(f"FAIL: {reals} real difference(s)")
        return EXIT_DIFFERENT
    if ties and args.strict:
        print(f"FAIL (--strict): {ties} tie-induced difference(s)")
        return EXIT_DIFFERENT
    if ties:
        print(f"PASS: the {ties} difference(s) are all tie-induced")
    else:
        print("PASS")
    return EXIT_OK


def command_list(_args):
    for op in OPERATORS:
        attributes = " ".join(_FLAGS[a] + ("" if a in op.required else "?") for a in op.attributes) or "-"
        print(f"{op.name} ({op.aclnn})")
        print(f"    inputs: {', '.join(op.inputs)}   outputs: {', '.join(o + '.npy' for o in op.outputs)}")
        print(f"    attributes: {attributes}   (? = optional)")
    return EXIT_OK


def main(argv=None):
    """Entry point of `python -m poolgrad.golden` and `poolgrad-golden`; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:
        return exit_request.code if isinstance(exit_request.code, int) else EXIT_USAGE
    subparser = parser.commands[args.command]
    try:
        from .errors import PoolgradError
    except ImportError as error:  # the library itself could not be loaded
        print(f"{PROG}: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return {"run": command_run, "compare": command_compare, "list": command_list}[args.command](args)
    except UsageError as error:
        print(f"{subparser.prog}: error: {error} (see {subparser.prog} --help)", file=sys.stderr)
        return EXIT_USAGE
    except PoolgradError as error:
        print(f"{PROG}: {error.function} failed with status {error.status}: {error.message}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
