// The SIMD core of the write-once index gather backward (Highway, run-time dispatch) for windows that do
// not overlap: one input row of a dense plane from the one output row whose windows reach it, vectorised
// across W. Lane i of a block of input columns takes the window containing its column; the plan tables,
// per block, the first output the block reads, each lane's offset from it and which lanes lie in a window,
// so a block needs one load and one lane permutation of indices and of gradients, a compare against the
// lanes' own plane positions and a masked select.
//
// 16-bit gradients never pass through float32: with one window per element, the scatter's sum +0 + g
// rounded back to the type is g itself except that -0 becomes +0 and a signalling NaN comes out quiet
// (payload kept), so those two are fixed on the 16-bit patterns with integer operations (SixteenBitSum).
#pragma once

#include <cstdint>
#include <vector>

#include "core/data_type.h"

namespace poolgrad::cpu {

// Lanes of the instruction set the dispatch chose for this CPU (at most 16): the block width the plan
// builds its tables for.
int64_t gatherLaneCount();

struct GatherWidthTables {
    int64_t lanes = 1;
    int64_t width = 0;   // W: input columns
    int64_t blocks = 0;  // ceil(W / lanes)
    // Per block:
    std::vector<int32_t> firstOutput;  // output column the block's lanes are read from
    std::vector<int32_t> readable;     // outputs that exist from firstOutput on (at most lanes)
    std::vector<uint64_t> laneMask;    // bit i: lane i lies in a window
    std::vector<int32_t> laneOffset;   // per lane (index block * lanes + i): its window's output - firstOutput
    std::vector<int32_t> columns;      // 0, 1, ..., blocks * lanes - 1: each lane's column
    // Windows {2ow, 2ow+1} (2x2 pooling at stride 2, evenly divided adaptive pooling): the first
    // pairChunks chunks of 2*lanes columns are made from one load of `lanes` outputs each (a compare for
    // the even and one for the odd columns, then an interleave); the blocks from 2*pairChunks on as above.
    int64_t pairChunks = 0;
    // When the windows cover the row exactly (W == 2 Wo), the outputs after the whole chunks (fewer than
    // `lanes`: Wo of 28 or 12 with 16 lanes) make one more chunk, loaded and stored under masks, and no block
    // remains: rows of 56 took three passes through the blocks' lane permutations before.
    int64_t pairTail = 0;
    std::vector<int32_t> evenColumns;  // 0, 2, ..., 2*(lanes-1)
    std::vector<int32_t> lowerPairs;   // 0, 0, 1, 1, ...: lane i takes output lane i/2
    std::vector<int32_t> upperPairs;   // lanes/2 + i/2
};

// The element type of gradOutput and gradInput.
enum class GatherValue { Float32, Float16, BFloat16 };

inline GatherValue gatherValueOf(ElementType type) {
    return type == ElementType::Float16    ? GatherValue::Float16
           : type == ElementType::BFloat16 ? GatherValue::BFloat16
                                           : GatherValue::Float32;
}

// For each input row r = d*H + h of a plane, the output row od*Ho + oh whose window contains it, or -1.
struct GatherRowCandidates {
    std::vector<int64_t> outputRow;
    int64_t outputWidth = 0;  // Wo
};

// Input rows [firstRow, endRow) of a dense plane whose indices are int32 plane positions, straight from the
// plane's operands into the gradInput plane. Each element gets +0 + the gradient (`value`) of the output whose
// index is the element's position, or +0, in the gradients' type (streaming: aligned vectors bypass the
// caches). Returns how many outputs' indices matched an element.
int64_t gatherPlaneRows(const GatherWidthTables &tables, GatherValue value, const GatherRowCandidates &candidates,
                        int64_t firstRow, int64_t endRow, const int32_t *indexPlane, const void *gradientPlane,
                        void *destinationPlane, bool streaming);

// How many of count indices are not -1 (the outputs whose index must match an element), vectorised: the
// plain loop compiled for the baseline instruction set took a tenth of case A's time.
int64_t countIndicesInUse(const int32_t *indices, int64_t count);
int64_t countIndicesInUse(const int64_t *indices, int64_t count);

// INT64 indices as int32, saturated (an index beyond int32 is bad and then matches no position, all of which
// are below 2^31 - 1), vectorised: the INT64 gathers convert the output rows a block reads once, then run
// the int32 gather. Returns how many of them are in use (not -1), as countIndicesInUse does, in the same pass.
int64_t convertIndicesToInt32(const int64_t *indices, int32_t *converted, int64_t count);

}  // namespace poolgrad::cpu
