// The vector core of the 3x3 stride-2 argmax forward on 2-D planes (ResNet's stem pooling; Google Highway,
// run-time dispatch). Windows cover rows 2*oh - padTop + {0, 1, 2} and columns 2*ow - padLeft + {0, 1, 2},
// clipped to the plane (padding 0 or 1, no dilation). Selection rule of every forward (SPEC §3.7): scan order,
// the first strictly greater value wins (ties and -0/+0 keep the first), a NaN wins over everything and the
// last NaN in scan order is kept.
//
// How: a vector holds the windows of consecutive output columns. For each input row, one pair of loads split
// into even and odd columns (one permute each) and one more pair gives the three taps of every window, and two
// compare-and-blends give the row's winner per window ("row winners"). A window's rows are then taken in scan
// order with the same rule, which picks its winner since scan order is rows first. The last row of output row
// oh's windows is the first of oh + 1's: its row winners are kept (an L1 row per call) and not searched again,
// so each input row is searched once. Clipped columns are not padded with -inf but replaced by a tap of the
// same window next to them (window [x, x, y] has the winner of [x, y] under the rule), so that edge windows
// take the vector code too and no padding column is ever named.
//
// NaN: each output row is first searched with one compare and one blend per tap, while a detector sums the
// products of taps 1 and 2 of every row searched, which covers every column but the first tap of a row's first
// window (covered separately) ; a row whose detector comes out NaN (a NaN, or an overflow meeting a zero or an
// opposite infinity) is searched again with the NaN rule. The carried row winners need no detector: they come
// from the previous output row, searched again with the rule when it held a NaN, and they are the first row
// of the windows that take them, whose NaN a fast compare never replaces.
#pragma once

#include <cstdint>
#include <span>

#include "cpu/simd_argmax.h"

namespace poolgrad::cpu {

// Output rows [firstRow, endRow) of one dense plane of height x width (row-major) of `type`; values, indices32
// and indices64 (whichever are non-null; neither for value-only forwards) are the output plane, indices flat
// plane positions (h * width + w). Requires padTop, padLeft in {0, 1}, outputHeight and outputWidth the windows
// that hold at least one element (every window does with padding at most 1), and plane positions below 2^31.
// Writes only the outputs of those rows.
struct ThreeByThreeStride2Rows {
    ArgmaxValueType type;
    const void *plane;
    const void *nextPlane;  // the plane the calling thread searches next (read ahead into the L2), or null
    int64_t height, width;
    int64_t outputHeight, outputWidth;
    int64_t padTop, padLeft;
    int64_t firstRow, endRow;
    void *values;
    int32_t *indices32;
    int64_t *indices64;
    int64_t storedFromRow = 0;  // the output row values and indices start at (0: the plane's first)
};
// Jobs go in batches of one geometry (every field but plane, nextPlane, values, indices32, indices64 and the
// range of rows the same): what depends on the geometry alone is made once a batch.
void argmaxThreeByThreeStride2Rows(std::span<const ThreeByThreeStride2Rows> jobs);

// Output depths [firstDepth, endDepth) of one dense 3-D plane (depth x height x width, row-major) with 3x3x3
// windows at stride 2 (padding 0 or 1 on each axis): each depth slice's 3x3 winners for every output row and
// column come from the 2-D search above (each slice searched once: the last slice of output depth od's windows
// is the first of od + 1's and its winners are kept), and a window's slices are then taken in scan order with
// the selection rule, NaN rule included (scan order is slices first, and the rule is associative). Indices are
// flat plane positions (d * height * width + h * width + w); values, indices32 and indices64 are the output
// plane. Requires what ThreeByThreeStride2Rows requires of each slice, depth windows 2*od - padFront + {0, 1, 2}
// clipped to the plane and never empty, and plane positions below 2^31.
// The bytes of the three slots of slice winners a volume search keeps (three output rows where one takes more):
// whole slices where they fit, else blocks of output rows (simd_argmax_three_by_three_stride2.cpp says why).
inline constexpr int64_t kVolumeSlotBytes = int64_t{32} << 10;
struct ThreeByThreeStride2Volume {
    ArgmaxValueType type;
    const void *plane;
    const void *nextPlane;  // the plane the calling thread searches next, or null
    int64_t depth, height, width;
    int64_t outputDepth, outputHeight, outputWidth;
    int64_t padFront, padTop, padLeft;
    int64_t firstDepth, endDepth;
    void *values;
    int32_t *indices32;
    int64_t *indices64;
};
// In batches of one geometry, like the rows above (the range of depths may differ).
void argmaxThreeByThreeStride2Volumes(std::span<const ThreeByThreeStride2Volume> jobs);

}  // namespace poolgrad::cpu
