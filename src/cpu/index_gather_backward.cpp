// Write-once index gather backward (dense planes, windows that do not overlap). Every gradInput element is
// produced once, by the thread that owns its row, from the one window that contains it: per input row
// (d,h) the output row (od,oh) whose depth and height windows contain it, and per input column the window
// along W (gather_rows.h, vectorised across W). The element receives +0 + the output's gradient when the
// output's index is the element's plane position, else +0: bit for bit the scatter's sum from +0 whenever
// every index lies in its own window. No zero-fill pass, no slab buffer, no float32 detour: rows of every
// type are written straight into gradInput (streaming stores when it is larger than the cache), 16-bit ones
// made from the gradients' bit patterns (gather_rows.h); INT64 indices are converted to int32 once per block
// (the output rows its input rows read), then take the int32 gather.
//
// The plan declines overlapping windows and narrow rows, where the scatter measured faster (see
// docs/kernels/index_backward.md).
//
// A gather sees an output only through the window containing its index, so an index outside its own
// window (still inside the plane, where SPEC §3.6 scatters it) would be lost, and a bad index would go
// unreported. Counting finds both: every output whose index is not -1 must match exactly one element.
// Otherwise the scatter reference reruns the problem (reports bad indices, scatters stray ones) and the
// run result names the hand-over.
#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/error_message.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dense_planes.h"
#include "cpu/dtype_dispatch.h"
#include "cpu/gather_match_count.h"
#include "cpu/gather_rows.h"
#include "cpu/simd_rows.h"

namespace poolgrad::cpu {
namespace {

// Narrower rows cost the gather more per element than the scatter (case E, 14 columns: 2.5x the
// scatter's time on the Zen 4 host).
constexpr int64_t kNarrowestRowInVectors = 2;

// For each input coordinate of an axis, the output coordinates whose windows contain it, increasing.
struct AxisCandidates {
    std::vector<int64_t> start;  // outputs of coordinate x: outputs[start[x] .. start[x+1])
    std::vector<int64_t> outputs;
    int64_t most = 0;

    static AxisCandidates of(const std::vector<AxisWindow> &windows, int64_t inputSize) {
        AxisCandidates table;
        table.start.assign(static_cast<size_t>(inputSize + 1), 0);
        for (const AxisWindow &window : windows)
            for (int64_t j = 0, x = window.first; j < window.count; ++j, x += window.step)
                ++table.start[static_cast<size_t>(x + 1)];
        for (int64_t x = 0; x < inputSize; ++x) {
            table.most = std::max(table.most, table.start[static_cast<size_t>(x + 1)]);
            table.start[static_cast<size_t>(x + 1)] += table.start[static_cast<size_t>(x)];
        }
        table.outputs.resize(static_cast<size_t>(table.start.back()));
        std::vector<int64_t> next(table.start.begin(), table.start.end() - 1);
        for (size_t o = 0; o < windows.size(); ++o)
            for (int64_t j = 0, x = windows[o].first; j < windows[o].count; ++j, x += windows[o].step)
                table.outputs[static_cast<size_t>(next[static_cast<size_t>(x)]++)] = static_cast<int64_t>(o);
        return table;
    }
    int64_t count(int64_t x) const { return start[static_cast<size_t>(x + 1)] - start[static_cast<size_t>(x)]; }
    const int64_t *of(int64_t x) const { return outputs.data() + start[static_cast<size_t>(x)]; }
};

struct GatherPlan final : ImplementationPlan {
    AxisCandidates depth, height, width;
    GatherWidthTables widthTables;
    GatherRowCandidates rowCandidates;
    int64_t planes = 0, rows = 0, outputRows = 0;  // rows: D*H input rows of a plane; outputRows: Do*Ho
    int64_t blocksPerPlane = 1;                    // each a range of a plane's rows, and of its output rows
    int64_t threads = 1;
    bool streaming = false;
    std::shared_ptr<const ImplementationPlan> fallback;  // the scatter reference's plan

    int64_t mostWindows() const { return depth.most * height.most * width.most; }
    std::string describe() const override {
        return joinText("gather blocks=", planes, "x", blocksPerPlane,
                        " of <=", (rows + blocksPerPlane - 1) / blocksPerPlane, " rows, ", widthTables.lanes,
                        " lanes, ", widthTables.pairChunks > 0 || widthTables.pairTail > 0 ? "pairs, " : "",
                        streaming ? "streaming" : "cached", " threads=", threads);
    }
};

// Declines when a block of input columns would read outputs too far apart for one lane permutation.
std::optional<GatherWidthTables> widthTablesFor(const AxisCandidates &candidates, int64_t inputWidth,
                                                int64_t outputWidth, int64_t lanes) {
    GatherWidthTables tables;
    tables.lanes = lanes;
    tables.width = inputWidth;
    tables.blocks = (inputWidth + lanes - 1) / lanes;
    const size_t blocks = static_cast<size_t>(tables.blocks);
    tables.firstOutput.assign(blocks, 0);
    tables.readable.assign(blocks, 0);
    tables.laneMask.assign(blocks, 0);
    tables.laneOffset.assign(blocks * static_cast<size_t>(lanes), 0);
    tables.columns.resize(blocks * static_cast<size_t>(lanes));
    for (size_t i = 0; i < tables.columns.size(); ++i) tables.columns[i] = static_cast<int32_t>(i);
    for (int64_t block = 0; block < tables.blocks; ++block) {
        const size_t entry = static_cast<size_t>(block);
        int64_t lowest = std::numeric_limits<int64_t>::max(), highest = -1;
        for (int64_t lane = 0; lane < lanes; ++lane) {
            const int64_t w = block * lanes + lane;
            if (w >= inputWidth || candidates.count(w) == 0) continue;
            lowest = std::min(lowest, candidates.of(w)[0]);
            highest = std::max(highest, candidates.of(w)[0]);
        }
        if (highest < 0) continue;
        if (highest - lowest >= lanes) return std::nullopt;
        tables.firstOutput[entry] = static_cast<int32_t>(lowest);
        tables.readable[entry] = static_cast<int32_t>(std::min(lanes, outputWidth - lowest));
        for (int64_t lane = 0; lane < lanes; ++lane) {
            const int64_t w = block * lanes + lane;
            if (w >= inputWidth || candidates.count(w) == 0) continue;
            tables.laneMask[entry] |= uint64_t{1} << lane;
            tables.laneOffset[entry * static_cast<size_t>(lanes) + static_cast<size_t>(lane)] =
                static_cast<int32_t>(candidates.of(w)[0] - lowest);
        }
    }
    // Pairs: every window {2ow, 2ow+1}; whole chunks of `lanes` outputs whose columns all exist.
    bool pairs = lanes >= 2;
    for (int64_t ow = 0; ow < outputWidth && pairs; ++ow)
        pairs = 2 * ow + 1 < inputWidth && candidates.count(2 * ow) == 1 && candidates.of(2 * ow)[0] == ow &&
                candidates.count(2 * ow + 1) == 1 && candidates.of(2 * ow + 1)[0] == ow;
    if (pairs) {
        tables.pairChunks = outputWidth / lanes;
        if (inputWidth == 2 * outputWidth) tables.pairTail = outputWidth - tables.pairChunks * lanes;
        for (int64_t i = 0; i < lanes; ++i) {
            tables.evenColumns.push_back(static_cast<int32_t>(2 * i));
            tables.lowerPairs.push_back(static_cast<int32_t>(i / 2));
            tables.upperPairs.push_back(static_cast<int32_t>(lanes / 2 + i / 2));
        }
    }
    return tables;
}

// Per thread, for INT64 indices: an output plane of indices converted to int32 (a block converts the rows its
// input rows read).
std::optional<int64_t> scratchBytes(const PoolProblem &problem) {
    if (problem.indices.type == ElementType::Int32) return int64_t{0};
    return checkedMul<int64_t>(problem.geometry.outputPlaneElements(), 4);
}

PlanOutcome planGather(const PoolProblem &problem) {
    if (std::optional<std::string> reason = indexBackwardPlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    const PoolGeometry &geometry = problem.geometry;
    const int64_t planeElements = geometry.inputPlaneElements();
    if (planeElements >= std::numeric_limits<int32_t>::max())
        return PlanOutcome::decline(joinText("planes of ", planeElements, " elements need 64-bit positions"));
    const WindowTables windows = WindowTables::of(geometry);
    GatherPlan plan;
    plan.depth = AxisCandidates::of(windows.axes[0], geometry.axes[0].inputSize);
    plan.height = AxisCandidates::of(windows.axes[1], geometry.axes[1].inputSize);
    plan.width = AxisCandidates::of(windows.axes[2], geometry.axes[2].inputSize);
    // Overlapping windows need several candidates per element, each a compare and a NaN-safe add per
    // element; a version doing that measured 4-6x the scatter's time (cases B, C1) on the Zen 4 host.
    if (plan.mostWindows() != 1)
        return PlanOutcome::decline(plan.mostWindows() == 0
                                        ? std::string("no window holds an element")
                                        : joinText("up to ", plan.mostWindows(),
                                                   " windows contain one element: the scatter adds each output once"));
    const int64_t lanes = gatherLaneCount();
    std::optional<GatherWidthTables> widthTables =
        widthTablesFor(plan.width, geometry.axes[2].inputSize, geometry.axes[2].outputSize, lanes);
    // 16-bit rows made wholly of pair chunks (windows {2ow, 2ow+1} covering the row) cost one chunk per `lanes`
    // outputs: measured faster than the slab scatter (the plane chunks take no 16-bit gradients) down to rows of
    // 14 (bfloat16, Zen 4, 2 threads: INT32 0.17-0.28 against 0.36 ms, INT64 0.18-0.28 against 0.19-0.34; rows
    // of 28: 0.31 against 0.52, INT64 0.18-0.26 against 0.29-0.45), level at rows of 8. Float32 rows that
    // narrow go to the plane chunks.
    const bool narrowPairs = widthTables && problem.gradOutput.type != ElementType::Float32 &&
                             geometry.axes[2].inputSize == 2 * geometry.axes[2].outputSize &&
                             2 * geometry.axes[2].inputSize > lanes;
    if (geometry.axes[2].inputSize < kNarrowestRowInVectors * lanes && !narrowPairs)
        return PlanOutcome::decline(joinText("rows of ", geometry.axes[2].inputSize, " elements (fewer than ",
                                             kNarrowestRowInVectors * lanes,
                                             "): per-row costs outweigh the scatter's per-output ones"));
    if (!widthTables)
        return PlanOutcome::decline(
            joinText("windows along W read outputs more than ", lanes, " apart for one block of input columns"));
    plan.widthTables = std::move(*widthTables);
    // 16-bit rows outside the pairs path go a vector of 16 columns at a time, with partial vectors through
    // local copies; on the Zen 4 host that took 1.9x the slab scatter's time (2-D 3x3 at stride 3, bfloat16,
    // rows of 111), where the pairs path takes 0.6x.
    if (problem.gradOutput.type != ElementType::Float32 && plan.widthTables.pairChunks == 0 &&
        plan.widthTables.pairTail == 0)
        return PlanOutcome::decline(joinText(elementTypeName(problem.gradOutput.type),
                                             " gradients need windows {2ow, 2ow+1} along W: the slab scatter "
                                             "measured faster for the others"));
    // Each input row's output row (at most one: the windows do not overlap).
    const int64_t inputHeight = geometry.axes[1].inputSize, outputHeight = geometry.axes[1].outputSize;
    plan.rowCandidates.outputWidth = geometry.axes[2].outputSize;
    for (int64_t d = 0; d < geometry.axes[0].inputSize; ++d)
        for (int64_t h = 0; h < inputHeight; ++h)
            plan.rowCandidates.outputRow.push_back(plan.depth.count(d) == 1 && plan.height.count(h) == 1
                                                       ? plan.depth.of(d)[0] * outputHeight + plan.height.of(h)[0]
                                                       : -1);
    if (const std::optional<int64_t> bytes = scratchBytes(problem); !bytes || *bytes > kScratchBytesPerThread)
        return PlanOutcome::decline(scratchDeclineText("the converted index rows", bytes));

    plan.planes = geometry.planes();
    plan.rows = geometry.axes[0].inputSize * geometry.axes[1].inputSize;
    plan.outputRows = geometry.axes[0].outputSize * geometry.axes[1].outputSize;
    const int64_t work = saturatingAdd(problem.gradInput.elementCount(), problem.gradOutput.elementCount());
    plan.threads = threadsForWork(work);
    // Whole planes per thread when there are enough of them; otherwise each plane's rows are cut so that
    // every thread gets two blocks.
    if (plan.planes < 2 * plan.threads)
        plan.blocksPerPlane =
            std::clamp<int64_t>((2 * plan.threads + plan.planes - 1) / plan.planes, 1, std::max<int64_t>(plan.rows, 1));
    plan.streaming = streamingStoresPay(problem.gradInput, geometry.axes[2].inputSize);  // row by row
    plan.fallback = planIndexScatterBackwardReference(problem).plan;
    return PlanOutcome::accept(std::move(plan));
}

template <typename T, typename I>
void gatherBlock(const PoolProblem &problem, const GatherPlan &plan, int64_t plane, int64_t block,
                 std::vector<int32_t> &converted, GatherMatchCount &counts) {
    const PoolGeometry &geometry = problem.geometry;
    const int64_t Wo = geometry.axes[2].outputSize;
    const int64_t n = plane / geometry.channels, c = plane % geometry.channels;
    const GatherValue value = gatherValueOf(problem.gradOutput.type);
    const T *gradOut = problem.gradOutput.plane<const T>(n, c);
    const I *indices = problem.indices.plane<const I>(n, c);
    T *gradIn = problem.gradInput.plane<T>(n, c);

    // The outputs this block owns: each output's index is expected to match one element, unless it is -1.
    // (A whole plane of INT64 indices is counted while it is converted, below.)
    const int64_t firstOutputRow = plan.outputRows * block / plan.blocksPerPlane,
                  lastOutputRow = plan.outputRows * (block + 1) / plan.blocksPerPlane;
    // INT32 indices are counted after the gather has read them, from the cache (as in the stride-2 gather:
    // counted first, from memory, the pass waits for DRAM with no work to overlap it).
    if (!std::is_same_v<I, int32_t> && plan.blocksPerPlane > 1)
        counts.expected += countIndicesInUse(indices + firstOutputRow * Wo, (lastOutputRow - firstOutputRow) * Wo);

    const int64_t firstRow = plan.rows * block / plan.blocksPerPlane,
                  endRow = plan.rows * (block + 1) / plan.blocksPerPlane;
    if constexpr (std::is_same_v<I, int32_t>) {
        counts.matched += gatherPlaneRows(plan.widthTables, value, plan.rowCandidates, firstRow, endRow, indices,
                                          gradOut, gradIn, plan.streaming);
        counts.expected += countIndicesInUse(indices + firstOutputRow * Wo, (lastOutputRow - firstOutputRow) * Wo);
    } else if (plan.blocksPerPlane == 1) {
        counts.expected += convertIndicesToInt32(indices, converted.data(), plan.outputRows * Wo);
        counts.matched += gatherPlaneRows(plan.widthTables, value, plan.rowCandidates, firstRow, endRow,
                                          converted.data(), gradOut, gradIn, plan.streaming);
    } else {
        // The span of output rows the block's input rows read (not monotonic: input rows run through H within
        // each depth), converted at their own places in the scratch plane.
        const std::vector<int64_t> &outputRow = plan.rowCandidates.outputRow;
        int64_t firstRead = std::numeric_limits<int64_t>::max(), lastRead = -1;
        for (int64_t r = firstRow; r < endRow; ++r) {
            const int64_t read = outputRow[static_cast<size_t>(r)];
            if (read < 0) continue;
            firstRead = std::min(firstRead, read);
            lastRead = std::max(lastRead, read);
        }
        if (lastRead >= 0)
            convertIndicesToInt32(indices + firstRead * Wo, converted.data() + firstRead * Wo,
                                  (lastRead - firstRead + 1) * Wo);
        counts.matched += gatherPlaneRows(plan.widthTables, value, plan.rowCandidates, firstRow, endRow,
                                          converted.data(), gradOut, gradIn, plan.streaming);
    }
}

template <typename T, typename I>
bool gatherAll(const PoolProblem &problem, const GatherPlan &plan) {
    return gatherOnThreads(static_cast<int>(plan.threads), plan.planes * plan.blocksPerPlane, 0, plan.streaming,
                           [&](int64_t begin, int64_t end) {
                               std::vector<int32_t> converted;
                               if constexpr (!std::is_same_v<I, int32_t>)
                                   converted.resize(static_cast<size_t>(problem.geometry.outputPlaneElements()));
                               GatherMatchCount counts;
                               for (int64_t item = begin; item < end; ++item)
                                   gatherBlock<T, I>(problem, plan, item / plan.blocksPerPlane,
                                                     item % plan.blocksPerPlane, converted, counts);
                               return counts;
                           });
}

RunResult runGather(const PoolProblem &problem, const ImplementationPlan &madePlan) {
    const GatherPlan &plan = planAs<GatherPlan>(madePlan);
    return gatherOrHandOver(problem, *plan.fallback, [&](auto value, auto index) {
        return gatherAll<typename decltype(value)::type, typename decltype(index)::type>(problem, plan);
    });
}

}  // namespace

PlanOutcome planIndexGatherBackwardDense(const PoolProblem &problem) { return planGather(problem); }
RunResult runIndexGatherBackwardDense(const PoolProblem &problem, const ImplementationPlan &plan) {
    return runGather(problem, plan);
}

}  // namespace poolgrad::cpu
