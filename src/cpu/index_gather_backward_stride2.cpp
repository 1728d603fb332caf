// Write-once index gather backward for windows three wide at stride 2 along W whose depth and height
// windows overlap at most pairwise (each input coordinate in at most two windows per axis: the common
// 3x3 and 3x3x3 "stride 2, padding 1" pooling). Every gradInput row is produced once, by the thread that
// owns it, from the at most four output rows (od,oh) whose depth and height windows contain it, in
// increasing output order; along W each column lies in one or two windows fixed by its parity, so a
// vector of windows makes twice as many columns (simd_gather_stride2_rows.h) with their sums finished in
// registers, in increasing flat output order, from +0. No zero fill, no slab: float32 rows go straight
// into gradInput (streaming stores when it is larger than the cache), 16-bit sums rounded once in
// registers (through one row of float32 sums on targets that cannot). INT32 indices and the gradients are
// read in place; INT64 indices are converted to int32 (saturated, vectorised) once per block, the span of
// output rows its input rows read, into a per-thread plane. (Copied into padded int32 rows a row at a time,
// as before 2026-12-02, they took 1.3x (D) to 2.5x (56-wide rows) the slab scatter's time on the Zen 4 host,
// and were declined.)
//
// As in the gather for disjoint windows (index_gather_backward.cpp), an index outside its own window or
// outside the plane is found by counting: each output whose index is not -1 must match exactly one
// element; otherwise the scatter reference reruns the problem and the run result names the hand-over.
#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/error_message.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/bfloat16_hardware_rounding.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dense_planes.h"
#include "cpu/dtype_dispatch.h"
#include "cpu/gather_match_count.h"
#include "cpu/gather_rows.h"
#include "cpu/simd_gather_stride2_rows.h"
#include "cpu/simd_rows.h"

namespace poolgrad::cpu {
namespace {

// Positions past a row's end are compared in its last block (2 * 16 lanes at most): they must fit int32.
constexpr int64_t kPositionHeadroom = 64;

struct Stride2GatherPlan final : ImplementationPlan {
    // Per input row r = d*H + h of a plane: its output rows od*Ho + oh, increasing, at
    // rowOutputs[rowStart[r] .. rowStart[r+1]).
    std::vector<int64_t> rowStart, rowOutputs;
    int64_t padLeft = 0, lanes = 1;
    int64_t planes = 0, rows = 0, outputRows = 0;  // rows: D*H input rows of a plane; outputRows: Do*Ho
    int64_t blocksPerPlane = 1;                    // each a range of a plane's rows, and of its output rows
    int64_t mostCandidates = 0;
    int threads = 1;
    int64_t blocksPerTurn = 0;  // itemsPerTurnFor: taken in turns of this many blocks, or fixed shares (0)
    bool streaming = false;
    bool streamingRowPairs = false;  // float32 rows of part lines, made and streamed in pairs of whole lines
    std::shared_ptr<const ImplementationPlan> fallback;  // the scatter reference's plan

    Stride2Stores stores() const {
        return streaming           ? Stride2Stores::Streaming
               : streamingRowPairs ? Stride2Stores::StreamingRowPairs
                                   : Stride2Stores::Cached;
    }
    std::string describe() const override {
        return joinText("stride-2 gather blocks=", planes, "x", blocksPerPlane,
                        " of <=", (rows + blocksPerPlane - 1) / blocksPerPlane, " rows, <=", mostCandidates,
                        " output rows a row, padLeft=", padLeft, ", ", lanes, " lanes, ",
                        streaming ? "streaming" : streamingRowPairs ? "streaming row pairs" : "cached", " threads=",
                        threads, turnsText(blocksPerTurn));
    }
};

// The padding of a W axis whose windows are exactly 2*ow - padLeft + {0, 1, 2} clipped to the input (0 or
// 1), or nullopt.
std::optional<int64_t> stride2PadLeft(const std::vector<AxisWindow> &windows, int64_t inputWidth) {
    for (const int64_t padLeft : {int64_t{0}, int64_t{1}}) {
        bool all = !windows.empty();
        for (size_t ow = 0; ow < windows.size() && all; ++ow) {
            const int64_t first = std::max<int64_t>(2 * static_cast<int64_t>(ow) - padLeft, 0);
            const int64_t last = std::min<int64_t>(2 * static_cast<int64_t>(ow) - padLeft + 2, inputWidth - 1);
            const AxisWindow &window = windows[ow];
            all = last >= first && window.first == first && window.count == last - first + 1 &&
                  (window.count == 1 || window.step == 1);
        }
        if (all) return padLeft;
    }
    return std::nullopt;
}

// For each input coordinate of an axis, the output coordinates whose windows contain it, increasing.
std::vector<std::vector<int64_t>> windowsContaining(const std::vector<AxisWindow> &windows, int64_t inputSize) {
    std::vector<std::vector<int64_t>> containing(static_cast<size_t>(inputSize));
    for (size_t o = 0; o < windows.size(); ++o)
        for (int64_t j = 0, x = windows[o].first; j < windows[o].count; ++j, x += windows[o].step)
            containing[static_cast<size_t>(x)].push_back(static_cast<int64_t>(o));
    return containing;
}

size_t mostOf(const std::vector<std::vector<int64_t>> &containing) {
    size_t most = 0;
    for (const auto &outputs : containing) most = std::max(most, outputs.size());
    return most;
}

// Whether gatherStride2PlaneRows makes every input row of a plane in a pair starting on an even row (rows
// 2k and 2k + 1: 2k reads one output row alone, 2k + 1 that one first and at most one more), and every block
// of the plan's split starts on an even row.
bool rowsMadeInEvenPairs(const Stride2GatherPlan &plan) {
    if (plan.rows % 2 != 0) return false;
    for (int64_t r = 0; r < plan.rows; r += 2) {
        const int64_t first = plan.rowStart[static_cast<size_t>(r)], next = plan.rowStart[static_cast<size_t>(r + 1)];
        const int64_t candidates = next - first, nextCandidates = plan.rowStart[static_cast<size_t>(r + 2)] - next;
        if (candidates != 1 || nextCandidates < 1 || nextCandidates > 2 ||
            plan.rowOutputs[static_cast<size_t>(next)] != plan.rowOutputs[static_cast<size_t>(first)])
            return false;
    }
    for (int64_t block = 0; block < plan.blocksPerPlane; ++block)
        if (plan.rows * block / plan.blocksPerPlane % 2 != 0) return false;
    return true;
}

// Below 16 lanes the gather takes rows of at least this many columns (the measurements are in the plan).
constexpr int64_t kNarrowVectorRowColumns = 56;
// With 16 lanes, rows of at least this many columns, or a gradInput past the cache share (see the plan).
constexpr int64_t kNarrowRowColumns = 28;

PlanOutcome planStride2Gather(const PoolProblem &problem) {
    if (std::optional<std::string> reason = indexBackwardPlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    const PoolGeometry &geometry = problem.geometry;
    // Per thread, for INT64 indices: an output plane converted to int32.
    if (problem.indices.type != ElementType::Int32)
        if (const std::optional<int64_t> bytes = checkedMul<int64_t>(geometry.outputPlaneElements(), 4);
            !bytes || *bytes > kScratchBytesPerThread)
            return PlanOutcome::decline(scratchDeclineText("an output plane of converted INT64 indices", bytes));
    const int64_t planeElements = geometry.inputPlaneElements();
    if (planeElements >= std::numeric_limits<int32_t>::max() - kPositionHeadroom)
        return PlanOutcome::decline(joinText("planes of ", planeElements, " elements need 64-bit positions"));
    const WindowTables windows = WindowTables::of(geometry);
    const int64_t width = geometry.axes[2].inputSize;
    const std::optional<int64_t> padLeft = stride2PadLeft(windows.axes[2], width);
    if (!padLeft) return PlanOutcome::decline("windows along W are not three wide at stride 2 with padding 0 or 1");
    const auto depth = windowsContaining(windows.axes[0], geometry.axes[0].inputSize);
    const auto height = windowsContaining(windows.axes[1], geometry.axes[1].inputSize);
    if (mostOf(depth) > 2 || mostOf(height) > 2)
        return PlanOutcome::decline(joinText("up to ", mostOf(depth), "x", mostOf(height),
                                             " depth x height windows contain one element (at most 2x2 here)"));

    Stride2GatherPlan plan;
    plan.padLeft = *padLeft;
    plan.lanes = gatherStride2LaneCount();
    const int64_t outputHeight = geometry.axes[1].outputSize;
    plan.rowStart.push_back(0);
    for (const auto &depthOutputs : depth)
        for (const auto &heightOutputs : height) {
            for (const int64_t od : depthOutputs)
                for (const int64_t oh : heightOutputs) plan.rowOutputs.push_back(od * outputHeight + oh);
            plan.rowStart.push_back(static_cast<int64_t>(plan.rowOutputs.size()));
            plan.mostCandidates =
                std::max(plan.mostCandidates, static_cast<int64_t>(depthOutputs.size() * heightOutputs.size()));
        }
    // Rows in the overlap of two depth and two height windows read four output rows; each output row is then
    // read by up to nine input rows, where the scatter adds each output once: case B (3x3x3 stride 2) took
    // 2.2x the slab scatter's time cache-resident and 1.5x from memory on the Zen 4 host.
    if (plan.mostCandidates > 2)
        return PlanOutcome::decline(joinText("up to ", plan.mostCandidates,
                                             " output rows reach one input row: the slab scatter measured faster"));
    // Per thread, for 16-bit sums on targets that cannot round them in registers.
    if (const std::optional<int64_t> bytes = checkedMul(width, int64_t{4}); !bytes || *bytes > kScratchBytesPerThread)
        return PlanOutcome::decline(scratchDeclineText("a row of sums", bytes));

    plan.planes = geometry.planes();
    plan.rows = geometry.axes[0].inputSize * geometry.axes[1].inputSize;
    plan.outputRows = geometry.axes[0].outputSize * outputHeight;
    const int64_t work = saturatingAdd(problem.gradInput.elementCount(), problem.gradOutput.elementCount());
    plan.threads = threadsForWork(work);
    // Whole planes per thread when there are enough of them; otherwise each plane's rows are cut so that
    // every thread gets two blocks.
    if (plan.planes < 2 * plan.threads)
        plan.blocksPerPlane =
            std::clamp<int64_t>((2 * plan.threads + plan.planes - 1) / plan.planes, 1, std::max<int64_t>(plan.rows, 1));
    plan.blocksPerTurn = itemsPerTurnFor(plan.threads, plan.planes * plan.blocksPerPlane, problem.bytesMoved());
    // Row by row; 16-bit rows stream each aligned half line (simd_gather_stride2_rows.cpp).
    plan.streaming = streamingStoresPay(problem.gradInput, width, elementSize(problem.gradInput.type) == 2 ? 32 : 64);
    // float32 rows that are not whole lines (56 columns: 3.5 lines) where two rows are: the pairs 2k, 2k + 1
    // are streamed as whole lines (formed in registers with 16 lanes, through a staging row otherwise), when
    // every row of the plane is made in such a pair and every block starts on an even row (a row made alone
    // would share a line between plain and streaming stores).
    const std::optional<int64_t> pairBytes = checkedMul(width, int64_t{8});
    plan.streamingRowPairs = !plan.streaming && problem.gradInput.type == ElementType::Float32 &&
                             pairBytes && *pairBytes <= kScratchBytesPerThread && rowsMadeInEvenPairs(plan) &&
                             streamingStoresPay(problem.gradInput, 2 * width);
    plan.fallback = planIndexScatterBackwardReference(problem).plan;
    // A block makes 2 x lanes columns whatever the row's width, and with 8 lanes (AVX2) the slab scatter,
    // whose cost does not depend on the vector, measured faster on rows narrower than 56 columns. AVX2 EPYC
    // (32 MiB L3), 3x3 stride 2 padded, 16 channels, 12.5 MB, ms warm / cold, gather against scatter, since
    // the steady blocks (2026-12-06): one thread W = 28 2.28 / 2.32 against 1.18 / 1.55; 42 1.76-1.78 /
    // 1.81 against 1.32-1.34 / 1.55-1.68; 56 1.34-1.36 / 1.39-1.43 against 1.32-1.74 / 1.46-1.54; 84
    // 1.20 / 1.29 against 1.34 / 1.44; 112 0.83 / 0.89 against 1.39 / 1.46; two threads W = 42 0.86-0.87 /
    // 0.89-0.90 against 0.76-1.01 / 0.84; 56 0.68-0.69 / 0.72-0.73 against 0.70-0.90 / 0.81-0.89. (Before
    // them the gather needed 112 columns: W = 56 took 3.2 / 4.0 against 1.8 / 2.8.) With 16 lanes (Zen 4)
    // the gather is the faster one from W = 56 on. Narrower targets are not measured and follow AVX2.
    if (plan.lanes < 16 && width < kNarrowVectorRowColumns) {
        std::string reason =
            joinText("rows of ", width, " columns with vectors of ", plan.lanes, " lanes (fewer than ",
                     kNarrowVectorRowColumns, " columns and 16 lanes): the slab scatter measured faster");
        return PlanOutcome::slowerThanLater(std::move(plan), std::move(reason));
    }
    // With 16 lanes a row pair costs about 11 ns plus 7 per block of 32 columns (Zen 4), so rows narrower
    // than a block pay mostly for the pair. Measured there against the slab scatter, 3x3 stride 2 padding 1,
    // float32, us (fastest of thousands): in the caches (400,000 elements), one thread, W = 13 278 against
    // 188, 14 244 / 167, 20 180 / 131, 27 139 / 134, 28 128 / 125, 32 98 / 122, 56 96 / 109; two threads
    // W = 14 129 / 105, 20 94 / 89, 27 92 / 87. From memory (12.8 million elements, two threads: gradInput
    // streamed, written once, where the scatter reads its slabs back) the gather wins: W = 14 4.1 / 5.2 ms,
    // 20 4.1 / 4.9, 27 3.7 / 4.3. So narrow rows go to the scatter while gradInput is within the share of
    // the cache that the streaming rule keeps (4 MiB). bfloat16 measured alike (W = 14 319 / 189, 20 209 / 157,
    // 27 158 / 162, one thread); float16 stays with the gather, whose conversions are in registers where the
    // scatter's are not (W = 14 263 / 484, 20 193 / 291, 27 147 / 307).
    if (plan.lanes >= 16 && width < kNarrowRowColumns && problem.gradOutput.type != ElementType::Float16 &&
        !outputExceedsCacheShare(problem.gradInput)) {
        std::string reason = joinText("rows of ", width, " columns (fewer than ", kNarrowRowColumns, ") in a ",
                                      elementTypeName(problem.gradOutput.type),
                                      " gradInput of 4 MiB or less: the slab scatter measured faster");
        return PlanOutcome::slowerThanLater(std::move(plan), std::move(reason));
    }
    return PlanOutcome::accept(std::move(plan));
}

// The output rows that input rows [firstRow, endRow) read: [first, end), empty when they read none.
struct OutputRowSpan {
    int64_t first = 0, end = 0;
};

OutputRowSpan outputRowsRead(const Stride2GatherPlan &plan, int64_t firstRow, int64_t endRow) {
    const int64_t *outputs = plan.rowOutputs.data();
    const int64_t first = plan.rowStart[static_cast<size_t>(firstRow)],
                  end = plan.rowStart[static_cast<size_t>(endRow)];
    if (end <= first) return {};
    return {*std::min_element(outputs + first, outputs + end), *std::max_element(outputs + first, outputs + end) + 1};
}

template <typename T, typename I>
void gatherBlock(const PoolProblem &problem, const Stride2GatherPlan &plan, int64_t plane, int64_t block,
                 std::vector<float> &sumsRow, std::vector<int32_t> &converted, GatherMatchCount &counts) {
    const PoolGeometry &geometry = problem.geometry;
    const int64_t W = geometry.axes[2].inputSize, Wo = geometry.axes[2].outputSize;
    const int64_t n = plane / geometry.channels, c = plane % geometry.channels;
    const I *indices = problem.indices.plane<const I>(n, c);
    // The outputs this block owns: each output's index is expected to match one element, unless it is -1
    // (counted in vectors: a scalar loop took a fifth of the kernel's cache-resident time, case D-cache).
    const int64_t firstOutput = plan.outputRows * block / plan.blocksPerPlane * Wo,
                  endOutput = plan.outputRows * (block + 1) / plan.blocksPerPlane * Wo;
    const int64_t firstRow = plan.rows * block / plan.blocksPerPlane,
                  endRow = plan.rows * (block + 1) / plan.blocksPerPlane;
    const int32_t *indices32 = nullptr;
    if constexpr (std::is_same_v<I, int32_t>) {
        indices32 = indices;  // counted after the gather, below
    } else if (plan.blocksPerPlane == 1) {
        // The whole plane converted and counted in one pass.
        counts.expected += convertIndicesToInt32(indices, converted.data(), plan.outputRows * Wo);
        indices32 = converted.data();
    } else {
        counts.expected += countIndicesInUse(indices + firstOutput, endOutput - firstOutput);
        // The span of output rows the block's input rows read, converted at their own places.
        const OutputRowSpan read = outputRowsRead(plan, firstRow, endRow);
        convertIndicesToInt32(indices + read.first * Wo, converted.data() + read.first * Wo,
                              (read.end - read.first) * Wo);
        indices32 = converted.data();
    }
    const Stride2RowTables tables{plan.rowStart.data(), plan.rowOutputs.data(), W, Wo, plan.padLeft, plan.outputRows};
    Stride2PlaneOperands operands{indices32, problem.gradOutput.plane<const T>(n, c), problem.gradInput.plane<T>(n, c),
                                  problem.gradInput.type};
    if constexpr (std::is_same_v<T, BFloat16>) operands.bfloat16SumsStayNormal = bfloat16HardwareRounding();
    int64_t matched = gatherStride2PlaneRows(tables, operands, firstRow, endRow, sumsRow.data(), plan.stores());
    // Where the rounding instruction runs, blocks whose gradients cannot sum to a subnormal (almost all) round
    // with no look for one (Intel Xeon AVX-512 host, D-bf16 one thread: 5.8 against 6.9 ms warm,
    // docs/kernels/index_backward.md). Asked of the output rows the block's input rows read, after the gather
    // (from the cache), so the block is assumed normal first and made again, each row rewritten by its owner,
    // in the rare block where it is not. Asked first, from memory, the pass stalled with no work to overlap.
    if constexpr (std::is_same_v<T, BFloat16>) {
        if (bfloat16HardwareRounding()) {
            const OutputRowSpan read = outputRowsRead(plan, firstRow, endRow);
            if (!bfloat16SumsStayNormal(static_cast<const uint16_t *>(operands.gradients) + read.first * Wo,
                                        (read.end - read.first) * Wo)) {
                operands.bfloat16SumsStayNormal = false;
                matched = gatherStride2PlaneRows(tables, operands, firstRow, endRow, sumsRow.data(), plan.stores());
            }
        }
    }
    counts.matched += matched;
    // INT32 indices are counted after the gather has read them, from the cache. Counted first, from memory,
    // the pass waited for DRAM with no work to overlap it: D cold (Zen 4, 2 threads) 2.4-2.6 ms against 2.1-2.2
    // without it, D-f16 2.2-2.6 against 1.9-2.1.
    if constexpr (std::is_same_v<I, int32_t>)
        counts.expected += countIndicesNotMinusOne(indices + firstOutput, endOutput - firstOutput);
}

template <typename T, typename I>
bool gatherAll(const PoolProblem &problem, const Stride2GatherPlan &plan) {
    const int64_t W = problem.geometry.axes[2].inputSize;
    return gatherOnThreads(
        plan.threads, plan.planes * plan.blocksPerPlane, plan.blocksPerTurn, plan.streaming || plan.streamingRowPairs,
        [&](int64_t begin, int64_t end) {
            // 16-bit: a row of sums where the target cannot round in registers; streamed row pairs: two rows
            // (the staging row of targets with fewer than 16 lanes).
            std::vector<float> sumsRow(!std::is_same_v<T, float> ? static_cast<size_t>(W)
                                       : plan.streamingRowPairs   ? static_cast<size_t>(2 * W)
                                                                  : 0);
            std::vector<int32_t> converted(
                std::is_same_v<I, int32_t> ? 0 : static_cast<size_t>(problem.geometry.outputPlaneElements()));
            GatherMatchCount counts;
            for (int64_t item = begin; item < end; ++item)
                gatherBlock<T, I>(problem, plan, item / plan.blocksPerPlane, item % plan.blocksPerPlane, sumsRow,
                                  converted, counts);
            return counts;
        });
}

RunResult runStride2Gather(const PoolProblem &problem, const ImplementationPlan &madePlan) {
    const Stride2GatherPlan &plan = planAs<Stride2GatherPlan>(madePlan);
    const bool complete = withValueType(problem.gradOutput.type, [&](auto value) {
        return withIndexType(problem.indices.type, [&](auto index) {
            return gatherAll<typename decltype(value)::type, typename decltype(index)::type>(problem, plan);
        });
    });
    if (complete) return {};
    return handOverToScatterReference(problem, *plan.fallback);
}

}  // namespace

PlanOutcome planIndexGatherBackwardStride2(const PoolProblem &problem) { return planStride2Gather(problem); }
RunResult runIndexGatherBackwardStride2(const PoolProblem &problem, const ImplementationPlan &plan) {
    return runStride2Gather(problem, plan);
}

}  // namespace poolgrad::cpu
