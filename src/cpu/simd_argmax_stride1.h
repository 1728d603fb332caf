// The vector core of the stride-1 argmax forward on 2-D planes (Inception's 3x3 branch pooling, the 5x5 /
// 9x9 / 13x13 spatial pyramid pooling of YOLO-style detectors; Google Highway, run-time dispatch). Windows
// cover rows oh - padTop + [0, kernelHeight) and columns ow - padLeft + [0, kernelWidth), clipped to the
// plane, without dilation. Selection rule of every forward (SPEC §3.7): scan order, the first strictly greater
// value wins (ties and -0/+0 keep the first), a NaN wins over everything and the last NaN in scan order is kept.
//
// How: the search is separable. Each input row is searched once, a vector of consecutive windows at a time
// (stride 1: each tap is one unaligned load, no permutes), for every window's winner in that row ("row
// winners": value and plane position); an output row then takes the row winners of its window's rows in scan
// order with the same rule, which picks the window's winner since scan order is rows first (the rule keeps the
// first of equal values and the last NaN, and so does taking the rows' winners in order). The last
// kernelHeight + 1 rows' winners are kept in a ring, so that a window costs kernelWidth + kernelHeight compares
// instead of kernelWidth x kernelHeight; float32 output rows are made two at a time, the rows both windows
// share taken once (the rule is associative). Rows are copied into a row of float32 (16-bit values widened, exact)
// whose columns outside the plane hold -inf, so that edge windows take the vector code too; a window's
// winner starts as its first column inside the plane, which a padding column never replaces, so no padding
// column is ever named and a window of -inf names its first element.
//
// NaN: the copy tests each of the row's values; a row holding a NaN is searched with the NaN rule, and so is
// every output row that takes its winners; the others with one compare and two blends per tap.
#pragma once

#include <cstdint>
#include <optional>

#include "cpu/simd_argmax.h"

namespace poolgrad::cpu {

// The tallest window the search takes (its row lists live on the stack).
inline constexpr int64_t kMostWindowRows = 64;

// Output rows [firstRow, endRow) of one dense plane of height x width (row-major) of `type`; values, indices32
// and indices64 (whichever are non-null; neither for value-only forwards) are the output plane, indices flat
// plane positions (h * width + w). Requires every window to hold at least one element and at most kMostWindowRows
// rows, outputWidth at least 16 (a vector: the search takes at most 16 lanes), plane positions below 2^31 and
// `scratch` of stride1ScratchFloats() floats (on a cache line, for speed only). Writes only the outputs of those rows; with streaming, aligned vectors of
// float32 outputs bypass the caches.
struct Stride1Rows {
    ArgmaxValueType type;
    const void *plane;
    int64_t height, width;
    int64_t outputHeight, outputWidth;
    int64_t kernelHeight, kernelWidth;
    int64_t padTop, padLeft;
    int64_t firstRow, endRow;
    void *values;
    int32_t *indices32;
    int64_t *indices64;
    bool streaming;
    float *scratch;
};
void argmaxStride1Rows(const Stride1Rows &rows);

// The scratch a call needs, in floats: two padded row copies, kernelHeight + 1 rows of winners (values and
// positions) with what each row holds (NaN, -0), and for 16-bit values a row of output winners. Empty when it
// overflows.
std::optional<int64_t> stride1ScratchFloats(const Stride1Rows &rows);

}  // namespace poolgrad::cpu
