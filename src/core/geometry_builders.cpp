#include "core/geometry_builders.h"

#include <algorithm>
#include <limits>

namespace poolgrad {
namespace {

int64_t floorDivide(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

}  // namespace

int64_t pooledOutputSize(int64_t inputSize, int64_t kernel, int64_t stride, int64_t padBegin, int64_t padEnd,
                         int64_t dilation, bool ceilMode) {
    // 128-bit so that absurd kernels or dilations give "too small" instead of overflowing.
    using Wide = __int128;
    const Wide effectiveKernel = Wide(dilation) * (kernel - 1) + 1;
    const Wide span = Wide(inputSize) + padBegin + padEnd - effectiveKernel;
    const auto floorDivWide = [](Wide a, Wide b) { return (a >= 0) ? a / b : -((-a + b - 1) / b); };
    Wide size = (ceilMode ? floorDivWide(span + stride - 1, stride) : floorDivWide(span, stride)) + 1;
    if (ceilMode && (size - 1) * stride >= Wide(inputSize) + padBegin) --size;
    if (size < 0) return 0;
    // Only absurd paddings get here; any size that large fails the callers' shape checks anyway.
    if (size > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
    return static_cast<int64_t>(size);
}

std::array<int64_t, 3> regularOutputSize(const RegularWindows &windows, const std::array<int64_t, 3> &input) {
    std::array<int64_t, 3> output{};
    for (int a = 0; a < 3; ++a)
        output[a] = pooledOutputSize(input[a], windows.kernel[a], windows.stride[a], windows.padBegin[a],
                                     windows.padEnd[a], windows.dilation[a], windows.ceilMode);
    return output;
}

int64_t validOutputSize(int64_t input, int64_t kernel, int64_t stride) {
    return std::max<int64_t>(floorDivide(input - kernel, stride) + 1, 0);
}

SameAxis sameAxis(int64_t input, int64_t kernel, int64_t stride) {
    SameAxis axis;
    axis.outputSize = input / stride + (input % stride != 0 ? 1 : 0);
    // 128-bit: kernel and stride are unbounded in the forward.
    const __int128 total = std::max<__int128>(static_cast<__int128>(axis.outputSize - 1) * stride + kernel - input, 0);
    axis.padBegin = static_cast<int64_t>(total / 2);
    return axis;
}

PoolGeometry regularGeometry(const RegularWindows &windows, int64_t batch, int64_t channels,
                             const std::array<int64_t, 3> &input, const std::array<int64_t, 3> &output) {
    PoolGeometry geometry;
    geometry.batch = batch;
    geometry.channels = channels;
    for (int a = 0; a < 3; ++a) {
        WindowAxis &axis = geometry.axes[a];
        axis.inputSize = input[a];
        axis.outputSize = output[a];
        axis.kernel = windows.kernel[a];
        axis.stride = windows.stride[a];
        axis.padBegin = windows.padBegin[a];
        axis.dilation = windows.dilation[a];
    }
    return geometry;
}

PoolGeometry adaptiveGeometry(int64_t batch, int64_t channels, const std::array<int64_t, 3> &input,
                              const std::array<int64_t, 3> &output) {
    PoolGeometry geometry;
    geometry.batch = batch;
    geometry.channels = channels;
    for (int a = 0; a < 3; ++a) {
        geometry.axes[a].adaptive = true;
        geometry.axes[a].inputSize = input[a];
        geometry.axes[a].outputSize = output[a];
    }
    return geometry;
}

}  // namespace poolgrad
