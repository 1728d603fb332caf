// The vector core of the channels-last recompute-argmax backwards for 3x3, 3x5, 5x3 and 5x5 windows at stride 1
// (Inception's branch pooling, the spatial pyramid pooling of YOLO-style detectors): a run of whole windows
// along one output row, their sums kept in registers while the windows slide, instead of a load, add and store
// of the sums for every tap.
#pragma once

#include <cstdint>

namespace poolgrad::cpu {

// Whether accumulateFirstMatchesStride1 takes windows of this height and width.
inline bool slidingWindowShape(int64_t kernelHeight, int64_t kernelWidth) {
    return (kernelHeight == 3 || kernelHeight == 5) && (kernelWidth == 3 || kernelWidth == 5);
}

// Windows ow in [outputBegin, outputEnd) of one output row of kernelHeight x kernelWidth windows at stride 1
// (dilation 1; slidingWindowShape), every tap readable: window ow covers columns ow + firstColumn +
// [0, kernelWidth) of the input rows inputRows[0 .. kernelHeight) (each `channels` floats a column, from column
// 0), and targets / gradients hold the output row (from ow = 0). For each channel, the window's first tap in
// scan order (rows, then columns) equal to its target (float ==: NaN never matches, +0 == -0) adds the
// window's gradient to the same position of sumRows[0 .. kernelHeight) (rows of float32 sums laid out as the
// input rows), the sum first (as the scatter adds); windows are taken in increasing ow, so each sum receives its
// contributions in output order. Rows may repeat (a row of NaN for padding, a discarded row of sums).
void accumulateFirstMatchesStride1(int64_t kernelHeight, int64_t kernelWidth, const float *const *inputRows,
                                   float *const *sumRows, const float *targets, const float *gradients,
                                   int64_t outputBegin, int64_t outputEnd, int64_t firstColumn, int64_t channels);

}  // namespace poolgrad::cpu
