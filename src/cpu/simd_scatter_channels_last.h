// The SIMD core of the channels-last slab scatter (Highway, run-time dispatch) for windows that may
// overlap: one output row (n, od, oh) of Wo positions, each holding C indices and C gradients
// contiguously, scattered into a slab of float32 sums, vectorised across C. Per output position and
// vector of channels: one load of indices and one of gradients, then per window tap inside the slab one
// compare of the indices with the tap's plane position (the same for every channel) and one masked add
// into the tap's sums, branch-free. A lane's index names one position, so it matches at most one tap of
// its window, and outputs taken in increasing order add to every sum in increasing output order.
#pragma once

#include <cstdint>

#include "core/pool_geometry.h"

namespace poolgrad::cpu {

// What one output row's scatter saw: lanes whose index is not -1, and lanes whose index matched a tap.
// A difference summed over all slabs means an index outside its own window or outside the plane.
struct ChannelsScatterCounts {
    int64_t indexed = 0;
    int64_t matched = 0;
};

// One output row: indexRow / gradientRow hold its Wo*C int32 plane positions and float32 gradients,
// channels fastest. The window taps are the input rows whose plane position of column 0 is listed in
// tapRowStarts (those of the row's depth and height windows that lie in the slab) times, for output
// column ow, the columns of columnWindows[ow]. sums holds the slab's positions from plane position
// sumsStart on, C float32 sums each; every tap lies inside it. Requires plane positions < 2^31.
ChannelsScatterCounts scatterChannelsRow(const int32_t *tapRowStarts, int64_t tapRows, const AxisWindow *columnWindows,
                                         int64_t outputColumns, int64_t channels, const int32_t *indexRow,
                                         const float *gradientRow, float *sums, int32_t sumsStart);

// How many vectors scatterChannelsRow takes per output position for `channels` channels on the running
// CPU (16-lane vectors with AVX-512, then one of 8 and one of 4 where that many remain, then a masked one):
// each costs one compare and one add per window tap, where the scalar scatter costs one add per channel.
int64_t channelVectorsPerPosition(int64_t channels);

}  // namespace poolgrad::cpu
