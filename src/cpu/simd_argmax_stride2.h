// The vector core of the stride-2 argmax forward (windows three wide at stride 2 along W), in two passes
// that together keep the selection rule of every forward (SPEC §3.7): scan order rows then columns, the
// first strictly greater value wins (ties and -0/+0 keep the first), a NaN wins over everything and the
// last NaN in scan order is kept. The row pass finds each window's winner within one input row (the first
// greatest column, or the row's last NaN column); the combine pass takes those per-row winners in scan
// order with the same rule, which picks the window's winner since scan order is rows first. Each pass
// first runs with one compare and one blend per tap and a NaN detector (one multiply-add per two taps); a
// NaN in the first tap needs no detection (a fast compare never replaces it, and it is the rule's answer
// unless a later tap is NaN too, which the detector sees), and a pass whose detector came out NaN (a NaN,
// or a product or sum that overflowed) runs again with the NaN rule.
#pragma once

#include <cstdint>

namespace poolgrad::cpu {

// One input row of `width` floats: for each output column ow < outputs, the winner of columns
// 2*ow - padLeft + {0, 1, 2} that lie in [0, width) (padLeft 0 or 1; every window holds at least one
// column): bestValues[ow] gets its value bit for bit, bestColumns[ow] its column.
void argmaxStride2Row(const float *row, int64_t width, int64_t padLeft, int64_t outputs, float *bestValues,
                      int32_t *bestColumns);

// The same values only (bestColumns not written): the values-only forward.
void maxStride2Row(const float *row, int64_t width, int64_t padLeft, int64_t outputs, float *bestValues);

// The windows' winners across the rows r < rowCount (scan order, rowCount >= 1): rowValues[r][ow] and
// rowColumns[r][ow] are row r's winner of window ow (argmaxStride2Row's output), rowOffsets[r] the flat
// plane offset of row r's column 0. values[ow] gets the winning value, indices32[ow] or indices64[ow]
// (whichever is non-null; rowColumns may be null when both are) its flat plane index. With streaming,
// aligned vectors bypass the caches.
void combineStride2Rows(const float *const *rowValues, const int32_t *const *rowColumns, const int32_t *rowOffsets,
                        int64_t rowCount, int64_t outputs, float *values, int32_t *indices32, int64_t *indices64,
                        bool streaming);

}  // namespace poolgrad::cpu
