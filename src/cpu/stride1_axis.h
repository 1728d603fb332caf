// The plan check shared by the stride-1 kernels (the separable forward, the stride-1 gather backward): an axis
// whose windows move by one without dilation, o - pad + [0, kernel) clipped to the input, described by its
// kernel and leading padding.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/pool_geometry.h"

namespace poolgrad::cpu {

// The kernel and leading padding of an axis whose windows move by 1 without dilation.
struct Stride1Axis {
    int64_t kernel = 1, pad = 0;
};

// Whether an axis's windows are o - pad + [0, kernel) clipped to the input, never empty (adaptive windows qualify
// when they come out that way: input one longer than the output gives windows two wide at stride 1): the decline
// reason when not, else its kernel and padding in `axisOut`.
inline std::optional<std::string> stride1AxisOf(const WindowAxis &axis, const std::vector<AxisWindow> &windows,
                                                const char *name, Stride1Axis &axisOut) {
    const std::string reason = std::string(name) + " windows do not move by 1 without dilation";
    if (axis.adaptive) {
        axisOut = {windows.empty() ? 0 : windows[0].count, 0};
    } else {
        if (axis.stride != 1 || axis.dilation != 1) return reason;
        axisOut = {axis.kernel, axis.padBegin};
    }
    for (int64_t o = 0; o < axis.outputSize; ++o) {
        const int64_t first = std::max<int64_t>(o - axisOut.pad, 0);
        const int64_t last = std::min<int64_t>(o - axisOut.pad + axisOut.kernel - 1, axis.inputSize - 1);
        const AxisWindow &window = windows[static_cast<size_t>(o)];
        if (last < first || window.first != first || window.count != last - first + 1 ||
            (window.count > 1 && window.step != 1))
            return axis.adaptive ? reason : std::string(name) + " window " + std::to_string(o) +
                                                " is not the kernel's clipped run";
    }
    return std::nullopt;
}

}  // namespace poolgrad::cpu
