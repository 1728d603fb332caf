// The check of the kernels that take 2-D planes (one depth plane): the depth axis must be one input plane and one
// output plane whose window is that plane. Sizes alone do not tell: kernel 2, dilation 2 and padding 1 read
// planes -1 and 1, so the one output plane's window holds no input at all (every output -inf, index -1).
#pragma once

#include <optional>
#include <string>

#include "core/pool_geometry.h"

namespace poolgrad::cpu {

// The reason a problem's planes are not one depth plane its depth window covers, naming `what` declines.
inline std::optional<std::string> notOneDepthPlane(const PoolGeometry &geometry, const char *what) {
    const WindowAxis &depth = geometry.axes[0];
    if (depth.inputSize != 1 || depth.outputSize != 1)
        return "the planes are 3-D (depth " + std::to_string(depth.inputSize) + "): " + what + " takes 2-D planes";
    const AxisWindow window = depth.window(0);
    if (window.count != 1 || window.first != 0)
        return std::string("the depth window holds no input plane (padding and dilation step over the one plane): ") +
               what + " takes 2-D planes";
    return std::nullopt;
}

}  // namespace poolgrad::cpu
