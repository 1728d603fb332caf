#include "core/pool_geometry.h"

#include <algorithm>
#include <limits>

#include "core/checked_arithmetic.h"

namespace poolgrad {
namespace {

int64_t saturatedProduct(std::initializer_list<int64_t> factors) {
    return checkedProduct<int64_t>(factors).value_or(std::numeric_limits<int64_t>::max());
}

int64_t floorDiv(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

}  // namespace

int64_t PoolGeometry::planes() const { return saturatedProduct({batch, channels}); }
int64_t PoolGeometry::inputPlaneElements() const {
    return saturatedProduct({axes[0].inputSize, axes[1].inputSize, axes[2].inputSize});
}
int64_t PoolGeometry::outputPlaneElements() const {
    return saturatedProduct({axes[0].outputSize, axes[1].outputSize, axes[2].outputSize});
}

AxisWindow WindowAxis::window(int64_t o) const {
    if (adaptive) {
        // 128-bit products keep the bounds exact for any axis length.
        const auto begin = static_cast<int64_t>((static_cast<__int128>(o) * inputSize) / outputSize);
        const auto end =
            static_cast<int64_t>(((static_cast<__int128>(o) + 1) * inputSize + outputSize - 1) / outputSize);
        return {begin, 1, end - begin};
    }
    const int64_t start = o * stride - padBegin;
    // First and last tap j whose coordinate start + j*dilation lies in [0, inputSize).
    const int64_t firstTap = std::max<int64_t>(0, ceilDiv(-start, dilation));
    const int64_t lastTap = std::min<int64_t>(kernel - 1, floorDiv(inputSize - 1 - start, dilation));
    if (lastTap < firstTap) return {0, dilation, 0};
    const int64_t first = start + firstTap * dilation;
    // Tap walks compute one coordinate past their last tap (first + count*step). A one-tap window of a
    // huge dilation (kernel 1, dilation INT64_MAX is valid) would overflow there, so its step is 0; for
    // several taps windowArithmeticFits() has bounded that coordinate in phase 1.
    if (lastTap == firstTap && first > std::numeric_limits<int64_t>::max() - dilation) return {first, 0, 1};
    return {first, dilation, lastTap - firstTap + 1};
}

std::vector<AxisWindow> WindowAxis::allWindows() const {
    std::vector<AxisWindow> windows(static_cast<size_t>(outputSize));
    for (int64_t o = 0; o < outputSize; ++o) windows[static_cast<size_t>(o)] = window(o);
    return windows;
}

int64_t largestWindowCount(const std::vector<AxisWindow> &windows) {
    int64_t largest = 0;
    for (const AxisWindow &window : windows) largest = std::max(largest, window.count);
    return largest;
}

int64_t largestWindowSpan(const std::vector<AxisWindow> &windows) {
    int64_t largest = 0;
    for (const AxisWindow &window : windows)
        if (window.count > 0) largest = std::max(largest, (window.count - 1) * window.step + 1);
    return largest;
}

CongruentRun largestCongruentRun(const std::vector<AxisWindow> &windows) {
    CongruentRun run;
    run.count = largestWindowCount(windows);
    if (run.count == 0) return {};
    const int64_t size = static_cast<int64_t>(windows.size());
    while (windows[static_cast<size_t>(run.begin)].count != run.count) ++run.begin;
    run.end = size;
    while (windows[static_cast<size_t>(run.end - 1)].count != run.count) --run.end;
    run.step = windows[static_cast<size_t>(run.begin)].step;
    run.stride = run.end - run.begin > 1
                     ? windows[static_cast<size_t>(run.begin + 1)].first - windows[static_cast<size_t>(run.begin)].first
                     : 1;
    for (int64_t o = run.begin; o < run.end; ++o) {
        const AxisWindow &window = windows[static_cast<size_t>(o)];
        if (window.count != run.count || window.step != run.step ||
            window.first != windows[static_cast<size_t>(run.begin)].first + (o - run.begin) * run.stride)
            return {};
    }
    if (run.stride < 1) return {};
    return run;
}

bool WindowAxis::windowsDisjoint() const {
    int64_t previousEnd = 0;
    for (int64_t o = 0; o < outputSize; ++o) {
        const AxisWindow w = window(o);
        if (w.count == 0) continue;
        if (w.first < previousEnd) return false;
        previousEnd = w.first + (w.count - 1) * w.step + 1;
    }
    return true;
}

bool WindowAxis::windowArithmeticFits() const {
    if (adaptive) return true;  // 128-bit bounds
    const std::optional<int64_t> lastStart = checkedMul(std::max<int64_t>(outputSize - 1, 0), stride);
    const std::optional<int64_t> span = checkedMul(kernel - 1, dilation);
    if (!lastStart || !span) return false;
    const std::optional<int64_t> lastEnd = checkedAdd(*lastStart, *span);
    // window() also forms inputSize - 1 - start, largest for the first window (start = -padBegin).
    if (!lastEnd || !checkedSub(*lastEnd, padBegin) || !checkedAdd(inputSize - 1, padBegin)) return false;
    // A window with two taps or more has its last tap below inputSize and its step (the dilation) below
    // inputSize too; walks form one coordinate past the last tap, at most inputSize - 1 + dilation.
    return kernel < 2 || dilation >= inputSize || checkedAdd(inputSize - 1, dilation).has_value();
}

}  // namespace poolgrad
