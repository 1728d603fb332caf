// The vector core of the stride-1 argmax forward on small float32 2-D planes (the 5x5 pyramid pooling of
// YOLO-style detectors on 20x20 maps, Inception's 3x3 branch pooling on 17x17 or 35x35; Google Highway, run-time
// dispatch). Same windows and selection rule as simd_argmax_stride1.h (SPEC §3.7: scan order, the first strictly
// greater value wins, ties and -0/+0 keep the first, a NaN wins over everything and the last NaN is kept), and
// the same separable search: each input row's window winners ("row winners"), then each output row taking the row
// winners of its window's rows in scan order.
//
// What differs: the rows are searched as one flat array. The input rows are copied paddedWidth = Wo + kw - 1
// floats apart, -inf around them, so that the row winners of all the rows of a band are one run of vectors with
// no row ends, no clipping and no half-empty vectors (rows of 20 windows fill 20 of 32 lanes when searched row
// by row: two vectors, the second moved back over the first; flat, 24 columns take 1.5 vectors). Lanes past a
// row's Wo windows compute windows nobody reads. A window's winner starts as its first tap's value named by
// the plane position of its first column inside the plane (a per-position table of the plan's shape): a padding
// column's -inf is never replaced by another -inf, so no padding column is named and a window of -inf names its
// first element; the output rows take only the rows inside the plane,
// starting from the first one's winner. The row winners of a band are read one band later (a vector read
// straight after vector stores at other offsets waits for them to reach the cache).
//
// NaN: the copy notes the rows holding one (and those holding a -0); a band holding a NaN, and every output row
// taking winners of such a row, is searched with the NaN rule, the others with one compare and two blends a tap;
// without indices, rows holding neither a NaN nor a -0 take the maximum (one instruction a tap: equal values then
// have equal bits, so it is the rule's winner).
#pragma once

#include <cstdint>
#include <optional>

namespace poolgrad::cpu {

// Output rows [firstRow, endRow) of one dense float32 plane of height x width (row-major); values (always) and
// indices32 or indices64 (either or neither) are the output plane, indices flat plane positions (h * width + w).
// Requires every window to hold an element, plane positions below 2^31, the tables of stride1FlatTables and the
// scratch of stride1FlatScratch (whose padding stays -inf between calls: the copies write only the rows' own
// columns).
struct Stride1FlatJob {
    const float *plane;
    int64_t height, width;
    int64_t outputWidth;
    int64_t kernelHeight, kernelWidth;
    int64_t padTop, padLeft;
    int64_t paddedWidth;  // outputWidth + kernelWidth - 1
    int64_t bandRows;     // input rows searched between two copies
    int64_t firstRow, endRow;
    float *values;
    int32_t *indices32;
    int64_t *indices64;
    bool streaming;
    // Per flat position h * paddedWidth + c of the padded rows: the plane position of column c - padLeft of row h
    // (a tap j further: + j), and that of the first column inside the plane of the window starting at c.
    const int32_t *tapPositions;
    const int32_t *firstPositions;
    // Scratch: the padded rows (stride1FlatPaddedFloats, -inf), the row winners' values and positions
    // (stride1FlatWinnerFloats each) and one byte per input row (what its copy found: a NaN, a -0).
    float *padded;
    float *rowValues;
    int32_t *rowPositions;
    uint8_t *rowFindings;
};
void argmaxStride1Flat(const Stride1FlatJob &job);

// Floats of the padded rows (height rows of paddedWidth, then slack for the last vector's taps), of each array of
// row winners, and of each position table; empty when they overflow.
std::optional<int64_t> stride1FlatPaddedFloats(int64_t height, int64_t paddedWidth, int64_t kernelWidth);
std::optional<int64_t> stride1FlatWinnerFloats(int64_t height, int64_t paddedWidth);

// Fills the two position tables (stride1FlatWinnerFloats entries each) of a plan's shape.
void stride1FlatTables(int64_t height, int64_t width, int64_t paddedWidth, int64_t padLeft, int32_t *tapPositions,
                       int32_t *firstPositions);

}  // namespace poolgrad::cpu
