// Write-once index gather backward on channels-last storage (NDHWC / NHWC, dense), windows that do not
// overlap. Every gradInput element is produced once, by the thread that owns its input row (n, d, h): a
// position (d, h, w) lies in at most one window, whose output holds its C indices and C gradients next to
// each other, so a row is gathered vectorised across C (gather_channels.h): the element receives +0 + the
// gradient when the output's index is the position's plane index, else +0, bit for bit the scatter's sum
// from +0 whenever every index lies in its own window. No zero-fill pass, no slab buffer, no float32
// detour: rows of every type go straight into gradInput (streaming stores when it is larger than the
// cache), 16-bit ones made from the gradients' bit patterns; INT64 indices are converted an output row at
// a time.
//
// As in the dense gather (index_gather_backward.cpp), an index outside its own window or outside the
// plane would go unseen; counting finds both (every output whose index is not -1 must match exactly one
// element) and hands the problem to the scatter reference, which the run result names.
//
// A second entry (..._overlapping, at the end of this file) takes overlapping windows, float32 only: an
// element sums the gradients of all its candidate outputs in increasing output order, counted the same way.
#include <algorithm>
#include <array>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/error_message.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dtype_dispatch.h"
#include "cpu/gather_channels.h"
#include "cpu/gather_match_count.h"
#include "cpu/gather_rows.h"
#include "cpu/simd_rows.h"

namespace poolgrad::cpu {
namespace {

// The fewest channels the plan takes 16-bit gradients with.
constexpr int64_t kSixteenBitChannels = 16;

// Output rows of INT64 indices kept converted to int32: the input rows of one window height share one.
constexpr int64_t kConvertedRows = 2;

// For each input coordinate of an axis, the output whose window contains it, or -1; and whether some
// coordinate lies in several windows or some window holds no coordinate.
struct AxisOwners {
    std::vector<int64_t> output;
    int64_t mostWindows = 0;
    bool emptyWindow = false;

    static AxisOwners of(const std::vector<AxisWindow> &windows, int64_t inputSize) {
        AxisOwners owners;
        owners.output.assign(static_cast<size_t>(inputSize), -1);
        std::vector<int64_t> windowsOf(static_cast<size_t>(inputSize), 0);
        for (size_t o = 0; o < windows.size(); ++o) {
            const AxisWindow &window = windows[o];
            owners.emptyWindow = owners.emptyWindow || window.count <= 0;
            for (int64_t j = 0, x = window.first; j < window.count; ++j, x += window.step) {
                owners.output[static_cast<size_t>(x)] = static_cast<int64_t>(o);
                owners.mostWindows = std::max(owners.mostWindows, ++windowsOf[static_cast<size_t>(x)]);
            }
        }
        return owners;
    }
};

struct GatherChannelsLastPlan final : ImplementationPlan {
    std::vector<int64_t> outputColumn;     // per input column w: its output column, or -1
    std::vector<int64_t> outputRow;        // per input row r = d*H + h: its output row od*Ho + oh, or -1
    std::vector<int64_t> countsOutputRow;  // per input row: the output row whose indices it counts, or -1
    int64_t batch = 0, rows = 0, width = 0, channels = 0, outputWidth = 0;
    int64_t threads = 1;
    bool streaming = false;
    std::shared_ptr<const ImplementationPlan> fallback;  // the scatter reference's plan

    std::string describe() const override {
        return joinText("gather channels-last rows=", batch, "x", rows, " of ", width, "x", channels,
                        " split over threads=", threads, ", ", streaming ? "streaming" : "cached");
    }
};

std::optional<std::string> layoutDecline(const PoolProblem &problem) {
    if (!problem.indices.present()) return std::string("indices are implied by 1x1 windows");
    for (const auto &[role, tensor] :
         {std::pair{"gradOutput", &problem.gradOutput}, std::pair{"indices", &problem.indices},
          std::pair{"gradInput", &problem.gradInput}})
        if (!tensor->channelsLastDense()) return std::string(role) + " is not dense channels-last";
    return std::nullopt;
}

// Per thread, for INT64 indices: the cached output rows converted to int32.
std::optional<int64_t> scratchBytes(const PoolProblem &problem) {
    if (problem.indices.type == ElementType::Int32) return int64_t{0};
    return checkedProduct<int64_t>({kConvertedRows, problem.geometry.axes[2].outputSize, problem.geometry.channels, 4});
}

PlanOutcome planGatherChannelsLast(const PoolProblem &problem) {
    if (std::optional<std::string> reason = layoutDecline(problem)) return PlanOutcome::decline(*reason);
    const PoolGeometry &geometry = problem.geometry;
    const int64_t planeElements = geometry.inputPlaneElements();
    if (planeElements >= std::numeric_limits<int32_t>::max())
        return PlanOutcome::decline(joinText("planes of ", planeElements, " positions need 64-bit positions"));
    // A 16-bit position of fewer channels than one int32 vector is one masked step; on the Zen 4 host
    // (NHWC 2x2 at stride 2, 224x224, bfloat16) the channels-last scatter took 0.31x the gather's time with
    // 3 channels and 0.68x with 8, the gather 0.77x the scatter's with 16.
    if (problem.gradOutput.type != ElementType::Float32 && geometry.channels < kSixteenBitChannels)
        return PlanOutcome::decline(joinText(elementTypeName(problem.gradOutput.type), " gradients with ",
                                             geometry.channels, " channels (fewer than ", kSixteenBitChannels,
                                             "): the channels-last scatter measured faster"));
    const WindowTables windows = WindowTables::of(geometry);
    std::array<AxisOwners, 3> owners;
    int64_t mostWindows = 1;
    for (size_t axis = 0; axis < 3; ++axis) {
        owners[axis] = AxisOwners::of(windows.axes[axis], geometry.axes[axis].inputSize);
        if (owners[axis].emptyWindow) return PlanOutcome::decline("a window holds no element");
        mostWindows *= owners[axis].mostWindows;
    }
    // Overlapping windows need several candidates per element: the scatter adds each output once.
    if (mostWindows != 1)
        return PlanOutcome::decline(
            joinText("up to ", mostWindows, " windows contain one element: the scatter adds each output once"));
    if (const std::optional<int64_t> bytes = scratchBytes(problem); !bytes || *bytes > kScratchBytesPerThread)
        return PlanOutcome::decline(scratchDeclineText("the converted index rows", bytes));

    GatherChannelsLastPlan plan;
    plan.batch = geometry.batch;
    plan.channels = geometry.channels;
    plan.width = geometry.axes[2].inputSize;
    plan.outputWidth = geometry.axes[2].outputSize;
    const int64_t inputHeight = geometry.axes[1].inputSize, outputHeight = geometry.axes[1].outputSize;
    plan.rows = geometry.axes[0].inputSize * inputHeight;
    plan.outputColumn = owners[2].output;
    plan.countsOutputRow.assign(static_cast<size_t>(plan.rows), -1);
    for (int64_t d = 0; d < geometry.axes[0].inputSize; ++d)
        for (int64_t h = 0; h < inputHeight; ++h) {
            const int64_t od = owners[0].output[static_cast<size_t>(d)], oh = owners[1].output[static_cast<size_t>(h)];
            plan.outputRow.push_back(od >= 0 && oh >= 0 ? od * outputHeight + oh : -1);
        }
    // Each output row is counted by the first input row of its window (every window holds one).
    for (int64_t od = 0; od < geometry.axes[0].outputSize; ++od)
        for (int64_t oh = 0; oh < outputHeight; ++oh)
            plan.countsOutputRow[static_cast<size_t>(windows.depth(od).first * inputHeight +
                                                     windows.height(oh).first)] = od * outputHeight + oh;
    const int64_t work = saturatingAdd(problem.gradInput.elementCount(), problem.gradOutput.elementCount());
    plan.threads = std::clamp<int64_t>(threadsForWork(work), 1, std::max<int64_t>(plan.batch * plan.rows, 1));
    plan.streaming = streamingStoresPay(problem.gradInput, problem.geometry.channels);  // position by position
    plan.fallback = planIndexScatterBackwardReference(problem).plan;
    return PlanOutcome::accept(std::move(plan));
}

// An output row of INT64 indices converted to int32, kept while consecutive input rows share it.
struct ConvertedRow {
    int64_t n = -1, outputRow = -1;
    std::vector<int32_t> indices;
};

template <typename T, typename I>
struct RowGatherer {
    const PoolProblem &problem;
    const GatherChannelsLastPlan &plan;
    const GatherValue value;
    std::vector<ConvertedRow> cache;
    size_t nextCached = 0;
    int64_t expected = 0, matched = 0;

    static constexpr bool directIndices = std::is_same_v<I, int32_t>;

    RowGatherer(const PoolProblem &problem, const GatherChannelsLastPlan &plan)
        : problem(problem), plan(plan), value(gatherValueOf(problem.gradOutput.type)) {
        if constexpr (!directIndices) {
            cache.resize(static_cast<size_t>(kConvertedRows));
            for (ConvertedRow &row : cache) row.indices.resize(static_cast<size_t>(plan.outputWidth * plan.channels));
        }
    }

    const int32_t *converted(int64_t n, int64_t outputRow, const I *indexSource) {
        for (const ConvertedRow &row : cache)
            if (row.n == n && row.outputRow == outputRow) return row.indices.data();
        ConvertedRow &row = cache[nextCached];
        nextCached = (nextCached + 1) % cache.size();
        row.n = n;
        row.outputRow = outputRow;
        // Saturated: an index beyond int32 is bad and then matches no position (all < 2^31 - 1).
        if constexpr (!directIndices)
            convertIndicesToInt32(indexSource, row.indices.data(), plan.outputWidth * plan.channels);
        return row.indices.data();
    }

    void gather(int64_t item) {
        const int64_t n = item / plan.rows, r = item % plan.rows;
        const int64_t rowElements = plan.width * plan.channels, outputRowElements = plan.outputWidth * plan.channels;
        const I *indexPlane = problem.indices.plane<const I>(n, 0);
        const T *gradientPlane = problem.gradOutput.plane<const T>(n, 0);
        T *destination = problem.gradInput.plane<T>(n, 0) + r * rowElements;

        const int64_t outputRow = plan.outputRow[static_cast<size_t>(r)];
        const int32_t *indexRow = nullptr;
        const T *gradientRow = nullptr;
        if (outputRow >= 0) {
            const I *indexSource = indexPlane + outputRow * outputRowElements;
            if constexpr (directIndices)
                indexRow = indexSource;
            else
                indexRow = converted(n, outputRow, indexSource);
            gradientRow = gradientPlane + outputRow * outputRowElements;
        }
        matched += gatherChannelsRow(plan.outputColumn.data(), plan.width, plan.channels, value, indexRow, gradientRow,
                                     static_cast<int32_t>(r * plan.width), destination, plan.streaming);
        // Counted after the gather has read the row, from the cache (counted first, from memory, the pass waits
        // for DRAM with no work to overlap it).
        if (const int64_t counted = plan.countsOutputRow[static_cast<size_t>(r)]; counted >= 0) {
            expected += countIndicesInUse(indexPlane + counted * outputRowElements, outputRowElements);
        }
    }
};

template <typename T, typename I>
bool gatherAll(const PoolProblem &problem, const GatherChannelsLastPlan &plan) {
    return gatherOnThreads(static_cast<int>(plan.threads), plan.batch * plan.rows, 0, plan.streaming,
                           [&](int64_t begin, int64_t end) {
                               RowGatherer<T, I> gatherer(problem, plan);
                               for (int64_t item = begin; item < end; ++item) gatherer.gather(item);
                               return GatherMatchCount{gatherer.expected, gatherer.matched};
                           });
}

}  // namespace

PlanOutcome planIndexGatherBackwardChannelsLast(const PoolProblem &problem) { return planGatherChannelsLast(problem); }

RunResult runIndexGatherBackwardChannelsLast(const PoolProblem &problem, const ImplementationPlan &madePlan) {
    const GatherChannelsLastPlan &plan = planAs<GatherChannelsLastPlan>(madePlan);
    return gatherOrHandOver(problem, *plan.fallback, [&](auto value, auto index) {
        return gatherAll<typename decltype(value)::type, typename decltype(index)::type>(problem, plan);
    });
}

namespace {

// ---- Overlapping windows, float32 -------------------------------------------------------------------------
// A position (d, h, w) lies in several windows; the outputs whose windows contain it are the products of
// per-axis candidate lists (each increasing), and its plane index is the same for all C channels, so each
// vector of channels sums from +0, over the candidate outputs in increasing flat order, the gradients whose
// index is the position (gather_channels.h), and is stored once.

// The most windows containing one element the overlapping gather takes: 3x3x3 windows at stride 1. It compares
// each element with every window that holds it, where the scatter adds each output once; measured on the Xeon
// (AVX-512, 2 threads, NDHWC / NHWC, 64 channels, warm / cold ms) against the slab scatters: 3x3 at stride 1
// (9 windows, 16x56x56) 0.88-0.92 / 1.40-1.43 against 1.93-1.97 / 2.3; 3x3x3 at stride 1 (27, 2x16x32x32)
// 1.21 / 1.42 against 2.25 / 2.52 (32 channels: 0.71 / 0.93 against 1.01 / 1.28); 5x5 at stride 1 (25, 8x20x20)
// level, 0.098 / 0.16 both. Beyond 27 the compares outgrow the scatter's one add per output.
constexpr int64_t kMostOverlappingWindows = 27;

// Channel counts the overlapping gather takes: whole vectors of 16 float32 lanes, at most 4 per position,
// whose sums stay in registers. On the Zen 4 host (NHWC 3x3 at stride 2, 16x112x112, 1 thread) it took
// 0.6-0.7x the channel-vector scatter's time with 16 and 64 channels but 1.4x with 24 and 1.9x the slab
// scatter's with 8 (masked remainders).
bool overlappingGatherChannels(int64_t channels) { return channels % 16 == 0 && channels >= 16 && channels <= 64; }

// Per axis, for each input coordinate the outputs whose windows contain it, increasing.
struct AxisCandidateLists {
    std::vector<int64_t> start;  // outputs of coordinate x: outputs[start[x] .. start[x + 1])
    std::vector<int64_t> outputs;
    int64_t most = 0;
    bool emptyWindow = false;

    static AxisCandidateLists of(const std::vector<AxisWindow> &windows, int64_t inputSize) {
        AxisCandidateLists lists;
        lists.start.assign(static_cast<size_t>(inputSize + 1), 0);
        for (const AxisWindow &window : windows) {
            lists.emptyWindow = lists.emptyWindow || window.count <= 0;
            for (int64_t j = 0, x = window.first; j < window.count; ++j, x += window.step)
                ++lists.start[static_cast<size_t>(x + 1)];
        }
        for (int64_t x = 0; x < inputSize; ++x) {
            lists.most = std::max(lists.most, lists.start[static_cast<size_t>(x + 1)]);
            lists.start[static_cast<size_t>(x + 1)] += lists.start[static_cast<size_t>(x)];
        }
        lists.outputs.resize(static_cast<size_t>(lists.start.back()));
        std::vector<int64_t> next(lists.start.begin(), lists.start.end() - 1);
        for (size_t o = 0; o < windows.size(); ++o)
            for (int64_t j = 0, x = windows[o].first; j < windows[o].count; ++j, x += windows[o].step)
                lists.outputs[static_cast<size_t>(next[static_cast<size_t>(x)]++)] = static_cast<int64_t>(o);
        return lists;
    }
    int64_t count(int64_t x) const { return start[static_cast<size_t>(x + 1)] - start[static_cast<size_t>(x)]; }
    const int64_t *of(int64_t x) const { return outputs.data() + start[static_cast<size_t>(x)]; }
};

struct OverlappingGatherPlan final : ImplementationPlan {
    AxisCandidateLists depth, height, width;
    std::vector<int64_t> countsStart;  // input row r counts the output rows countsRows[countsStart[r] ..)
    std::vector<int64_t> countsRows;
    int64_t batch = 0, rows = 0, inputHeight = 0, outputHeight = 0, channels = 0, outputWidth = 0;
    int64_t outputRows = 0;  // Do * Ho
    int64_t threads = 1;
    bool streaming = false;
    std::shared_ptr<const ImplementationPlan> fallback;  // the scatter reference's plan

    std::string describe() const override {
        return joinText("gather channels-last overlapping rows=", batch, "x", rows, " of ", width.start.size() - 1, "x",
                        channels, ", <=", depth.most * height.most * width.most,
                        " windows per element, split over threads=", threads, ", ", streaming ? "streaming" : "cached");
    }
};

PlanOutcome planOverlappingGather(const PoolProblem &problem) {
    if (std::optional<std::string> reason = layoutDecline(problem)) return PlanOutcome::decline(*reason);
    if (problem.gradOutput.type != ElementType::Float32)
        return PlanOutcome::decline(joinText(elementTypeName(problem.gradOutput.type),
                                             " gradients: the overlapping gather takes float32 only"));
    // Per thread, for INT64 indices: the output rows of a batch item converted to int32 as they are first read.
    if (problem.indices.type != ElementType::Int32)
        if (const std::optional<int64_t> bytes =
                checkedProduct<int64_t>({problem.geometry.outputPlaneElements(), problem.geometry.channels, 4});
            !bytes || *bytes > kScratchBytesPerThread)
            return PlanOutcome::decline(scratchDeclineText("the converted INT64 indices of a batch item", bytes));
    // Measured on AVX2 and AVX-512: on 4-lane vectors every position would take 4 to 16 vectors, untimed.
    if (gatherLaneCount() < 8)
        return PlanOutcome::decline(joinText("vectors of ", gatherLaneCount(),
                                             " float32 lanes: the overlapping gather is measured on 8- and 16-lane "
                                             "(AVX2, AVX-512) vectors only"));
    const PoolGeometry &geometry = problem.geometry;
    if (!overlappingGatherChannels(geometry.channels))
        return PlanOutcome::decline(joinText(geometry.channels,
                                             " channels, not 16, 32, 48 or 64: the channel-vector and slab "
                                             "scatters measured faster on partial vectors"));
    const int64_t planeElements = geometry.inputPlaneElements();
    if (planeElements >= std::numeric_limits<int32_t>::max())
        return PlanOutcome::decline(joinText("planes of ", planeElements, " positions need 64-bit positions"));
    const WindowTables windows = WindowTables::of(geometry);
    OverlappingGatherPlan plan;
    plan.depth = AxisCandidateLists::of(windows.axes[0], geometry.axes[0].inputSize);
    plan.height = AxisCandidateLists::of(windows.axes[1], geometry.axes[1].inputSize);
    plan.width = AxisCandidateLists::of(windows.axes[2], geometry.axes[2].inputSize);
    if (plan.depth.emptyWindow || plan.height.emptyWindow || plan.width.emptyWindow)
        return PlanOutcome::decline("a window holds no element");
    const int64_t mostWindows = plan.depth.most * plan.height.most * plan.width.most;
    if (mostWindows <= 1)
        return PlanOutcome::decline("windows do not overlap: cpu_index_gather_backward_channels_last takes them");
    // One vector of channels per position shares the candidates' loop with nothing: NDHWC 3x3x3 at stride 2
    // with 16 channels (B-cl-cache, 1 thread, warm) took 0.036 ms against the slab scatter's 0.027.
    if (mostWindows > 4 && geometry.channels < 32)
        return PlanOutcome::decline(joinText("up to ", mostWindows, " windows contain one element of ",
                                             geometry.channels, " channels: the slab scatter measured faster"));
    if (mostWindows > kMostOverlappingWindows)
        return PlanOutcome::decline(joinText("up to ", mostWindows, " windows contain one element (more than ",
                                             kMostOverlappingWindows, "): the scatter adds each output once"));
    plan.batch = geometry.batch;
    plan.channels = geometry.channels;
    plan.inputHeight = geometry.axes[1].inputSize;
    plan.outputHeight = geometry.axes[1].outputSize;
    plan.outputWidth = geometry.axes[2].outputSize;
    plan.rows = geometry.axes[0].inputSize * plan.inputHeight;
    plan.outputRows = geometry.axes[0].outputSize * plan.outputHeight;
    // Each output row is counted by the first input row of its window (every window holds one).
    std::vector<std::vector<int64_t>> counted(static_cast<size_t>(plan.rows));
    for (int64_t od = 0; od < geometry.axes[0].outputSize; ++od)
        for (int64_t oh = 0; oh < plan.outputHeight; ++oh)
            counted[static_cast<size_t>(windows.depth(od).first * plan.inputHeight + windows.height(oh).first)]
                .push_back(od * plan.outputHeight + oh);
    plan.countsStart.push_back(0);
    for (const std::vector<int64_t> &outputRows : counted) {
        plan.countsRows.insert(plan.countsRows.end(), outputRows.begin(), outputRows.end());
        plan.countsStart.push_back(static_cast<int64_t>(plan.countsRows.size()));
    }
    const int64_t work = saturatingAdd(problem.gradInput.elementCount(), problem.gradOutput.elementCount());
    plan.threads = std::clamp<int64_t>(threadsForWork(work), 1, std::max<int64_t>(plan.batch * plan.rows, 1));
    plan.streaming = streamingStoresPay(problem.gradInput, problem.geometry.channels);  // position by position
    plan.fallback = planIndexScatterBackwardReference(problem).plan;
    return PlanOutcome::accept(std::move(plan));
}

// Gathers input rows [begin, end) of all planes; returns {expected, matched}. INT64 indices are converted to
// int32 (saturated, vectorised) an output row at a time when a row first needs it, into a per-thread copy of
// the batch item's output rows.
template <typename I>
GatherMatchCount gatherOverlappingRows(const PoolProblem &problem, const OverlappingGatherPlan &plan, int64_t begin,
                                       int64_t end) {
    const int64_t width = static_cast<int64_t>(plan.width.start.size()) - 1;
    const int64_t rowElements = width * plan.channels, outputRowElements = plan.outputWidth * plan.channels;
    std::array<const int32_t *, kMostOverlappingWindows> indexRows{};
    std::array<const float *, kMostOverlappingWindows> gradientRows{};
    constexpr bool kDirect = std::is_same_v<I, int32_t>;
    std::vector<int32_t> converted(kDirect ? 0 : static_cast<size_t>(plan.outputRows * outputRowElements));
    std::vector<int64_t> convertedFor(kDirect ? 0 : static_cast<size_t>(plan.outputRows), -1);  // batch item
    const auto indexRowOf = [&](int64_t n, const I *indexPlane, int64_t outputRow) -> const int32_t * {
        if constexpr (kDirect) {
            return indexPlane + outputRow * outputRowElements;
        } else {
            int32_t *row = converted.data() + outputRow * outputRowElements;
            if (convertedFor[static_cast<size_t>(outputRow)] != n) {
                convertIndicesToInt32(indexPlane + outputRow * outputRowElements, row, outputRowElements);
                convertedFor[static_cast<size_t>(outputRow)] = n;
            }
            return row;
        }
    };
    int64_t expected = 0, matched = 0;
    for (int64_t item = begin; item < end; ++item) {
        const int64_t n = item / plan.rows, r = item % plan.rows;
        const int64_t d = r / plan.inputHeight, h = r % plan.inputHeight;
        const I *indexPlane = problem.indices.plane<const I>(n, 0);
        const float *gradientPlane = problem.gradOutput.plane<const float>(n, 0);
        int64_t rowCount = 0;
        for (int64_t i = 0; i < plan.depth.count(d); ++i)
            for (int64_t j = 0; j < plan.height.count(h); ++j) {
                const int64_t outputRow = plan.depth.of(d)[i] * plan.outputHeight + plan.height.of(h)[j];
                indexRows[static_cast<size_t>(rowCount)] = indexRowOf(n, indexPlane, outputRow);
                gradientRows[static_cast<size_t>(rowCount)] = gradientPlane + outputRow * outputRowElements;
                ++rowCount;
            }
        matched += gatherOverlappingChannelsRow(plan.width.start.data(), plan.width.outputs.data(), width,
                                                plan.channels, indexRows.data(), gradientRows.data(), rowCount,
                                                static_cast<int32_t>(r * width),
                                                problem.gradInput.plane<float>(n, 0) + r * rowElements, plan.streaming);
        // Counted after the gather has read the rows, from the cache (counted first, from memory, the pass waits
        // for DRAM with no work to overlap it).
        for (int64_t i = plan.countsStart[static_cast<size_t>(r)]; i < plan.countsStart[static_cast<size_t>(r + 1)];
             ++i)
            expected += countIndicesInUse(indexRowOf(n, indexPlane, plan.countsRows[static_cast<size_t>(i)]),
                                          outputRowElements);
    }
    return {expected, matched};
}

}  // namespace

PlanOutcome planIndexGatherBackwardChannelsLastOverlapping(const PoolProblem &problem) {
    return planOverlappingGather(problem);
}

RunResult runIndexGatherBackwardChannelsLastOverlapping(const PoolProblem &problem,
                                                        const ImplementationPlan &madePlan) {
    const OverlappingGatherPlan &plan = planAs<OverlappingGatherPlan>(madePlan);
    const bool complete = withIndexType(problem.indices.type, [&](auto index) {
        return gatherOnThreads(
            static_cast<int>(plan.threads), plan.batch * plan.rows, 0, plan.streaming, [&](int64_t begin, int64_t end) {
                return gatherOverlappingRows<typename decltype(index)::type>(problem, plan, begin, end);
            });
    });
    if (complete) return {};
    return handOverToScatterReference(problem, *plan.fallback);
}

}  // namespace poolgrad::cpu
