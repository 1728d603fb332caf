// Argmax forward of dense 2-D planes (float32, float16 or bfloat16) with 3x3 windows at stride 2 (padding 0 or 1,
// no dilation; the stem pooling of ResNet-style networks): each input row searched once for the winners of every
// window that reads it, those of a window's last row kept for the next output row, every output (and index)
// written once from the vectors, the edge windows included (simd_argmax_three_by_three_stride2.h). Work items are
// blocks of output rows of a plane, enough blocks that a few planes still fill every thread.
// 3-D planes with 3x3x3 windows at stride 2 the same way slice by slice, each slice's 3x3 winners kept and the
// three slices of a window combined in scan order (14 compare-and-blends a window where a direct search of its
// 27 elements takes 26); work items are blocks of output depths.
#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dense_planes.h"
#include "cpu/one_depth_plane.h"
#include "cpu/simd_argmax_three_by_three_stride2.h"

namespace poolgrad::cpu {
namespace {

// Output columns a row needs before the vectors pay: one vector of the widest target (AVX-512's 16 lanes), so
// that the choice does not depend on the CPU; narrower rows go to the narrow-row or row search.
constexpr int64_t kLeastOutputColumns = 16;

struct ThreeByThreeStride2Plan final : ImplementationPlan {
    bool volume = false;  // 3-D planes with 3x3x3 windows
    int64_t padFront = 0, padTop = 0, padLeft = 0;
    int64_t rowBlocks = 1;  // work items per plane: blocks of output rows (2-D) or output depths (3-D)
    int64_t items = 0;
    int threads = 1;

    std::string describe() const override {
        const std::string blocks = std::to_string(rowBlocks) + (rowBlocks == 1 ? " block" : " blocks") +
                                   (volume ? " of output depths" : " of output rows") + " per plane, " +
                                   std::to_string(items) + " items on " + std::to_string(threads) + " threads";
        if (volume)
            return "3x3x3 stride-2 slice winners from padding " + std::to_string(padFront) + "," +
                   std::to_string(padTop) + "," + std::to_string(padLeft) +
                   ", each input row searched once, each slice's 3x3 winners kept for the next output depth; " + blocks;
        return "3x3 stride-2 row winners from padding " + std::to_string(padTop) + "," + std::to_string(padLeft) +
               ", each input row searched once" + "; " + blocks;
    }
};

// Whether an axis's windows are rows (or columns) 2*o - pad + {0, 1, 2} clipped to the input, never empty:
// the decline reason when not.
std::optional<std::string> notThreeWideStride2(const WindowAxis &axis, const std::vector<AxisWindow> &windows,
                                               const char *name) {
    const std::string reason =
        std::string(name) + " windows are not 3 wide at stride 2 without dilation, padding 0 or 1";
    if (!axis.adaptive && (axis.kernel != 3 || axis.stride != 2 || axis.dilation != 1 || axis.padBegin > 1))
        return reason;
    const int64_t pad = axis.adaptive ? 0 : axis.padBegin;
    for (int64_t o = 0; o < axis.outputSize; ++o) {
        const int64_t first = std::max<int64_t>(2 * o - pad, 0);
        const int64_t last = std::min<int64_t>(2 * o - pad + 2, axis.inputSize - 1);
        const AxisWindow &window = windows[static_cast<size_t>(o)];
        if (last < first || window.first != first || window.count != last - first + 1 ||
            (window.count > 1 && window.step != 1))
            return reason;
    }
    return std::nullopt;
}

}  // namespace

PlanOutcome planArgmaxForwardThreeByThreeStride2(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    const ElementType type = problem.input.type;
    if (type != ElementType::Float32 && type != ElementType::Float16 && type != ElementType::BFloat16)
        return PlanOutcome::decline("values are not float32, float16 or bfloat16");
    if (std::optional<std::string> reason = forwardPlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    const WindowTables windows = WindowTables::of(geometry);
    // 2-D planes, or 3-D ones whose depth windows are 3 wide at stride 2 too.
    const std::optional<std::string> notPlanar = notOneDepthPlane(geometry, "this search");
    const bool volume = notPlanar.has_value();
    if (volume && notThreeWideStride2(geometry.axes[0], windows.axes[0], "depth"))
        return PlanOutcome::decline(*notPlanar + " or 3x3x3 windows at stride 2 without dilation, padding 0 or 1");
    if (std::optional<std::string> reason = notThreeWideStride2(geometry.axes[1], windows.axes[1], "height"))
        return PlanOutcome::decline(*reason);
    if (std::optional<std::string> reason = notThreeWideStride2(geometry.axes[2], windows.axes[2], "width"))
        return PlanOutcome::decline(*reason);
    const int64_t outW = geometry.axes[2].outputSize;
    if (outW < kLeastOutputColumns)
        return PlanOutcome::decline("rows of " + std::to_string(outW) + " windows, fewer than " +
                                    std::to_string(kLeastOutputColumns));
    if (geometry.inputPlaneElements() >= (int64_t{1} << 31))
        return PlanOutcome::decline("plane positions do not fit in 32 bits");
    // Scratch: the kept row winners, two rows of values and positions for every window of a row (and the lanes
    // of a last vector of up to 16).
    const std::optional<int64_t> keptBytes = checkedMul<int64_t>(saturatingAdd<int64_t>(outW, 32), 16);
    if (!keptBytes || *keptBytes > kScratchBytesPerThread)
        return PlanOutcome::decline(scratchDeclineText("keeping a row's window winners", keptBytes));
    ThreeByThreeStride2Plan plan;
    plan.volume = volume;
    if (volume) {
        // Each slice's kept row winners, and three slots of a block's slice winners (values with their input bits,
        // positions): kVolumeSlotBytes, or three output rows where one row takes more.
        const int64_t valueBytes = type == ElementType::Float32 ? 4 : 2;
        const std::optional<int64_t> rowSlotBytes = checkedProduct<int64_t>({int64_t{3}, outW, valueBytes + 4});
        const std::optional<int64_t> volumeBytes =
            rowSlotBytes ? checkedAdd(checkedMul(geometry.axes[0].inputSize, *keptBytes),
                                      std::optional<int64_t>(std::max(*rowSlotBytes, kVolumeSlotBytes)))
                         : std::nullopt;
        if (!volumeBytes || *volumeBytes > kScratchBytesPerThread)
            return PlanOutcome::decline(scratchDeclineText("keeping every slice's row winners", volumeBytes));
        plan.padFront = geometry.axes[0].adaptive ? 0 : geometry.axes[0].padBegin;
    }
    plan.padTop = geometry.axes[1].adaptive ? 0 : geometry.axes[1].padBegin;
    plan.padLeft = geometry.axes[2].adaptive ? 0 : geometry.axes[2].padBegin;
    // A block searches its first input row (3-D: its first slice) afresh.
    const PlaneRowBlocks split =
        planeRowBlocks(geometry.planes(), geometry.axes[volume ? 0 : 1].outputSize,
                       saturatingAdd(geometry.inputPlaneElements(), geometry.outputPlaneElements()));
    plan.rowBlocks = split.rowBlocks;
    plan.items = split.items;
    plan.threads = split.threads;
    // Values only too: until 2026-12-05 float32 without indices went to the row search's column maxima, measured
    // faster then (D-v3-fwd, 1.70-1.96 ms warm against 2.57-3.48 here); remeasured on the same Intel Xeon 260 MiB
    // L3 host, 2 threads, this entry took 1.55-1.57 / 2.59-2.65 ms warm / cold against the row search's
    // 1.68-1.73 / 3.62-3.76, and one thread in cache (D-v3-fwd-cache) 0.052 / 0.113 against 0.056 / 0.151.
    return PlanOutcome::accept(std::move(plan));
}

RunResult runArgmaxForwardThreeByThreeStride2(const PoolProblem &problem, const ImplementationPlan &made) {
    const ThreeByThreeStride2Plan &plan = planAs<ThreeByThreeStride2Plan>(made);
    const PoolGeometry &geometry = problem.geometry;
    const int64_t outH = geometry.axes[1].outputSize;
    const StridedTensor &in = problem.input, &out = problem.output, &idx = problem.indices;
    const bool withIndices = idx.present(), wide = withIndices && idx.type == ElementType::Int64;
    const ArgmaxValueType valueType = in.type == ElementType::Float16    ? ArgmaxValueType::Float16
                                      : in.type == ElementType::BFloat16 ? ArgmaxValueType::BFloat16
                                                                         : ArgmaxValueType::Float32;
    // Planes are addressed in elements of the values' type (float32, or the 16-bit patterns).
    const auto planeOf = [&](const StridedTensor &tensor, int64_t n, int64_t c) -> const void * {
        if (valueType == ArgmaxValueType::Float32) return tensor.plane<const float>(n, c);
        return tensor.plane<const uint16_t>(n, c);
    };
    const int64_t outD = geometry.axes[0].outputSize;
    runBlocksOnThreads(plan.threads, plan.items, [&](int64_t begin, int64_t end) {
        // Jobs go to the kernel in batches, which make what the geometry decides once for all of a batch.
        constexpr size_t kBatch = 32;
        std::array<ThreeByThreeStride2Volume, kBatch> volumes{};
        std::array<ThreeByThreeStride2Rows, kBatch> rows{};
        size_t batched = 0;
        for (int64_t item = begin; item < end; ++item) {
            const int64_t plane = item / plan.rowBlocks, block = item % plan.rowBlocks;
            const int64_t n = plane / geometry.channels, c = plane % geometry.channels;
            const int64_t nextPlane = (item + 1) / plan.rowBlocks;
            const void *next = item + 1 < end && nextPlane != plane
                                   ? planeOf(in, nextPlane / geometry.channels, nextPlane % geometry.channels)
                                   : nullptr;
            // What a 2-D job and a 3-D one share: the plane, its rows and the output plane.
            const auto planeFields = [&](auto &job) {
                job.type = valueType;
                job.plane = planeOf(in, n, c);
                job.nextPlane = next;
                job.height = geometry.axes[1].inputSize;
                job.width = geometry.axes[2].inputSize;
                job.outputHeight = outH;
                job.outputWidth = geometry.axes[2].outputSize;
                job.padTop = plan.padTop;
                job.padLeft = plan.padLeft;
                job.values = const_cast<void *>(planeOf(out, n, c));
                job.indices32 = withIndices && !wide ? idx.plane<int32_t>(n, c) : nullptr;
                job.indices64 = wide ? idx.plane<int64_t>(n, c) : nullptr;
            };
            if (plan.volume) {
                ThreeByThreeStride2Volume &job = volumes[batched++];
                job = ThreeByThreeStride2Volume{};
                planeFields(job);
                job.depth = geometry.axes[0].inputSize;
                job.outputDepth = outD;
                job.padFront = plan.padFront;
                job.firstDepth = outD * block / plan.rowBlocks;
                job.endDepth = outD * (block + 1) / plan.rowBlocks;
            } else {
                ThreeByThreeStride2Rows &job = rows[batched++];
                job = ThreeByThreeStride2Rows{};
                planeFields(job);
                job.firstRow = outH * block / plan.rowBlocks;
                job.endRow = outH * (block + 1) / plan.rowBlocks;
            }
            if (batched == kBatch || item + 1 == end) {
                if (plan.volume)
                    argmaxThreeByThreeStride2Volumes(std::span(volumes.data(), batched));
                else
                    argmaxThreeByThreeStride2Rows(std::span(rows.data(), batched));
                batched = 0;
            }
        }
    });
    return {};
}

}  // namespace poolgrad::cpu
