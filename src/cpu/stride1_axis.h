// The plan checks shared by the stride-1 kernels (the separable forwards, the stride-1 gather backward): an axis
// whose windows move by one without dilation, o - pad + [0, kernel) clipped to the input, described by its
// kernel and leading padding.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/pool_geometry.h"
#include "core/window_walk.h"
#include "cpu/one_depth_plane.h"

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

// The height and width axes of a problem whose 2-D planes (one depth plane) take windows moving by 1 along both,
// not 1x1: the stride-1 forwards' common check, or the reason they decline the problem.
inline std::optional<std::string> stride1ForwardAxesOf(const PoolGeometry &geometry, Stride1Axis &height,
                                                       Stride1Axis &width) {
    if (std::optional<std::string> reason = notOneDepthPlane(geometry, "this search")) return reason;
    const WindowTables windows = WindowTables::of(geometry);
    if (std::optional<std::string> reason = stride1AxisOf(geometry.axes[1], windows.axes[1], "height", height))
        return reason;
    if (std::optional<std::string> reason = stride1AxisOf(geometry.axes[2], windows.axes[2], "width", width))
        return reason;
    if (height.kernel == 1 && width.kernel == 1) return std::string("1x1 windows: a copy, not a search");
    return std::nullopt;
}

}  // namespace poolgrad::cpu
