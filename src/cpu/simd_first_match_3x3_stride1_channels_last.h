// The vector core of the channels-last recompute-argmax backward for 3x3 windows at stride 1 (Inception's
// branch pooling): a run of whole windows along one output row, their sums kept in registers while the
// windows slide, instead of a load, add and store of the sums for every tap.
#pragma once

#include <cstdint>

namespace poolgrad::cpu {

// Windows ow in [outputBegin, outputEnd) of one output row of 3x3 windows at stride 1 (dilation 1), every
// tap inside the input: window ow covers columns ow + firstColumn + {0, 1, 2} of the three input rows
// inputRows[0..2] (each `channels` floats a column, from column 0), and targets / gradients hold the output
// row (from ow = 0). For each channel, the window's first tap in scan order (rows, then columns) equal to
// its target (float ==: NaN never matches, +0 == -0) adds the window's gradient to the same position of
// sumRows[0..2] (ring rows of float32 sums, from column 0), the sum first (as the scatter adds); windows
// are taken in increasing ow, so each sum receives its contributions in output order.
void accumulateFirstMatches3x3Stride1(const float *const *inputRows, float *const *sumRows, const float *targets,
                                      const float *gradients, int64_t outputBegin, int64_t outputEnd,
                                      int64_t firstColumn, int64_t channels);

}  // namespace poolgrad::cpu
