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

struct GatherWidthTables {
    int64_t lanes = 1;
    int64_t blocks = 0;  // ceil(W / lanes)
    int64_t slots = 0;   // the most windows containing one input column
    // Per block and slot (index block * slots + slot):
    std::vector<int32_t> firstOutput;  // output column the block's lanes are read from
    std::vector<int32_t> readable;     // outputs that exist from firstOutput on (at most lanes)
    std::vector<uint64_t> laneMask;    // bit i: lane i has a window in this slot
    std::vector<int32_t> laneOffset;   // per lane (index (block * slots + slot) * lanes + i): output - firstOutput
};

// One input row: for each of rowCount candidate output rows (in increasing output order) its indices
// (int32, plane positions) and float32 gradients, each Wo long; rowStart is the plane position of the row's
// first element. Writes the row's `width` float32 sums to destination (summed in increasing output order
// from +0, NaN kept as core/gradient_sum.h keeps it; streaming: aligned vectors bypass the caches) and
// returns how many outputs' indices matched an element of the row.
int64_t gatherRow(const GatherWidthTables &tables, const int32_t *const *indexRows, const float *const *gradientRows,
                  int64_t rowCount, int32_t rowStart, int64_t width, float *destination, bool streaming);

// bfloat16 bit patterns widened to float32 (exact).
void widenBFloat16Row(const uint16_t *source, float *destination, int64_t count);

}  // namespace poolgrad::cpu
