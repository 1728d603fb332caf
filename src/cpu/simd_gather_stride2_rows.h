// The vector core of the write-once index gather backward for windows three wide at stride 2 along W
// (the "k3 s2" pooling, whose windows overlap: each input column lies in one or two windows of an output
// row, which ones fixed by the column's parity). One input row is made from the few output rows whose
// depth and height windows contain it, a vector of windows at a time: every even and odd column of a
// block is compared with the indices of its (at most two) windows, the gradients of the matches summed
// in registers in increasing output order, and the row written once.
#pragma once

#include <cstdint>

#include "core/data_type.h"

namespace poolgrad::cpu {

// Lanes (windows per block; a block makes twice as many columns) of the instruction set the dispatch
// chose for this CPU (the plan names them).
int64_t gatherStride2LaneCount();

// How many of indices[0, count) are not -1 (the outputs that must match one element each); count < 2^31.
int64_t countIndicesNotMinusOne(const int32_t *indices, int64_t count);

// The plan's description of a plane's rows: input row r = d*H + h reads the output rows (od*Ho + oh)
// rowOutputs[rowStart[r] .. rowStart[r+1]), increasing.
struct Stride2RowTables {
    const int64_t *rowStart = nullptr;
    const int64_t *rowOutputs = nullptr;
    int64_t width = 0, outputWidth = 0, padLeft = 0;
    int64_t outputRows = 0;  // of the plane: its indices and gradients hold outputRows * outputWidth elements
};

// One plane's operands read in place: int32 indices and gradients (float32, or float16 / bfloat16 bits,
// widened in registers) of Do*Ho*Wo outputs, and its gradInput of D*H*W elements of the same type.
struct Stride2PlaneOperands {
    const int32_t *indices = nullptr;
    const void *gradients = nullptr;
    void *gradInput = nullptr;
    ElementType type = ElementType::Float32;
    // bfloat16: no sum of the gradients the rows read can be subnormal (bfloat16SumsStayNormal), so the
    // rounding instruction needs no look for subnormals.
    bool bfloat16SumsStayNormal = false;
};

// Whether every one of `count` bfloat16 gradients (bit patterns) is zero or has an exponent field of at
// least 8 (Inf and NaN included). Such values are whole multiples of 2^-126, and so is every float32 sum
// of them (a sum that rounds is at least 2^-102, where float32's spacing is 2^-125 or coarser): a sum is
// zero or at least 2^-126, never subnormal.
bool bfloat16SumsStayNormal(const uint16_t *gradients, int64_t count);

// How the rows are written: plainly; streaming (every row whole lines: aligned vectors bypass the caches);
// or, float32 only, streaming row pairs, where a row is not whole lines but a pair of rows is (the plan checks
// that the plane's rows pair up from an even row and that the pairs start on a line): rows 2k and 2k + 1 made
// as a pair leave as whole streamed lines, formed in registers with 16 lanes, else through sumsRow (2 x width
// floats).
enum class Stride2Stores { Cached, Streaming, StreamingRowPairs };

// Input rows [firstRow, endRow) of a plane, windows 2*ow - padLeft + {0, 1, 2} along W (padLeft 0 or 1):
// element w of row r gets +0 + the gradients, in the order of the row's output rows and within one in
// increasing window order, of the windows whose index is its position r*width + w. Read straight from the
// plane's output rows (masked loads at the ends of a row where the instruction set cannot fault on them, a
// copy otherwise); float32 rows are written into gradInput, 16-bit ones rounded once in registers (through
// sumsRow, width floats, on targets that cannot). Where rows r and r + 1 read output row q, r + 1 then
// possibly one more (rows 2k and 2k + 1 of a 3x3 stride 2 pooling), both are made in one pass that loads
// (and widens) q once. Returns the matches. Rows not made in pairs are stored plainly under
// StreamingRowPairs.
int64_t gatherStride2PlaneRows(const Stride2RowTables &tables, const Stride2PlaneOperands &plane, int64_t firstRow,
                               int64_t endRow, float *sumsRow, Stride2Stores stores);

}  // namespace poolgrad::cpu
