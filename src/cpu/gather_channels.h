// The SIMD core of the write-once index gather backward on channels-last storage (Highway, run-time
// dispatch) for windows that do not overlap: one input row (n, d, h) of W positions, each holding its C
// channels contiguously, from the one output row whose windows reach it, vectorised across C. A position
// lies in at most one window; its C indices and C gradients are contiguous in that output, so a position
// needs one load of each per vector of channels, one compare against the position's plane index (the
// same for every channel) and a masked select. 16-bit gradients are handled on their bit patterns, as in
// the dense gather (gather_rows.h).
#pragma once

#include <cstdint>

#include "cpu/gather_rows.h"

namespace poolgrad::cpu {

// One input row: outputColumn[w] is the output column whose window along W contains column w, or -1.
// indexRow / gradientRow hold the output row's Wo*C int32 plane positions and gradients (`value`), channels
// fastest (both null: no window reaches the row). rowStart is the plane position of the row's column 0.
// Writes the row's W*C results (+0 + the gradient of the output whose index is the position, else +0, in
// the gradients' type) to destination (streaming: aligned full vectors bypass the caches) and returns how
// many of the outputs' indices matched.
int64_t gatherChannelsRow(const int64_t *outputColumn, int64_t width, int64_t channels, GatherValue value,
                          const int32_t *indexRow, const void *gradientRow, int32_t rowStart, void *destination,
                          bool streaming);

// One input row of float32 positions where windows overlap: rowCount output rows (increasing) reach the row,
// their Wo*C int32 plane positions and gradients at indexRows[i] / gradientRows[i]; the output columns whose
// windows contain column w are columnOutputs[columnStart[w] .. columnStart[w + 1]), increasing. Each
// element is +0 plus, in increasing output order (rows, then columns), the gradient of every candidate
// output whose index is the position; written once (streaming: aligned full vectors bypass the caches).
// Returns how many of the outputs' indices matched.
int64_t gatherOverlappingChannelsRow(const int64_t *columnStart, const int64_t *columnOutputs, int64_t width,
                                     int64_t channels, const int32_t *const *indexRows,
                                     const float *const *gradientRows, int64_t rowCount, int32_t rowStart,
                                     float *destination, bool streaming);

}  // namespace poolgrad::cpu
