// Argmax forward of small dense float32 2-D planes whose windows move one row and one column at a time: the
// separable stride-1 search over the plane's rows laid out as one flat array (simd_argmax_stride1_flat.h), for
// rows too narrow for cpu_argmax_forward_stride1's row-by-row vectors to fill (the 5x5 pyramid pooling of
// YOLO-style detectors on 20x20 maps). Work items are blocks of output rows of a plane, as there.
#include <cstdint>
#include <optional>
#include <string>

#include "core/checked_arithmetic.h"
#include "core/error_message.h"
#include "core/threading.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dense_planes.h"
#include "cpu/simd_argmax_stride1_flat.h"
#include "cpu/simd_rows.h"
#include "cpu/stride1_axis.h"
#include "cpu/stride1_flat_layout.h"

namespace poolgrad::cpu {
namespace {

struct Stride1FlatPlan final : ImplementationPlan {
    int64_t kernelHeight = 1, kernelWidth = 1, padTop = 0, padLeft = 0;
    Stride1FlatLayout layout;
    bool streaming = false;
    int64_t rowBlocks = 1, items = 0;
    int threads = 1;

    std::string describe() const override {
        return joinText("stride-1 flat rows, ", kernelHeight, "x", kernelWidth, " windows from padding ", padTop, ",",
                        padLeft, ", rows ", layout.paddedWidth, " floats apart searched as one in bands of ",
                        layout.bandRows, streaming ? ", streaming stores" : "", "; ", rowBlocks,
                        rowBlocks == 1 ? " block" : " blocks", " of output rows per plane, ", items, " items on ",
                        threads, " threads");
    }
};

}  // namespace

PlanOutcome planArgmaxForwardStride1Flat(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    if (problem.input.type != ElementType::Float32)
        return PlanOutcome::decline(joinText(elementTypeName(problem.input.type),
                                             " values: cpu_argmax_forward_stride1 widens 16-bit rows"));
    if (std::optional<std::string> reason = forwardPlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    Stride1Axis axisH, axisW;
    if (std::optional<std::string> reason = stride1ForwardAxesOf(geometry, axisH, axisW))
        return PlanOutcome::decline(*reason);
    const int64_t outH = geometry.axes[1].outputSize, outW = geometry.axes[2].outputSize;
    Stride1FlatPlan plan;
    if (std::optional<std::string> reason = stride1FlatLayoutOf(geometry.axes[1].inputSize, geometry.axes[2].inputSize,
                                                                outW, axisW.kernel, axisW.pad, plan.layout))
        return PlanOutcome::decline(*reason);
    plan.kernelHeight = axisH.kernel;
    plan.kernelWidth = axisW.kernel;
    plan.padTop = axisH.pad;
    plan.padLeft = axisW.pad;
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
    const int64_t outH = geometry.axes[1].outputSize;
    const StridedTensor &in = problem.input, &out = problem.output, &idx = problem.indices;
    const bool withIndices = idx.present(), wide = withIndices && idx.type == ElementType::Int64;
    runBlocksOnThreads(plan.threads, plan.items,
                       fencingStreamingStores(plan.streaming, [&](int64_t begin, int64_t end) {
                           Stride1FlatScratch scratch(plan.layout);
                           for (int64_t item = begin; item < end; ++item) {
                               const int64_t plane = item / plan.rowBlocks, block = item % plan.rowBlocks;
                               const int64_t n = plane / geometry.channels, c = plane % geometry.channels;
                               Stride1FlatJob job = scratch.job(plan.layout, in.plane<const float>(n, c));
                               job.outputWidth = geometry.axes[2].outputSize;
                               job.kernelHeight = plan.kernelHeight;
                               job.kernelWidth = plan.kernelWidth;
                               job.padTop = plan.padTop;
                               job.padLeft = plan.padLeft;
                               job.firstRow = outH * block / plan.rowBlocks;
                               job.endRow = outH * (block + 1) / plan.rowBlocks;
                               job.values = out.plane<float>(n, c);
                               job.indices32 = withIndices && !wide ? idx.plane<int32_t>(n, c) : nullptr;
                               job.indices64 = wide ? idx.plane<int64_t>(n, c) : nullptr;
                               job.streaming = plan.streaming;
                               argmaxStride1Flat(job);
                           }
                       }));
    return {};
}

}  // namespace poolgrad::cpu
