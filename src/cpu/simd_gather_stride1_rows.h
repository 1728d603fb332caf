// The vector core of the write-once gather backward for 2-D windows that move by one row and one column
// (stride 1, no dilation: Inception's 3x3 branch pooling, the 5x5 pyramid pooling of YOLO-style detectors),
// where an element lies in up to kernelHeight x kernelWidth windows. Input rows are made from the output rows
// whose windows reach them, a vector of consecutive columns at a time: along W the windows of a column c are
// c + padLeft - d for d in [0, kernelWidth), so each candidate (output row, d) is one unaligned load of the
// windows' winners (plane positions) and one of gradients at a fixed offset, a compare against the columns'
// own positions and a masked add. The sums run from +0 over the candidates in increasing output order (output
// rows, then columns), as the contract orders them, and each row is written once.
//
// The sums are chains of dependent adds (4 cycles each on the AVX-512 hosts) that must keep their order, so a
// call makes a group of up to four input rows and up to four vectors of columns together, up to four chains
// side by side, each candidate load serving every row of the group whose windows it belongs to.
#pragma once

#include <cstdint>

namespace poolgrad::cpu {

// Lanes (columns per vector) of the widest target the dispatch can choose: the padding every output row
// copy carries past its last column (stride1GatherRowColumns).
inline constexpr int64_t kStride1GatherMostLanes = 16;
// Input rows a call makes together at most.
inline constexpr int64_t kStride1GatherMostGroupRows = 4;

// One output row as the gather reads it, both pointers at output column 0: its windows' winners as int32 plane
// positions (`indices`: -1 for none) and its gradients as float32. Columns [-leftMargin, 0) and [outputWidth,
// rightEnd) (stride1GatherRowColumns) hold -1 and +0, so that every load of every column vector reads inside
// the copy and a column outside the row matches nothing.
struct Stride1GatherRow {
    const int32_t *indices = nullptr;
    const float *gradients = nullptr;
};

// The columns an output row copy needs before column 0 (leftMargin) and from column 0 on (rightEnd), for rows
// of `width` input columns read through windows kernelWidth wide from padding padLeft.
struct Stride1GatherRowColumns {
    int64_t leftMargin = 0, rightEnd = 0;
};
Stride1GatherRowColumns stride1GatherRowColumns(int64_t width, int64_t outputWidth, int64_t kernelWidth,
                                                int64_t padLeft);

// The input rows a group makes together for rows of `width` columns: as many as keep four vectors of
// columns in work (one row of four or more vectors, two of two or three, four of one).
int64_t stride1GatherGroupRows(int64_t width);

// Input rows [0, rows) of a group (rows <= kStride1GatherMostGroupRows), their elements at positions
// rowPosition + r * rowStep + w (rowStep: width, or the row length of the padded copy the positions count in),
// from the output rows `outputRows`, increasing: input row r reads outputRows[firstCandidate[r] ..
// endCandidate[r]). Element w of row r gets +0 + the gradients of its candidates' windows w + padLeft - d (d
// from kernelWidth - 1 down to 0: increasing output columns) whose position is its own. float32 sums into
// destination[r] (width floats: the gradInput row), full vectors streamed when asked and aligned. Requires
// rowPosition + rows * rowStep + kStride1GatherMostLanes < 2^31.
struct Stride1GatherRowGroup {
    const Stride1GatherRow *outputRows = nullptr;
    int64_t firstCandidate[kStride1GatherMostGroupRows] = {}, endCandidate[kStride1GatherMostGroupRows] = {};
    float *destination[kStride1GatherMostGroupRows] = {};
    int64_t rows = 1;
    int64_t width = 0, kernelWidth = 1, padLeft = 0;
    int64_t rowPosition = 0;
    int64_t rowStep = 0;  // between the positions of consecutive rows: width, or a padded copy's row length
    bool streaming = false;
};
void gatherStride1Rows(const Stride1GatherRowGroup &group);

}  // namespace poolgrad::cpu
