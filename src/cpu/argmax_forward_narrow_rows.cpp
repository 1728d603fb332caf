// Argmax forward of dense float32 planes whose rows fit in one vector (W and Wo at most the vector's lanes:
// 7x7 to 16x16 maps, adaptive pooling to a few outputs), one output row (n, c, od, oh) at a time: each
// input row of the window is one vector of its W columns, so a row costs one load, one compare and one
// blend however many windows it feeds; lane permutations then give each window its columns' winners
// (simd_argmax_narrow_rows.h). The search across windows (argmax_forward_dense_rows.cpp) would fill only
// Wo lanes of its vectors and, for adaptive windows, take a gathered load per window position: on the demo's
// adaptive layer (rows of 8, two windows four wide) that was several times slower than PyTorch.
//
// Windows come from the geometry's window tables (clipped to the input), so padding, dilation, ceil mode and
// adaptive windows of different sizes need no special case: a padding column is never a tap.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/error_message.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dense_planes.h"
#include "cpu/simd_argmax_narrow_rows.h"

namespace poolgrad::cpu {
namespace {

struct NarrowRowsPlan final : ImplementationPlan {
    NarrowRowTables row;
    NarrowRowWindows windows;  // each output row's input rows, for every plane
    int64_t largestRows = 0;   // input rows of the largest window
    int64_t rowsPerPlane = 0;  // output rows Do * Ho
    int64_t outputRows = 0;    // work items: rowsPerPlane per plane
    int threads = 1;

    std::string describe() const override {
        return joinText("column vectors: rows of ", row.width, " in ", row.lanes, " lanes, ", row.outputs,
                        " windows of up to ", row.taps, " columns, up to ", largestRows, " rows; ", outputRows,
                        " output rows on ", threads, " threads");
    }
};

// The offsets table is planned once for all planes; past this many entries (a few very tall or deep
// windows) the row search takes the problem.
constexpr int64_t kMostRowOffsets = kScratchBytesPerThread / static_cast<int64_t>(sizeof(int32_t));

}  // namespace

PlanOutcome planArgmaxForwardNarrowRows(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    if (problem.input.type != ElementType::Float32) return PlanOutcome::decline("values are not float32");
    if (std::optional<std::string> reason = forwardPlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    const int64_t lanes = argmaxNarrowRowLanes();
    const int64_t width = geometry.axes[2].inputSize, outputs = geometry.axes[2].outputSize;
    if (width > lanes || outputs > lanes)
        return PlanOutcome::decline(joinText("rows of ", width, " columns and ", outputs,
                                             " windows do not fit in one vector of ", lanes, " lanes"));
    // Positions live in int32 lanes, and int32's largest value marks a window with no element yet.
    if (geometry.inputPlaneElements() >= std::numeric_limits<int32_t>::max())
        return PlanOutcome::decline("plane positions do not fit in 32 bits");
    NarrowRowsPlan plan;
    const WindowTables windows = WindowTables::of(geometry);
    plan.rowsPerPlane = geometry.axes[0].outputSize * geometry.axes[1].outputSize;  // about D * H < 2^31
    if (plan.rowsPerPlane > kMostRowOffsets)
        return PlanOutcome::decline(
            joinText(plan.rowsPerPlane, " output rows per plane, more than ", kMostRowOffsets, " to plan"));
    std::optional<int64_t> offsetCount = int64_t{0};
    for (int64_t od = 0; od < geometry.axes[0].outputSize && offsetCount && *offsetCount <= kMostRowOffsets; ++od)
        for (int64_t oh = 0; oh < geometry.axes[1].outputSize && offsetCount && *offsetCount <= kMostRowOffsets; ++oh)
            offsetCount = checkedAdd(*offsetCount, windows.depth(od).count * windows.height(oh).count);
    if (!offsetCount || *offsetCount > kMostRowOffsets)
        return PlanOutcome::decline(
            joinText("the input rows of all output rows make more than ", kMostRowOffsets, " offsets to plan"));
    plan.windows.start.reserve(static_cast<size_t>(plan.rowsPerPlane + 1));
    plan.windows.offsets.reserve(static_cast<size_t>(*offsetCount));
    plan.windows.start.push_back(0);
    for (int64_t od = 0; od < geometry.axes[0].outputSize; ++od)
        for (int64_t oh = 0; oh < geometry.axes[1].outputSize; ++oh) {
            forEachWindowRow(windows.depth(od), windows.height(oh), [&](int64_t d, int64_t h) {
                plan.windows.offsets.push_back(static_cast<int32_t>((d * geometry.axes[1].inputSize + h) * width));
            });
            const int64_t rows = static_cast<int64_t>(plan.windows.offsets.size()) - plan.windows.start.back();
            plan.largestRows = std::max(plan.largestRows, rows);
            plan.windows.start.push_back(static_cast<int64_t>(plan.windows.offsets.size()));
        }

    NarrowRowTables &row = plan.row;
    row.lanes = lanes;
    row.width = width;
    row.outputs = outputs;
    row.taps = largestWindowCount(windows.axes[2]);  // at most W: the windows are clipped to the row
    row.tapColumns.assign(static_cast<size_t>(row.taps * lanes), 0);
    row.tapLanes.assign(static_cast<size_t>(row.taps), 0);
    for (int64_t ow = 0; ow < outputs; ++ow) {
        const AxisWindow &window = windows.width(ow);
        for (int64_t tap = 0; tap < window.count; ++tap) {
            row.tapColumns[static_cast<size_t>(tap * lanes + ow)] =
                static_cast<int32_t>(window.first + tap * window.step);
            row.tapLanes[static_cast<size_t>(tap)] |= uint64_t{1} << ow;
        }
    }
    plan.outputRows = saturatingMul(geometry.planes(), plan.rowsPerPlane);
    const int64_t workPerRow =
        std::max<int64_t>(1, saturatingAdd(geometry.inputPlaneElements(), geometry.outputPlaneElements()) /
                                 std::max<int64_t>(1, geometry.axes[0].outputSize * geometry.axes[1].outputSize));
    plan.threads = plannedThreadCount(plan.outputRows, workPerRow);
    return PlanOutcome::accept(std::move(plan));
}

RunResult runArgmaxForwardNarrowRows(const PoolProblem &problem, const ImplementationPlan &made) {
    const NarrowRowsPlan &plan = planAs<NarrowRowsPlan>(made);
    const PoolGeometry &geometry = problem.geometry;
    const StridedTensor &in = problem.input, &out = problem.output, &idx = problem.indices;
    const bool wide = idx.present() && idx.type == ElementType::Int64;
    const int64_t rowsPerPlane = plan.rowsPerPlane;
    runBlocksOnThreads(plan.threads, plan.outputRows, [&](int64_t begin, int64_t end) {
        // The block's output rows, a plane at a time.
        for (int64_t item = begin; item < end;) {
            const int64_t plane = item / rowsPerPlane, firstRow = item % rowsPerPlane;
            const int64_t endRow = std::min(rowsPerPlane, firstRow + (end - item));
            const int64_t n = plane / geometry.channels, c = plane % geometry.channels;
            argmaxNarrowRows(plan.row, plan.windows, in.plane<const float>(n, c), firstRow, endRow,
                             out.plane<float>(n, c), idx.present() && !wide ? idx.plane<int32_t>(n, c) : nullptr,
                             wide ? idx.plane<int64_t>(n, c) : nullptr);
            item += endRow - firstRow;
        }
    });
    return {};
}

}  // namespace poolgrad::cpu
