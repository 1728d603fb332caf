// Index-scatter backward. Contributions to a gradInput element are summed in float32 in increasing
// output order, starting from +0, then rounded once to the output type.
//
// Reference (any strides): one thread owns a block of (n,c) planes. float32 gradients are summed in
// gradInput itself; 16-bit ones in a per-thread float32 tile of at most kScratchFloats plane positions
// (large planes take several passes over their outputs, one per tile). An index < -1 or >= D*H*W stops its plane; the
// first one (lowest position) is reported and the whole gradInput is zeroed, so an error never leaves a partial result.
// Without an indices operand (masks of 1x1 kernels) every window has one element, and that element is the index.
//
// Dense (dense planes): work items are (plane, slab of input rows), each slab small enough to stay in
// the cache, so a plane is split across threads when there are few planes. A slab is summed in a
// per-thread float32 buffer from the outputs whose windows reach it, then written out once with SIMD
// conversion and streaming stores: gradInput is never zero-filled and read back from memory. A float32
// gradInput small enough to stay in the cache is instead zeroed and summed in place. Indices outside
// their own window may land in a slab that did not visit their output; counting shows it, and such
// problems, like bad indices, are rerun by the reference.
#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>
#include <sstream>
#include <type_traits>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "core/checked_arithmetic.h"
#include "core/error_message.h"
#include "core/gradient_sum.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dtype_dispatch.h"
#include "cpu/simd_rows.h"

namespace poolgrad::cpu {
namespace {

struct BadIndex {
    int64_t plane = std::numeric_limits<int64_t>::max();
    int64_t position = 0;  // flat output position inside the plane
    int64_t value = 0;
    bool found() const { return plane != std::numeric_limits<int64_t>::max(); }
    bool before(const BadIndex &other) const {
        return plane < other.plane || (plane == other.plane && position < other.position);
    }
};

// Strided offset of flat plane position i = (d*H + h)*W + w in an operand's plane.
struct PlaneAddress {
    int64_t height, width, strideD, strideH, strideW;
    int64_t operator()(int64_t i) const {
        const int64_t row = i / width, w = i - row * width;
        const int64_t d = row / height, h = row - d * height;
        return d * strideD + h * strideH + w * strideW;
    }
};

// The reference's decisions: planes split into blocks per thread, and for 16-bit gradients the tile of
// float32 sums (at most kScratchFloats plane positions; a larger plane takes one pass over its outputs per
// tile). Without an indices operand the window tables give each output's element.
struct ScatterReferencePlan final : ImplementationPlan {
    int64_t planes = 0;
    int64_t workPerPlane = 0;
    int threads = 1;
    int64_t tileElements = 0;  // 16-bit gradients: plane positions summed per pass
    bool sumsInPlace = true;   // float32: summed in gradInput itself
    bool impliedIndices = false;
    WindowTables windows;  // only for implied indices

    std::string describe() const override {
        return joinText("planes=", planes,
                        sumsInPlace ? " sums in gradInput" : joinText(" tiles of ", tileElements, " sums"),
                        impliedIndices ? " indices implied by 1x1 windows" : "");
    }
};

ScatterReferencePlan planReference(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    ScatterReferencePlan plan;
    plan.planes = geometry.planes();
    plan.workPerPlane = saturatingAdd(geometry.inputPlaneElements(), geometry.outputPlaneElements());
    plan.threads = plannedThreadCount(plan.planes, plan.workPerPlane);
    // float32 sums are kept in gradInput itself (zeroed first; no operand shares its memory, phase 1 sees
    // to that). 16-bit gradients are summed in float32 and rounded once, so their sums need scratch, which
    // tiles bound whatever the plane size (scratch_bound.h).
    plan.sumsInPlace = problem.gradOutput.type == ElementType::Float32;
    plan.tileElements =
        plan.sumsInPlace ? geometry.inputPlaneElements() : std::min(geometry.inputPlaneElements(), kScratchFloats);
    plan.impliedIndices = !problem.indices.present();
    if (plan.impliedIndices) plan.windows = WindowTables::of(geometry);
    return plan;
}

// The slab kernels' decisions (see the top of this file): slabs of whole input rows, how many per group
// (plane, or sample channels-last), whether sums go through a buffer and streaming stores or stay in a
// cache-resident float32 gradInput, and the prefetch of the next small plane. The reference plan is made
// too, for the hand-over when the data breaks the slabs' assumption.
struct ScatterSlabsPlan final : ImplementationPlan {
    bool channelsLast = false;
    WindowTables windows;     // D and H are walked
    int64_t rows = 0;         // (d,h) input rows of a group
    int64_t rowElements = 0;  // W, or W*C channels-last
    int64_t groups = 0;
    int64_t slabsPerGroup = 1;
    int64_t threads = 1;
    bool streaming = false;
    bool inPlace = false;
    bool prefetchNextPlane = false;
    ScatterReferencePlan fallback;

    int64_t slabs() const { return groups * slabsPerGroup; }
    std::string describe() const override {
        const int64_t rowsPerSlab = (rows + slabsPerGroup - 1) / slabsPerGroup;
        return joinText("slabs=", groups, "x", slabsPerGroup, " of <=", rowsPerSlab, " rows (",
                        rowsPerSlab * rowElements, " sums) ",
                        inPlace ? "in place" : (streaming ? "buffered streaming" : "buffered"), " threads=", threads,
                        prefetchNextPlane ? " prefetch" : "");
    }
};

template <typename T, typename I>
BadIndex scatterPlanes(const PoolProblem &problem, const ScatterReferencePlan &plan, int64_t begin, int64_t end) {
    const PoolGeometry &geometry = problem.geometry;
    const StridedTensor &gradOut = problem.gradOutput, &idx = problem.indices, &gradIn = problem.gradInput;
    const int64_t planeElements = geometry.inputPlaneElements();
    const int64_t outD = geometry.axes[0].outputSize, outH = geometry.axes[1].outputSize,
                  outW = geometry.axes[2].outputSize;
    const int64_t inH = geometry.axes[1].inputSize, inW = geometry.axes[2].inputSize;
    const int64_t channels = geometry.channels;
    const bool impliedIndices = !idx.present();
    const PlaneAddress gradInAt{inH, inW, gradIn.stride[2], gradIn.stride[3], gradIn.stride[4]};
    constexpr bool inPlace = std::is_same_v<T, float>;
    const int64_t tileElements = inPlace ? planeElements : plan.tileElements;
    std::vector<float> tileSums(inPlace ? 0 : static_cast<size_t>(tileElements));

    BadIndex bad;
    for (int64_t plane = begin; plane < end && !bad.found(); ++plane) {
        const int64_t n = plane / channels, c = plane % channels;
        const T *gradOutPlane = gradOut.plane<const T>(n, c);
        const I *idxPlane = impliedIndices ? nullptr : idx.plane<const I>(n, c);
        T *gradInPlane = gradIn.plane<T>(n, c);
        if constexpr (inPlace)
            for (int64_t i = 0; i < planeElements; ++i) gradInPlane[gradInAt(i)] = 0.0f;

        for (int64_t tileBegin = 0; tileBegin < planeElements && !bad.found(); tileBegin += tileElements) {
            const int64_t tileEnd = std::min(planeElements, tileBegin + tileElements);
            if constexpr (!inPlace) std::fill(tileSums.begin(), tileSums.end(), 0.0f);
            int64_t q = 0;
            for (int64_t od = 0; od < outD && !bad.found(); ++od)
                for (int64_t oh = 0; oh < outH && !bad.found(); ++oh)
                    for (int64_t ow = 0; ow < outW; ++ow, ++q) {
                        const int64_t gradOffset =
                            od * gradOut.stride[2] + oh * gradOut.stride[3] + ow * gradOut.stride[4];
                        int64_t target;
                        if (impliedIndices) {
                            target = (plan.windows.depth(od).first * inH + plan.windows.height(oh).first) * inW +
                                     plan.windows.width(ow).first;
                        } else {
                            const int64_t idxOffset = od * idx.stride[2] + oh * idx.stride[3] + ow * idx.stride[4];
                            target = static_cast<int64_t>(idxPlane[idxOffset]);
                        }
                        if (target == -1) continue;  // an empty window's index contributes nothing
                        if (target < -1 || target >= planeElements) {
                            bad = {plane, q, target};
                            break;
                        }
                        if (target < tileBegin || target >= tileEnd) continue;
                        float *sum;
                        if constexpr (inPlace)
                            sum = &gradInPlane[gradInAt(target)];
                        else
                            sum = &tileSums[static_cast<size_t>(target - tileBegin)];
                        *sum = addToSum(*sum, toFloat(gradOutPlane[gradOffset]));
                    }
            if constexpr (!inPlace) {
                if (bad.found()) break;
                for (int64_t i = tileBegin; i < tileEnd; ++i)
                    gradInPlane[gradInAt(i)] = fromFloat<T>(tileSums[static_cast<size_t>(i - tileBegin)]);
            }
        }
    }
    return bad;
}

std::string describeBadIndex(const PoolProblem &problem, const BadIndex &bad) {
    const PoolGeometry &geometry = problem.geometry;
    const int64_t outH = geometry.axes[1].outputSize, outW = geometry.axes[2].outputSize;
    const int64_t od = bad.position / (outH * outW), oh = bad.position / outW % outH, ow = bad.position % outW;
    std::ostringstream text;
    text << "indices at (n=" << bad.plane / geometry.channels << ", c=" << bad.plane % geometry.channels << ", d=" << od
         << ", h=" << oh << ", w=" << ow << ") = " << bad.value << " is outside [0, " << geometry.inputPlaneElements()
         << ") (the positions of an input plane; -1 alone means 'no element'); gradInput was set to zeros";
    return text.str();
}

struct SlabCounts {
    int64_t expected = 0;  // in-range indices of the outputs this slab owns
    int64_t accepted = 0;  // contributions that landed in this slab
    bool badIndex = false;
};

// Rows (d*H + h) spanned by a window, or {-1, -1} when it holds no element.
struct RowSpan {
    int64_t first = -1, last = -1;
};

// A slab is rows [r0, r1) of the (d,h) rows of one group of channels: one (n,c) plane for dense
// planes, all channels of one n for channels-last storage (where a row holds W*C elements, C fastest).
template <typename T, typename I, bool ChannelsLast>
SlabCounts scatterSlab(const PoolProblem &problem, const ScatterSlabsPlan &plan, int64_t group, int64_t r0, int64_t r1,
                       bool ownsEmpty, std::vector<float> &buffer, std::vector<float> &widenedRow) {
    const PoolGeometry &geometry = problem.geometry;
    const int64_t H = geometry.axes[1].inputSize, W = geometry.axes[2].inputSize;
    const int64_t Do = geometry.axes[0].outputSize, Ho = geometry.axes[1].outputSize, Wo = geometry.axes[2].outputSize;
    const int64_t planeElements = geometry.inputPlaneElements();
    const int64_t channels = ChannelsLast ? geometry.channels : 1;
    const int64_t n = ChannelsLast ? group : group / geometry.channels;
    const int64_t c = ChannelsLast ? 0 : group % geometry.channels;
    const T *gradOut = problem.gradOutput.plane<const T>(n, c);
    const I *indices = problem.indices.plane<const I>(n, c);
    const int64_t base = r0 * W, size = (r1 - r0) * W;
    T *gradIn = problem.gradInput.plane<T>(n, c) + base * channels;
    const bool inPlace = plan.inPlace;
    float *sums;
    if (inPlace) {
        sums = reinterpret_cast<float *>(gradIn);
        std::fill(sums, sums + size * channels, 0.0f);
    } else {
        buffer.assign(static_cast<size_t>(size * channels), 0.0f);
        sums = buffer.data();
    }

    // Counters in locals, not in the returned struct: the compiler keeps them in registers instead of
    // making every contribution a store-to-load chain through memory.
    int64_t expected = 0, accepted = 0;
    for (int64_t od = 0; od < Do; ++od) {
        const AxisWindow wd = plan.windows.depth(od);
        for (int64_t oh = 0; oh < Ho; ++oh) {
            const AxisWindow wh = plan.windows.height(oh);
            RowSpan span;
            if (wd.count > 0 && wh.count > 0)
                span = {wd.first * H + wh.first,
                        (wd.first + (wd.count - 1) * wd.step) * H + wh.first + (wh.count - 1) * wh.step};
            const bool owned = span.first >= 0 ? (span.first >= r0 && span.first < r1) : ownsEmpty;
            const bool reaches = span.first >= 0 && span.first < r1 && span.last >= r0;
            if (!owned && !reaches) continue;
            const int64_t rowOffset = ChannelsLast
                                          ? od * problem.gradOutput.stride[2] + oh * problem.gradOutput.stride[3]
                                          : (od * Ho + oh) * Wo;
            const int64_t indexRowOffset =
                ChannelsLast ? od * problem.indices.stride[2] + oh * problem.indices.stride[3] : rowOffset;
            // float16 gradients are widened a row at a time with SIMD: the scalar conversion, with its
            // branches for subnormals and NaN, cost a fifth of the scatter.
            const float *widened = nullptr;
            if constexpr (std::is_same_v<T, Float16>) {
                widenedRow.resize(static_cast<size_t>(Wo * channels));
                widenFloat16Row(&gradOut[rowOffset].bits, widenedRow.data(), Wo * channels);
                widened = widenedRow.data();
            }
            const auto gradientAt = [&](int64_t at) {
                if constexpr (std::is_same_v<T, Float16>)
                    return widened[at - rowOffset];
                else
                    return toFloat(gradOut[at]);
            };
            // Output positions in increasing order; channels of one position are independent sums. The
            // common case, an index inside this slab, costs one unsigned comparison; -1, indices elsewhere
            // in the plane and bad ones are sorted out on the side, and the counts are settled per row.
            int64_t minusOnes = 0, elsewhere = 0;
            for (int64_t ow = 0; ow < Wo; ++ow) {
                for (int64_t cc = 0; cc < channels; ++cc) {
                    const int64_t at = rowOffset + ow * channels + cc;
                    const int64_t local = static_cast<int64_t>(indices[indexRowOffset + ow * channels + cc]) - base;
                    if (__builtin_expect(static_cast<uint64_t>(local) < static_cast<uint64_t>(size), 1)) {
                        float &sum = sums[local * channels + cc];
                        sum = addToSum(sum, gradientAt(at));
                        continue;
                    }
                    const int64_t target = local + base;
                    if (target == -1) {
                        ++minusOnes;
                    } else if (target < -1 || target >= planeElements) {
                        return {expected, accepted, true};
                    } else {
                        ++elsewhere;
                    }
                }
            }
            const int64_t rowOutputs = Wo * channels;
            expected += owned ? rowOutputs - minusOnes : 0;
            accepted += rowOutputs - minusOnes - elsewhere;
        }
    }
    if (!inPlace) storeFloatRow(problem.gradInput.type, sums, gradIn, size * channels, plan.streaming);
    return {expected, accepted, false};
}

// Asks for the gradOutput and indices planes of (n,c) plane `group` (dense planes) to be brought into the
// cache.
template <typename T, typename I>
void prefetchOutputs(const PoolProblem &problem, int64_t group) {
    const int64_t channels = problem.geometry.channels;
    const char *gradOut =
        reinterpret_cast<const char *>(problem.gradOutput.plane<const T>(group / channels, group % channels));
    const char *indices =
        reinterpret_cast<const char *>(problem.indices.plane<const I>(group / channels, group % channels));
    const int64_t outputs = problem.geometry.outputPlaneElements();
    for (int64_t b = 0; b < outputs * static_cast<int64_t>(sizeof(T)); b += 64) __builtin_prefetch(gradOut + b);
    for (int64_t b = 0; b < outputs * static_cast<int64_t>(sizeof(I)); b += 64) __builtin_prefetch(indices + b);
}

template <typename T, typename I, bool ChannelsLast>
SlabCounts scatterDense(const PoolProblem &problem, const ScatterSlabsPlan &plan) {
    const int64_t rows = plan.rows, slabsPerGroup = plan.slabsPerGroup;
    std::atomic<int64_t> expected{0}, accepted{0};
    std::atomic<bool> badIndex{false};
    runBlocksOnThreads(static_cast<int>(plan.threads), plan.slabs(), [&](int64_t begin, int64_t end) {
        std::vector<float> buffer, widenedRow;
        SlabCounts local;
        for (int64_t item = begin; item < end && !local.badIndex; ++item) {
            const int64_t group = item / slabsPerGroup, slab = item % slabsPerGroup;
            // Small planes: the next plane's gradOutput and indices are requested while this one is summed.
            if (slab == 0 && plan.prefetchNextPlane && item + slabsPerGroup < end)
                prefetchOutputs<T, I>(problem, group + 1);
            const SlabCounts counts =
                scatterSlab<T, I, ChannelsLast>(problem, plan, group, rows * slab / slabsPerGroup,
                                                rows * (slab + 1) / slabsPerGroup, slab == 0, buffer, widenedRow);
            local.expected += counts.expected;
            local.accepted += counts.accepted;
            local.badIndex = counts.badIndex;
        }
        expected += local.expected;
        accepted += local.accepted;
        if (local.badIndex) badIndex = true;
    });
    if (plan.streaming) streamingStoreFence();
    return {expected.load(), accepted.load(), badIndex.load()};
}

RunResult indexScatterBackwardReference(const PoolProblem &problem, const ScatterReferencePlan &plan) {
    BadIndex first;
    std::mutex firstMutex;
    withValueType(problem.gradOutput.type, [&](auto value) {
        withIndexType(problem.indices.present() ? problem.indices.type : ElementType::Int32, [&](auto index) {
            using T = typename decltype(value)::type;
            using I = typename decltype(index)::type;
            runBlocksOnThreads(plan.threads, plan.planes, [&](int64_t begin, int64_t end) {
                const BadIndex bad = scatterPlanes<T, I>(problem, plan, begin, end);
                if (!bad.found()) return;
                std::lock_guard lock(firstMutex);
                if (bad.before(first)) first = bad;
            });
        });
    });
    if (!first.found()) return {};
    zeroFill(problem.gradInput);
    return RunResult::failure(ACLNN_ERR_PARAM_INVALID, describeBadIndex(problem, first));
}

template <bool ChannelsLast>
RunResult indexScatterBackwardSlabs(const PoolProblem &problem, const ScatterSlabsPlan &plan) {
    const SlabCounts counts = withValueType(problem.gradOutput.type, [&](auto value) {
        return withIndexType(problem.indices.type, [&](auto index) {
            return scatterDense<typename decltype(value)::type, typename decltype(index)::type, ChannelsLast>(problem,
                                                                                                              plan);
        });
    });
    if (!counts.badIndex && counts.expected == counts.accepted) return {};
    return handOverToScatterReference(
        problem, plan.fallback,
        joinText(counts.expected, " contributions expected in the slabs that own their outputs, ", counts.accepted,
                 " landed in the slabs visited"));
}

std::optional<std::string> slabsScratchDecline(const PoolProblem &problem, bool channelsLast) {
    const PoolGeometry &geometry = problem.geometry;
    const int64_t channels = channelsLast ? geometry.channels : 1;
    // A slab holds at least one input row of float32 sums, and a float16 gradOutput row is widened whole.
    const std::optional<int64_t> inputRow = checkedMul(geometry.axes[2].inputSize, channels);
    const std::optional<int64_t> outputRow = checkedMul(geometry.axes[2].outputSize, channels);
    if (!inputRow || !outputRow) return scratchDeclineText("a row of float32 sums", std::nullopt);
    const int64_t floats = std::max(*inputRow, *outputRow);
    if (floats > kScratchFloats) return scratchDeclineText("a row of float32 sums", floats * 4);
    return std::nullopt;
}

std::optional<std::string> layoutDecline(const PoolProblem &problem, bool channelsLast) {
    if (!problem.indices.present()) return std::string("indices are implied by 1x1 windows");
    for (const auto &[role, tensor] :
         {std::pair{"gradOutput", &problem.gradOutput}, std::pair{"indices", &problem.indices},
          std::pair{"gradInput", &problem.gradInput}}) {
        if (channelsLast && !tensor->channelsLastDense()) return std::string(role) + " is not dense channels-last";
        if (!channelsLast && !tensor->planesDense()) return std::string(role) + " planes are not dense row-major";
    }
    return std::nullopt;
}

PlanOutcome planSlabs(const PoolProblem &problem, bool channelsLast) {
    if (std::optional<std::string> reason = layoutDecline(problem, channelsLast)) return PlanOutcome::decline(*reason);
    if (std::optional<std::string> reason = slabsScratchDecline(problem, channelsLast))
        return PlanOutcome::decline(*reason);
    const PoolGeometry &geometry = problem.geometry;
    ScatterSlabsPlan plan;
    plan.channelsLast = channelsLast;
    plan.windows = WindowTables::of(geometry);
    plan.rows = geometry.axes[0].inputSize * geometry.axes[1].inputSize;
    plan.rowElements = geometry.axes[2].inputSize * (channelsLast ? geometry.channels : 1);
    plan.groups = channelsLast ? geometry.batch : geometry.planes();
    const int64_t work = saturatingAdd(problem.gradInput.elementCount(), problem.gradOutput.elementCount());
    plan.threads = threadsForWork(work);
    // Slabs of at most ~256 KiB of float32 sums (L2-resident), and enough of them for every thread.
    // A channels-last row holds all channels (W*C elements), so such a budget would be a few rows and
    // every window would straddle several slabs, each rereading its outputs: channels-last slabs get
    // 2 MiB (L3-resident) so that they span whole windows.
    const int64_t slabElementBudget = channelsLast ? 512 * 1024 : 64 * 1024;
    const int64_t rowsPerBudget = std::max<int64_t>(1, slabElementBudget / std::max<int64_t>(plan.rowElements, 1));
    int64_t slabsPerGroup = (plan.rows + rowsPerBudget - 1) / rowsPerBudget;
    if (plan.groups < 2 * plan.threads)
        slabsPerGroup = std::max(slabsPerGroup, (2 * plan.threads + plan.groups - 1) / plan.groups);
    plan.slabsPerGroup = std::clamp<int64_t>(slabsPerGroup, 1, std::max<int64_t>(plan.rows, 1));
    plan.streaming = streamingStoresPay(problem.gradInput);
    // A float32 gradInput that stays in the cache is summed in place: the slab buffer and the copy out of
    // it pay only when streaming stores save the memory traffic (cache-resident, they made a plane of case
    // A take 1.4x as long as zero-filling and scattering in place, PyTorch's way).
    plan.inPlace = problem.gradInput.type == ElementType::Float32 && !plan.streaming;
    plan.prefetchNextPlane = !channelsLast && geometry.outputPlaneElements() <= 4096;
    plan.fallback = planReference(problem);
    return PlanOutcome::accept(std::move(plan));
}

}  // namespace

PlanOutcome planIndexScatterBackwardDense(const PoolProblem &problem) { return planSlabs(problem, false); }
PlanOutcome planIndexScatterBackwardChannelsLast(const PoolProblem &problem) { return planSlabs(problem, true); }
PlanOutcome planIndexScatterBackwardReference(const PoolProblem &problem) {
    return PlanOutcome::accept(planReference(problem));
}

RunResult runIndexScatterBackwardDense(const PoolProblem &problem, const ImplementationPlan &plan) {
    return indexScatterBackwardSlabs<false>(problem, planAs<ScatterSlabsPlan>(plan));
}
RunResult runIndexScatterBackwardChannelsLast(const PoolProblem &problem, const ImplementationPlan &plan) {
    return indexScatterBackwardSlabs<true>(problem, planAs<ScatterSlabsPlan>(plan));
}
RunResult runIndexScatterBackwardReference(const PoolProblem &problem, const ImplementationPlan &plan) {
    return indexScatterBackwardReference(problem, planAs<ScatterReferencePlan>(plan));
}

RunResult handOverToScatterReference(const PoolProblem &problem, const ImplementationPlan &referencePlan,
                                     const std::string &strayDetail) {
    // Reports a bad index (161002, gradInput zeroed); scatters stray ones as SPEC §3.6 asks.
    RunResult result = runIndexScatterBackwardReference(problem, referencePlan);
    result.fallback = result.status != 0 ? "cpu_index_scatter_backward_reference: an index outside its plane"
                                         : joinText(
                                               "cpu_index_scatter_backward_reference: indices leave their own "
                                               "windows",
                                               strayDetail.empty() ? "" : " (" + strayDetail + ")");
    return result;
}

}  // namespace poolgrad::cpu
