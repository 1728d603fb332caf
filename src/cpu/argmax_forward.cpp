// Argmax forward, planar: one thread owns a block of (n,c) planes and writes their outputs and indices
// (cpu_argmax_forward_dense for dense planes of any value type; dense float32 planes usually go to
// cpu_argmax_forward_dense_rows first), or the reference for any strides.
// Windows come from the shared geometry (regular or adaptive). Scan order is d, h, w; the first
// strictly greater value wins, so ties keep the first element; a NaN wins over everything and the
// last NaN in scan order is reported. Values are copied bit-exactly from the input. Integer inputs
// (aclnnMaxPool) and doubles (aclnnAdaptiveMaxPool2d) are compared as themselves: narrowing them to float
// would merge neighbours.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/prefetch.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dense_planes.h"
#include "cpu/dtype_dispatch.h"
#include "cpu/simd_rows.h"

namespace poolgrad::cpu {
namespace {

// What the search compares: 16-bit floats widened exactly to float, integers and doubles as they are.
template <typename T>
constexpr bool comparedAsItself = std::is_integral_v<T> || std::is_same_v<T, double>;

template <typename T>
using SearchKey = std::conditional_t<comparedAsItself<T>, T, float>;

template <typename T>
SearchKey<T> searchKey(T value) {
    if constexpr (comparedAsItself<T>)
        return value;
    else
        return toFloat(value);
}

template <typename T>
SearchKey<T> lowestKey() {
    if constexpr (std::is_integral_v<T>)
        return std::numeric_limits<T>::lowest();
    else
        return -std::numeric_limits<SearchKey<T>>::infinity();
}

template <typename Key>
bool isNanKey(Key key) {
    if constexpr (std::is_integral_v<Key>)
        return false;
    else
        return std::isnan(key);
}

// The value of a window without elements (MaxPoolV3's wholly padded windows, dilated 3-D windows): -Inf.
// Integer and double inputs never have one (aclnnMaxPool keeps pads below the kernel; adaptive windows hold
// an element), so their lowest value only completes the template.
template <typename T>
T emptyWindowValue() {
    if constexpr (comparedAsItself<T>)
        return lowestKey<T>();
    else
        return fromFloat<T>(-std::numeric_limits<float>::infinity());
}

// What the planar forwards decide before seeing data. Dense: every operand's planes dense row-major,
// known at compile time; otherwise each operand's own strides (the reference).
struct PlanarArgmaxPlan final : ImplementationPlan {
    bool dense = false;
    WindowTables windows;
    // Dense float32 planes: the congruent windows of an output row (those not clipped by the edges, or all
    // windows of an evenly divided adaptive axis) go through the SIMD search across windows; the others
    // take the scalar loop. Empty when the SIMD search's scratch would not fit, or for other types.
    CongruentRun simdRun;
    int64_t planes = 0;
    int threads = 1;

    std::string describe() const override {
        std::string text = dense ? "dense" : "strided";
        if (!simdRun.empty())
            text += ", SIMD across windows ow[" + std::to_string(simdRun.begin) + "," + std::to_string(simdRun.end) +
                    "), the rest scalar";
        else
            text += ", scalar";
        return text + "; " + std::to_string(planes) + " planes on " + std::to_string(threads) + " threads";
    }
};

template <typename T, typename I, bool Dense>
void argmaxForwardPlanes(const PoolProblem &problem, const PlanarArgmaxPlan &plan, int64_t begin, int64_t end) {
    const PoolGeometry &geometry = problem.geometry;
    const WindowTables &windows = plan.windows;
    const int64_t inH = geometry.axes[1].inputSize, inW = geometry.axes[2].inputSize;
    const StridedTensor &in = problem.input, &out = problem.output, &idx = problem.indices;
    const int64_t inSd = Dense ? inH * inW : in.stride[2], inSh = Dense ? inW : in.stride[3],
                  inSw = Dense ? 1 : in.stride[4];
    const int64_t channels = geometry.channels;
    const int64_t outW = geometry.axes[2].outputSize;
    const CongruentRun &run = plan.simdRun;
    const int64_t fullBegin = run.begin, fullEnd = run.empty() ? run.begin : run.end;
    std::vector<int64_t> rowIndices;
    std::vector<int32_t> runIndices(static_cast<size_t>(fullEnd - fullBegin));

    for (int64_t plane = begin; plane < end; ++plane) {
        const int64_t n = plane / channels, c = plane % channels;
        const T *inPlane = in.plane<const T>(n, c);
        T *outPlane = out.plane<T>(n, c);
        I *idxPlane = idx.present() ? idx.plane<I>(n, c) : nullptr;  // value-only forwards have no indices
        int64_t q = 0;                                               // flat output position, used when Dense
        for (int64_t od = 0; od < geometry.axes[0].outputSize; ++od) {
            const AxisWindow &wd = windows.depth(od);
            for (int64_t oh = 0; oh < geometry.axes[1].outputSize; ++oh) {
                const AxisWindow &wh = windows.height(oh);
                if constexpr (Dense && std::is_same_v<T, float>) {
                    if (fullEnd > fullBegin) {
                        // The input rows of the output row two ahead, requested now: the window loads
                        // would otherwise wait on memory a cache line at a time.
                        if (oh + 2 < geometry.axes[1].outputSize)
                            forEachWindowRow(wd, windows.height(oh + 2), [&](int64_t d, int64_t h) {
                                prefetchLines(inPlane + (d * inH + h) * inW, inW);
                            });
                        rowIndices.clear();
                        forEachWindowRow(wd, wh, [&](int64_t d, int64_t h) { rowIndices.push_back(d * inH + h); });
                        argmaxWindows(inPlane, inW, rowIndices.data(), static_cast<int64_t>(rowIndices.size()),
                                      windows.width(fullBegin).first, run.stride, run.count, run.step,
                                      outPlane + q + fullBegin, runIndices.data(), fullEnd - fullBegin);
                        if (idxPlane)
                            for (int64_t i = 0; i < fullEnd - fullBegin; ++i)
                                idxPlane[q + fullBegin + i] = static_cast<I>(runIndices[i]);
                    }
                }
                for (int64_t ow = 0; ow < outW; ++ow, ++q) {
                    if (ow == fullBegin && fullEnd > fullBegin) {
                        q += fullEnd - fullBegin - 1;
                        ow = fullEnd - 1;
                        continue;
                    }
                    SearchKey<T> best = lowestKey<T>();
                    int64_t bestIndex = -1, bestOffset = -1, nanIndex = -1, nanOffset = -1;
                    forEachWindowTap(wd, wh, windows.width(ow), [&](int64_t d, int64_t h, int64_t w) {
                        const int64_t offset = d * inSd + h * inSh + w * inSw;
                        const SearchKey<T> value = searchKey(inPlane[offset]);
                        const int64_t flat = (d * inH + h) * inW + w;
                        if (bestIndex < 0) {
                            bestIndex = flat;
                            bestOffset = offset;
                        }
                        if (isNanKey(value)) {
                            nanIndex = flat;
                            nanOffset = offset;
                        } else if (value > best) {
                            best = value;
                            bestIndex = flat;
                            bestOffset = offset;
                        }
                    });
                    if (nanIndex >= 0) {
                        bestIndex = nanIndex;
                        bestOffset = nanOffset;
                    }
                    const T value = bestOffset >= 0 ? inPlane[bestOffset] : emptyWindowValue<T>();
                    if constexpr (Dense) {
                        outPlane[q] = value;
                        if (idxPlane) idxPlane[q] = static_cast<I>(bestIndex);
                    } else {
                        *(outPlane + od * out.stride[2] + oh * out.stride[3] + ow * out.stride[4]) = value;
                        if (idxPlane)
                            *(idxPlane + od * idx.stride[2] + oh * idx.stride[3] + ow * idx.stride[4]) =
                                static_cast<I>(bestIndex);
                    }
                }
            }
        }
    }
}

template <bool Dense>
PlanOutcome planPlanar(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    PlanarArgmaxPlan plan;
    plan.dense = Dense;
    plan.windows = WindowTables::of(geometry);
    if (Dense && problem.input.type == ElementType::Float32) {
        // The SIMD search's scratch (the rows of a window, a row of winners) must stay within the bound;
        // otherwise every window takes the scalar loop, which needs none.
        const std::optional<int64_t> windowRows =
            checkedMul(largestWindowCount(plan.windows.axes[0]), largestWindowCount(plan.windows.axes[1]));
        const bool scratchFits = windowRows && *windowRows <= kScratchBytesPerThread / 16 &&
                                 geometry.axes[2].outputSize <= kScratchBytesPerThread / 8;
        if (geometry.inputPlaneElements() < (int64_t{1} << 31) && scratchFits)
            plan.simdRun = largestCongruentRun(plan.windows.axes[2]);
    }
    plan.planes = geometry.planes();
    plan.threads =
        plannedThreadCount(plan.planes, saturatingAdd(geometry.inputPlaneElements(), geometry.outputPlaneElements()));
    return PlanOutcome::accept(std::move(plan));
}

template <bool Dense>
RunResult runPlanar(const PoolProblem &problem, const ImplementationPlan &made) {
    const PlanarArgmaxPlan &plan = planAs<PlanarArgmaxPlan>(made);
    withForwardValueType(problem.input.type, [&](auto value) {
        withIndexType(problem.indices.type, [&](auto index) {
            using T = typename decltype(value)::type;
            using I = typename decltype(index)::type;
            runBlocksOnThreads(plan.threads, plan.planes, [&](int64_t begin, int64_t end) {
                argmaxForwardPlanes<T, I, Dense>(problem, plan, begin, end);
            });
        });
    });
    return {};
}

}  // namespace

PlanOutcome planArgmaxForwardDense(const PoolProblem &problem) {
    if (std::optional<std::string> reason = forwardPlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    return planPlanar<true>(problem);
}
RunResult runArgmaxForwardDense(const PoolProblem &problem, const ImplementationPlan &plan) {
    return runPlanar<true>(problem, plan);
}
PlanOutcome planArgmaxForwardReference(const PoolProblem &problem) { return planPlanar<false>(problem); }
RunResult runArgmaxForwardReference(const PoolProblem &problem, const ImplementationPlan &plan) {
    return runPlanar<false>(problem, plan);
}

}  // namespace poolgrad::cpu
