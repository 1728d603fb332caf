// MaxPoolV3Grad (recompute-argmax backward) at stride 1 on small dense float32 2-D planes (the 5x5 pyramid pooling
// of YOLO-style detectors on 20x20 maps), its first matches taken from the flat separable argmax search of the
// stride-1 forward (simd_argmax_stride1_flat.h). cpu_recompute_argmax_backward_stride1 compares every tap of every
// window with the window's target (25 compares an output under 5x5 windows, 20 windows a row in two vectors of 16)
// and gathers every element from the 25 windows that contain it: S5-v3 took twice the time of a forward and an index
// backward together. Here:
//
// - The search finds each window's winner with kernelWidth + kernelHeight compares, and a winner is the window's
//   first match whenever it equals the target: the search keeps the first of equal values in scan order (-0 and +0
//   included), so when the target equals the winning value the first element equal to the target is the winner
//   (float equality among non-NaN values is transitive). Windows whose target differs from their winner (a NaN in
//   the window, a target that is not the window's maximum) are searched again element by element in scan order.
// - Whole planes (one item each, where there are planes enough for the threads) send each output's gradient to its
//   position in a per-thread plane of float32 sums from +0, outputs in increasing order: one add an output where the
//   gather pays one compare and one add per window an element lies in. Where windows share their winner, each add
//   waits on the previous one's store, so the adds of several planes are interleaved (kInterleavedPlanes), each
//   plane's own in order. The sums are then written out once (streaming past the caches when gradInput is large).
// - Planes cut into blocks of input rows (few planes for the threads) go through the stride-1 gathers' ring
//   (stride1_gather_blocks.h) as in cpu_recompute_argmax_backward_stride1: each input row made once from the
//   windows that reach it, sums from +0 in increasing output order.
//
// Wider rows stay with cpu_recompute_argmax_backward_stride1: through the row-by-row separable search (Inception's
// 3x3 on 56x56, 3.6 ms against 3.0 ms on two threads) and through the scatter (4.2 ms) it was slower.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/error_message.h"
#include "core/gradient_sum.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dense_planes.h"
#include "cpu/simd_argmax_stride1_flat.h"
#include "cpu/simd_rows.h"
#include "cpu/stride1_flat_layout.h"
#include "cpu/stride1_gather_blocks.h"

namespace poolgrad::cpu {
namespace {

// Planes whose scatters run interleaved: four chains of dependent adds hide an add's wait on the store before it
// (S5-v3, one thread: one plane at a time 2.1 ms, four 1.8-1.9 ms).
constexpr int64_t kInterleavedPlanes = 4;

struct SeparableStride1Plan final : ImplementationPlan {
    Stride1GatherLayout layout;
    Stride1FlatLayout flatLayout;
    bool scatter = false;  // whole planes a work item, sent by the scatter; else blocks of input rows gathered
    int64_t rowBlocks = 1, items = 0;
    int threads = 1;
    bool streaming = false;

    std::string describe() const override {
        return joinText("stride-1 flat window winners checked against origOutput, rows ", flatLayout.paddedWidth,
                        " floats apart, ",
                        scatter ? joinText(layout.height.kernel, "x", layout.width.kernel, " windows from padding ",
                                           layout.height.pad, ",", layout.width.pad, ", scattered ",
                                           kInterleavedPlanes, " planes interleaved")
                                : joinText("gathered, ", layout.describe()),
                        streaming ? ", streaming stores" : "", "; ", rowBlocks, rowBlocks == 1 ? " block" : " blocks",
                        " of input rows per plane, ", items, " items on ", threads, " threads");
    }
};

// The first element of output (oh, ow)'s window equal to target, in scan order, as a plane position; -1 for none.
int32_t firstMatchInWindow(const Stride1GatherLayout &layout, const float *input, int64_t oh, int64_t ow,
                           float target) {
    const int64_t H = layout.planeHeight, W = layout.planeWidth;
    const int64_t firstRow = std::max<int64_t>(oh - layout.height.pad, 0);
    const int64_t lastRow = std::min<int64_t>(oh - layout.height.pad + layout.height.kernel - 1, H - 1);
    const int64_t firstColumn = std::max<int64_t>(ow - layout.width.pad, 0);
    const int64_t lastColumn = std::min<int64_t>(ow - layout.width.pad + layout.width.kernel - 1, W - 1);
    for (int64_t r = firstRow; r <= lastRow; ++r)
        for (int64_t column = firstColumn; column <= lastColumn; ++column)
            if (input[r * W + column] == target) return static_cast<int32_t>(r * W + column);
    return -1;
}

// One plane's operands and per-thread arrays for the scatter.
struct ScatterPlane {
    const float *input, *targets, *gradients;
    int32_t *positions;  // the window winners', then kRecheck where the winner is not the target
    float *sums;
};

// Marks a window whose winner's value is not its target: its first match is searched element by element. The
// search names elements of the window only, never a negative position.
constexpr int32_t kRecheck = -1;

// Replaces the positions of winners that differ from their targets by kRecheck (one vector pass, so that the
// loops sending gradients do one test an output).
void markWinnersThatAreNotTargets(const float *__restrict values, const float *__restrict targets,
                                  int32_t *__restrict positions, int64_t count) {
    for (int64_t o = 0; o < count; ++o) positions[o] = values[o] == targets[o] ? positions[o] : kRecheck;
}

// The first match of flat output o, whose position was marked kRecheck: searched element by element; -1 for none.
int32_t recheckedFirstMatch(const Stride1GatherLayout &layout, const float *input, const float *targets, int64_t o) {
    return firstMatchInWindow(layout, input, o / layout.outputWidth, o % layout.outputWidth, targets[o]);
}

// Adds every output's gradient of kPlanes planes into their sums, outputs in increasing order in each plane and the
// planes' adds interleaved.
template <int kPlanes>
void scatterInterleaved(const Stride1GatherLayout &layout, const ScatterPlane *planeList) {
    const int64_t outputs = layout.outputHeight * layout.outputWidth;
    ScatterPlane planes[kPlanes];
    for (int k = 0; k < kPlanes; ++k) planes[k] = planeList[k];
    for (int64_t o = 0; o < outputs; ++o)
        for (int k = 0; k < kPlanes; ++k) {
            const ScatterPlane &plane = planes[k];
            int32_t position = plane.positions[o];
            if (position == kRecheck) [[unlikely]] {
                position = recheckedFirstMatch(layout, plane.input, plane.targets, o);
                if (position < 0) continue;
            }
            plane.sums[position] = addToSum(plane.sums[position], plane.gradients[o]);
        }
}

void scatterPlanes(const Stride1GatherLayout &layout, const ScatterPlane *planes, int64_t count) {
    static_assert(kInterleavedPlanes == 4);
    switch (count) {
        case 4:
            return scatterInterleaved<4>(layout, planes);
        case 3:
            return scatterInterleaved<3>(layout, planes);
        case 2:
            return scatterInterleaved<2>(layout, planes);
        default:
            return scatterInterleaved<1>(layout, planes);
    }
}

// Output rows [firstRow, endRow) of one plane's first matches (arrays of the output plane's shape): the window
// winners' positions, kRecheck where the winner is not the target (values: the winners' values).
void searchFirstMatches(const SeparableStride1Plan &plan, Stride1FlatScratch &scratch, const float *input,
                        const float *targets, int64_t firstRow, int64_t endRow, float *values, int32_t *positions) {
    const Stride1GatherLayout &layout = plan.layout;
    Stride1FlatJob job = scratch.job(plan.flatLayout, input);
    job.outputWidth = layout.outputWidth;
    job.kernelHeight = layout.height.kernel;
    job.kernelWidth = layout.width.kernel;
    job.padTop = layout.height.pad;
    job.padLeft = layout.width.pad;
    job.firstRow = firstRow;
    job.endRow = endRow;
    job.values = values;
    job.indices32 = positions;
    argmaxStride1Flat(job);
    const int64_t first = firstRow * layout.outputWidth, count = (endRow - firstRow) * layout.outputWidth;
    markWinnersThatAreNotTargets(values + first, targets + first, positions + first, count);
}

void runScatter(const PoolProblem &problem, const SeparableStride1Plan &plan) {
    const PoolGeometry &geometry = problem.geometry;
    const Stride1GatherLayout &layout = plan.layout;
    const int64_t planeElements = layout.planeHeight * layout.planeWidth;
    const int64_t outputElements = layout.outputHeight * layout.outputWidth;
    runBlocksOnThreads(
        plan.threads, plan.items, fencingStreamingStores(plan.streaming, [&](int64_t begin, int64_t end) {
            Stride1FlatScratch scratch(plan.flatLayout);
            std::vector<float> winnerValues(static_cast<size_t>(kInterleavedPlanes * outputElements));
            std::vector<int32_t> winnerPositions(winnerValues.size());
            std::vector<float> sums(static_cast<size_t>(kInterleavedPlanes * planeElements));
            ScatterPlane planes[kInterleavedPlanes];
            for (int64_t first = begin; first < end; first += kInterleavedPlanes) {
                const int64_t count = std::min<int64_t>(kInterleavedPlanes, end - first);
                for (int64_t k = 0; k < count; ++k) {
                    const int64_t n = (first + k) / geometry.channels, c = (first + k) % geometry.channels;
                    ScatterPlane &plane = planes[k];
                    plane.input = problem.input.plane<const float>(n, c);
                    plane.targets = problem.output.plane<const float>(n, c);
                    plane.gradients = problem.gradOutput.plane<const float>(n, c);
                    float *values = winnerValues.data() + k * outputElements;
                    int32_t *positions = winnerPositions.data() + k * outputElements;
                    searchFirstMatches(plan, scratch, plane.input, plane.targets, 0, layout.outputHeight, values,
                                       positions);
                    plane.positions = positions;
                    plane.sums = sums.data() + k * planeElements;
                    std::fill(plane.sums, plane.sums + planeElements, 0.0f);
                }
                scatterPlanes(layout, planes, count);
                for (int64_t k = 0; k < count; ++k) {
                    const int64_t n = (first + k) / geometry.channels, c = (first + k) % geometry.channels;
                    storeFloatRow(ElementType::Float32, planes[k].sums, problem.gradInput.plane<float>(n, c),
                                  planeElements, plan.streaming);
                }
            }
        }));
}

void runGather(const PoolProblem &problem, const SeparableStride1Plan &plan) {
    const PoolGeometry &geometry = problem.geometry;
    const Stride1GatherLayout &layout = plan.layout;
    const int64_t H = layout.planeHeight, W = layout.planeWidth, Ho = layout.outputHeight, Wo = layout.outputWidth;
    runBlocksOnThreads(
        plan.threads, plan.items, fencingStreamingStores(plan.streaming, [&](int64_t begin, int64_t end) {
            PaddedRowRing ring(layout);
            Stride1FlatScratch scratch(plan.flatLayout);
            std::vector<float> winnerValues(static_cast<size_t>(Ho * Wo));
            std::vector<int32_t> winnerPositions(winnerValues.size());
            for (int64_t item = begin; item < end; ++item) {
                const int64_t plane = item / plan.rowBlocks, block = item % plan.rowBlocks;
                const int64_t n = plane / geometry.channels, c = plane % geometry.channels;
                const float *input = problem.input.plane<const float>(n, c);
                const float *targets = problem.output.plane<const float>(n, c);
                const float *gradients = problem.gradOutput.plane<const float>(n, c);
                const int64_t firstRow = H * block / plan.rowBlocks, endRow = H * (block + 1) / plan.rowBlocks;
                // The output rows whose windows reach the block's input rows, and the one the ring fills ahead.
                const int64_t lowestOutput =
                    std::max<int64_t>(firstRow + layout.height.pad - layout.height.kernel + 1, 0);
                const int64_t endOutput = std::min<int64_t>(endRow + layout.height.pad + 1, Ho);
                if (lowestOutput < endOutput)
                    searchFirstMatches(plan, scratch, input, targets, lowestOutput, endOutput, winnerValues.data(),
                                       winnerPositions.data());
                const auto fillRow = [&](int64_t oh, int32_t *positions, float *gradientCopy) {
                    std::memcpy(positions, winnerPositions.data() + oh * Wo, static_cast<size_t>(Wo) * sizeof(int32_t));
                    for (int64_t ow = 0; ow < Wo; ++ow)
                        if (positions[ow] == kRecheck) [[unlikely]]
                            positions[ow] = recheckedFirstMatch(layout, input, targets, oh * Wo + ow);
                    std::memcpy(gradientCopy, gradients + oh * Wo, static_cast<size_t>(Wo) * sizeof(float));
                };
                gatherStride1Block(layout, firstRow, endRow, W, 0, ring, problem.gradInput.plane<float>(n, c),
                                   plan.streaming, fillRow);
            }
        }));
}

}  // namespace

PlanOutcome planRecomputeArgmaxBackwardStride1Separable(const PoolProblem &problem) {
    if (problem.input.type != ElementType::Float32)
        return PlanOutcome::decline(joinText(elementTypeName(problem.input.type),
                                             " planes: the search and the targets are float32"));
    if (std::optional<std::string> reason = recomputePlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    const PoolGeometry &geometry = problem.geometry;
    SeparableStride1Plan plan;
    if (std::optional<std::string> reason = stride1GatherLayoutOf(geometry, plan.layout))
        return PlanOutcome::decline(*reason);
    const Stride1GatherLayout &layout = plan.layout;
    if (std::optional<std::string> reason =
            stride1FlatLayoutOf(layout.planeHeight, layout.planeWidth, layout.outputWidth, layout.width.kernel,
                                layout.width.pad, plan.flatLayout))
        return PlanOutcome::decline(*reason);
    const PlaneRowBlocks split =
        planeRowBlocks(geometry.planes(), layout.planeHeight,
                       saturatingAdd(geometry.inputPlaneElements(), geometry.outputPlaneElements()));
    plan.scatter = split.rowBlocks == 1;
    plan.rowBlocks = split.rowBlocks;
    plan.items = split.items;
    plan.threads = split.threads;
    // Per thread, besides the search's scratch (and the gather's ring, bounded by its layout): the output planes'
    // winners (value and position), and for the scatter the planes of sums.
    const int64_t copies = plan.scatter ? kInterleavedPlanes : 1;
    const std::optional<int64_t> outputs = checkedMul(layout.outputHeight, layout.outputWidth);
    const std::optional<int64_t> winnerBytes = outputs ? checkedMul<int64_t>(*outputs, 8 * copies) : std::nullopt;
    const std::optional<int64_t> sumBytes =
        plan.scatter ? checkedMul<int64_t>(geometry.inputPlaneElements(), 4 * copies) : std::optional<int64_t>(0);
    const std::optional<int64_t> bytes =
        winnerBytes && sumBytes ? checkedAdd(*winnerBytes + *sumBytes, plan.flatLayout.scratchBytes) : std::nullopt;
    if (!bytes || *bytes > kScratchBytesPerThread)
        return PlanOutcome::decline(scratchDeclineText("the search's scratch, window winners and sums", bytes));
    plan.streaming = plan.scatter ? streamingStoresPay(problem.gradInput, geometry.inputPlaneElements())
                                  : streamingStoresPay(problem.gradInput, layout.planeWidth);
    return PlanOutcome::accept(std::move(plan));
}

RunResult runRecomputeArgmaxBackwardStride1Separable(const PoolProblem &problem, const ImplementationPlan &madePlan) {
    const SeparableStride1Plan &plan = planAs<SeparableStride1Plan>(madePlan);
    if (plan.scatter)
        runScatter(problem, plan);
    else
        runGather(problem, plan);
    return {};
}

}  // namespace poolgrad::cpu
