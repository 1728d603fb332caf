// Argmax forward of dense float32 planes whose windows are three wide at stride 2 along W (padding 0 or 1,
// no dilation; any windows along D and H; dispatched for 3-D inputs up to 4 MiB, with indices): a block of output rows
// in order, a vector of whole windows at a time (simd_argmax_stride2: argmaxStride2Rows), each input row's winners
// found from its even and odd columns and carried to the next output row that shares the row; values and INT32/INT64
// indices written once, straight from the vectors. The clipped edge windows (the first with padding 1, the last when
// the row ends inside it) are searched one by one. Work items are blocks of output rows of a plane, enough blocks that
// a few planes still fill every thread.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dense_planes.h"
#include "cpu/simd_argmax_stride2.h"

namespace poolgrad::cpu {
namespace {

// Whole windows a row needs before the vector search pays: a vector of the widest target (AVX-512's 16
// lanes), so that the choice does not depend on the CPU; narrower rows go to the row search.
constexpr int64_t kLeastWholeWindows = 16;
constexpr int64_t kLargestInputBytes = int64_t{4} << 20;

struct Stride2Plan final : ImplementationPlan {
    WindowTables windows;
    int64_t padLeft = 0;
    int64_t wholeBegin = 0, wholeEnd = 0;  // the whole windows of a row
    int64_t rowBlocks = 1;                 // work items per plane
    int64_t items = 0;
    int threads = 1;

    std::string describe() const override {
        return "stride-2 vectors: " + std::to_string(windows.axes[2].size()) + " windows k3 s2 from column " +
               std::to_string(-padLeft) + ", whole " + std::to_string(wholeBegin) + ".." +
               std::to_string(wholeEnd - 1) + ", row winners carried down " + std::to_string(rowBlocks) +
               (rowBlocks == 1 ? " block" : " blocks") + " of output rows per plane; " + std::to_string(items) +
               " items on " + std::to_string(threads) + " threads";
    }
};

}  // namespace

PlanOutcome planArgmaxForwardStride2(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    if (problem.input.type != ElementType::Float32) return PlanOutcome::decline("values are not float32");
    if (std::optional<std::string> reason = forwardPlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    const WindowAxis &axisW = geometry.axes[2];
    // Adaptive width windows qualify when they come out the same (input 2 * output + 1): the table decides.
    if (!axisW.adaptive && (axisW.kernel != 3 || axisW.stride != 2 || axisW.dilation != 1 || axisW.padBegin > 1))
        return PlanOutcome::decline("width windows are not 3 wide at stride 2 without dilation, padding 0 or 1");
    Stride2Plan plan;
    plan.windows = WindowTables::of(geometry);
    plan.padLeft = axisW.adaptive ? 0 : axisW.padBegin;
    const std::vector<AxisWindow> &windowsW = plan.windows.axes[2];
    const int64_t outW = axisW.outputSize, inW = axisW.inputSize;
    int64_t wholeWindows = 0;
    for (int64_t ow = 0; ow < outW; ++ow) {
        // The vectors take window ow as columns 2*ow - padLeft + {0, 1, 2} clipped to the row, never empty.
        const int64_t first = std::max<int64_t>(2 * ow - plan.padLeft, 0);
        const int64_t last = std::min<int64_t>(2 * ow - plan.padLeft + 2, inW - 1);
        const AxisWindow &window = windowsW[static_cast<size_t>(ow)];
        if (last < first || window.first != first || window.count != last - first + 1 ||
            (window.count > 1 && window.step != 1))
            return PlanOutcome::decline("width windows are not 3 wide at stride 2 without dilation, padding 0 or 1");
        wholeWindows += window.count == 3;
    }
    if (wholeWindows < kLeastWholeWindows)
        return PlanOutcome::decline("rows of " + std::to_string(wholeWindows) + " whole windows, fewer than " +
                                    std::to_string(kLeastWholeWindows));
    if (geometry.inputPlaneElements() >= (int64_t{1} << 31))
        return PlanOutcome::decline("plane offsets do not fit in 32 bits");
    plan.wholeBegin = plan.padLeft;
    plan.wholeEnd = plan.wholeBegin + wholeWindows;
    // Blocks cut the carried rows only at their ends.
    const PlaneRowBlocks split =
        planeRowBlocks(geometry.planes(), saturatingMul(geometry.axes[0].outputSize, geometry.axes[1].outputSize),
                       saturatingAdd(geometry.inputPlaneElements(), geometry.outputPlaneElements()));
    plan.rowBlocks = split.rowBlocks;
    plan.items = split.items;
    plan.threads = split.threads;
    // No streaming stores: a vector of windows goes down the output rows, whose width is rarely a multiple
    // of a vector, and streaming stores leave misaligned vectors (and their lines) half cached (measured: D-fwd
    // twice as slow with them).
    // Measured on the AMD EPYC Zen 4 host, 1 thread: from caches at least as fast as the row search (3-D
    // 3x3x3 about a fifth faster, 2-D 3x3 the same), from DRAM a quarter to a third slower (D-fwd 7.7 vs
    // 5.8 ms, B-fwd 2.5 vs 2.3 ms). Inputs over 4 MiB pass to the row search unless this entry is forced,
    // so that the bench keeps measuring both there (Intel Xeon AVX-512 host, D-fwd: the same within noise).
    // 2-D problems (windows one plane deep; every values-only forward is one) pass to the row search, as fast
    // on the Zen 4 host (D-fwd-cache 0.092 against 0.089 ms) and faster on the Intel Xeon AVX-512 host
    // (Sapphire Rapids class, L2 2 MiB, L3 105 MiB), ms warm median, one / two threads: with indices
    // D-fwd-cache 0.096-0.161 / 0.058-0.091 against 0.116-0.189 / 0.076-0.111 (1.16-1.31x); values only,
    // where it takes column maxima (half this entry's vector work), D-v3-fwd-cache 0.085-0.092 /
    // 0.049-0.054 against 0.187-0.214 / 0.104-0.109, 32 planes of 112x112 0.17 / 0.085 against 0.32 / 0.16.
    // 3-D 3x3x3 windows stay here: a fifth faster on Zen 4 (B-fwd-cache), even on the Xeon.
    if (largestWindowCount(plan.windows.axes[0]) <= 1)
        return PlanOutcome::slowerThanLater(std::move(plan),
                                            "windows one plane deep (2-D): the row search measured as fast or faster");
    const int64_t inputBytes =
        saturatingMul<int64_t>(saturatingMul(geometry.planes(), geometry.inputPlaneElements()), 4);
    if (inputBytes > kLargestInputBytes) {
        std::string reason = "an input of " + std::to_string(inputBytes) + " bytes, over " +
                             std::to_string(kLargestInputBytes) + ": the row search is faster from DRAM";
        return PlanOutcome::slowerThanLater(std::move(plan), std::move(reason));
    }
    return PlanOutcome::accept(std::move(plan));
}

namespace {

// Clipped window ow of one output row, element by element with the selection rule.
void searchClippedWindow(const float *plane, int64_t inH, int64_t inW, const AxisWindow &wd, const AxisWindow &wh,
                         const AxisWindow &ww, float &value, int64_t &index) {
    value = -std::numeric_limits<float>::infinity();
    index = -1;
    forEachWindowTap(wd, wh, ww, [&](int64_t d, int64_t h, int64_t w) {
        const int64_t at = (d * inH + h) * inW + w;
        if (index < 0 || plane[at] > value || std::isnan(plane[at])) {  // the first tap, then the rule
            value = plane[at];
            index = at;
        }
    });
}

}  // namespace

RunResult runArgmaxForwardStride2(const PoolProblem &problem, const ImplementationPlan &made) {
    const Stride2Plan &plan = planAs<Stride2Plan>(made);
    const PoolGeometry &geometry = problem.geometry;
    const int64_t outD = geometry.axes[0].outputSize, outH = geometry.axes[1].outputSize;
    const int64_t inH = geometry.axes[1].inputSize, inW = geometry.axes[2].inputSize;
    const int64_t outW = geometry.axes[2].outputSize;
    const int64_t outputRows = outD * outH;
    const StridedTensor &in = problem.input, &out = problem.output, &idx = problem.indices;
    const bool withIndices = idx.present(), wide = withIndices && idx.type == ElementType::Int64;
    runBlocksOnThreads(plan.threads, plan.items, [&](int64_t begin, int64_t end) {
        for (int64_t item = begin; item < end; ++item) {
            const int64_t plane = item / plan.rowBlocks, block = item % plan.rowBlocks;
            const int64_t n = plane / geometry.channels, c = plane % geometry.channels;
            Stride2Rows job{};
            job.plane = in.plane<const float>(n, c);
            job.inputHeight = inH;
            job.inputWidth = inW;
            job.depthWindows = plan.windows.axes[0].data();
            job.heightWindows = plan.windows.axes[1].data();
            job.outputHeight = outH;
            job.outputWidth = outW;
            job.padLeft = plan.padLeft;
            job.wholeBegin = plan.wholeBegin;
            job.wholeEnd = plan.wholeEnd;
            job.firstRow = outputRows * block / plan.rowBlocks;
            job.endRow = outputRows * (block + 1) / plan.rowBlocks;
            job.values = out.plane<float>(n, c);
            job.indices32 = withIndices && !wide ? idx.plane<int32_t>(n, c) : nullptr;
            job.indices64 = wide ? idx.plane<int64_t>(n, c) : nullptr;
            job.streaming = false;
            argmaxStride2Rows(job);
            for (int64_t row = job.firstRow; row < job.endRow; ++row) {
                const AxisWindow &wd = plan.windows.depth(row / outH), &wh = plan.windows.height(row % outH);
                for (int64_t ow = 0; ow < outW; ++ow) {
                    if (ow == plan.wholeBegin) ow = plan.wholeEnd;
                    if (ow >= outW) break;
                    float value;
                    int64_t index;
                    searchClippedWindow(job.plane, inH, inW, wd, wh, plan.windows.width(ow), value, index);
                    const int64_t q = row * outW + ow;
                    job.values[q] = value;
                    if (job.indices32) job.indices32[q] = static_cast<int32_t>(index);
                    if (job.indices64) job.indices64[q] = index;
                }
            }
        }
    });
    return {};
}

}  // namespace poolgrad::cpu
