// The vector search of the channels-last forward (Google Highway, run-time dispatch): the C values
// of an input position are adjacent, so one load is one window tap for a vector of channels. Selection
// rule: scan order, the first strictly greater value wins (ties keep the first tap), a NaN wins over
// everything and the last NaN in scan order is kept. Every block of windows is first searched with one
// compare and two blends (value, label) per tap and vector (below AVX-512 a max, an integer compare and one
// blend, which choose the same), adding the values into a NaN detector; a block of windows whose detector
// comes out NaN (a NaN, or +inf meeting -inf) is searched again with the NaN rule.
#pragma once

#include <cstdint>

#include "core/pool_geometry.h"
#include "cpu/simd_argmax.h"

namespace poolgrad::cpu {

// One output row (n, od, oh) of a channels-last forward: for each output column ow, the window windows[ow] of
// columns of the input rows r < rowCount (scan order), each input position holding its C values at
// rowStarts[r] + w * inputPixelStride (elements of valueType). values / winners32 / winners64 (whichever is
// non-null; the winners are flat plane indices rowFlat[r] + w) of ow start at ow * outputPixelStride. The
// windows of congruentRun (count and step alike, each `stride` columns after the previous) are searched
// several at a time. 16-bit values are widened as they load and come out as the winning elements' bits:
// narrowed back where exact, else copied from the element the flat index names: position (d, h, w) of flat
// index (d * imageHeight + h) * imageWidth + w at imageStart + d * imageStrides[0] + h * imageStrides[1] +
// w * inputPixelStride, plus the channel (the strides of a size-1 axis may be anything, 0 included). Requires
// flat indices to fit in int32.
struct ChannelsLastRow {
    ArgmaxValueType valueType;
    const void *const *rowStarts;
    const void *imageStart;
    int64_t imageHeight, imageWidth;
    int64_t imageStrides[2];  // of D and H
    const int32_t *rowFlat;
    int64_t rowCount;
    const AxisWindow *windows;
    int64_t outputs;
    CongruentRun congruentRun;
    int64_t channels;
    int64_t inputPixelStride, outputPixelStride;
    void *values;
    int32_t *winners32;
    int64_t *winners64;
    bool streaming;        // whole vectors that start on a vector boundary (16-bit values: the integer search's)
    bool someWindowEmpty;  // a width window without taps (dilation > 1): -inf, index -1
};
void argmaxChannelsLastRow(const ChannelsLastRow &row);

}  // namespace poolgrad::cpu
