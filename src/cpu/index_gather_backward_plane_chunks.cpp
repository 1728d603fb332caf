// Write-once index gather backward by plane chunks (dense planes, windows that do not overlap): each plane
// is one flat array cut into chunks of a vector's lanes, and every gradInput element is produced once from
// the one window that contains it (gather_plane_chunks.h). Unlike the row gather (index_gather_backward.cpp)
// it has no per-row work, so it takes planes whose rows are narrower than two vectors (case E: 14 columns),
// which the row gather declines. The element receives +0 + the output's gradient when the output's index
// is the element's plane position, else +0: bit for bit the scatter's sum from +0 whenever every index
// lies in its own window. Float32 sums are written straight into gradInput (streaming stores when it is
// larger than the cache). The plan declines 16-bit gradients: converting them first (a plane's outputs at a
// time, commit 73c7ed4) measured slower than the slab scatter. INT64 indices, declined on the same grounds
// until 2026-12-02, are converted to int32 (saturated, vectorised) a plane's outputs at a time into a
// per-thread plane, and then gathered as INT32 ones.
//
// As in the row gather, an index outside its own window (still inside the plane, where SPEC §3.6 scatters
// it) would be lost, and a bad index would go unreported. Counting finds both: every output whose index is
// not -1 must match exactly one element, and no index may lie beyond the plane (a lane in no window compares
// with the plane size). Otherwise the scatter reference reruns the problem.
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
#include "cpu/gather_match_count.h"
#include "cpu/gather_plane_chunks.h"
#include "cpu/gather_rows.h"
#include "cpu/simd_rows.h"

namespace poolgrad::cpu {
namespace {

struct PlaneChunkPlan final : ImplementationPlan {
    PlaneChunkTables tables;
    int64_t planes = 0;
    int64_t blocksPerPlane = 1;  // each a range of a plane's chunks, and a share of its outputs to count
    int64_t threads = 1;
    int64_t planesPerTurn = 0;  // whole planes: itemsPerTurnFor's turns of this many planes, or fixed shares (0)
    int64_t twoVectorChunks = 0;
    bool streaming = false;
    std::shared_ptr<const ImplementationPlan> fallback;  // the scatter reference's plan

    // Block `block` of a plane: chunks [first, end), cut between units of two chunks (a pair unit whole).
    std::pair<int64_t, int64_t> blockChunks(int64_t block) const {
        const int64_t units = (tables.chunks + 1) / 2;
        return {std::min(tables.chunks, 2 * (units * block / blocksPerPlane)),
                std::min(tables.chunks, 2 * (units * (block + 1) / blocksPerPlane))};
    }
    std::string describe() const override {
        int64_t most = 0;
        for (int64_t block = 0; block < blocksPerPlane; ++block) {
            const auto [first, end] = blockChunks(block);
            most = std::max(most, end - first);
        }
        return joinText("plane chunks blocks=", planes, "x", blocksPerPlane, " of <=", most, " chunks of ",
                        tables.lanes, " lanes, ", tables.pairUnit.size(), " pair units, ", twoVectorChunks,
                        " reading two vectors, ", streaming ? "streaming" : "cached", " threads=", threads,
                        blocksPerPlane == 1 ? turnsText(planesPerTurn) : "");
    }
};

// For each input coordinate of an axis, the output coordinate whose window contains it, or -1; nullopt
// when windows overlap.
std::optional<std::vector<int64_t>> windowOfCoordinate(const std::vector<AxisWindow> &windows, int64_t inputSize) {
    std::vector<int64_t> owner(static_cast<size_t>(inputSize), -1);
    for (size_t o = 0; o < windows.size(); ++o)
        for (int64_t j = 0, x = windows[o].first; j < windows[o].count; ++j, x += windows[o].step) {
            int64_t &slot = owner[static_cast<size_t>(x)];
            if (slot >= 0) return std::nullopt;
            slot = static_cast<int64_t>(o);
        }
    return owner;
}

// Fills the per-chunk tables; declines (a reason) when a chunk's lanes read outputs from more than two
// vectors.
std::optional<std::string> buildTables(const PoolGeometry &geometry, const std::array<std::vector<int64_t>, 3> &owner,
                                       PlaneChunkTables &tables, int64_t &twoVectorChunks) {
    const int64_t D = geometry.axes[0].inputSize, H = geometry.axes[1].inputSize, W = geometry.axes[2].inputSize;
    const int64_t Ho = geometry.axes[1].outputSize, Wo = geometry.axes[2].outputSize;
    const int64_t lanes = tables.lanes, chunks = tables.chunks;
    // Each plane position's output (or -1), tabled once in plane order: asked three times per position
    // below, the three divisions that find its coordinates were most of phase 1 (45 us of 16x8x8x16x16's
    // phase 1 on the Zen 4 host, more than its phase 2).
    std::vector<int64_t> positionOutput(static_cast<size_t>(tables.planeElements));
    size_t at = 0;
    for (int64_t d = 0; d < D; ++d)
        for (int64_t h = 0; h < H; ++h) {
            const int64_t od = owner[0][static_cast<size_t>(d)], oh = owner[1][static_cast<size_t>(h)];
            const int64_t rowOutputs = od < 0 || oh < 0 ? -1 : (od * Ho + oh) * Wo;
            for (int64_t w = 0; w < W; ++w) {
                const int64_t ow = owner[2][static_cast<size_t>(w)];
                positionOutput[at++] = rowOutputs < 0 || ow < 0 ? -1 : rowOutputs + ow;
            }
        }
    const auto outputOf = [&](int64_t position) -> int64_t { return positionOutput[static_cast<size_t>(position)]; };
    tables.chunk.assign(static_cast<size_t>(chunks), PlaneChunkTables::Chunk{});
    tables.laneOffset.assign(static_cast<size_t>(chunks * lanes), 0);
    tables.lanePosition.assign(static_cast<size_t>(chunks * lanes), static_cast<int32_t>(tables.planeElements));
    std::vector<int64_t> laneOutput(static_cast<size_t>(lanes));
    for (int64_t chunk = 0; chunk < chunks; ++chunk) {
        int64_t lowest = std::numeric_limits<int64_t>::max(), highest = -1;
        for (int64_t lane = 0; lane < lanes; ++lane) {
            const int64_t position = chunk * lanes + lane;
            const int64_t q = position < tables.planeElements ? outputOf(position) : -1;
            laneOutput[static_cast<size_t>(lane)] = q;
            if (q < 0) continue;
            lowest = std::min(lowest, q);
            highest = std::max(highest, q);
        }
        if (highest < 0) continue;
        // The second group: the outputs `lanes` or more above the lowest.
        int64_t secondLowest = std::numeric_limits<int64_t>::max();
        for (const int64_t q : laneOutput)
            if (q >= lowest + lanes) secondLowest = std::min(secondLowest, q);
        const bool two = secondLowest <= highest;
        if (two && highest - secondLowest >= lanes)
            return joinText("a chunk of ", lanes, " plane positions reads outputs from more than two vectors (", lowest,
                            " to ", highest, ")");
        PlaneChunkTables::Chunk &entry = tables.chunk[static_cast<size_t>(chunk)];
        twoVectorChunks += two;
        entry.reach = two ? PlaneChunkTables::kTwoVectors : PlaneChunkTables::kOneVector;
        entry.firstOutput = static_cast<int32_t>(lowest);
        entry.readable = static_cast<int32_t>(std::min(lanes, tables.planeOutputs - lowest));
        if (two) {
            entry.secondOutput = static_cast<int32_t>(secondLowest);
            entry.secondReadable = static_cast<int32_t>(std::min(lanes, tables.planeOutputs - secondLowest));
        }
        for (int64_t lane = 0; lane < lanes; ++lane) {
            const int64_t q = laneOutput[static_cast<size_t>(lane)];
            if (q < 0) continue;
            const size_t at = static_cast<size_t>(chunk * lanes + lane);
            tables.lanePosition[at] = static_cast<int32_t>(chunk * lanes + lane);
            tables.laneOffset[at] = static_cast<int32_t>(q < lowest + lanes ? q - lowest : lanes + q - secondLowest);
        }
    }
    // Pair units: only where every even position and the next lie in one window (or both in none).
    bool pairs = planeChunkPairsSupported();
    for (int64_t position = 0; pairs && position + 1 < tables.planeElements; position += 2)
        pairs = outputOf(position) == outputOf(position + 1);
    const size_t boundaries = static_cast<size_t>(chunks + 1);
    tables.plainBefore.assign(boundaries, 0);
    tables.otherBefore.assign(boundaries, 0);
    tables.pairBefore.assign(boundaries, 0);
    for (int64_t unit = 0; 2 * unit < chunks; ++unit) {
        // Pairs j of the unit: positions 2j, 2j+1 for j in [unit*lanes, (unit+1)*lanes), whole in the plane,
        // their outputs in one vector.
        const int64_t firstPair = unit * lanes;
        bool pairUnit = pairs && 2 * (firstPair + lanes) <= tables.planeElements;
        int64_t lowest = std::numeric_limits<int64_t>::max(), highest = -1;
        for (int64_t j = firstPair; pairUnit && j < firstPair + lanes; ++j)
            if (const int64_t q = outputOf(2 * j); q >= 0) {
                lowest = std::min(lowest, q);
                highest = std::max(highest, q);
            }
        pairUnit = pairUnit && highest >= 0 && highest - lowest < lanes;
        if (pairUnit) {
            tables.pairUnit.push_back(static_cast<int32_t>(unit));
            tables.pairFirstOutput.push_back(static_cast<int32_t>(lowest));
            tables.pairReadable.push_back(static_cast<int32_t>(std::min(lanes, tables.planeOutputs - lowest)));
            for (int64_t j = firstPair; j < firstPair + lanes; ++j) {
                const int64_t q = outputOf(2 * j);
                tables.pairOffset.push_back(static_cast<int32_t>(q < 0 ? 0 : q - lowest));
                tables.pairPosition.push_back(static_cast<int32_t>(q < 0 ? tables.planeElements : 2 * j));
            }
        }
        for (int64_t chunk = 2 * unit; chunk < std::min(chunks, 2 * unit + 2); ++chunk) {
            const PlaneChunkTables::Chunk &entry = tables.chunk[static_cast<size_t>(chunk)];
            const bool plain = entry.reach == PlaneChunkTables::kOneVector && entry.readable == lanes &&
                               (chunk + 1) * lanes <= tables.planeElements;
            if (pairUnit) {
            } else if (plain) {
                tables.plainChunk.push_back(static_cast<int32_t>(chunk));
                tables.plainFirstOutput.push_back(entry.firstOutput);
            } else {
                tables.otherChunk.push_back(static_cast<int32_t>(chunk));
            }
            const size_t next = static_cast<size_t>(chunk + 1);
            tables.plainBefore[next] = static_cast<int32_t>(tables.plainChunk.size());
            tables.otherBefore[next] = static_cast<int32_t>(tables.otherChunk.size());
            tables.pairBefore[next] = static_cast<int32_t>(tables.pairUnit.size());
        }
    }
    return std::nullopt;
}

// Rows at least this many vectors wide are left to the row gather (cpu_index_gather_backward_dense).
constexpr int64_t kRowGatherWidthInVectors = 4;

PlanOutcome planPlaneChunks(const PoolProblem &problem) {
    if (std::optional<std::string> reason = indexBackwardPlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    // Converted first, a plane's outputs at a time, they measured slower than the slab scatter on the Zen 4
    // host (1 thread: E with INT64 indices 1.5x, E in bfloat16 1.4x, A in bfloat16 2x its time).
    if (problem.gradOutput.type != ElementType::Float32)
        return PlanOutcome::decline(
            joinText(elementTypeName(problem.gradOutput.type), " gradients: the slab scatter measured faster"));
    const PoolGeometry &geometry = problem.geometry;
    // Per thread, for INT64 indices: an output plane converted to int32 (vectorised, saturating).
    if (problem.indices.type != ElementType::Int32)
        if (const std::optional<int64_t> bytes = checkedMul<int64_t>(geometry.outputPlaneElements(), 4);
            !bytes || *bytes > kScratchBytesPerThread)
            return PlanOutcome::decline(scratchDeclineText("an output plane of converted INT64 indices", bytes));
    const int64_t planeElements = geometry.inputPlaneElements();
    if (planeElements >= std::numeric_limits<int32_t>::max())
        return PlanOutcome::decline(joinText("planes of ", planeElements, " elements need 64-bit positions"));
    const WindowTables windows = WindowTables::of(geometry);
    std::array<std::vector<int64_t>, 3> owner;
    for (size_t axis = 0; axis < 3; ++axis) {
        std::optional<std::vector<int64_t>> axisOwner =
            windowOfCoordinate(windows.axes[axis], geometry.axes[axis].inputSize);
        // Overlapping windows need several candidates per element; the scatter adds each output once.
        if (!axisOwner)
            return PlanOutcome::decline(
                joinText("windows overlap along ", "DHW"[axis], ": the scatter adds each output once"));
        owner[axis] = std::move(*axisOwner);
    }
    PlaneChunkPlan plan;
    plan.tables.lanes = planeChunkLaneCount();
    // Rows of four vectors or more go to the row gather where it takes them: there it was level or faster
    // (Zen 4, 1 thread, cache-resident, 2x2x2 / 2x2 at stride 2: rows of 64 0.010 ms both, of 80 0.010
    // against 0.012, of 200 0.011 against 0.014), while on narrower rows this kernel was (rows of 32 0.009
    // against 0.014, of 50 0.017 against 0.021, of 56 0.015 against 0.019).
    const int64_t width = geometry.axes[2].inputSize;
    if (width >= kRowGatherWidthInVectors * plan.tables.lanes && planIndexGatherBackwardDense(problem).accepted())
        return PlanOutcome::decline(joinText("rows of ", width, " elements (", kRowGatherWidthInVectors,
                                             " vectors or more): the row gather measured faster"));
    plan.tables.planeElements = planeElements;
    plan.tables.planeOutputs = geometry.outputPlaneElements();
    plan.tables.chunks = (planeElements + plan.tables.lanes - 1) / plan.tables.lanes;
    if (std::optional<std::string> reason = buildTables(geometry, owner, plan.tables, plan.twoVectorChunks))
        return PlanOutcome::decline(*reason);

    plan.planes = geometry.planes();
    const int64_t work = saturatingAdd(problem.gradInput.elementCount(), problem.gradOutput.elementCount());
    plan.threads = threadsForWork(work);
    // Whole planes per thread when there are enough of them; otherwise each plane's chunks are cut so
    // that every thread gets two blocks.
    if (plan.planes < 2 * plan.threads)
        plan.blocksPerPlane = std::clamp<int64_t>((2 * plan.threads + plan.planes - 1) / plan.planes, 1,
                                                  std::max<int64_t>((plan.tables.chunks + 1) / 2, 1));
    // Whole planes in turns only where turns pay (itemsPerTurnFor: problems past 32 MiB); smaller ones keep
    // fixed contiguous shares, so that repeated calls find each thread's planes in its own L2.
    plan.planesPerTurn = itemsPerTurnFor(static_cast<int>(plan.threads), plan.planes, problem.bytesMoved());
    plan.streaming = streamingStoresPay(problem.gradInput, geometry.inputPlaneElements());
    plan.fallback = planIndexScatterBackwardReference(problem).plan;
    return PlanOutcome::accept(std::move(plan));
}

struct Counts {
    int64_t expected = 0, matched = 0, outsidePlane = 0;
};

// Chunks of a plane's share `block`; counts the indices of its share of the plane's outputs (every output
// counted once over the blocks) and the matches of its chunks. INT64 indices are converted first, the whole
// output plane into `converted` (saturated: an index beyond int32 lies outside every plane).
template <typename I>
void gatherBlock(const PoolProblem &problem, const PlaneChunkPlan &plan, int64_t plane, int64_t block,
                 std::vector<int32_t> &converted, Counts &counts) {
    const PlaneChunkTables &tables = plan.tables;
    const int64_t n = plane / problem.geometry.channels, c = plane % problem.geometry.channels;
    const float *gradOut = problem.gradOutput.plane<const float>(n, c);
    const int32_t *indices = nullptr;
    if constexpr (std::is_same_v<I, int32_t>) {
        indices = problem.indices.plane<const int32_t>(n, c);
    } else {
        convertIndicesToInt32(problem.indices.plane<const int64_t>(n, c), converted.data(), tables.planeOutputs);
        indices = converted.data();
    }
    float *gradIn = problem.gradInput.plane<float>(n, c);
    const auto [firstChunk, endChunk] = plan.blockChunks(block);
    const int64_t firstCounted = tables.planeOutputs * block / plan.blocksPerPlane,
                  endCounted = tables.planeOutputs * (block + 1) / plan.blocksPerPlane;
    const IndexCounts indexCounts =
        countIndices(indices + firstCounted, endCounted - firstCounted, tables.planeElements);
    counts.expected += indexCounts.present;
    counts.outsidePlane += indexCounts.outsidePlane;
    counts.matched += gatherPlaneChunks(tables, firstChunk, endChunk, indices, gradOut,
                                        gradIn + firstChunk * tables.lanes, plan.streaming);
}

PlaneChunkOperands operandsOf(const PoolProblem &problem) {
    PlaneChunkOperands operands;
    operands.indices = problem.indices.plane<const int32_t>(0, 0);
    operands.gradients = problem.gradOutput.plane<const float>(0, 0);
    operands.destination = problem.gradInput.plane<float>(0, 0);
    operands.channels = problem.geometry.channels;
    for (size_t axis = 0; axis < 2; ++axis) {
        operands.indexStride[axis] = problem.indices.stride[axis];
        operands.gradientStride[axis] = problem.gradOutput.stride[axis];
        operands.destinationStride[axis] = problem.gradInput.stride[axis];
    }
    return operands;
}

RunResult runPlaneChunks(const PoolProblem &problem, const ImplementationPlan &madePlan) {
    const PlaneChunkPlan &plan = planAs<PlaneChunkPlan>(madePlan);
    // An index outside its plane counts as expected and never matched, so that it too makes the gather
    // incomplete (matches never exceed the indices present).
    bool complete;
    if (problem.indices.type != ElementType::Int32) {
        // INT64: a plane (or a block of one) at a time, through the converted plane.
        complete = gatherOnThreads(static_cast<int>(plan.threads), plan.planes * plan.blocksPerPlane, 0, plan.streaming,
                                   [&](int64_t begin, int64_t end) {
                                       std::vector<int32_t> converted(static_cast<size_t>(plan.tables.planeOutputs));
                                       Counts counts;
                                       for (int64_t item = begin; item < end; ++item)
                                           gatherBlock<int64_t>(problem, plan, item / plan.blocksPerPlane,
                                                                item % plan.blocksPerPlane, converted, counts);
                                       return GatherMatchCount{counts.expected + counts.outsidePlane, counts.matched};
                                   });
    } else if (plan.blocksPerPlane == 1) {
        // Whole planes: a thread's planes in one call.
        const PlaneChunkOperands operands = operandsOf(problem);
        complete = gatherOnThreads(
            static_cast<int>(plan.threads), plan.planes, plan.planesPerTurn, plan.streaming,
            [&](int64_t begin, int64_t end) {
                const WholePlaneCounts counts = gatherWholePlanes(plan.tables, operands, begin, end, plan.streaming);
                return GatherMatchCount{counts.indices.present + counts.indices.outsidePlane, counts.matched};
            });
    } else {
        complete = gatherOnThreads(static_cast<int>(plan.threads), plan.planes * plan.blocksPerPlane, 0, plan.streaming,
                                   [&](int64_t begin, int64_t end) {
                                       std::vector<int32_t> unused;
                                       Counts counts;
                                       for (int64_t item = begin; item < end; ++item)
                                           gatherBlock<int32_t>(problem, plan, item / plan.blocksPerPlane,
                                                                item % plan.blocksPerPlane, unused, counts);
                                       return GatherMatchCount{counts.expected + counts.outsidePlane, counts.matched};
                                   });
    }
    if (complete) return {};
    return handOverToScatterReference(problem, *plan.fallback);
}

}  // namespace

PlanOutcome planIndexGatherBackwardPlaneChunks(const PoolProblem &problem) { return planPlaneChunks(problem); }
RunResult runIndexGatherBackwardPlaneChunks(const PoolProblem &problem, const ImplementationPlan &plan) {
    return runPlaneChunks(problem, plan);
}

}  // namespace poolgrad::cpu
