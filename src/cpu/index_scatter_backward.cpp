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
// problems, like bad indices, are rerun by the reference. Small planes, one slab each, are taken four at a time
// with their adds interleaved (scatterPlanesInterleaved).
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
#include "core/prefetch.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dtype_dispatch.h"
#include "cpu/simd_rows.h"
#include "cpu/simd_scatter_channels_last.h"

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

// Planes whose whole-plane scatters run interleaved. At stride 1 neighbouring windows often share their winner, so
// one plane's adds wait on each other's stores (a chain of store, load and add per output); four planes make four
// independent chains.
constexpr int64_t kInterleavedPlanes = 4;
// The largest plane interleaved (input, and output for 16-bit gradients): four planes of float32 sums (and widened
// gradients) stay in a core's L2 beside their operands.
constexpr int64_t kLargestInterleavedPlane = 16 * 1024;

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
    bool channelVectors = false;  // channels-last: per-tap compares across vectors of channels
    // Few outputs per input element (dense planes, float32): each thread zero-fills its planes of gradInput,
    // then scatters their outputs straight into them (see planSlabs).
    bool zeroFillThenScatter = false;
    // Whole planes (one slab each) whose adds run kInterleavedPlanes planes at a time (see
    // scatterPlanesInterleaved).
    bool interleavedPlanes = false;
    // Channels-last: the least first row (d*H + h of its first element) of the windows of output rows
    // (od', oh') >= (od, oh) in output order, and so the rows complete when output row (od, oh) starts.
    // From per-axis suffix minima of the windows' first elements (empty windows excluded; kNoRow if none).
    std::vector<int64_t> laterFirstDepth, laterFirstHeight;  // [od], [oh]: min over od' >= od / oh' >= oh
    int64_t inputHeight = 0;
    static constexpr int64_t kNoRow = std::numeric_limits<int64_t>::max();
    int64_t completeBelow(int64_t od, int64_t oh) const {
        const int64_t anyHeight = laterFirstHeight[0];
        int64_t below = kNoRow;
        if (anyHeight != kNoRow && laterFirstDepth[static_cast<size_t>(od + 1)] != kNoRow)
            below = laterFirstDepth[static_cast<size_t>(od + 1)] * inputHeight + anyHeight;
        const AxisWindow &wd = windows.depth(od);
        if (wd.count > 0 && laterFirstHeight[static_cast<size_t>(oh)] != kNoRow)
            below = std::min(below, wd.first * inputHeight + laterFirstHeight[static_cast<size_t>(oh)]);
        return below;
    }
    ScatterReferencePlan fallback;

    int64_t slabs() const { return groups * slabsPerGroup; }
    std::string describe() const override {
        if (zeroFillThenScatter)
            return joinText("planes=", groups, " zero-filled", streaming ? " streaming" : "",
                            " then scattered in place threads=", threads);
        const int64_t rowsPerSlab = (rows + slabsPerGroup - 1) / slabsPerGroup;
        return joinText("slabs=", groups, "x", slabsPerGroup, " of <=", rowsPerSlab, " rows (",
                        rowsPerSlab * rowElements, " sums) ",
                        inPlace ? "in place" : (streaming ? "buffered streaming" : "buffered"), " threads=", threads,
                        prefetchNextPlane ? " prefetch" : "", channelVectors ? " channel vectors" : "",
                        interleavedPlanes ? joinText(", ", kInterleavedPlanes, " planes interleaved") : "");
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

// A thread's scratch for the slabs it sums: the slab buffer, and for channel vectors an output row's indices
// narrowed to int32 and gradients widened to float32, and the plane positions of the window's rows.
struct SlabScratch {
    std::vector<float> buffer, widenedRow;
    std::vector<int32_t> narrowedIndices, tapRowStarts;
};

// Rows (d*H + h) spanned by a window, or {-1, -1} when it holds no element.
struct RowSpan {
    int64_t first = -1, last = -1;
};

// One output row (od, oh) of a channels-last slab [r0, r1), vectorised across channels: each output's C
// indices are compared with the plane position of every tap of its window that lies in the slab, and
// matching lanes add their gradient to the tap's sums. INT64 indices are narrowed to int32 first
// (saturated: an index beyond int32 is bad, matches no tap and so is counted as stray) and 16-bit gradients
// widened to float32, a row at a time.
template <typename T, typename I>
ChannelsScatterCounts scatterChannelVectors(const PoolGeometry &geometry, const ScatterSlabsPlan &plan,
                                            const AxisWindow &wd, const AxisWindow &wh, int64_t r0, int64_t r1,
                                            const T *gradientRow, const I *indexRow, float *sums,
                                            SlabScratch &scratch) {
    const int64_t H = geometry.axes[1].inputSize, W = geometry.axes[2].inputSize;
    const int64_t C = geometry.channels, Wo = geometry.axes[2].outputSize;
    const int64_t count = Wo * C;
    scratch.tapRowStarts.clear();
    forEachWindowRow(wd, wh, [&](int64_t d, int64_t h) {
        const int64_t row = d * H + h;
        if (row >= r0 && row < r1) scratch.tapRowStarts.push_back(static_cast<int32_t>(row * W));
    });
    const int32_t *narrowed;
    if constexpr (std::is_same_v<I, int32_t>) {
        narrowed = indexRow;
    } else {
        scratch.narrowedIndices.resize(static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i)
            scratch.narrowedIndices[static_cast<size_t>(i)] = static_cast<int32_t>(std::clamp<int64_t>(
                indexRow[i], std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
        narrowed = scratch.narrowedIndices.data();
    }
    const float *gradients;
    if constexpr (std::is_same_v<T, float>) {
        gradients = gradientRow;
    } else {
        scratch.widenedRow.resize(static_cast<size_t>(count));
        if constexpr (std::is_same_v<T, Float16>)
            widenFloat16Row(&gradientRow->bits, scratch.widenedRow.data(), count);
        else
            widenBFloat16Row(&gradientRow->bits, scratch.widenedRow.data(), count);
        gradients = scratch.widenedRow.data();
    }
    return scatterChannelsRow(scratch.tapRowStarts.data(), static_cast<int64_t>(scratch.tapRowStarts.size()),
                              plan.windows.axes[2].data(), Wo, C, narrowed, gradients, sums,
                              static_cast<int32_t>(r0 * W));
}

// A slab is rows [r0, r1) of the (d,h) rows of one group of channels: one (n,c) plane for dense
// planes, all channels of one n for channels-last storage (where a row holds W*C elements, C fastest).
template <typename T, typename I, bool ChannelsLast>
SlabCounts scatterSlab(const PoolProblem &problem, const ScatterSlabsPlan &plan, int64_t group, int64_t r0, int64_t r1,
                       bool ownsEmpty, SlabScratch &scratch) {
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
        // A gradInput that stays in the cache is zeroed whole first (rows zeroed and written as windows
        // come and go measured 10% slower there, case D-cl-cache).
        sums = reinterpret_cast<float *>(gradIn);
        std::fill(sums, sums + size * channels, 0.0f);
    } else if constexpr (ChannelsLast) {
        scratch.buffer.resize(static_cast<size_t>(size * channels));
        sums = scratch.buffer.data();
    } else {
        scratch.buffer.assign(static_cast<size_t>(size * channels), 0.0f);
        sums = scratch.buffer.data();
    }
    // Buffered channels-last slabs span many rows, but only the rows that the current output row's windows reach
    // need to be in the cache: rows are zeroed just before the first window reaches them and written out
    // as soon as no later window does (the plan's completeBelow), so a slab streams through the cache
    // instead of being zeroed, summed and copied out whole (each pass of a slab larger than the L2 went
    // to the L3).
    const int64_t rowElements = W * channels;
    const bool streamsRows = ChannelsLast && !inPlace;
    int64_t zeroedEnd = inPlace ? r1 : r0, writtenEnd = r0;
    const auto zeroRowsBefore = [&](int64_t end) {
        end = std::min(end, r1);
        if (end <= zeroedEnd) return;
        std::fill(sums + (zeroedEnd - r0) * rowElements, sums + (end - r0) * rowElements, 0.0f);
        zeroedEnd = end;
    };
    const auto writeRowsBefore = [&](int64_t end) {
        end = std::min(end, r1);
        if (end <= writtenEnd) return;
        zeroRowsBefore(end);
        if (!inPlace)
            storeFloatRow(problem.gradInput.type, sums + (writtenEnd - r0) * rowElements,
                          gradIn + (writtenEnd - r0) * rowElements, (end - writtenEnd) * rowElements, plan.streaming);
        writtenEnd = end;
    };

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
            if (streamsRows) {
                writeRowsBefore(plan.completeBelow(od, oh));
                if (reaches) zeroRowsBefore(span.last + 1);
            }
            const int64_t rowOffset = ChannelsLast
                                          ? od * problem.gradOutput.stride[2] + oh * problem.gradOutput.stride[3]
                                          : (od * Ho + oh) * Wo;
            const int64_t indexRowOffset =
                ChannelsLast ? od * problem.indices.stride[2] + oh * problem.indices.stride[3] : rowOffset;
            if constexpr (ChannelsLast) {
                if (plan.channelVectors) {
                    const ChannelsScatterCounts counts = scatterChannelVectors<T, I>(
                        geometry, plan, wd, wh, r0, r1, gradOut + rowOffset, indices + indexRowOffset, sums, scratch);
                    expected += owned ? counts.indexed : 0;
                    accepted += counts.matched;
                    continue;
                }
            }
            // float16 gradients are widened a row at a time with SIMD: the scalar conversion, with its
            // branches for subnormals and NaN, cost a fifth of the scatter.
            const float *widened = nullptr;
            if constexpr (std::is_same_v<T, Float16>) {
                scratch.widenedRow.resize(static_cast<size_t>(Wo * channels));
                widenFloat16Row(&gradOut[rowOffset].bits, scratch.widenedRow.data(), Wo * channels);
                widened = scratch.widenedRow.data();
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
            // Channels-last, only the rows zeroed and not yet written out take contributions (they hold
            // every window that reaches the slab now); an index elsewhere, even inside the slab, is counted.
            const int64_t liveBase = ChannelsLast ? writtenEnd * W : base;
            const int64_t liveSize = ChannelsLast ? (zeroedEnd - writtenEnd) * W : size;
            float *liveSums = sums + (liveBase - base) * channels;
            int64_t minusOnes = 0, elsewhere = 0;
            for (int64_t ow = 0; ow < Wo; ++ow) {
                for (int64_t cc = 0; cc < channels; ++cc) {
                    const int64_t at = rowOffset + ow * channels + cc;
                    const int64_t local = static_cast<int64_t>(indices[indexRowOffset + ow * channels + cc]) - liveBase;
                    if (__builtin_expect(static_cast<uint64_t>(local) < static_cast<uint64_t>(liveSize), 1)) {
                        float &sum = liveSums[local * channels + cc];
                        sum = addToSum(sum, gradientAt(at));
                        continue;
                    }
                    const int64_t target = local + liveBase;
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
    if (streamsRows)
        writeRowsBefore(r1);
    else if (!inPlace)
        storeFloatRow(problem.gradInput.type, sums, gradIn, size * channels, plan.streaming);
    return {expected, accepted, false};
}

// Asks for the gradOutput and indices planes of (n,c) plane `group` (dense planes) to be brought into the
// cache.
template <typename T, typename I>
void prefetchOutputs(const PoolProblem &problem, int64_t group) {
    const int64_t channels = problem.geometry.channels;
    const int64_t outputs = problem.geometry.outputPlaneElements();
    prefetchLines(problem.gradOutput.plane<const T>(group / channels, group % channels), outputs);
    prefetchLines(problem.indices.plane<const I>(group / channels, group % channels), outputs);
}

// kPlanes whole planes: each output's float32 gradient added to its float32 sum, outputs in increasing order in each
// plane, the planes' adds interleaved. A plane is one slab, so every index inside the plane lands where it belongs;
// true when an index outside it (not -1) stops the run.
template <typename I, int kPlanes>
bool scatterPlanesInterleaved(const float *const *gradients, const I *const *indices, float *const *sums,
                              int64_t outputs, int64_t planeElements) {
    const float *gradient[kPlanes];
    const I *index[kPlanes];
    float *sum[kPlanes];
    for (int k = 0; k < kPlanes; ++k) {
        gradient[k] = gradients[k];
        index[k] = indices[k];
        sum[k] = sums[k];
    }
    for (int64_t q = 0; q < outputs; ++q)
        for (int k = 0; k < kPlanes; ++k) {
            const int64_t target = static_cast<int64_t>(index[k][q]);
            if (__builtin_expect(static_cast<uint64_t>(target) < static_cast<uint64_t>(planeElements), 1)) {
                sum[k][target] = addToSum(sum[k][target], gradient[k][q]);
            } else if (target != -1) {
                return true;
            }
        }
    return false;
}

// Sparse problems (few outputs per input element): the thread's planes of gradInput are zero-filled first
// (streaming stores when gradInput is larger than the cache), then each plane's outputs are scattered into
// it in increasing output order. A thread owns whole planes, so every in-plane index, inside its own
// window or not, lands where it belongs; only an index outside the plane stops the run (true).
template <typename I>
bool zeroFillThenScatterPlanes(const PoolProblem &problem, const ScatterSlabsPlan &plan, int64_t begin, int64_t end) {
    const PoolGeometry &geometry = problem.geometry;
    const int64_t planeElements = geometry.inputPlaneElements();
    const int64_t outputs = geometry.outputPlaneElements();
    const int64_t channels = geometry.channels;
    if (plan.streaming) {
        // Streaming stores take their data from registers; a small zeroed row feeds them from L1.
        static constexpr int64_t kZeroRow = 4096;
        alignas(64) static const float zeros[kZeroRow] = {};
        for (int64_t plane = begin; plane < end; ++plane) {
            float *gradIn = problem.gradInput.plane<float>(plane / channels, plane % channels);
            for (int64_t at = 0; at < planeElements; at += kZeroRow)
                storeFloatRow(ElementType::Float32, zeros, gradIn + at, std::min(kZeroRow, planeElements - at), true);
        }
    } else {
        for (int64_t plane = begin; plane < end; ++plane) {
            float *gradIn = problem.gradInput.plane<float>(plane / channels, plane % channels);
            std::fill(gradIn, gradIn + planeElements, 0.0f);
        }
    }
    for (int64_t plane = begin; plane < end; ++plane) {
        const int64_t n = plane / channels, c = plane % channels;
        const float *gradOut = problem.gradOutput.plane<const float>(n, c);
        const I *indices = problem.indices.plane<const I>(n, c);
        float *gradIn = problem.gradInput.plane<float>(n, c);
        if (scatterPlanesInterleaved<I, 1>(&gradOut, &indices, &gradIn, outputs, planeElements)) return true;
    }
    return false;
}

// Planes [begin, end), kInterleavedPlanes at a time: float32 sums in gradInput itself (zeroed first) or in a
// buffer written out once, rounded once to the gradients' type (streaming stores when asked); 16-bit gradients
// widened a plane at a time first (SIMD: the scalar conversion of float16 would cost more than the adds). True when
// an index outside its plane stops the run.
template <typename T, typename I>
bool scatterWholePlanesInterleaved(const PoolProblem &problem, const ScatterSlabsPlan &plan, int64_t begin,
                                   int64_t end) {
    constexpr bool kFloat32 = std::is_same_v<T, float>;
    const int64_t planeElements = problem.geometry.inputPlaneElements();
    const int64_t outputs = problem.geometry.outputPlaneElements();
    const int64_t channels = problem.geometry.channels;
    std::vector<float> buffer(plan.inPlace ? 0 : static_cast<size_t>(kInterleavedPlanes * planeElements));
    std::vector<float> widened(kFloat32 ? 0 : static_cast<size_t>(kInterleavedPlanes * outputs));
    for (int64_t first = begin; first < end; first += kInterleavedPlanes) {
        const int64_t count = std::min(kInterleavedPlanes, end - first);
        if (plan.prefetchNextPlane)
            for (int64_t next = first + count; next < std::min(end, first + count + kInterleavedPlanes); ++next)
                prefetchOutputs<T, I>(problem, next);
        const float *gradients[kInterleavedPlanes];
        const I *indices[kInterleavedPlanes];
        float *sums[kInterleavedPlanes];
        T *destinations[kInterleavedPlanes];
        for (int64_t k = 0; k < count; ++k) {
            const int64_t n = (first + k) / channels, c = (first + k) % channels;
            destinations[k] = problem.gradInput.plane<T>(n, c);
            if constexpr (kFloat32) {
                gradients[k] = problem.gradOutput.plane<const float>(n, c);
            } else {
                widenRowToFloat(problem.gradOutput.plane<const T>(n, c), widened.data() + k * outputs, outputs);
                gradients[k] = widened.data() + k * outputs;
            }
            indices[k] = problem.indices.plane<const I>(n, c);
            if constexpr (kFloat32)
                sums[k] = plan.inPlace ? destinations[k] : buffer.data() + k * planeElements;
            else
                sums[k] = buffer.data() + k * planeElements;
            std::fill(sums[k], sums[k] + planeElements, 0.0f);
        }
        bool bad;
        switch (count) {
            case 4:
                bad = scatterPlanesInterleaved<I, 4>(gradients, indices, sums, outputs, planeElements);
                break;
            case 3:
                bad = scatterPlanesInterleaved<I, 3>(gradients, indices, sums, outputs, planeElements);
                break;
            case 2:
                bad = scatterPlanesInterleaved<I, 2>(gradients, indices, sums, outputs, planeElements);
                break;
            default:
                bad = scatterPlanesInterleaved<I, 1>(gradients, indices, sums, outputs, planeElements);
                break;
        }
        if (bad) return true;
        if (!plan.inPlace)
            for (int64_t k = 0; k < count; ++k)
                storeFloatRow(problem.gradInput.type, sums[k], destinations[k], planeElements, plan.streaming);
    }
    return false;
}

template <typename T, typename I, bool ChannelsLast>
SlabCounts scatterDense(const PoolProblem &problem, const ScatterSlabsPlan &plan) {
    const int64_t rows = plan.rows, slabsPerGroup = plan.slabsPerGroup;
    std::atomic<int64_t> expected{0}, accepted{0};
    std::atomic<bool> badIndex{false};
    if constexpr (!ChannelsLast) {
        if (plan.interleavedPlanes) {
            runBlocksOnThreads(static_cast<int>(plan.threads), plan.groups,
                               fencingStreamingStores(plan.streaming, [&](int64_t begin, int64_t end) {
                                   if (scatterWholePlanesInterleaved<T, I>(problem, plan, begin, end)) badIndex = true;
                               }));
            return {0, 0, badIndex.load()};
        }
    }
    if constexpr (std::is_same_v<T, float> && !ChannelsLast) {
        if (plan.zeroFillThenScatter) {
            runBlocksOnThreads(static_cast<int>(plan.threads), plan.groups,
                               fencingStreamingStores(plan.streaming, [&](int64_t begin, int64_t end) {
                                   if (zeroFillThenScatterPlanes<I>(problem, plan, begin, end)) badIndex = true;
                               }));
            return {0, 0, badIndex.load()};
        }
    }
    runBlocksOnThreads(static_cast<int>(plan.threads), plan.slabs(),
                       fencingStreamingStores(plan.streaming, [&](int64_t begin, int64_t end) {
                           SlabScratch scratch;
                           SlabCounts local;
                           for (int64_t item = begin; item < end && !local.badIndex; ++item) {
                               const int64_t group = item / slabsPerGroup, slab = item % slabsPerGroup;
                               // Small planes: the next plane's gradOutput and indices are requested while this one is
                               // summed.
                               if (slab == 0 && plan.prefetchNextPlane && item + slabsPerGroup < end)
                                   prefetchOutputs<T, I>(problem, group + 1);
                               const SlabCounts counts = scatterSlab<T, I, ChannelsLast>(
                                   problem, plan, group, rows * slab / slabsPerGroup, rows * (slab + 1) / slabsPerGroup,
                                   slab == 0, scratch);
                               local.expected += counts.expected;
                               local.accepted += counts.accepted;
                               local.badIndex = counts.badIndex;
                           }
                           expected += local.expected;
                           accepted += local.accepted;
                           if (local.badIndex) badIndex = true;
                       }));
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
    if (channelsLast) {
        // Channels-last, one slab row and an output row widened to float32 and narrowed to int32 at once.
        const int64_t floats = saturatingAdd(*inputRow, saturatingMul(*outputRow, int64_t{2}));
        if (floats > kScratchFloats)
            return scratchDeclineText("a row of float32 sums and an output row of gradients and indices",
                                      saturatingMul(floats, int64_t{4}));
        return std::nullopt;
    }
    const int64_t floats = std::max(*inputRow, *outputRow);
    if (floats > kScratchFloats) return scratchDeclineText("a row of float32 sums", floats * 4);
    return std::nullopt;
}

// Channels-last, what an output row's widened gradients and narrowed indices leave of the scratch bound.
int64_t channelsLastSlabBudget(const PoolGeometry &geometry) {
    return kScratchFloats - 2 * geometry.axes[2].outputSize * geometry.channels;
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

// What the channel-vector scatter leaves to the scalar one: plane positions beyond int32 (its compares are
// 32-bit lanes), and windows with more taps than it pays for. Per output position it costs a compare and
// an add per window tap and vector of channels, the scalar scatter one add per channel; measured
// (cache-resident, one thread, Zen 4): 3x3 windows with 16, 32 and 64 channels (9 taps x 1, 2, 4 vectors)
// 1.2-1.3x faster than the scalar scatter, with 8 channels (9 taps x 1 vector) and 3x3x3 windows with 16
// or 32 channels (27 taps x 1 or 2 vectors) 1.2-1.7x slower.
std::optional<std::string> channelVectorsDecline(const PoolProblem &problem, const WindowTables &windows) {
    const PoolGeometry &geometry = problem.geometry;
    const int64_t planeElements = geometry.inputPlaneElements();
    if (planeElements > std::numeric_limits<int32_t>::max())
        return joinText("planes of ", planeElements, " positions: the channel vectors compare int32 plane positions");
    int64_t taps = 1;
    for (const std::vector<AxisWindow> &axis : windows.axes) taps = saturatingMul(taps, largestWindowCount(axis));
    const int64_t vectors = channelVectorsPerPosition(geometry.channels);
    const int64_t compares = saturatingMul(taps, vectors);
    if (compares > geometry.channels)
        return joinText(taps, " window taps x ", vectors, " channel vectors = ", compares,
                        " compares per position, more than its ", geometry.channels,
                        " channels: the scalar slab scatter measured faster");
    return std::nullopt;
}

constexpr int64_t kSparseOutputsPerInput = 128;

PlanOutcome planSlabs(const PoolProblem &problem, bool channelsLast, bool channelVectors) {
    if (std::optional<std::string> reason = layoutDecline(problem, channelsLast)) return PlanOutcome::decline(*reason);
    if (std::optional<std::string> reason = slabsScratchDecline(problem, channelsLast))
        return PlanOutcome::decline(*reason);
    const PoolGeometry &geometry = problem.geometry;
    ScatterSlabsPlan plan;
    plan.windows = WindowTables::of(geometry);
    if (channelVectors)
        if (std::optional<std::string> reason = channelVectorsDecline(problem, plan.windows))
            return PlanOutcome::decline(*reason);
    plan.channelsLast = channelsLast;
    plan.channelVectors = channelVectors;
    plan.rows = geometry.axes[0].inputSize * geometry.axes[1].inputSize;
    plan.rowElements = geometry.axes[2].inputSize * (channelsLast ? geometry.channels : 1);
    plan.groups = channelsLast ? geometry.batch : geometry.planes();
    const int64_t work = saturatingAdd(problem.gradInput.elementCount(), problem.gradOutput.elementCount());
    plan.threads = threadsForWork(work);
    // Slabs of at most ~256 KiB of float32 sums (L2-resident), and enough of them for every thread.
    // A channels-last row holds all channels (W*C elements), so such a budget would be a few rows and
    // every window would straddle several slabs, each rereading its outputs. Channels-last slabs only
    // keep the rows that the current windows reach in the cache (zeroed just before, written out right
    // after), so they take what an output row's scratch leaves of the per-thread bound (8 MiB): a slab
    // spans many windows and few outputs are read twice (case B-cl, 32 channels, one thread: 2 MiB slabs
    // of 4 depth slices took 1.6x as long as 8 MiB ones).
    const int64_t slabElementBudget = channelsLast ? channelsLastSlabBudget(geometry) : 64 * 1024;
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
    // Few outputs per input element (fewer than 1 in kSparseOutputsPerInput): slabs spend most of their time
    // zeroing a buffer and copying zeros out of it. Zero-filling gradInput once and scattering into it moves
    // the zeros once, but each output then reads its line back from memory (gradInput streamed out), so it
    // pays only for very few outputs: measured (one thread, 16x64x64 planes, adaptive) faster than the
    // slabs at 1 in 208 (case C1) and 1 in 144, about even at 1 in 100, slower at 1 in 69, 2.5x at 1 in 32 (see
    // docs/kernels/index_backward.md). Every thread needs a plane of its own.
    plan.zeroFillThenScatter =
        !channelsLast && problem.gradOutput.type == ElementType::Float32 &&
        saturatingMul(geometry.outputPlaneElements(), kSparseOutputsPerInput) < geometry.inputPlaneElements() &&
        plan.groups >= plan.threads;
    if (plan.zeroFillThenScatter) plan.prefetchNextPlane = false;
    // Whole planes, a thread's planes taken four at a time (measured in docs/kernels/index_backward.md); 16-bit
    // gradients are widened a plane at a time, so their output planes are bounded too.
    plan.interleavedPlanes = !channelsLast && !plan.zeroFillThenScatter && plan.slabsPerGroup == 1 &&
                             geometry.inputPlaneElements() <= kLargestInterleavedPlane &&
                             (problem.gradOutput.type == ElementType::Float32 ||
                              geometry.outputPlaneElements() <= kLargestInterleavedPlane) &&
                             plan.groups >= kInterleavedPlanes * plan.threads;
    if (channelsLast) {
        const auto laterFirst = [](const std::vector<AxisWindow> &axis) {
            std::vector<int64_t> later(axis.size() + 1, ScatterSlabsPlan::kNoRow);
            for (size_t o = axis.size(); o-- > 0;)
                later[o] = axis[o].count > 0 ? std::min(later[o + 1], axis[o].first) : later[o + 1];
            return later;
        };
        plan.laterFirstDepth = laterFirst(plan.windows.axes[0]);
        plan.laterFirstHeight = laterFirst(plan.windows.axes[1]);
        plan.inputHeight = geometry.axes[1].inputSize;
    }
    plan.fallback = planReference(problem);
    return PlanOutcome::accept(std::move(plan));
}

}  // namespace

PlanOutcome planIndexScatterBackwardDense(const PoolProblem &problem) { return planSlabs(problem, false, false); }
PlanOutcome planIndexScatterBackwardChannelsLast(const PoolProblem &problem) { return planSlabs(problem, true, false); }
PlanOutcome planIndexScatterBackwardChannelVectors(const PoolProblem &problem) {
    return planSlabs(problem, true, true);
}
PlanOutcome planIndexScatterBackwardReference(const PoolProblem &problem) {
    return PlanOutcome::accept(planReference(problem));
}

RunResult runIndexScatterBackwardDense(const PoolProblem &problem, const ImplementationPlan &plan) {
    return indexScatterBackwardSlabs<false>(problem, planAs<ScatterSlabsPlan>(plan));
}
RunResult runIndexScatterBackwardChannelsLast(const PoolProblem &problem, const ImplementationPlan &plan) {
    return indexScatterBackwardSlabs<true>(problem, planAs<ScatterSlabsPlan>(plan));
}
RunResult runIndexScatterBackwardChannelVectors(const PoolProblem &problem, const ImplementationPlan &plan) {
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
