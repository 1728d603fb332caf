// MaxPoolV3Grad (recompute-argmax backward) for dense float32 2-D planes whose windows move by one row and one
// column (stride 1, no dilation, up to kStride1GatherMostWindows taps but 1x1; Inception's 3x3 branch pooling,
// the 5x5 pyramid pooling of YOLO-style detectors). The dense recompute finds each window's first match and
// adds its gradient into a plane of sums one output at a time; at stride 1 neighbouring windows often share
// their winner, so those adds wait on each other's stores, and that scatter took 63 % of the time (I3-v3 at
// 0.93x PyTorch). Here each output row's first-match positions are computed once (vectorised across the
// windows wholly inside the row, simd_rows.h firstMatchPositions; the clipped ones at the edges one by one)
// into the stride-1 gathers' ring of padded rows, and each input row is then made once, in registers, from the
// output rows whose windows reach it (stride1_gather_blocks.h), the sums in increasing output order from +0
// as the contract orders them. The input rows are searched in a copy padded with NaN, so that the clipped
// windows at the edges take the vector search too (searched one by one they took 38 % of S5-v3's time).
// Positions are the window's own elements or negative, so nothing is ever handed over. 3x3 windows have their
// own search (firstMatchPositionsThreeByThree: the general one walked its taps' positions with a vector add each
// and took 40 % of I3-v3's time in cache, the 3x3 one half of that).
#include <algorithm>
#include <limits>
#include <cstring>
#include <string>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/error_message.h"
#include "core/threading.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dense_planes.h"
#include "cpu/simd_rows.h"
#include "cpu/stride1_gather_blocks.h"

namespace poolgrad::cpu {
namespace {

struct RecomputeStride1Plan final : ImplementationPlan {
    Stride1GatherLayout layout;
    // The input rows are copied with NaN columns around them (NaN equals nothing), paddedWidth floats a row,
    // output column ow's window starting at column ow: every window is then searched by the vector code, and
    // positions count in the padded plane (row * paddedWidth + column), as the gather is told. NaN rows above
    // (padTop of them) and below give 3x3 windows their three rows everywhere; paddedFloats in all.
    int64_t paddedWidth = 0, paddedFloats = 0;
    // 3x3 windows: firstMatchPositionsThreeByThree, its taps unrolled.
    bool threeByThree = false;
    int64_t rowBlocks = 1, items = 0;
    int threads = 1;
    bool streaming = false;

    std::string describe() const override {
        return joinText("stride-1 first matches", threeByThree ? " (3x3 taps unrolled)" : "", " gathered, ",
                        layout.describe(), streaming ? ", streaming stores" : "", "; ", rowBlocks,
                        rowBlocks == 1 ? " block" : " blocks", " of input rows per plane, ", items, " items on ",
                        threads, " threads");
    }
};

}  // namespace

PlanOutcome planRecomputeArgmaxBackwardStride1(const PoolProblem &problem) {
    if (problem.input.type != ElementType::Float32)
        return PlanOutcome::decline(joinText(elementTypeName(problem.input.type),
                                             " planes: the dense recompute widens them whole"));
    if (std::optional<std::string> reason = recomputePlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    const PoolGeometry &geometry = problem.geometry;
    RecomputeStride1Plan plan;
    if (std::optional<std::string> reason = stride1GatherLayoutOf(geometry, plan.layout))
        return PlanOutcome::decline(*reason);
    const int64_t H = plan.layout.planeHeight;
    plan.threeByThree = plan.layout.height.kernel == 3 && plan.layout.width.kernel == 3;
    plan.paddedWidth = std::max(plan.layout.planeWidth + plan.layout.width.pad,
                                plan.layout.outputWidth + plan.layout.width.kernel - 1);
    // Output row oh's windows read rows oh - padTop + [0, kernelHeight).
    const int64_t bottomRows =
        std::max<int64_t>(plan.layout.outputHeight - plan.layout.height.pad + plan.layout.height.kernel - 1 - H, 0);
    const std::optional<int64_t> paddedElements = checkedMul(plan.layout.height.pad + H + bottomRows, plan.paddedWidth);
    // Positions count from input row 0, from -padTop rows to past the last row, plus a vector's overrun.
    if (!paddedElements || *paddedElements + 2 * kThreeByThreeMostLanes >= (int64_t{1} << 29))
        return PlanOutcome::decline("padded planes whose positions do not fit in 30 bits");
    plan.paddedFloats = *paddedElements + 2 * kThreeByThreeMostLanes;
    if (plan.paddedFloats * 4 > kScratchBytesPerThread)
        return PlanOutcome::decline(scratchDeclineText("a padded copy of the input plane", plan.paddedFloats * 4));
    const PlaneRowBlocks split =
        planeRowBlocks(geometry.planes(), plan.layout.planeHeight,
                       saturatingAdd(geometry.inputPlaneElements(), geometry.outputPlaneElements()));
    plan.rowBlocks = split.rowBlocks;
    plan.items = split.items;
    plan.threads = split.threads;
    plan.streaming = streamingStoresPay(problem.gradInput, plan.layout.planeWidth);
    return PlanOutcome::accept(std::move(plan));
}

RunResult runRecomputeArgmaxBackwardStride1(const PoolProblem &problem, const ImplementationPlan &madePlan) {
    const RecomputeStride1Plan &plan = planAs<RecomputeStride1Plan>(madePlan);
    const PoolGeometry &geometry = problem.geometry;
    const Stride1GatherLayout &layout = plan.layout;
    const int64_t H = layout.planeHeight, W = layout.planeWidth, Ho = layout.outputHeight, Wo = layout.outputWidth;
    const int64_t Wp = plan.paddedWidth, padLeft = layout.width.pad;
    // The gather sees rows Wp wide whose element w sits at padded column w + padLeft: its rows' positions start
    // there, and window d of column w is output column w + padLeft - d as before.
    runBlocksOnThreads(
        plan.threads, plan.items, fencingStreamingStores(plan.streaming, [&](int64_t begin, int64_t end) {
            PaddedRowRing ring(layout);
            std::vector<float> padded(static_cast<size_t>(plan.paddedFloats), std::numeric_limits<float>::quiet_NaN());
            float *paddedPlane = padded.data() + layout.height.pad * Wp;  // input row 0
            for (int64_t item = begin; item < end; ++item) {
                const int64_t plane = item / plan.rowBlocks, block = item % plan.rowBlocks;
                const int64_t n = plane / geometry.channels, c = plane % geometry.channels;
                const float *input = problem.input.plane<const float>(n, c);
                const float *targets = problem.output.plane<const float>(n, c);
                const float *gradients = problem.gradOutput.plane<const float>(n, c);
                const int64_t firstRow = H * block / plan.rowBlocks, endRow = H * (block + 1) / plan.rowBlocks;
                // The input rows the windows of the block's output rows cover (one output row ahead included).
                const int64_t lowestOutput =
                    std::max<int64_t>(firstRow + layout.height.pad - layout.height.kernel + 1, 0);
                const int64_t highestOutput = std::min<int64_t>(endRow + layout.height.pad, Ho - 1);
                const int64_t firstCopied = std::max<int64_t>(lowestOutput - layout.height.pad, 0);
                const int64_t lastCopied =
                    std::min<int64_t>(highestOutput - layout.height.pad + layout.height.kernel - 1, H - 1);
                for (int64_t h = firstCopied; h <= lastCopied; ++h)
                    std::memcpy(paddedPlane + h * Wp + padLeft, input + h * W, static_cast<size_t>(W) * sizeof(float));
                const auto fillRow = [&](int64_t oh, int32_t *positions, float *gradientCopy) {
                    if (plan.threeByThree) {
                        const int64_t windowRow = oh - layout.height.pad;
                        firstMatchPositionsThreeByThree(paddedPlane + windowRow * Wp, Wp,
                                                        static_cast<int32_t>(windowRow * Wp), targets + oh * Wo,
                                                        positions, Wo);
                    } else {
                        const int64_t windowFirstRow = std::max<int64_t>(oh - layout.height.pad, 0);
                        const int64_t windowLastRow =
                            std::min<int64_t>(oh - layout.height.pad + layout.height.kernel - 1, H - 1);
                        firstMatchPositions(paddedPlane, Wp, windowFirstRow, windowLastRow - windowFirstRow + 1, 0, 1,
                                            layout.width.kernel, targets + oh * Wo, positions, Wo);
                    }
                    std::memcpy(gradientCopy, gradients + oh * Wo, static_cast<size_t>(Wo) * sizeof(float));
                };
                gatherStride1Block(layout, firstRow, endRow, Wp, padLeft, ring, problem.gradInput.plane<float>(n, c),
                                   plan.streaming, fillRow);
            }
        }));
    return {};
}

}  // namespace poolgrad::cpu
