// Argmax forward of small dense float32 2-D planes whose windows move one row and one column at a time: the
// separable stride-1 search over the plane's rows laid out as one flat array (simd_argmax_stride1_flat.h), for
// rows too narrow for cpu_argmax_forward_stride1's row-by-row vectors to fill (the 5x5 pyramid pooling of
// YOLO-style detectors on 20x20 maps). Work items are blocks of output rows of a plane, as there.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/error_message.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dense_planes.h"
#include "cpu/simd_argmax_stride1_flat.h"
#include "cpu/simd_rows.h"
#include "cpu/stride1_axis.h"

namespace poolgrad::cpu {
namespace {

// Rows of more windows than this go to cpu_argmax_forward_stride1, whose row-by-row vectors fill their lanes
// there and which measured as fast (56 windows a row).
constexpr int64_t kFlatMostOutputColumns = 40;
// Padded positions searched between two copies: the band's rows, their winners and the tables stay in the L1
// cache (4 rows of 58 and 10 of 24 measured best).
constexpr int64_t kFlatBandPositions = 256;

struct Stride1FlatPlan final : ImplementationPlan {
    int64_t kernelHeight = 1, kernelWidth = 1, padTop = 0, padLeft = 0;
    int64_t paddedWidth = 0, bandRows = 1;
    int64_t paddedFloats = 0, winnerFloats = 0;
    std::vector<int32_t> tapPositions, firstPositions;
    bool streaming = false;
    int64_t rowBlocks = 1, items = 0;
    int threads = 1;

    std::string describe() const override {
        return joinText("stride-1 flat rows, ", kernelHeight, "x", kernelWidth, " windows from padding ", padTop, ",",
                        padLeft, ", rows ", paddedWidth, " floats apart searched as one in bands of ", bandRows,
                        streaming ? ", streaming stores" : "", "; ", rowBlocks, rowBlocks == 1 ? " block" : " blocks",
                        " of output rows per plane, ", items, " items on ", threads, " threads");
    }
};

}  // namespace

PlanOutcome planArgmaxForwardStride1Flat(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    if (problem.input.type != ElementType::Float32)
        return PlanOutcome::decline(joinText(elementTypeName(problem.input.type),
                                             " values: cpu_argmax_forward_stride1 widens 16-bit rows"));
    if (std::optional<std::string> reason = forwardPlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    if (geometry.axes[0].inputSize != 1 || geometry.axes[0].outputSize != 1)
        return PlanOutcome::decline(
            joinText("the planes are 3-D (depth ", geometry.axes[0].inputSize, "): this search takes 2-D planes"));
    const WindowTables windows = WindowTables::of(geometry);
    Stride1Axis axisH, axisW;
    if (std::optional<std::string> reason = stride1AxisOf(geometry.axes[1], windows.axes[1], "height", axisH))
        return PlanOutcome::decline(*reason);
    if (std::optional<std::string> reason = stride1AxisOf(geometry.axes[2], windows.axes[2], "width", axisW))
        return PlanOutcome::decline(*reason);
    if (axisH.kernel == 1 && axisW.kernel == 1) return PlanOutcome::decline("1x1 windows: a copy, not a search");
    const int64_t H = geometry.axes[1].inputSize, W = geometry.axes[2].inputSize;
    const int64_t outH = geometry.axes[1].outputSize, outW = geometry.axes[2].outputSize;
    if (outW > kFlatMostOutputColumns)
        return PlanOutcome::decline(joinText("rows of ", outW, " windows, more than ", kFlatMostOutputColumns,
                                             ": row-by-row vectors fill their lanes there"));
    // Windows longer than the row and its leading padding would load mostly padding, every tap of every window.
    if (axisW.kernel > W + axisW.pad)
        return PlanOutcome::decline(joinText("windows of ", axisW.kernel, " columns, longer than the ", W,
                                             " of a row and its padding of ", axisW.pad));
    Stride1FlatPlan plan;
    plan.kernelHeight = axisH.kernel;
    plan.kernelWidth = axisW.kernel;
    plan.padTop = axisH.pad;
    plan.padLeft = axisW.pad;
    // Every window's columns, from its first (padding included): a row's padding on both sides.
    plan.paddedWidth = outW + axisW.kernel - 1;
    const std::optional<int64_t> padded = stride1FlatPaddedFloats(H, plan.paddedWidth, plan.kernelWidth);
    const std::optional<int64_t> winners = stride1FlatWinnerFloats(H, plan.paddedWidth);
    if (!padded || !winners || *padded >= std::numeric_limits<int32_t>::max())
        return PlanOutcome::decline("padded planes whose positions do not fit in 32 bits");
    // Per thread: the padded rows, the winners' values and positions, a byte per row; per plan: two tables.
    const std::optional<int64_t> winnerBytes = checkedMul<int64_t>(*winners, 16);
    const std::optional<int64_t> paddedBytes = checkedMul<int64_t>(*padded, 4);
    const std::optional<int64_t> bytes =
        winnerBytes && paddedBytes ? checkedAdd(*winnerBytes + *paddedBytes, H) : std::nullopt;
    if (!bytes || *bytes > kScratchBytesPerThread)
        return PlanOutcome::decline(scratchDeclineText("padded rows, their winners and position tables", bytes));
    if (geometry.inputPlaneElements() >= (int64_t{1} << 31))
        return PlanOutcome::decline("plane positions do not fit in 32 bits");
    plan.paddedFloats = *padded;
    plan.winnerFloats = *winners;
    plan.bandRows = std::max<int64_t>(1, kFlatBandPositions / plan.paddedWidth);
    plan.tapPositions.resize(static_cast<size_t>(*winners));
    plan.firstPositions.resize(static_cast<size_t>(*winners));
    stride1FlatTables(H, W, plan.paddedWidth, plan.padLeft, plan.tapPositions.data(), plan.firstPositions.data());
    // Output rows are written whole, once: streamed where every row starts on a cache line.
    plan.streaming = streamingStoresPay(problem.output, outW) &&
                     (!problem.indices.present() || streamingStoresPay(problem.indices, outW));
    const PlaneRowBlocks split =
        planeRowBlocks(geometry.planes(), outH, saturatingAdd(geometry.inputPlaneElements(), geometry.outputPlaneElements()));
    plan.rowBlocks = split.rowBlocks;
    plan.items = split.items;
    plan.threads = split.threads;
    return PlanOutcome::accept(std::move(plan));
}

RunResult runArgmaxForwardStride1Flat(const PoolProblem &problem, const ImplementationPlan &made) {
    const Stride1FlatPlan &plan = planAs<Stride1FlatPlan>(made);
    const PoolGeometry &geometry = problem.geometry;
    const int64_t H = geometry.axes[1].inputSize, outH = geometry.axes[1].outputSize;
    const StridedTensor &in = problem.input, &out = problem.output, &idx = problem.indices;
    const bool withIndices = idx.present(), wide = withIndices && idx.type == ElementType::Int64;
    runBlocksOnThreads(plan.threads, plan.items, [&](int64_t begin, int64_t end) {
        // The padding columns stay -inf: the copies write only the rows' own columns.
        std::vector<float> padded(static_cast<size_t>(plan.paddedFloats), -std::numeric_limits<float>::infinity());
        std::vector<float> rowValues(static_cast<size_t>(plan.winnerFloats));
        std::vector<int32_t> rowPositions(static_cast<size_t>(plan.winnerFloats));
        std::vector<uint8_t> rowFindings(static_cast<size_t>(H));
        for (int64_t item = begin; item < end; ++item) {
            const int64_t plane = item / plan.rowBlocks, block = item % plan.rowBlocks;
            const int64_t n = plane / geometry.channels, c = plane % geometry.channels;
            Stride1FlatJob job{};
            job.plane = in.plane<const float>(n, c);
            job.height = H;
            job.width = geometry.axes[2].inputSize;
            job.outputHeight = outH;
            job.outputWidth = geometry.axes[2].outputSize;
            job.kernelHeight = plan.kernelHeight;
            job.kernelWidth = plan.kernelWidth;
            job.padTop = plan.padTop;
            job.padLeft = plan.padLeft;
            job.paddedWidth = plan.paddedWidth;
            job.bandRows = plan.bandRows;
            job.firstRow = outH * block / plan.rowBlocks;
            job.endRow = outH * (block + 1) / plan.rowBlocks;
            job.values = out.plane<float>(n, c);
            job.indices32 = withIndices && !wide ? idx.plane<int32_t>(n, c) : nullptr;
            job.indices64 = wide ? idx.plane<int64_t>(n, c) : nullptr;
            job.streaming = plan.streaming;
            job.tapPositions = plan.tapPositions.data();
            job.firstPositions = plan.firstPositions.data();
            job.padded = padded.data();
            job.rowValues = rowValues.data();
            job.rowPositions = rowPositions.data();
            job.rowFindings = rowFindings.data();
            argmaxStride1Flat(job);
        }
    });
    if (plan.streaming) streamingStoreFence();
    return {};
}

}  // namespace poolgrad::cpu
