// The SIMD core of the write-once index gather backward on channels-last storage (Highway, run-time
// dispatch) for windows that do not overlap: one input row (n, d, h) of W positions, each holding its C
// channels contiguously, from the one output row whose windows reach it, vectorised across C. A position
// lies in at most one window; its C indices and C gradients are contiguous in that output, so a position
// needs one load of each per vector of channels, one compare against the position's plane index (the
// same for every channel) and a masked select.
#pragma once

#include <cstdint>

namespace poolgrad::cpu {

// One input row: outputColumn[w] is the output column whose window along W contains column w, or -1.
// indexRow / gradientRow hold the output row's Wo*C int32 plane positions and float32 gradients, channels
// fastest (both null: no window reaches the row). rowStart is the plane position of the row's column 0.
// Writes the row's W*C float32 sums (+0 + the gradient of the output whose index is the position, else +0)
// to destination (streaming: aligned full vectors bypass the caches) and returns how many of the outputs'
// indices matched.
int64_t gatherChannelsRow(const int64_t *outputColumn, int64_t width, int64_t channels, const int32_t *indexRow,
                          const float *gradientRow, int32_t rowStart, float *destination, bool streaming);

}  // namespace poolgrad::cpu
