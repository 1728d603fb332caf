// The SIMD core of the write-once index gather backward (Highway, run-time dispatch): one input row of a
// dense plane summed from the few output rows whose windows reach it, vectorised across W. Lane i of a
// block of input columns takes, for each "slot" c, the c-th of the windows (in increasing output order)
// that contain its column; the plan tables, per block and slot, the first output the block reads, each
// lane's offset from it and which lanes have such a window, so a block needs one load and one lane
// permutation of indices and of gradients per candidate output row and slot, a compare against the lane's
// own plane position and a masked add.
#pragma once

#include <cstdint>
#include <vector>

namespace poolgrad::cpu {

// Lanes of the instruction set the dispatch chose for this CPU (at most 16): the block width the plan
// builds its tables for.
int64_t gatherLaneCount();

// The most candidate output rows one input row may have (the plan declines more).
inline constexpr int64_t kMostGatherRows = 8;

struct GatherWidthTables {
    int64_t lanes = 1;
    int64_t width = 0;   // W: input columns
    int64_t blocks = 0;  // ceil(W / lanes)
    int64_t slots = 0;   // the most windows containing one input column
    // Per block and slot (index block * slots + slot):
    std::vector<int32_t> firstOutput;  // output column the block's lanes are read from
    std::vector<int32_t> readable;     // outputs that exist from firstOutput on (at most lanes)
    std::vector<uint64_t> laneMask;    // bit i: lane i has a window in this slot
    std::vector<int32_t> laneOffset;   // per lane (index (block * slots + slot) * lanes + i): output - firstOutput
    std::vector<int32_t> columns;      // 0, 1, ..., blocks * lanes - 1: each lane's column
};

// For each input row r = d*H + h of a plane, the output rows od*Ho + oh whose windows contain it, in
// increasing order: outputRows[start[r] .. start[r+1]).
struct GatherRowCandidates {
    std::vector<int64_t> start;
    std::vector<int64_t> outputRows;
    int64_t outputWidth = 0;  // Wo
};

// One input row: for each of rowCount candidate output rows (in increasing output order) its indices
// (int32, plane positions) and float32 gradients, each Wo long; rowStart is the plane position of the row's
// first element. Writes the row's W float32 sums to destination (summed in increasing output order
// from +0, NaN kept as core/gradient_sum.h keeps it; streaming: aligned vectors bypass the caches) and
// returns how many outputs' indices matched an element of the row.
int64_t gatherRow(const GatherWidthTables &tables, const int32_t *const *indexRows, const float *const *gradientRows,
                  int64_t rowCount, int32_t rowStart, float *destination, bool streaming);

// Input rows [firstRow, endRow) of a dense plane whose indices are int32 and gradients float32, straight
// from the plane's operands into the float32 gradInput plane; returns the matches as gatherRow does.
int64_t gatherPlaneRows(const GatherWidthTables &tables, const GatherRowCandidates &candidates, int64_t firstRow,
                        int64_t endRow, const int32_t *indexPlane, const float *gradientPlane, float *destinationPlane,
                        bool streaming);

// bfloat16 bit patterns widened to float32 (exact).
void widenBFloat16Row(const uint16_t *source, float *destination, int64_t count);

}  // namespace poolgrad::cpu
