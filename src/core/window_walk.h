// The one walk over pooling windows: the windows of every output coordinate of each axis, tabled once
// when a plan is made, and the visit of a window's input rows and taps in scan order (d, then h, then w),
// the order the selection rules (first strictly greater, last NaN, first match) are defined in.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/pool_geometry.h"

namespace poolgrad {

struct WindowTables {
    std::array<std::vector<AxisWindow>, 3> axes;  // D, H, W: one window per output coordinate

    static WindowTables of(const PoolGeometry &geometry) {
        return {{geometry.axes[0].allWindows(), geometry.axes[1].allWindows(), geometry.axes[2].allWindows()}};
    }
    const AxisWindow &depth(int64_t od) const { return axes[0][static_cast<size_t>(od)]; }
    const AxisWindow &height(int64_t oh) const { return axes[1][static_cast<size_t>(oh)]; }
    const AxisWindow &width(int64_t ow) const { return axes[2][static_cast<size_t>(ow)]; }
};

// visit(d, h) for each input row (d, h) of a window's depth and height windows, in scan order.
template <typename Visit>
inline void forEachWindowRow(const AxisWindow &wd, const AxisWindow &wh, Visit &&visit) {
    for (int64_t jd = 0, d = wd.first; jd < wd.count; ++jd, d += wd.step)
        for (int64_t jh = 0, h = wh.first; jh < wh.count; ++jh, h += wh.step) visit(d, h);
}

// visit(d, h, w) for each tap of a window, in scan order.
template <typename Visit>
inline void forEachWindowTap(const AxisWindow &wd, const AxisWindow &wh, const AxisWindow &ww, Visit &&visit) {
    forEachWindowRow(wd, wh, [&](int64_t d, int64_t h) {
        for (int64_t jw = 0, w = ww.first; jw < ww.count; ++jw, w += ww.step) visit(d, h, w);
    });
}

}  // namespace poolgrad
