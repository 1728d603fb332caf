// How the operators' attributes become a PoolGeometry: regular windows (kernel, stride, padding,
// dilation per axis, with the output-size rules of the operators: PyTorch's floor/ceil, TensorFlow's
// SAME and VALID) and adaptive windows. Phase 1 decodes and checks the attributes; these build the
// description the kernels read.
#pragma once

#include <array>
#include <cstdint>

#include "core/pool_geometry.h"

namespace poolgrad {

// Regular windows on the (D,H,W) axes. A 2-D operator leaves D at kernel 1, stride 1, no padding.
struct RegularWindows {
    std::array<int64_t, 3> kernel{1, 1, 1};
    std::array<int64_t, 3> stride{1, 1, 1};
    std::array<int64_t, 3> padBegin{0, 0, 0};
    std::array<int64_t, 3> padEnd{0, 0, 0};  // counts only for the output size
    std::array<int64_t, 3> dilation{1, 1, 1};
    bool ceilMode = false;
};

// Output length of a regular pooling axis, PyTorch rule included: with ceilMode the last window must
// start inside the input plus the leading padding. May return a value < 1, which callers reject.
int64_t pooledOutputSize(int64_t inputSize, int64_t kernel, int64_t stride, int64_t padBegin, int64_t padEnd,
                         int64_t dilation, bool ceilMode);

// (Do, Ho, Wo) for input (D, H, W) by pooledOutputSize on each axis; entries may be < 1, which callers reject.
std::array<int64_t, 3> regularOutputSize(const RegularWindows &windows, const std::array<int64_t, 3> &input);

// TensorFlow's VALID rule on one axis: floor((input - kernel) / stride) + 1, never below 0; no padding.
int64_t validOutputSize(int64_t input, int64_t kernel, int64_t stride);

// TensorFlow's SAME rule on one axis: ceil(input / stride) outputs; the total padding is split with the
// smaller half first, which is the leading padding returned here.
struct SameAxis {
    int64_t outputSize = 0;
    int64_t padBegin = 0;
};
SameAxis sameAxis(int64_t input, int64_t kernel, int64_t stride);

PoolGeometry regularGeometry(const RegularWindows &windows, int64_t batch, int64_t channels,
                             const std::array<int64_t, 3> &input, const std::array<int64_t, 3> &output);

// Adaptive windows [floor(o*I/O), ceil((o+1)*I/O)) on every axis.
PoolGeometry adaptiveGeometry(int64_t batch, int64_t channels, const std::array<int64_t, 3> &input,
                              const std::array<int64_t, 3> &output);

}  // namespace poolgrad
