// Argmax forward of dense 2-D planes (float32, float16 or bfloat16) whose windows move one row and one column
// at a time (stride 1, no dilation, any kernel up to 64 rows and any padding; Inception's 3x3 branch pooling,
// the 5x5 / 9x9 / 13x13 pyramid pooling of YOLO-style detectors): separable, each input row searched once for
// every window's winner in that row, each output row then taking its window's row winners in scan order
// (simd_argmax_stride1.h). Work items are blocks of output rows of a plane, enough blocks that a few planes
// still fill every thread; a block searches the rows above its first output row afresh.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dense_planes.h"
#include "cpu/simd_argmax_stride1.h"
#include "cpu/simd_rows.h"
#include "cpu/stride1_axis.h"
#include "hwy/aligned_allocator.h"

namespace poolgrad::cpu {
namespace {

// Output columns a row needs before the vectors pay: one vector of the widest target (AVX-512's 16 lanes), so
// that the choice does not depend on the CPU; narrower rows go to the narrow-row or row search.
constexpr int64_t kLeastOutputColumns = 16;

struct Stride1Plan final : ImplementationPlan {
    int64_t kernelHeight = 1, kernelWidth = 1;
    int64_t padTop = 0, padLeft = 0;
    int64_t scratchFloats = 0;
    bool streaming = false;
    int64_t rowBlocks = 1;  // work items per plane
    int64_t items = 0;
    int threads = 1;

    std::string describe() const override {
        return "stride-1 row winners, " + std::to_string(kernelHeight) + "x" + std::to_string(kernelWidth) +
               " windows from padding " + std::to_string(padTop) + "," + std::to_string(padLeft) +
               ", each input row searched once" + (streaming ? ", streaming stores" : "") + "; " +
               std::to_string(rowBlocks) + (rowBlocks == 1 ? " block" : " blocks") + " of output rows per plane, " +
               std::to_string(items) + " items on " + std::to_string(threads) + " threads";
    }
};

ArgmaxValueType valueTypeOf(ElementType type) {
    return type == ElementType::Float16    ? ArgmaxValueType::Float16
           : type == ElementType::BFloat16 ? ArgmaxValueType::BFloat16
                                           : ArgmaxValueType::Float32;
}

}  // namespace

PlanOutcome planArgmaxForwardStride1(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    const ElementType type = problem.input.type;
    if (type != ElementType::Float32 && type != ElementType::Float16 && type != ElementType::BFloat16)
        return PlanOutcome::decline("values are not float32, float16 or bfloat16");
    if (std::optional<std::string> reason = forwardPlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    Stride1Axis axisH, axisW;
    if (std::optional<std::string> reason = stride1ForwardAxesOf(geometry, axisH, axisW))
        return PlanOutcome::decline(*reason);
    if (axisH.kernel > kMostWindowRows)
        return PlanOutcome::decline("windows of " + std::to_string(axisH.kernel) + " rows, over " +
                                    std::to_string(kMostWindowRows));
    // Windows longer than the row and its leading padding would load mostly padding, every tap of every window.
    if (axisW.kernel > geometry.axes[2].inputSize + axisW.pad)
        return PlanOutcome::decline("windows of " + std::to_string(axisW.kernel) + " columns, longer than the " +
                                    std::to_string(geometry.axes[2].inputSize) + " of a row and its padding of " +
                                    std::to_string(axisW.pad));
    const int64_t outH = geometry.axes[1].outputSize, outW = geometry.axes[2].outputSize;
    if (outW < kLeastOutputColumns)
        return PlanOutcome::decline("rows of " + std::to_string(outW) + " windows, fewer than " +
                                    std::to_string(kLeastOutputColumns));
    if (geometry.inputPlaneElements() >= (int64_t{1} << 31))
        return PlanOutcome::decline("plane positions do not fit in 32 bits");
    Stride1Plan plan;
    plan.kernelHeight = axisH.kernel;
    plan.kernelWidth = axisW.kernel;
    plan.padTop = axisH.pad;
    plan.padLeft = axisW.pad;
    Stride1Rows shape{};
    shape.type = valueTypeOf(type);
    shape.height = geometry.axes[1].inputSize;
    shape.width = geometry.axes[2].inputSize;
    shape.outputHeight = outH;
    shape.outputWidth = outW;
    shape.kernelHeight = plan.kernelHeight;
    shape.kernelWidth = plan.kernelWidth;
    shape.padTop = plan.padTop;
    shape.padLeft = plan.padLeft;
    const std::optional<int64_t> floats = stride1ScratchFloats(shape);
    const std::optional<int64_t> bytes = floats ? checkedMul<int64_t>(*floats, 4) : std::nullopt;
    if (!bytes || *bytes > kScratchBytesPerThread)
        return PlanOutcome::decline(scratchDeclineText("a padded row and the row winners of a window", bytes));
    plan.scratchFloats = *floats;
    // Output rows are written whole, once: streamed where every row starts on a cache line.
    plan.streaming = type == ElementType::Float32 && streamingStoresPay(problem.output, outW) &&
                     (!problem.indices.present() || streamingStoresPay(problem.indices, outW));
    const PlaneRowBlocks split =
        planeRowBlocks(geometry.planes(), outH,
                       saturatingAdd(geometry.inputPlaneElements(), geometry.outputPlaneElements()));
    plan.rowBlocks = split.rowBlocks;
    plan.items = split.items;
    plan.threads = split.threads;
    return PlanOutcome::accept(std::move(plan));
}

RunResult runArgmaxForwardStride1(const PoolProblem &problem, const ImplementationPlan &made) {
    const Stride1Plan &plan = planAs<Stride1Plan>(made);
    const PoolGeometry &geometry = problem.geometry;
    const int64_t outH = geometry.axes[1].outputSize;
    const StridedTensor &in = problem.input, &out = problem.output, &idx = problem.indices;
    const bool withIndices = idx.present(), wide = withIndices && idx.type == ElementType::Int64;
    const ArgmaxValueType valueType = valueTypeOf(in.type);
    // Planes are addressed in elements of the values' type (float32, or the 16-bit patterns).
    const auto planeOf = [&](const StridedTensor &tensor, int64_t n, int64_t c) -> const void * {
        if (valueType == ArgmaxValueType::Float32) return tensor.plane<const float>(n, c);
        return tensor.plane<const uint16_t>(n, c);
    };
    runBlocksOnThreads(
        plan.threads, plan.items, fencingStreamingStores(plan.streaming, [&](int64_t begin, int64_t end) {
            // On a cache line: the search lays its rows of winners out on lines.
            const hwy::AlignedFreeUniquePtr<float[]> scratch =
                hwy::AllocateAligned<float>(static_cast<size_t>(std::max<int64_t>(plan.scratchFloats, 1)));
            for (int64_t item = begin; item < end; ++item) {
                const int64_t plane = item / plan.rowBlocks, block = item % plan.rowBlocks;
                const int64_t n = plane / geometry.channels, c = plane % geometry.channels;
                Stride1Rows job{};
                job.type = valueType;
                job.plane = planeOf(in, n, c);
                job.height = geometry.axes[1].inputSize;
                job.width = geometry.axes[2].inputSize;
                job.outputHeight = outH;
                job.outputWidth = geometry.axes[2].outputSize;
                job.kernelHeight = plan.kernelHeight;
                job.kernelWidth = plan.kernelWidth;
                job.padTop = plan.padTop;
                job.padLeft = plan.padLeft;
                job.firstRow = outH * block / plan.rowBlocks;
                job.endRow = outH * (block + 1) / plan.rowBlocks;
                job.values = const_cast<void *>(planeOf(out, n, c));
                job.indices32 = withIndices && !wide ? idx.plane<int32_t>(n, c) : nullptr;
                job.indices64 = wide ? idx.plane<int64_t>(n, c) : nullptr;
                job.streaming = plan.streaming;
                job.scratch = scratch.get();
                argmaxStride1Rows(job);
            }
        }));
    return {};
}

}  // namespace poolgrad::cpu
