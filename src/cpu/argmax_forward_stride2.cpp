// Argmax forward of dense float32 planes whose windows are three wide at stride 2 along W (padding 0 or 1,
// no dilation; any windows along D and H): each input row's per-window winners are found once
// (simd_argmax_stride2: argmaxStride2Row, even and odd columns in vectors) and kept in a small per-thread
// cache, so that an input row shared by consecutive output rows (row 2*oh + 1 of 3-high stride-2
// windows) is searched once; each output row then combines its input rows' winners in scan order
// (combineStride2Rows) and writes its values and INT32/INT64 indices once, straight from the vectors.
// Work items are output rows (n, c, od, oh), so that a few planes still fill every thread.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/cpu_kernels.h"
#include "cpu/simd_argmax_stride2.h"
#include "cpu/simd_rows.h"

namespace poolgrad::cpu {
namespace {

// Whole windows a row needs before the vector search pays: a vector of the widest target (AVX-512's 16
// lanes), so that the choice does not depend on the CPU; narrower rows go to the row search.
constexpr int64_t kLeastWholeWindows = 16;

struct Stride2Plan final : ImplementationPlan {
    WindowTables windows;
    int64_t padLeft = 0;
    int64_t largestRows = 0;  // input rows of the largest window
    int64_t cachedRows = 0;   // row winners kept per thread: the current output row's and the previous one's
    int64_t outputRows = 0;   // work items
    int threads = 1;
    bool streaming = false;

    std::string describe() const override {
        return "stride-2 rows: " + std::to_string(windows.axes[2].size()) + " windows k3 s2 from column " +
               std::to_string(-padLeft) + ", row winners of up to " + std::to_string(largestRows) + " rows combined, " +
               std::to_string(cachedRows) + " cached; " + std::to_string(outputRows) + " output rows on " +
               std::to_string(threads) + " threads" + (streaming ? ", streaming stores" : "");
    }
};

}  // namespace

PlanOutcome planArgmaxForwardStride2(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    if (problem.input.type != ElementType::Float32) return PlanOutcome::decline("values are not float32");
    for (const auto &[role, tensor] : {std::pair{"input", &problem.input}, std::pair{"output", &problem.output},
                                       std::pair{"indices", &problem.indices}})
        if (tensor->present() && !tensor->planesDense())
            return PlanOutcome::decline(std::string(role) + " planes are not dense row-major");
    const WindowAxis &axisW = geometry.axes[2];
    if (axisW.adaptive || axisW.kernel != 3 || axisW.stride != 2 || axisW.dilation != 1 || axisW.padBegin > 1)
        return PlanOutcome::decline("width windows are not 3 wide at stride 2 without dilation, padding 0 or 1");
    Stride2Plan plan;
    plan.windows = WindowTables::of(geometry);
    plan.padLeft = axisW.padBegin;
    const std::vector<AxisWindow> &windowsW = plan.windows.axes[2];
    const int64_t outW = axisW.outputSize, inW = axisW.inputSize;
    int64_t wholeWindows = 0;
    for (int64_t ow = 0; ow < outW; ++ow) {
        // The row pass takes window ow as columns 2*ow - padLeft + {0, 1, 2} clipped to the row, never empty.
        const int64_t first = std::max<int64_t>(2 * ow - plan.padLeft, 0);
        const int64_t last = std::min<int64_t>(2 * ow - plan.padLeft + 2, inW - 1);
        const AxisWindow &window = windowsW[static_cast<size_t>(ow)];
        if (last < first || window.first != first || window.count != last - first + 1 ||
            (window.count > 1 && window.step != 1))
            return PlanOutcome::decline("a width window is empty");
        wholeWindows += window.count == 3;
    }
    if (wholeWindows < kLeastWholeWindows)
        return PlanOutcome::decline("rows of " + std::to_string(wholeWindows) + " whole windows, fewer than " +
                                    std::to_string(kLeastWholeWindows));
    if (geometry.inputPlaneElements() >= (int64_t{1} << 31))
        return PlanOutcome::decline("plane offsets do not fit in 32 bits");
    const std::optional<int64_t> rows =
        checkedMul(largestWindowCount(plan.windows.axes[0]), largestWindowCount(plan.windows.axes[1]));
    // Per thread: the cached rows' winners (value and column per window, and a 24-byte tag) and the row
    // list (two pointers and an offset per row).
    const std::optional<int64_t> cached = rows ? checkedMul<int64_t>(*rows, 2) : std::nullopt;
    const std::optional<int64_t> perCachedRow = checkedAdd<int64_t>(saturatingMul<int64_t>(outW, 8), 24);
    const std::optional<int64_t> cacheBytes =
        cached && perCachedRow ? checkedMul(*cached, *perCachedRow) : std::nullopt;
    const std::optional<int64_t> bytes =
        cacheBytes ? checkedAdd(*cacheBytes, saturatingMul<int64_t>(*rows, 20)) : std::nullopt;
    if (!bytes || *bytes > kScratchBytesPerThread)
        return PlanOutcome::decline(scratchDeclineText("the cached row winners", bytes));
    plan.largestRows = *rows;
    plan.cachedRows = *cached;
    plan.outputRows =
        saturatingMul(geometry.planes(), saturatingMul(geometry.axes[0].outputSize, geometry.axes[1].outputSize));
    const int64_t workPerRow =
        std::max<int64_t>(1, saturatingAdd(geometry.inputPlaneElements(), geometry.outputPlaneElements()) /
                                 std::max<int64_t>(1, geometry.axes[0].outputSize * geometry.axes[1].outputSize));
    plan.threads = plannedThreadCount(plan.outputRows, workPerRow);
    plan.streaming =
        streamingStoresPay(problem.output) || (problem.indices.present() && streamingStoresPay(problem.indices));
    return PlanOutcome::accept(std::move(plan));
}

RunResult runArgmaxForwardStride2(const PoolProblem &problem, const ImplementationPlan &made) {
    const Stride2Plan &plan = planAs<Stride2Plan>(made);
    const PoolGeometry &geometry = problem.geometry;
    const int64_t outD = geometry.axes[0].outputSize, outH = geometry.axes[1].outputSize;
    const int64_t inH = geometry.axes[1].inputSize, inW = geometry.axes[2].inputSize;
    const int64_t outW = geometry.axes[2].outputSize;
    const StridedTensor &in = problem.input, &out = problem.output, &idx = problem.indices;
    const bool withIndices = idx.present(), wide = withIndices && idx.type == ElementType::Int64;
    runBlocksOnThreads(plan.threads, plan.outputRows, [&](int64_t begin, int64_t end) {
        const auto slots = static_cast<size_t>(plan.cachedRows), width = static_cast<size_t>(outW);
        std::vector<float> slotValues(slots * width);
        std::vector<int32_t> slotColumns(withIndices ? slots * width : 0);
        // Which input row (plane, d * inH + h) each slot holds, and the last work item that used it.
        std::vector<int64_t> slotPlane(slots, -1), slotRow(slots, -1), slotUsed(slots, -1);
        const auto largest = static_cast<size_t>(std::max<int64_t>(plan.largestRows, 1));
        std::vector<const float *> rowValues(largest);
        std::vector<const int32_t *> rowColumns(largest, nullptr);
        std::vector<int32_t> rowOffsets(largest);
        int64_t plane = begin / (outD * outH), od = begin / outH % outD, oh = begin % outH;
        for (int64_t item = begin; item < end; ++item) {
            const int64_t n = plane / geometry.channels, c = plane % geometry.channels;
            const float *inPlane = in.plane<const float>(n, c);
            size_t rowCount = 0;
            forEachWindowRow(plan.windows.depth(od), plan.windows.height(oh), [&](int64_t d, int64_t h) {
                const int64_t inputRow = d * inH + h;
                size_t slot = 0;
                while (slot < slots && !(slotPlane[slot] == plane && slotRow[slot] == inputRow)) ++slot;
                if (slot == slots) {  // not cached: the least recently used slot (never one of this item's)
                    slot = static_cast<size_t>(std::min_element(slotUsed.begin(), slotUsed.end()) - slotUsed.begin());
                    slotPlane[slot] = plane;
                    slotRow[slot] = inputRow;
                    const float *row = inPlane + inputRow * inW;
                    if (withIndices)
                        argmaxStride2Row(row, inW, plan.padLeft, outW, &slotValues[slot * width],
                                         &slotColumns[slot * width]);
                    else
                        maxStride2Row(row, inW, plan.padLeft, outW, &slotValues[slot * width]);
                }
                slotUsed[slot] = item;
                rowValues[rowCount] = &slotValues[slot * width];
                if (withIndices) rowColumns[rowCount] = &slotColumns[slot * width];
                rowOffsets[rowCount] = static_cast<int32_t>(inputRow * inW);
                ++rowCount;
            });
            const int64_t q = (od * outH + oh) * outW;  // first output of the row in its plane
            float *values = out.plane<float>(n, c) + q;
            int32_t *indices32 = withIndices && !wide ? idx.plane<int32_t>(n, c) + q : nullptr;
            int64_t *indices64 = wide ? idx.plane<int64_t>(n, c) + q : nullptr;
            if (rowCount > 0) {
                combineStride2Rows(rowValues.data(), rowColumns.data(), rowOffsets.data(),
                                   static_cast<int64_t>(rowCount), outW, values, indices32, indices64, plan.streaming);
            } else {  // dilated depth or height windows wholly in padding: every window is empty
                std::fill_n(values, outW, -std::numeric_limits<float>::infinity());
                if (indices32) std::fill_n(indices32, outW, -1);
                if (indices64) std::fill_n(indices64, outW, -1);
            }
            if (++oh == outH) {
                oh = 0;
                if (++od == outD) {
                    od = 0;
                    ++plane;
                }
            }
        }
    });
    if (plan.streaming) streamingStoreFence();
    return {};
}

}  // namespace poolgrad::cpu
