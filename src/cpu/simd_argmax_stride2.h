// The vector core of the stride-2 argmax forward (windows three wide at stride 2 along W). It keeps the
// selection rule of every forward (SPEC §3.7): scan order rows then columns, the first strictly greater
// value wins (ties and -0/+0 keep the first), a NaN wins over everything and the last NaN in scan order
// is kept. For a vector of consecutive whole windows it finds each input row's winner (the row's even and
// odd columns split by one permute per pair of loads: taps 0, 1, 2 of the windows are the even columns,
// the odd ones and the even ones one further on), then takes the rows' winners in scan order with the
// same rule, which picks the window's winner since scan order is rows first. Row winners are carried (an
// L1 buffer per vector of windows): the last rows of an output row's windows (one per depth tap) are the
// first of the next output row's (3-high stride-2 windows), and are not searched again. Each output row's vector is
// first searched with one compare and one blend per tap and a NaN detector (a NaN in tap 0 or in the first row needs
// none: a fast compare never replaces it, and it is the rule's answer unless a later NaN follows, which the detector
// sees); a vector whose detector came out NaN (a NaN, or an overflowed product) is searched again with the NaN rule.
#pragma once

#include <cstdint>

#include "core/pool_geometry.h"

namespace poolgrad::cpu {

// The most depth taps whose last rows are carried from one output row to the next (more: searched again).
inline constexpr int64_t kStride2CarriedDepthTaps = 4;

// The output rows [firstRow, endRow) (flat od * outputHeight + oh) of one dense float32 plane, windows
// [wholeBegin, wholeEnd) of each: whole windows (columns 2*ow - padLeft + {0, 1, 2} inside the row), at
// least a vector of them. values / indices32 / indices64 (whichever are non-null) are the output planes;
// indices are flat plane positions (which must fit in int32). With streaming, aligned vectors bypass the
// caches.
struct Stride2Rows {
    const float *plane;
    int64_t inputHeight, inputWidth;
    const AxisWindow *depthWindows, *heightWindows;  // per od, per oh
    int64_t outputHeight, outputWidth;
    int64_t padLeft;
    int64_t wholeBegin, wholeEnd;
    int64_t firstRow, endRow;
    float *values;
    int32_t *indices32;
    int64_t *indices64;
    bool streaming;
};
void argmaxStride2Rows(const Stride2Rows &rows);

// Windows a vector holds on the running CPU.
int64_t argmaxStride2Lanes();

}  // namespace poolgrad::cpu
