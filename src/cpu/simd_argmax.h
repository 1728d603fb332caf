// The vector max searches of the argmax forwards (Google Highway, run-time dispatch). Selection rule of
// every search: scan order, the first strictly greater value wins (ties keep the first element), a NaN
// wins over everything and the last NaN in scan order is kept. Each search first runs with one compare
// and one blend per window position, adding the values it saw into a NaN detector; only a group of
// windows whose detector came out NaN (a NaN, or +inf meeting -inf) is searched again with the NaN rule.
#pragma once

#include <cstdint>

#include "core/pool_geometry.h"

namespace poolgrad::cpu {

// The values' type of a vector forward: float32, or float16 / bfloat16 (compared widened to float32, output as
// their own bits).
enum class ArgmaxValueType { Float32, Float16, BFloat16 };

// One output row of a dense float32 plane: the windows of output columns 0..outputs-1 on the input rows
// r < rowCount (scan order), whose column 0 is at rowStarts[r]. Window ow covers columns origin +
// ow*stride + j*dilation (0 <= j < kernelWidth), and the search reads up to argmaxRowReach() columns past
// each chunk of argmaxRowLanes() windows. Where that leaves the rows (padding, or loads past the row's
// end), the caller searches with argmaxWindowRow and paddedRows: rowCount rows of paddedStride floats whose
// columns around the row hold -inf (rowStarts[r] then points into row r of it, at column 0); the rows are
// copied there first. The caller fixes clipped windows whose result is -inf (all their elements -inf, or
// none): the search may then name a padding column. Rows every load stays within (rows that need no padding,
// or copies the caller padded itself) are searched where they lie with argmaxWindowRowsInPlace. The index of
// column c of row r is rowOffsets[r] + c. Requires every offset and column to fit in int32.
struct WindowRow {
    int64_t width = 0;
    int64_t outputs = 0;
    int64_t origin = 0;
    int64_t stride = 1, kernelWidth = 1, dilation = 1;
};

// values[ow] gets the winner bit for bit, and indices32[ow] or indices64[ow] (whichever is non-null;
// neither for value-only forwards) its index. rowStarts[r] comes back pointing at the copy in paddedRows.
void argmaxWindowRow(const WindowRow &row, const float **rowStarts, const int32_t *rowOffsets, int64_t rowCount,
                     float *paddedRows, int64_t paddedStride, float *values, int32_t *indices32, int64_t *indices64);

// Consecutive output rows searched in one call, rows read in place (no padded copies): output row k reads
// rowStarts[r] + k * inputRowStep (its rows' offsets rowOffsets[r] + k * inputRowStep) and writes its winners
// k * outputStep on. rowStarts and rowOffsets come back advanced to the last output row.
struct OutputRowRun {
    int64_t outputRows = 1;
    int64_t inputRowStep = 0;
    int64_t outputStep = 0;
    bool streaming = false;  // whole vectors of outputs that start on a vector boundary are streamed
};

// The search of argmaxWindowRow over a run of output rows whose rows are read where they lie (every load within
// the rows), detecting NaNs as it searches.
void argmaxWindowRowsInPlace(const WindowRow &row, const OutputRowRun &run, const float **rowStarts,
                             int32_t *rowOffsets, int64_t rowCount, float *values, int32_t *indices32,
                             int64_t *indices64);
// The same on bfloat16 rows (their bits): each vector is widened to float32 as it is loaded, the winners
// narrowed back into values (exact).
void argmaxWindowRowsInPlaceBFloat16(const WindowRow &row, const OutputRowRun &run, const uint16_t **rowStarts,
                                     int32_t *rowOffsets, int64_t rowCount, uint16_t *values, int32_t *indices32,
                                     int64_t *indices64);

// Values only (no indices) of windows 3 wide at stride 2 without dilation: values[ow] gets the max of
// window ow over the rows, bit for bit as the search gives it, or the call returns false and writes no
// value: for rows holding a NaN, a -0 or both infinities, for rows narrower than a vector and for fewer
// outputs than a vector. columnMax is a row of scratch whose columns [-padBefore, 0) and [width, width +
// padAfter) hold -inf, padded as the search's paddedRows are (argmaxRowReach past each chunk).
bool maxRowOfThreeWideStride2(const WindowRow &row, const float *const *rowStarts, int64_t rowCount, float *columnMax,
                              float *values);

// The `count` winners of a search on widened rows (values[i], and indices[i] into `plane`, -1 for an empty
// window) written out: outValues[i] gets the bits of the element indices[i] names (-inf for an empty window),
// narrowed from values[i] where that is exact and copied otherwise; outIndices32 or outIndices64 (either may
// be null) the indices.
void storeSixteenBitWinners(const float *values, const int32_t *indices, const uint16_t *plane, uint16_t *outValues,
                            int32_t *outIndices32, int64_t *outIndices64, int64_t count, bool half);

// Windows per chunk (the vector length the running CPU's dispatch takes), and the columns a chunk's loads
// reach past its first window's first tap.
int64_t argmaxRowLanes();
inline int64_t argmaxRowReach(const WindowRow &row, int64_t lanes) {
    const int64_t span = (row.kernelWidth - 1) * row.dilation;
    if (row.stride == 2 && lanes > 1) {
        // Pair loads: without dilation taps j and j + 1 come from the one pair of vectors loaded at tap j, so
        // an even kernel's last pair is loaded at tap kernelWidth - 2 (2x2 stride 2 rows of 2 x outputs
        // columns are then read in place, not copied).
        const int64_t lastLoad = row.dilation == 1 && row.kernelWidth % 2 == 0 ? row.kernelWidth - 2 : span;
        return lastLoad + 2 * lanes - 1;
    }
    return span + (lanes - 1) * row.stride;
}

// One window of a channels-last tensor, across `channels` lanes: inputRows[p] holds the C values of
// window position p (scan order). values[c] gets the winning value bit for bit, and winners32[c] or
// winners64[c] (whichever is non-null) the label of its position, labels[p] (labels[0] when every value
// is -inf). Requires positions >= 1. With streaming, aligned vectors bypass the caches.
void argmaxAcrossChannels(const float *const *inputRows, const int32_t *labels, int64_t positions, float *values,
                          int32_t *winners32, int64_t *winners64, int64_t channels, bool streaming);

}  // namespace poolgrad::cpu
