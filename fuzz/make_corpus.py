#!/usr/bin/env python3
"""Writes the checked-in corpus of poolgrad's fuzzer (fuzz/corpus/poolgrad_fuzzer/) and its open findings
(fuzz/findings/).

Each file is a program in the input format of fuzz/README.md, encoded here the way the harness decodes it
(fuzz/fuzz_input.h, fuzz/operator_calls.cpp, fuzz/runtime_calls.cpp). `seed-*` files are valid calls of
every operator and of the runtime API, a starting point for the mutations; `regression-*` files each
reproduce one defect of issue #13 (fuzz/README.md says which and what today's main does with it).

    python3 fuzz/make_corpus.py            # rewrites the corpus directory
"""
import base64
import os
import struct
import sys

INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)
SPECIALS = {0: 0, -1: 1, INT64_MAX: 2, INT64_MIN: 3, (1 << 31) - 1: 4, 1 << 31: 5, 1 << 32: 6,
            (1 << 32) + 1: 7, 1 << 62: 8, INT64_MAX - 1: 9, 3037000500: 10, 1 << 40: 11, 1 << 21: 12, -2: 13}

# Operator command bytes (the order of kOps in fuzz/operator_calls.cpp).
MAX_POOL3D, MAX_POOL3D_BACKWARD, ADAPTIVE3D, ADAPTIVE3D_BACKWARD = 0, 1, 2, 3
MAX_POOL2D_INDICES, MAX_POOL2D_MASK, MAX_POOL2D_INDICES_BACKWARD, MAX_POOL2D_MASK_BACKWARD = 4, 5, 6, 7
ADAPTIVE2D, ADAPTIVE2D_BACKWARD, V3_WITH_ATTRS, V3_GRAD = 8, 9, 10, 11
TENSOR_DESCRIPTOR, ARRAYS, MISUSE, DEVICE_MEMORY = 12, 13, 14, 15
MAX_POOL_ONNX, MAX_POOL_V3 = 16, 17  # aclnnMaxPool, aclnnMaxPoolV3 (added after the runtime commands)
MASK_OPS = (MAX_POOL2D_MASK, MAX_POOL2D_MASK_BACKWARD)

# Layout codes of an operand, storage-claim codes and edit fields (fuzz/README.md).
CONTIGUOUS_NULL_STRIDES, CONTIGUOUS, CHANNELS_LAST, GAPPED, REVERSED, ZERO_STRIDE, COLLIDING, RAW = range(8)
CLAIM_EXACT, CLAIM_NONE, CLAIM_SHORT, CLAIM_HUGE, CLAIM_RAW, CLAIM_VIEW_DIMS = range(6)
EDIT_DIM, EDIT_TYPE, EDIT_FORMAT, EDIT_DROP_DIM, EDIT_APPEND_DIM, EDIT_NULL_TENSOR, EDIT_STRIDE, EDIT_OFFSET, \
    EDIT_STORAGE_DIM, EDIT_NULL_DATA = range(10)


def fuzzy(value, low, high):
    """The bytes fuzzy(low, high) decodes to `value`."""
    if low <= value <= high and value - low < 0xF0:
        return bytes([value - low])
    if value in SPECIALS:
        return bytes([0xF0 + SPECIALS[value]])
    return bytes([0xFF]) + struct.pack('<q', value)


def int_list(values, low, high, length_code=0):
    """An attribute list: length code 0 (canonical length) with explicit values, 5 (empty), 7 (null)."""
    if length_code in (5, 7):
        return bytes([length_code])
    return bytes([length_code]) + b''.join(fuzzy(v, low, high) for v in values)


def onnx_list(values, low, high, canonical):
    """An aclnnMaxPool attribute list of any length (0-5) or None (null)."""
    if values is None:
        return bytes([7])
    code = {canonical: [0], 1: [4], 0: [5]}.get(len(values), [6, len(values)])
    return bytes(code) + b''.join(fuzzy(v, low, high) for v in values)


# aclnnMaxPoolV3's ceilMode scalar dtypes by code (fuzz/operator_calls.cpp, readCeilScalar).
SCALAR_BOOL, SCALAR_INT64, SCALAR_INT32, SCALAR_FLOAT, SCALAR_FLOAT16, SCALAR_BF16, SCALAR_DOUBLE = range(7)


def operator_call(op, value_type=0, index_type=1, batched=True, ceil=False, nhwc=False, padding_mode=0,
                  global_pooling=False, null_optional=False, alias=False, shape=(1, 1, 1, 4, 4),
                  kernel=(1, 2, 2), stride=None, padding=(0,), dilation=(1,), output_size=(2, 2, 2),
                  ksize=None, strides=None, pads=(0, 0, 0, 0), data_mode=2, index_mode=1, seed=1,
                  layouts=None, edits=(), force=0, threads=0, auto_pad=0, ceil_value=0,
                  ceil_scalar=(0, SCALAR_BOOL, 0)):
    """One operator call; shape is (N, C, D, H, W) of the input, lists as the operator takes them.
    layouts: one (layout, offset, claim) per operand; edits: (operand, field, axis, value).
    aclnnMaxPool: kernel, stride, padding (ONNX {top, left, bottom, right}), dilation as given (any length,
    None = null), auto_pad and ceil_value (its int64 ceilMode). aclnnMaxPoolV3: ceil_scalar = (code, dtype
    code, value): code 6 = value as 8 raw bytes, 7 = null.
    force: 0 the default implementation, k the (k-1)-th; + 8: then every implementation in turn."""
    out = bytearray([op, value_type])
    if op not in MASK_OPS:
        out.append(index_type)
    flags = (batched << 0) | (ceil << 1) | (nhwc << 2) | (padding_mode << 3) | (global_pooling << 5) | \
            (null_optional << 6) | (alias << 7)
    out.append(flags)
    n, c, d, h, w = shape
    out += fuzzy(n, 1, 3) + fuzzy(c, 1, 3) + fuzzy(d, 1, 6) + fuzzy(h, 1, 6) + fuzzy(w, 1, 6)
    family_v3 = op in (V3_WITH_ATTRS, V3_GRAD, MAX_POOL_V3)
    family_adaptive = op in (ADAPTIVE3D, ADAPTIVE3D_BACKWARD, ADAPTIVE2D, ADAPTIVE2D_BACKWARD)
    spatial = 3 if op in (MAX_POOL3D, MAX_POOL3D_BACKWARD, ADAPTIVE3D, ADAPTIVE3D_BACKWARD) else 2
    if family_v3:
        ksize = ksize or ((1, 1, 2, 2) if not nhwc else (1, 2, 2, 1))
        strides = strides or ksize
        spatial_at = (1, 2) if nhwc else (2, 3)
        out += bytes([0]) + b''.join(fuzzy(v, 1, 3) if i in spatial_at else fuzzy(v, 1, 1) for i, v in enumerate(ksize))
        out += bytes([0]) + b''.join(fuzzy(v, 1, 3) if i in spatial_at else fuzzy(v, 1, 1) for i, v in enumerate(strides))
        out += int_list(pads, 0, 2)
        if op == MAX_POOL_V3:
            code, dtype, value = ceil_scalar
            out += bytes([code, dtype])
            if code == 6:
                out += struct.pack('<q', value)
            elif code != 7:
                out += fuzzy(value, 0, 1)
    elif op == MAX_POOL_ONNX:
        out += onnx_list(kernel, 1, 3, 2) + onnx_list(stride, 1, 3, 2) + onnx_list(padding, 0, 1, 4)
        out += onnx_list(dilation, 1, 1, 2) + fuzzy(auto_pad, 0, 0) + fuzzy(ceil_value, 0, 1)
    elif family_adaptive:
        out += int_list(output_size[-spatial:], 1, 6)
    else:
        kernel = kernel[-spatial:] if len(kernel) > 1 else kernel
        out += int_list(kernel, 1, 3, 0 if len(kernel) == spatial else 4)
        out += int_list((), 1, 3, 5) if stride is None else int_list(stride, 1, 3, 0 if len(stride) == spatial else 4)
        out += int_list(padding, 0, 1, 0 if len(padding) == spatial else 4)
        out += int_list(dilation, 1, 2, 0 if len(dilation) == spatial else 4)
    out += bytes([data_mode, index_mode]) + struct.pack('<I', seed)
    operands = 2 if op in (V3_WITH_ATTRS, MAX_POOL_ONNX, MAX_POOL_V3) else 4 if op in (MAX_POOL3D_BACKWARD, ADAPTIVE3D_BACKWARD,
                                                         MAX_POOL2D_INDICES_BACKWARD, MAX_POOL2D_MASK_BACKWARD,
                                                         ADAPTIVE2D_BACKWARD, V3_GRAD) else 3
    layouts = layouts or [(CONTIGUOUS, 0, CLAIM_EXACT)] * operands
    assert len(layouts) == operands
    for layout, offset, claim in layouts:
        out += bytes([layout]) + fuzzy(offset, 0, 3) + bytes([claim])
    out.append(len(edits))
    for operand, field, axis, value in edits:
        out += bytes([operand, field, axis]) + fuzzy(value, 0, 8)
    out += bytes([force, threads])
    return bytes(out)


def tensor_descriptor(dims, strides=None, offset=0, dtype=0, fmt=2, storage=None, null_dims=False):
    flags = (strides is not None) | ((storage is not None) << 1) | (null_dims << 2)
    out = bytearray([TENSOR_DESCRIPTOR, flags]) + fuzzy(len(dims), 0, 9)
    out += b''.join(fuzzy(v, 0, 8) for v in dims)
    out += b''.join(fuzzy(v, 0, 8) for v in (strides or [0] * len(dims)))
    out += fuzzy(offset, 0, 8) + bytes([dtype & 0xFF, fmt & 0xFF])
    storage = storage or []
    out += fuzzy(len(storage), 0, 4) + b''.join(fuzzy(v, 0, 8) for v in storage)
    return bytes(out)


def arrays(values, null_values=False, null_scalar=False, scalar_type=0):
    out = bytearray([ARRAYS, null_values | (null_scalar << 1)]) + fuzzy(len(values), 0, 8)
    out += b''.join(struct.pack('<q', v) for v in values)
    out += b''.join(fuzzy(v % 9 - 4, -4, 4) for v in values)
    out += bytes(range(16)) + bytes([scalar_type])
    return bytes(out)


def misuse(kind, dim=1):
    return bytes([MISUSE, kind, dim - 1])


def device_memory(size_code, value, host=False):
    out = bytearray([DEVICE_MEMORY, size_code | (host << 2)])
    if size_code == 0:
        out += fuzzy(value, 1, 4096)
    elif size_code == 1:
        out += fuzzy(value, 0, 200)
    elif size_code == 2:
        out += fuzzy(value, 41, 63)
    else:
        out += struct.pack('<q', value)
    return bytes(out)


GAPPED_LAYOUTS = [(GAPPED, 1, CLAIM_EXACT), (CHANNELS_LAST, 0, CLAIM_NONE), (CONTIGUOUS_NULL_STRIDES, 0, CLAIM_VIEW_DIMS),
                  (REVERSED, 2, CLAIM_HUGE)]

SEEDS = {
    # every operator once, valid, with data that has ties, NaN and Inf
    'seed-max-pool3d-with-argmax': operator_call(MAX_POOL3D, shape=(2, 2, 3, 4, 5), kernel=(2, 2, 2), stride=(1, 2, 2),
                                                 padding=(1,), data_mode=1),
    'seed-max-pool3d-with-argmax-backward': operator_call(MAX_POOL3D_BACKWARD, shape=(1, 2, 3, 4, 4), kernel=(2, 2, 2),
                                                          padding=(1,), index_mode=0, data_mode=0),
    'seed-adaptive-max-pool3d': operator_call(ADAPTIVE3D, shape=(1, 2, 3, 5, 4), output_size=(2, 3, 3), data_mode=0),
    'seed-adaptive-max-pool3d-backward': operator_call(ADAPTIVE3D_BACKWARD, shape=(2, 1, 2, 3, 3), index_mode=2,
                                                       layouts=GAPPED_LAYOUTS),
    'seed-max-pool2d-with-indices': operator_call(MAX_POOL2D_INDICES, shape=(2, 3, 1, 5, 6), kernel=(3, 2),
                                                  stride=(2, 1), padding=(1, 0), ceil=True, value_type=1),
    'seed-max-pool2d-with-mask': operator_call(MAX_POOL2D_MASK, shape=(1, 2, 1, 6, 6), kernel=(2, 2), value_type=2),
    'seed-max-pool2d-with-indices-backward': operator_call(MAX_POOL2D_INDICES_BACKWARD, shape=(1, 2, 1, 5, 5),
                                                           kernel=(3,), stride=(2,), padding=(1,), dilation=(2,),
                                                           index_type=0, index_mode=3),
    'seed-max-pool2d-with-mask-backward': operator_call(MAX_POOL2D_MASK_BACKWARD, batched=False, shape=(1, 2, 1, 4, 4),
                                                        kernel=(2, 2), index_mode=1),
    'seed-adaptive-max-pool2d': operator_call(ADAPTIVE2D, shape=(1, 3, 1, 5, 6), output_size=(3, 4), threads=3,
                                              layouts=[(CHANNELS_LAST, 0, CLAIM_EXACT)] * 3),
    'seed-adaptive-max-pool2d-backward': operator_call(ADAPTIVE2D_BACKWARD, shape=(2, 2, 1, 4, 4), value_type=2),
    'seed-max-pool-v3-with-attrs': operator_call(V3_WITH_ATTRS, shape=(1, 2, 1, 5, 5), nhwc=True, padding_mode=1,
                                                 ksize=(1, 3, 3, 1), strides=(1, 2, 2, 1), data_mode=1),
    'seed-max-pool-v3-grad': operator_call(V3_GRAD, shape=(2, 2, 1, 4, 4), ksize=(1, 1, 3, 3), strides=(1, 1, 2, 2),
                                           pads=(1, 1, 1, 1), ceil=True, data_mode=0, force=1),
    'seed-max-pool-v3-grad-valid-nhwc': operator_call(V3_GRAD, shape=(1, 3, 1, 5, 4), nhwc=True, padding_mode=2,
                                                      ksize=(1, 2, 2, 1), strides=(1, 1, 1, 1), value_type=1,
                                                      layouts=[(GAPPED, 1, CLAIM_EXACT)] * 4),
    # aclnnMaxPool (ONNX) in each of its nine dtypes (float NaN/Inf data, integers at their extremes), every
    # implementation in turn; rank 3, default strides, pads of length 2, ceilMode INT64_MIN (non-zero)
    **{f'seed-max-pool-onnx-{name}': operator_call(
        MAX_POOL_ONNX, value_type=code, shape=(2, 2, 1, 5, 6), kernel=(3, 2), stride=(2, 1), padding=(1, 0, 1, 1),
        dilation=(1, 1), ceil_value=1, data_mode=1, seed=code + 1, force=8)
       for code, name in enumerate(['float', 'float16', 'bf16', 'int32', 'int64', 'uint8', 'int16', 'int8', 'uint16'])},
    'seed-max-pool-onnx-rank3': operator_call(MAX_POOL_ONNX, batched=False, shape=(1, 3, 1, 4, 5), kernel=(2,),
                                              stride=(), padding=(1, 0), dilation=(), ceil_value=INT64_MIN,
                                              value_type=7, data_mode=0, layouts=[(GAPPED, 1, CLAIM_EXACT)] * 2),
    # a batched call whose every operand lost its last dim (edits): a valid rank-3 call (C=2, H=W=1); the
    # oracle once built the expected shapes from the batched flag instead of the input's rank
    'seed-max-pool-onnx-rank3-by-edits': operator_call(
        MAX_POOL_ONNX, shape=(2, 1, 1, 1, 1), kernel=(1,), stride=(1,), padding=(0,), dilation=(1,),
        edits=[(0, EDIT_DROP_DIM, 0, 0), (1, EDIT_DROP_DIM, 0, 0)]),
    # aclnnMaxPoolV3 with ceilMode as an INT64, a FLOAT and a null scalar
    'seed-max-pool-v3': operator_call(MAX_POOL_V3, shape=(1, 2, 1, 5, 5), ksize=(1, 1, 3, 3), strides=(1, 1, 2, 2),
                                      pads=(1, 1, 0, 1), ceil_scalar=(0, SCALAR_INT64, 1), data_mode=1, force=8),
    'seed-max-pool-v3-float-ceil': operator_call(MAX_POOL_V3, shape=(2, 1, 1, 6, 4), ksize=(1, 1, 2, 3),
                                                 strides=(1, 1, 2, 1), ceil_scalar=(0, SCALAR_FLOAT, 1), value_type=1,
                                                 layouts=[(REVERSED, 0, CLAIM_EXACT)] * 2),
    'seed-max-pool-v3-null-ceil': operator_call(MAX_POOL_V3, shape=(1, 3, 1, 4, 4), ksize=(1, 1, 2, 2),
                                                ceil_scalar=(7, SCALAR_BOOL, 0), value_type=2, data_mode=0),
    # every implementation of the new kernels' problems in turn: 3x3 stride-2 MaxPoolV3Grad (NCHW, NHWC),
    # a dense-rows forward, an index-scatter backward
    'seed-max-pool-v3-grad-3x3-stride2-every-implementation': operator_call(
        V3_GRAD, shape=(1, 2, 1, 7, 7), ksize=(1, 1, 3, 3), strides=(1, 1, 2, 2), pads=(1, 1, 1, 1), data_mode=0,
        force=8),
    'seed-max-pool-v3-grad-3x3-stride2-nhwc-every-implementation': operator_call(
        V3_GRAD, shape=(1, 4, 1, 7, 9), nhwc=True, ksize=(1, 3, 3, 1), strides=(1, 2, 2, 1), pads=(0, 0, 0, 0),
        data_mode=1, force=8),
    'seed-max-pool2d-with-indices-every-implementation': operator_call(
        MAX_POOL2D_INDICES, shape=(2, 3, 1, 6, 7), kernel=(3, 3), stride=(2, 2), padding=(1,), force=8),
    'seed-max-pool3d-backward-every-implementation': operator_call(
        MAX_POOL3D_BACKWARD, shape=(1, 2, 3, 4, 4), kernel=(2, 2, 2), index_mode=0, data_mode=0, force=8),
    # refused calls: a bad padding, a short storage claim, a null data pointer
    'seed-refused-padding': operator_call(MAX_POOL3D, kernel=(1, 2, 2), padding=(2,)),
    'seed-refused-short-storage': operator_call(MAX_POOL2D_INDICES, kernel=(2,),
                                                layouts=[(GAPPED, 1, CLAIM_SHORT), (CONTIGUOUS, 0, CLAIM_EXACT),
                                                         (CONTIGUOUS, 0, CLAIM_EXACT)]),
    'seed-refused-null-data': operator_call(ADAPTIVE2D, edits=[(1, EDIT_NULL_DATA, 0, 0)]),
    # ... aclnnMaxPool with a dilation of 2, with an NHWC self and with a pad equal to its kernel; aclnnMaxPoolV3
    # with a C entry of ksize 2
    'seed-refused-max-pool-onnx-dilation': operator_call(MAX_POOL_ONNX, kernel=(2, 2), stride=(), padding=(),
                                                         dilation=(1, 2)),
    'seed-refused-max-pool-onnx-nhwc': operator_call(MAX_POOL_ONNX, kernel=(2, 2), stride=(), padding=(),
                                                     dilation=(), edits=[(0, EDIT_FORMAT, 0, 1)]),
    'seed-refused-max-pool-onnx-pad': operator_call(MAX_POOL_ONNX, kernel=(2, 2), stride=(), padding=(0, 2, 0, 0),
                                                    dilation=()),
    'seed-refused-max-pool-v3-channel-kernel': operator_call(MAX_POOL_V3, ksize=(1, 2, 2, 2)),
    # the descriptor and runtime API
    'seed-tensor-descriptor': tensor_descriptor([2, 3, 4], strides=[12, 4, 1], offset=3, storage=[40]),
    'seed-tensor-descriptor-contiguous': tensor_descriptor([5, 1, 7], dtype=1, fmt=0),
    'seed-arrays': arrays([3, -1, 7]),
    'seed-arrays-null': arrays([0, 0], null_values=True, null_scalar=True),
    'seed-executor-repeatable': misuse(5, dim=3),
    'seed-executor-foreign': misuse(6),
    'seed-executor-never-made': misuse(7),
    'seed-executor-run-twice': misuse(4),
    'seed-device-memory': device_memory(0, 100) + device_memory(0, 33, host=True),
    'seed-device-memory-huge': device_memory(2, 50) + device_memory(2, 62, host=True),
}

REGRESSIONS = {
    # runtime
    'regression-aclrtmalloc-size-wrap': device_memory(1, 10),
    'regression-aclrtmallochost-size-wrap': device_memory(1, 1, host=True),
    'regression-stale-executor-handle': misuse(2),
    'regression-stale-tensor-handle': misuse(3),
    'regression-tensor-double-destroy': misuse(0),
    'regression-int-array-double-destroy': misuse(1),
    'regression-create-tensor-dim-product-overflow': tensor_descriptor([1 << 32, 1 << 32, 2], strides=[0, 0, 1],
                                                                      storage=[2]),
    # phase 1: a storage claim whose product overflows 128 bits ([2^62, 2^62, 2^62] elements) on a valid call
    'regression-storage-claim-128-bit-wrap': operator_call(
        MAX_POOL3D, shape=(1, 1, 2, 2, 2), kernel=(2,),
        edits=[(0, EDIT_STORAGE_DIM, 0, 1 << 62)] * 3),
    # phase 1: N*C overflows int64 (stride-0 N and C, storage claimed [1]): the plane count wraps
    'regression-plane-count-wrap-max-pool3d': operator_call(
        MAX_POOL3D, shape=(1, 1, 1, 1, 1), kernel=(1,),
        edits=[(0, EDIT_DIM, 0, 1 << 32), (0, EDIT_DIM, 1, 1 << 32), (1, EDIT_DIM, 0, 1 << 32),
               (1, EDIT_DIM, 1, 1 << 32)],
        layouts=[(ZERO_STRIDE, 0, CLAIM_EXACT)] * 3),
    'regression-plane-count-wrap-max-pool-v3': operator_call(
        V3_WITH_ATTRS, shape=(1, 1, 1, 1, 1), ksize=(1, 1, 1, 1),
        edits=[(0, EDIT_DIM, 0, 1 << 32), (0, EDIT_DIM, 1, 1 << 32), (1, EDIT_DIM, 0, 1 << 32),
               (1, EDIT_DIM, 1, 1 << 32)],
        layouts=[(ZERO_STRIDE, 0, CLAIM_EXACT)] * 2),
    # phase 1: gradInput is gradOutput (same buffer, same view), kernel 1: gradInput must equal gradOutput
    'regression-grad-input-aliases-grad-output': operator_call(
        MAX_POOL3D_BACKWARD, shape=(1, 1, 2, 2, 2), kernel=(1,), alias=True, data_mode=2, index_mode=1),
    # phase 1: out with stride 0 on W (four outputs written to one element), and out with colliding strides
    'regression-self-overlapping-output-stride-zero': operator_call(
        MAX_POOL3D, shape=(1, 1, 1, 4, 4), kernel=(1,), data_mode=2, edits=[(1, EDIT_STRIDE, 4, 0)]),
    'regression-self-overlapping-output-colliding-strides': operator_call(
        MAX_POOL2D_INDICES, shape=(1, 1, 1, 4, 4), kernel=(1,), data_mode=2,
        layouts=[(CONTIGUOUS, 0, CLAIM_EXACT), (COLLIDING, 0, CLAIM_EXACT), (CONTIGUOUS, 0, CLAIM_EXACT)],
        threads=3),
    # phase 1: kernel volume 2^21 * 2^21 * 2^21 = 2^63 overflows int64
    'regression-kernel-volume-overflow': operator_call(
        MAX_POOL3D_BACKWARD, shape=(1, 1, 2, 2, 2), kernel=(1 << 21, 1 << 21, 1 << 21)),
    # phase 1: element count of self (2^31 x 2^31 x 2^2 with stride 0) and the 2-D mask shape's Ho*Wo
    'regression-element-count-overflow': operator_call(
        ADAPTIVE3D, shape=(1, 1, 1, 1, 1), output_size=(1, 1, 1),
        edits=[(0, EDIT_DIM, 2, 1 << 21), (0, EDIT_DIM, 3, 1 << 21), (0, EDIT_DIM, 4, 1 << 21)],
        layouts=[(ZERO_STRIDE, 0, CLAIM_NONE), (CONTIGUOUS, 0, CLAIM_EXACT), (CONTIGUOUS, 0, CLAIM_EXACT)]),
    'regression-mask-message-overflow': operator_call(
        MAX_POOL2D_MASK_BACKWARD, shape=(1, 1, 1, 2, 2), kernel=(1,),
        edits=[(0, EDIT_DIM, 2, 1 << 31), (0, EDIT_DIM, 3, 1 << 31)]),
    # phase 1 (found by this fuzzer, fixed with the others): a mask with a null data pointer and offset 2 (the
    # alignment check added the offset to the null pointer), and a self offset of INT64_MAX without a
    # storage claim (data + offset * 4 overflowed the pointer before any check)
    'regression-mask-null-data-offset': operator_call(
        MAX_POOL2D_MASK_BACKWARD, shape=(1, 1, 1, 4, 4), kernel=(2,),
        edits=[(2, EDIT_NULL_DATA, 0, 0), (2, EDIT_OFFSET, 0, 2)]),
    'regression-offset-pointer-overflow': operator_call(
        ADAPTIVE3D, shape=(1, 1, 1, 2, 2), output_size=(1, 1, 1),
        layouts=[(CONTIGUOUS, 0, CLAIM_NONE), (CONTIGUOUS, 0, CLAIM_EXACT), (CONTIGUOUS, 0, CLAIM_EXACT)],
        edits=[(0, EDIT_OFFSET, 0, INT64_MAX)]),
    # phase 1: a plane of 2^40 gradInput elements (stride 0) behind a 1x1 gradOutput: the reference
    # implementation's scratch would be 4 TiB
    'regression-unbounded-reference-scratch': operator_call(
        MAX_POOL2D_INDICES_BACKWARD, shape=(1, 1, 1, 1, 1), kernel=(1 << 20,), stride=(1 << 20,), padding=(0,),
        edits=[(1, EDIT_DIM, 2, 1 << 20), (1, EDIT_DIM, 3, 1 << 20), (3, EDIT_DIM, 2, 1 << 20),
               (3, EDIT_DIM, 3, 1 << 20), (3, EDIT_STRIDE, 2, 0), (3, EDIT_STRIDE, 3, 0)],
        layouts=[(CONTIGUOUS, 0, CLAIM_EXACT), (ZERO_STRIDE, 0, CLAIM_NONE), (CONTIGUOUS, 0, CLAIM_EXACT),
                 (CONTIGUOUS, 0, CLAIM_NONE)], force=3),
    # kernel 1 with dilation INT64_MAX is valid (the window is one element), but the dense forward kernel
    # stepped its tap coordinate by the dilation after the last tap: d += step overflowed (argmax_forward.cpp);
    # found by this fuzzer; one-tap windows now have step 0 (pool_geometry.cpp)
    'regression-huge-dilation-max-pool2d': operator_call(MAX_POOL2D_INDICES, shape=(1, 1, 1, 4, 4), kernel=(1,),
                                                         dilation=(INT64_MAX,)),
    'regression-huge-dilation-max-pool3d-float16': operator_call(MAX_POOL3D, shape=(1, 1, 2, 4, 4), kernel=(1,),
                                                                 dilation=(INT64_MAX,), value_type=1),
    # the same one-tap windows on channels-last views: the channels-last SIMD search stepped its pointer by
    # step * pixel after the last tap (tap + INT64_MAX floats, UBSan pointer overflow in
    # simd_argmax_channels_last.cpp); found by this fuzzer on 2026-12-03, one-tap steps are no longer multiplied out
    'regression-huge-dilation-max-pool3d-channels-last': operator_call(
        MAX_POOL3D, shape=(1, 2, 2, 4, 4), kernel=(1,), dilation=(INT64_MAX,),
        layouts=[(CHANNELS_LAST, 0, CLAIM_EXACT), (CHANNELS_LAST, 0, CLAIM_EXACT), (CHANNELS_LAST, 0, CLAIM_EXACT)]),
    # found by this fuzzer on 2026-12-06 (the libFuzzer input as it was found): MaxPool3dWithArgmaxBackward on a
    # 3x2x1 plane, one index 6 (outside the plane) among -1s; the plane-chunk gather's last chunk let a lane past
    # the plane's end match it, the count agreed, and the call returned 0 instead of 161002
    # (gather_plane_chunks.cpp now masks those lanes)
    'regression-plane-chunk-index-past-the-plane': base64.b64decode(
        'AgABAQAAAAEBAAAAQUFBQUFBQUFBQUFBQUFBQUFBQQAAAQEAAABAAQAAQAEAMgEAAQABAAAAACAAAAAAAAAAAQAHAPIAAAEAAQAAAQAHAPIAAAEBAAABAAABAAcA8gAA'),
    # OPEN (found by this fuzzer on 2026-12-01; these fail until src/ is fixed): aclnnMaxPoolV3 converts a
    # floating ceilMode scalar to int64 before testing it for zero (nonZeroAsInteger,
    # src/api/max_pool_v3_forward.cpp:49-55); NaN, ±Inf and values beyond int64 make that conversion
    # undefined (UBSan float-cast-overflow). The harness does not judge such a call's outcome: accepting it
    # (either ceil reading) or refusing it with a message both pass once the conversion is defined.
    'regression-max-pool-v3-nan-ceil-mode': operator_call(MAX_POOL_V3, ksize=(1, 1, 2, 2),
                                                          ceil_scalar=(6, SCALAR_FLOAT, 0x7FC00000)),
    'regression-max-pool-v3-huge-float-ceil-mode': operator_call(MAX_POOL_V3, ksize=(1, 1, 2, 2),
                                                                 ceil_scalar=(6, SCALAR_FLOAT, 0x7F000000)),
    'regression-max-pool-v3-inf-double-ceil-mode': operator_call(MAX_POOL_V3, ksize=(1, 1, 2, 2),
                                                                 ceil_scalar=(6, SCALAR_DOUBLE, 0x7FF0000000000000)),
    'regression-max-pool-v3-inf-float16-ceil-mode': operator_call(MAX_POOL_V3, ksize=(1, 1, 2, 2),
                                                                  ceil_scalar=(6, SCALAR_FLOAT16, 0x7C00)),
    'regression-max-pool-v3-inf-bf16-ceil-mode': operator_call(MAX_POOL_V3, ksize=(1, 1, 2, 2),
                                                               ceil_scalar=(6, SCALAR_BF16, 0xFF80)),
}

# Defects this fuzzer finds that are not fixed yet go to fuzz/findings/ (kept out of the corpus, which the
# test command replays) and move into REGRESSIONS with their fix. None is open.
FINDINGS = {}


def write(directory, inputs):
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):
        os.remove(os.path.join(directory, name))
    for name, data in inputs.items():
        with open(os.path.join(directory, name), 'wb') as file:
            file.write(data)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    write(os.path.join(here, 'corpus', 'poolgrad_fuzzer'), {**SEEDS, **REGRESSIONS})
    write(os.path.join(here, 'findings'), FINDINGS)
    print(f'{len(SEEDS)} seeds and {len(REGRESSIONS)} regression inputs in fuzz/corpus/poolgrad_fuzzer, '
          f'{len(FINDINGS)} open findings in fuzz/findings', file=sys.stderr)


if __name__ == '__main__':
    main()
