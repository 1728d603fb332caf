// One description of pooling windows for every operator: per spatial axis either a regular
// (kernel, stride, padding, dilation) window or an adaptive one, and the (n,c) plane counts.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace poolgrad {

// The in-range input coordinates of one window on one axis: first, first+step, ... (count of them).
struct AxisWindow {
    int64_t first = 0;
    int64_t step = 1;
    int64_t count = 0;
};

// Consecutive outputs [begin, end) whose windows are congruent: each has `count` elements `step` apart,
// and each starts `stride` after the previous one. The SIMD kernels search such a run many windows at a
// time; windows outside it (clipped at the edges, or adaptive windows of other sizes) go one by one.
struct CongruentRun {
    int64_t begin = 0, end = 0;
    int64_t count = 0, step = 1, stride = 1;
    bool empty() const { return end <= begin; }
};

// The run of the largest windows of an axis when they are congruent (regular axes: the windows not
// clipped by the input's edges; adaptive axes whose input size is a multiple of the output size: all);
// an empty run otherwise.
CongruentRun largestCongruentRun(const std::vector<AxisWindow> &windows);

// The most elements any window of an axis holds, and the most input coordinates any window spans
// (first to last element); 0 when every window is empty.
int64_t largestWindowCount(const std::vector<AxisWindow> &windows);
int64_t largestWindowSpan(const std::vector<AxisWindow> &windows);

struct WindowAxis {
    int64_t inputSize = 1;
    int64_t outputSize = 1;
    bool adaptive = false;
    int64_t kernel = 1;
    int64_t stride = 1;
    int64_t padBegin = 0;
    int64_t dilation = 1;

    // Regular: {o*stride - padBegin + j*dilation : 0 <= j < kernel} within [0, inputSize).
    // Adaptive: [floor(o*I/O), ceil((o+1)*I/O)).
    AxisWindow window(int64_t o) const;
    // Windows of all outputs, computed once per run rather than per element.
    std::vector<AxisWindow> allWindows() const;
    // True when no input coordinate lies in two windows on this axis.
    bool windowsDisjoint() const;
    // True when window() computes exactly for every output and a walk over any window's taps may form
    // the coordinate one step past its last tap: a regular axis's largest window start (outputSize-1)*stride
    // and its span (kernel-1)*dilation, padding subtracted, fit in int64, and so does inputSize-1+dilation
    // where a window can hold two taps.
    bool windowArithmeticFits() const;
};

struct PoolGeometry {
    int64_t batch = 1;
    int64_t channels = 1;
    std::array<WindowAxis, 3> axes{};  // D, H, W

    // Phase 1 describes only problems whose operands have element counts that fit in int64, so these
    // products are exact there; they saturate rather than wrap for any other geometry.
    int64_t planes() const;
    int64_t inputPlaneElements() const;
    int64_t outputPlaneElements() const;
};

}  // namespace poolgrad
