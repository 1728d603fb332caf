// Recompute-argmax backward (MaxPoolV3Grad) by planes: one thread owns a block of (n,c) planes. Each
// output position, in row-major order, sends its gradient to the FIRST element of its window (scanned
// d, h, w) equal to the recorded output value after exact widening to float32 (NaN never matches,
// +0 == -0); without a match the gradient is dropped. Three implementations share the plane walk, each
// with its own plan:
//  - disjoint (dense planes, stride >= kernel, one depth plane): each gradInput row is written exactly
//    once, the zeros fused with the gradients;
//  - dense (dense planes, overlapping windows): float32 sums in output order from +0; for planes that fit
//    (float16 ones widened into a float32 copy first), the first matches of a row's unclipped windows are
//    searched with SIMD across windows and summed in a cache-resident plane stored once; otherwise sums in
//    place (float32) or in tiles;
//  - reference (any strides): float32 sums in tiles of at most kScratchFloats positions, rounded once.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "core/gradient_sum.h"
#include "core/prefetch.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dense_planes.h"
#include "cpu/dtype_dispatch.h"
#include "cpu/one_depth_plane.h"
#include "cpu/simd_rows.h"

namespace poolgrad::cpu {
namespace {

// "x == target" after exact widening. For 16-bit types widening is injective except for +-0 and NaN,
// so the test is on bits: equal bits, or both zeros. Callers skip NaN targets.
template <typename T>
struct Target {
    uint16_t bits;
    bool zero;
    explicit Target(T value) : bits(value.bits), zero((value.bits & 0x7fffu) == 0) {}
    bool isNan() const { return std::isnan(toFloat(T{bits})); }
    bool matches(T x) const { return x.bits == bits || (zero && (x.bits & 0x7fffu) == 0); }
};

template <>
struct Target<float> {
    float value;
    explicit Target(float v) : value(v) {}
    bool isNan() const { return std::isnan(value); }
    bool matches(float x) const { return x == value; }
};

// Element offsets inside one plane of an operand: compile-time dense row-major, or through strides.
template <bool Dense>
struct PlaneOffsets {
    int64_t sd, sh, sw;
    PlaneOffsets(const StridedTensor &tensor, int64_t height, int64_t width)
        : sd(Dense ? height * width : tensor.stride[2]),
          sh(Dense ? width : tensor.stride[3]),
          sw(Dense ? 1 : tensor.stride[4]) {}
    int64_t operator()(int64_t d, int64_t h, int64_t w) const { return d * sd + h * sh + w * sw; }
};

struct Match {
    int64_t h, w;
    float value;  // 0 + gradient: the float32 sum of a single contribution (turns -0 into +0)
};

enum class PlaneStrategy {
    DisjointRows,   // each gradInput row written once, zeros fused with the gradients
    SimdRowSearch,  // SIMD search of a row's unclipped windows (float16 planes widened), sums in a scratch plane
    SumsInPlace,    // dense float32: sums in gradInput itself
    SumTiles,       // sums of at most kScratchFloats positions at a time, rounded once
};

const char *strategyText(PlaneStrategy strategy) {
    switch (strategy) {
        case PlaneStrategy::DisjointRows:
            return "disjoint rows written once";
        case PlaneStrategy::SimdRowSearch:
            return "simd row search, sums in a scratch plane";
        case PlaneStrategy::SumsInPlace:
            return "sums in place";
        default:
            return "sums in tiles";
    }
}

struct PlanesPlan final : ImplementationPlan {
    WindowTables windows;
    PlaneStrategy strategy = PlaneStrategy::SumTiles;
    CongruentRun run;          // SimdRowSearch: the outputs of a row whose windows are unclipped on W
    int64_t tileElements = 0;  // SumTiles: positions summed at a time
    bool streaming = false;    // gradInput much larger than the caches: store past them
    bool widened = false;      // SimdRowSearch on float16: each plane (and row of outputs) widened first
    int threads = 1;

    std::string describe() const override {
        std::string text = strategyText(strategy);
        if (strategy == PlaneStrategy::SimdRowSearch)
            text += " (windows [" + std::to_string(run.begin) + ", " + std::to_string(run.end) + ") of a row" +
                    (widened ? "; float16 planes widened to float32" : "") + ")";
        if (strategy == PlaneStrategy::SumTiles) text += " of " + std::to_string(tileElements) + " positions";
        return text + ", " + (streaming ? "streaming" : "cached") + " stores, threads=" + std::to_string(threads);
    }
};

template <typename T, bool Dense>
class RecomputeArgmaxPlanes {
public:
    RecomputeArgmaxPlanes(const PoolProblem &problem, const PlanesPlan &plan)
        : problem_(problem),
          geometry_(problem.geometry),
          plan_(plan),
          windowsD_(plan.windows.axes[0]),
          windowsH_(plan.windows.axes[1]),
          windowsW_(plan.windows.axes[2]),
          inD_(geometry_.axes[0].inputSize),
          inH_(geometry_.axes[1].inputSize),
          inW_(geometry_.axes[2].inputSize),
          outH_(geometry_.axes[1].outputSize),
          outW_(geometry_.axes[2].outputSize),
          in_(problem.input, inH_, inW_),
          out_(problem.output, outH_, outW_),
          grad_(problem.gradOutput, outH_, outW_),
          gradIn_(problem.gradInput, inH_, inW_) {}

    void run(int64_t begin, int64_t end) const {
        // Scratch within the bound (scratch_bound.h), as the plan sized it.
        std::vector<float> scratch;
        std::vector<Match> matches;
        std::vector<int32_t> positions;
        WidenedPlane widened;
        if (plan_.strategy == PlaneStrategy::SimdRowSearch) {
            positions.resize(static_cast<size_t>(outW_));
            scratch.resize(static_cast<size_t>(geometry_.inputPlaneElements()));
            if constexpr (!std::is_same_v<T, float>) {
                widened.input.resize(static_cast<size_t>(geometry_.inputPlaneElements()));
                widened.targets.resize(static_cast<size_t>(outW_));
                widened.gradients.resize(static_cast<size_t>(outW_));
            }
        }
        if (plan_.strategy == PlaneStrategy::SumTiles) scratch.resize(static_cast<size_t>(plan_.tileElements));
        for (int64_t plane = begin; plane < end; ++plane) {
            const int64_t n = plane / geometry_.channels, c = plane % geometry_.channels;
            switch (plan_.strategy) {
                case PlaneStrategy::DisjointRows:
                    disjointPlane(n, c, matches);
                    break;
                case PlaneStrategy::SimdRowSearch:
                    if constexpr (Dense && (std::is_same_v<T, float> || std::is_same_v<T, Float16>))
                        accumulatePlaneByRows(n, c, positions, scratch, widened);
                    break;
                default:
                    accumulatePlane(n, c, scratch);
                    break;
            }
        }
    }

private:
    static constexpr bool accumulateInPlace = Dense && std::is_same_v<T, float>;

    // A float16 plane's float32 copy, and one row of its outputs and gradients, for the SIMD row search.
    struct WidenedPlane {
        std::vector<float> input, targets, gradients;
    };

    // Position (d, h, w) of the first window element equal to target; false when there is none. U is T, or
    // float on a widened copy of a dense plane.
    template <typename U>
    bool findFirst(const U *inPlane, const Target<U> &target, const AxisWindow &wd, const AxisWindow &wh,
                   const AxisWindow &ww, int64_t &md, int64_t &mh, int64_t &mw) const {
        bool found = false;
        forEachWindowRow(wd, wh, [&](int64_t d, int64_t h) {
            if (found) return;
            const U *row = inPlane + d * in_.sd + h * in_.sh;
            for (int64_t jw = 0, w = ww.first; jw < ww.count; ++jw, w += ww.step)
                if (target.matches(row[w * in_.sw])) {
                    md = d;
                    mh = h;
                    mw = w;
                    found = true;
                    return;
                }
        });
        return found;
    }

    void writeZeros(T *gradInPlane, int64_t h, int64_t wBegin, int64_t wEnd) const {
        const T zero = fromFloat<T>(0.0f);
        if constexpr (Dense) {
            std::fill(gradInPlane + h * inW_ + wBegin, gradInPlane + h * inW_ + wEnd, zero);
        } else {
            for (int64_t w = wBegin; w < wEnd; ++w) gradInPlane[gradIn_(0, h, w)] = zero;
        }
    }

    // Disjoint windows: the matches of one window row are found first, then the input rows of that
    // band are written once each, left to right (matches of a row come in increasing w).
    void disjointPlane(int64_t n, int64_t c, std::vector<Match> &matches) const {
        const T *inPlane = problem_.input.plane<const T>(n, c);
        const T *outPlane = problem_.output.plane<const T>(n, c);
        const T *gradPlane = problem_.gradOutput.plane<const T>(n, c);
        T *gradInPlane = problem_.gradInput.plane<T>(n, c);
        int64_t row = 0;  // next gradInput row to write
        for (int64_t oh = 0; oh < outH_; ++oh) {
            const AxisWindow wh = windowsH_[oh];
            if (wh.count == 0) continue;
            matches.clear();
            for (int64_t ow = 0; ow < outW_; ++ow) {
                const Target<T> target(outPlane[out_(0, oh, ow)]);
                int64_t md, mh, mw;
                if (target.isNan() || !findFirst(inPlane, target, windowsD_[0], wh, windowsW_[ow], md, mh, mw))
                    continue;
                matches.push_back({mh, mw, 0.0f + toFloat(gradPlane[grad_(0, oh, ow)])});
            }
            for (; row < wh.first; ++row) writeZeros(gradInPlane, row, 0, inW_);
            for (; row < wh.first + wh.count; ++row) {
                int64_t w = 0;
                for (const Match &match : matches) {
                    if (match.h != row) continue;
                    writeZeros(gradInPlane, row, w, match.w);
                    gradInPlane[gradIn_(0, row, match.w)] = fromFloat<T>(match.value);
                    w = match.w + 1;
                }
                writeZeros(gradInPlane, row, w, inW_);
            }
        }
        for (; row < inH_; ++row) writeZeros(gradInPlane, row, 0, inW_);
    }

    // Overlapping windows on a dense float32 plane: per output row, the first matches of the windows wholly
    // inside the columns are searched with SIMD across windows, the clipped ones at the edges one by one;
    // then the row's gradients are added in output order, as the contract orders the sums. The sums live
    // in a cache-resident scratch plane and are stored once (streaming past the caches for large outputs),
    // so gradInput's lines are never read. A float16 plane is widened into a float32 copy first, and each
    // row of its outputs and gradients as it is reached: widening is exact and, but for +-0 and NaN (which
    // float == treats as the rule does), one to one, so float == on the copies is the rule's match on bits.
    void accumulatePlaneByRows(int64_t n, int64_t c, std::vector<int32_t> &positions, std::vector<float> &scratch,
                               WidenedPlane &widened) const {
        constexpr bool kWiden = !std::is_same_v<T, float>;
        const T *sourcePlane = problem_.input.plane<const T>(n, c);
        const T *outPlane = problem_.output.plane<const T>(n, c);
        const T *gradPlane = problem_.gradOutput.plane<const T>(n, c);
        const float *inPlane;
        if constexpr (kWiden) {
            widenFloat16Row(reinterpret_cast<const uint16_t *>(sourcePlane), widened.input.data(), inH_ * inW_);
            inPlane = widened.input.data();
        } else {
            inPlane = sourcePlane;
        }
        float *sums = scratch.data();
        std::fill(sums, sums + inH_ * inW_, 0.0f);
        for (int64_t oh = 0; oh < outH_; ++oh) {
            const AxisWindow wh = windowsH_[oh];
            const float *targets, *gradRow;
            if constexpr (kWiden) {
                widenFloat16Row(reinterpret_cast<const uint16_t *>(outPlane + oh * outW_), widened.targets.data(),
                                outW_);
                widenFloat16Row(reinterpret_cast<const uint16_t *>(gradPlane + oh * outW_),
                                widened.gradients.data(), outW_);
                targets = widened.targets.data();
                gradRow = widened.gradients.data();
            } else {
                targets = outPlane + oh * outW_;
                gradRow = gradPlane + oh * outW_;
                if (oh + kPrefetchRows < outH_) prefetchRows(inPlane, windowsH_[oh + kPrefetchRows]);
            }
            for (int64_t ow = 0; ow < outW_; ++ow) {
                const CongruentRun &run = plan_.run;
                if (ow == run.begin && !run.empty()) {
                    firstMatchPositions(inPlane, inW_, wh.first, wh.count, windowsW_[ow].first, run.stride, run.count,
                                        targets + ow, positions.data() + ow, run.end - run.begin);
                    ow = run.end - 1;
                    continue;
                }
                int64_t md, mh, mw;
                const Target<float> target(targets[ow]);
                positions[ow] =
                    !target.isNan() && findFirst(inPlane, target, windowsD_[0], wh, windowsW_[ow], md, mh, mw)
                        ? static_cast<int32_t>(mh * inW_ + mw)
                        : -1;
            }
            for (int64_t ow = 0; ow < outW_; ++ow)
                if (positions[ow] >= 0) sums[positions[ow]] = addToSum(sums[positions[ow]], gradRow[ow]);
        }
        storeFloatRow(problem_.gradInput.type, sums, problem_.gradInput.plane<T>(n, c), inH_ * inW_, plan_.streaming);
    }

    // The input rows of a later output row, requested ahead: the search's loads would otherwise wait on
    // memory one cache line at a time.
    static constexpr int64_t kPrefetchRows = 2;
    void prefetchRows(const float *inPlane, const AxisWindow &wh) const {
        forEachWindowRow(AxisWindow{0, 1, 1}, wh, [&](int64_t, int64_t h) { prefetchLines(inPlane + h * inW_, inW_); });
    }

    // Overlapping windows (or several depth planes): float32 sums over the plane, rounded once. Dense
    // float32 planes sum in gradInput itself; otherwise the sums of at most kScratchFloats positions are
    // kept at a time (one tile: the whole plane, for all but huge planes), each tile visiting the outputs
    // whose windows reach it.
    void accumulatePlane(int64_t n, int64_t c, std::vector<float> &scratch) const {
        const T *inPlane = problem_.input.plane<const T>(n, c);
        const T *outPlane = problem_.output.plane<const T>(n, c);
        const T *gradPlane = problem_.gradOutput.plane<const T>(n, c);
        T *gradInPlane = problem_.gradInput.plane<T>(n, c);
        const int64_t planeElements = geometry_.inputPlaneElements();
        const int64_t tileElements = accumulateInPlace ? planeElements : plan_.tileElements;
        for (int64_t tileBegin = 0; tileBegin < planeElements; tileBegin += tileElements) {
            const int64_t tileEnd = std::min(planeElements, tileBegin + tileElements);
            // sums[i - tileBegin] is the sum of plane position i (in place there is one tile, from 0).
            float *sums = accumulateInPlace ? reinterpret_cast<float *>(gradInPlane) : scratch.data();
            std::fill(sums, sums + (tileEnd - tileBegin), 0.0f);
            for (int64_t od = 0; od < geometry_.axes[0].outputSize; ++od)
                for (int64_t oh = 0; oh < outH_; ++oh)
                    for (int64_t ow = 0; ow < outW_; ++ow) {
                        const AxisWindow &wd = windowsD_[od], &wh = windowsH_[oh], &ww = windowsW_[ow];
                        if (wd.count == 0 || wh.count == 0 || ww.count == 0) continue;
                        const int64_t windowFirst = (wd.first * inH_ + wh.first) * inW_ + ww.first;
                        const int64_t windowLast =
                            ((wd.first + (wd.count - 1) * wd.step) * inH_ + wh.first + (wh.count - 1) * wh.step) *
                                inW_ +
                            ww.first + (ww.count - 1) * ww.step;
                        if (windowLast < tileBegin || windowFirst >= tileEnd) continue;
                        const Target<T> target(outPlane[out_(od, oh, ow)]);
                        int64_t md, mh, mw;
                        if (target.isNan() || !findFirst(inPlane, target, wd, wh, ww, md, mh, mw)) continue;
                        const int64_t flat = (md * inH_ + mh) * inW_ + mw;
                        if (flat < tileBegin || flat >= tileEnd) continue;
                        float &sum = sums[flat - tileBegin];
                        sum = addToSum(sum, toFloat(gradPlane[grad_(od, oh, ow)]));
                    }
            if constexpr (!accumulateInPlace) {
                for (int64_t i = tileBegin; i < tileEnd; ++i) {
                    const int64_t row = i / inW_, w = i - row * inW_, d = row / inH_, h = row - d * inH_;
                    gradInPlane[gradIn_(d, h, w)] = fromFloat<T>(sums[i - tileBegin]);
                }
            }
        }
    }

    const PoolProblem &problem_;
    const PoolGeometry &geometry_;
    const PlanesPlan &plan_;
    const std::vector<AxisWindow> &windowsD_, &windowsH_, &windowsW_;
    const int64_t inD_, inH_, inW_, outH_, outW_;
    const PlaneOffsets<Dense> in_, out_, grad_, gradIn_;
};

template <bool Dense>
RunResult runPlanes(const PoolProblem &problem, const ImplementationPlan &made) {
    const PlanesPlan &plan = planAs<PlanesPlan>(made);
    withValueType(problem.input.type, [&](auto value) {
        using T = typename decltype(value)::type;
        const RecomputeArgmaxPlanes<T, Dense> planes(problem, plan);
        runBlocksOnThreads(
            plan.threads, problem.geometry.planes(),
            fencingStreamingStores(plan.streaming, [&](int64_t begin, int64_t end) { planes.run(begin, end); }));
    });
    return {};
}

// Whether the SIMD row search's scratch fits the bound: a float32 plane of sums and a row of match positions
// (int32 plane indices); for float16 a float32 copy of the input plane and two rows of widened outputs and
// gradients too. Other value types are not searched.
bool rowSearchFits(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    const int64_t plane = geometry.inputPlaneElements(), row = geometry.axes[2].outputSize;
    switch (problem.input.type) {
        case ElementType::Float32:
            return plane <= kScratchFloats && row <= kScratchFloats;
        case ElementType::Float16:
            return plane <= kScratchFloats / 2 && row <= kScratchFloats / 4;
        default:
            return false;
    }
}


// A plan with the strategy chosen, the window tables and the thread split.
PlanesPlan planWith(const PoolProblem &problem, WindowTables windows, PlaneStrategy strategy) {
    PlanesPlan plan;
    plan.windows = std::move(windows);
    plan.strategy = strategy;
    plan.tileElements = std::min(problem.geometry.inputPlaneElements(), kScratchFloats);
    plan.streaming = streamingStoresPay(problem.gradInput, plan.tileElements);
    // A plane reads its input and output planes and writes its gradient plane.
    const PoolGeometry &geometry = problem.geometry;
    plan.threads = plannedThreadCount(
        geometry.planes(),
        saturatingAdd(saturatingMul<int64_t>(2, geometry.inputPlaneElements()), geometry.outputPlaneElements()));
    return plan;
}

}  // namespace

PlanOutcome planRecomputeArgmaxBackwardDisjoint(const PoolProblem &problem) {
    if (std::optional<std::string> reason = recomputePlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    const PoolGeometry &geometry = problem.geometry;
    if (geometry.axes[1].dilation != 1 || geometry.axes[2].dilation != 1)
        return PlanOutcome::decline("dilated windows");
    if (!geometry.axes[1].windowsDisjoint() || !geometry.axes[2].windowsDisjoint())
        return PlanOutcome::decline("windows overlap");
    // A row of matches (at most one per input column) within the scratch bound.
    if (geometry.axes[2].inputSize > kScratchBytesPerThread / static_cast<int64_t>(sizeof(Match)))
        return PlanOutcome::decline(scratchDeclineText("a row of matches", std::nullopt));
    WindowTables windows = WindowTables::of(geometry);
    if (notOneDepthPlane(geometry, "this entry")) return PlanOutcome::decline("more than one depth plane");
    // Planes the next entry searches with SIMD across windows (its scratch fits the bound) go there: its
    // search beat this entry's window-by-window search everywhere measured (Intel Xeon 260 MiB L3 host, 2
    // threads, warm ms: float32 16x64 planes of 112x112 under 2x2 stride 2 4.98 against 64.2, 2x16 of 28x28
    // 0.091 against 0.212, 4x32 of 60x60 under 3x3 stride 3 0.138 against 1.12; float16 on the first, its
    // planes widened, 5.96 against 62-65).
    if (rowSearchFits(problem))
        return PlanOutcome::slowerThanLater(planWith(problem, std::move(windows), PlaneStrategy::DisjointRows),
                                            "the SIMD row search measured faster");
    return PlanOutcome::accept(planWith(problem, std::move(windows), PlaneStrategy::DisjointRows));
}

PlanOutcome planRecomputeArgmaxBackwardDense(const PoolProblem &problem) {
    if (std::optional<std::string> reason = recomputePlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    const PoolGeometry &geometry = problem.geometry;
    WindowTables windows = WindowTables::of(geometry);
    const bool searchRows = !notOneDepthPlane(geometry, "the row search") && geometry.axes[1].dilation == 1 &&
                            geometry.axes[2].dilation == 1 && rowSearchFits(problem);
    if (!searchRows)
        return PlanOutcome::accept(planWith(problem, std::move(windows),
                                            problem.input.type == ElementType::Float32 ? PlaneStrategy::SumsInPlace
                                                                                       : PlaneStrategy::SumTiles));
    const CongruentRun run = largestCongruentRun(windows.axes[2]);
    PlanesPlan plan = planWith(problem, std::move(windows), PlaneStrategy::SimdRowSearch);
    if (!run.empty() && run.step == 1) plan.run = run;
    plan.widened = problem.input.type == ElementType::Float16;
    return PlanOutcome::accept(std::move(plan));
}

PlanOutcome planRecomputeArgmaxBackwardReference(const PoolProblem &problem) {
    return PlanOutcome::accept(planWith(problem, WindowTables::of(problem.geometry), PlaneStrategy::SumTiles));
}

RunResult runRecomputeArgmaxBackwardDense(const PoolProblem &problem, const ImplementationPlan &plan) {
    return runPlanes<true>(problem, plan);
}
RunResult runRecomputeArgmaxBackwardReference(const PoolProblem &problem, const ImplementationPlan &plan) {
    return runPlanes<false>(problem, plan);
}

}  // namespace poolgrad::cpu
