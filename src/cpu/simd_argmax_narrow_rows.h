// The vector search of the argmax forward for rows that fit in one vector (Google Highway, run-time
// dispatch): late CNN stages and adaptive pooling to a few outputs, where the searches across windows
// (simd_argmax.h) would fill a vector with the two or eight windows of an output row and take a gathered
// load per window position. Here each input row of a window is one vector of its columns: one compare and
// one blend per row give every column's winner over the rows, and then one lane permutation per window
// column (a "tap") brings each column's winner to the lane of the window that holds it.
//
// Selection rule (SPEC: scan order, the first strictly greater value wins, a NaN wins over everything and
// the last NaN in scan order is kept). Scan order is the order of plane positions, so per column the rows
// keep their first maximum (their last NaN), and across columns the winner is the largest value and, among
// equal ones, the smallest position (among NaNs the largest). The rows' pass runs with one compare and one
// blend and adds what it reads into a NaN detector; an output row whose detector comes out NaN (a NaN, or
// +inf meeting -inf) is searched again with the NaN rule.
#pragma once

#include <cstdint>
#include <vector>

namespace poolgrad::cpu {

// Columns of one vector on the running CPU: the widest row (and most windows per row) the search takes.
int64_t argmaxNarrowRowLanes();

// The windows of an output row along W, as lane permutations: tap j of window ow (lane ow) is column
// tapColumns[j * lanes + ow] where bit ow of tapLanes[j] is set. A window with no taps (wholly in padding)
// gets -inf and index -1.
struct NarrowRowTables {
    int64_t lanes = 1;
    int64_t width = 0;    // W <= lanes
    int64_t outputs = 0;  // Wo <= lanes
    int64_t taps = 0;     // columns of the widest window
    std::vector<int32_t> tapColumns;
    std::vector<uint64_t> tapLanes;
};

// The input rows of each output row (od, oh) of a plane, in scan order: output row r reads the rows at plane
// offsets offsets[start[r] .. start[r + 1]) (none: every window of the row is empty).
struct NarrowRowWindows {
    std::vector<int64_t> start;
    std::vector<int32_t> offsets;
};

// Output rows [firstRow, endRow) of one plane: values[r * Wo + ow] gets window ow's winner bit for bit, and
// indices32 or indices64 at the same place (whichever is non-null; neither for value-only forwards) its plane
// position. Requires plane positions below 2^31 - 1. Reads only the rows' W columns and writes only the
// outputs of rows [firstRow, endRow) (a row's whole-vector store may run into the next rows of the range,
// which are written after it).
void argmaxNarrowRows(const NarrowRowTables &tables, const NarrowRowWindows &windows, const float *plane,
                      int64_t firstRow, int64_t endRow, float *values, int32_t *indices32, int64_t *indices64);

}  // namespace poolgrad::cpu
