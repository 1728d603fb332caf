// Index-scatter backward: one thread owns a block of (n,c) planes. Each plane's contributions are
// summed in float32 in increasing output order, starting from +0, then rounded once to the output
// type. float32 outputs with dense planes accumulate in place; others use a per-thread float32 plane.
// An index < -1 or >= D*H*W stops its plane; the first one (lowest position) is reported and the
// whole gradInput is zeroed, so an error never leaves a partial result. Without an indices operand
// (masks of 1x1 kernels) every window has one element, and that element is the index.
#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>
#include <sstream>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "core/threading.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dtype_dispatch.h"

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

template <typename T, typename I, bool Dense>
BadIndex scatterPlanes(const PoolProblem &problem, int64_t begin, int64_t end) {
    const PoolGeometry &geometry = problem.geometry;
    const StridedTensor &gradOut = problem.gradOutput, &idx = problem.indices, &gradIn = problem.gradInput;
    const int64_t planeElements = geometry.inputPlaneElements();
    const int64_t outD = geometry.axes[0].outputSize, outH = geometry.axes[1].outputSize,
                  outW = geometry.axes[2].outputSize;
    const int64_t inH = geometry.axes[1].inputSize, inW = geometry.axes[2].inputSize;
    const int64_t channels = geometry.channels;
    const bool impliedIndices = !idx.present();
    const std::vector<AxisWindow> windowsD = impliedIndices ? geometry.axes[0].allWindows() : std::vector<AxisWindow>{};
    const std::vector<AxisWindow> windowsH = impliedIndices ? geometry.axes[1].allWindows() : std::vector<AxisWindow>{};
    const std::vector<AxisWindow> windowsW = impliedIndices ? geometry.axes[2].allWindows() : std::vector<AxisWindow>{};
    constexpr bool accumulateInPlace = Dense && std::is_same_v<T, float>;
    std::vector<float> scratch(accumulateInPlace ? 0 : static_cast<size_t>(planeElements));

    BadIndex bad;
    for (int64_t plane = begin; plane < end && !bad.found(); ++plane) {
        const int64_t n = plane / channels, c = plane % channels;
        const T *gradOutPlane = gradOut.plane<const T>(n, c);
        const I *idxPlane = impliedIndices ? nullptr : idx.plane<const I>(n, c);
        float *sums = accumulateInPlace ? reinterpret_cast<float *>(gradIn.plane<T>(n, c)) : scratch.data();
        std::fill(sums, sums + planeElements, 0.0f);

        int64_t q = 0;
        for (int64_t od = 0; od < outD && !bad.found(); ++od)
            for (int64_t oh = 0; oh < outH && !bad.found(); ++oh)
                for (int64_t ow = 0; ow < outW; ++ow, ++q) {
                    const int64_t gradOffset =
                        Dense ? q : od * gradOut.stride[2] + oh * gradOut.stride[3] + ow * gradOut.stride[4];
                    int64_t target;
                    if (impliedIndices) {
                        target = (windowsD[od].first * inH + windowsH[oh].first) * inW + windowsW[ow].first;
                    } else {
                        const int64_t idxOffset =
                            Dense ? q : od * idx.stride[2] + oh * idx.stride[3] + ow * idx.stride[4];
                        target = static_cast<int64_t>(idxPlane[idxOffset]);
                    }
                    if (target == -1) continue;  // an empty window's index contributes nothing
                    if (target < -1 || target >= planeElements) {
                        bad = {plane, q, target};
                        break;
                    }
                    sums[target] += toFloat(gradOutPlane[gradOffset]);
                }
        if (bad.found() || accumulateInPlace) continue;

        T *gradInPlane = gradIn.plane<T>(n, c);
        for (int64_t d = 0, i = 0; d < geometry.axes[0].inputSize; ++d)
            for (int64_t h = 0; h < inH; ++h)
                for (int64_t w = 0; w < inW; ++w, ++i) {
                    const int64_t offset =
                        Dense ? i : d * gradIn.stride[2] + h * gradIn.stride[3] + w * gradIn.stride[4];
                    gradInPlane[offset] = fromFloat<T>(sums[i]);
                }
    }
    return bad;
}

std::string describeBadIndex(const PoolProblem &problem, const BadIndex &bad) {
    const PoolGeometry &geometry = problem.geometry;
    const int64_t outH = geometry.axes[1].outputSize, outW = geometry.axes[2].outputSize;
    const int64_t od = bad.position / (outH * outW), oh = bad.position / outW % outH, ow = bad.position % outW;
    std::ostringstream text;
    text << "indices at (n=" << bad.plane / geometry.channels << ", c=" << bad.plane % geometry.channels
         << ", d=" << od << ", h=" << oh << ", w=" << ow << ") = " << bad.value << " is outside [0, "
         << geometry.inputPlaneElements()
         << ") (the positions of an input plane; -1 alone means 'no element'); gradInput was set to zeros";
    return text.str();
}

template <bool Dense>
RunResult indexScatterBackward(const PoolProblem &problem) {
    BadIndex first;
    std::mutex firstMutex;
    withValueType(problem.gradOutput.type, [&](auto value) {
        withIndexType(problem.indices.present() ? problem.indices.type : ElementType::Int32, [&](auto index) {
            using T = typename decltype(value)::type;
            using I = typename decltype(index)::type;
            parallelForBlocks(problem.geometry.planes(), [&](int64_t begin, int64_t end) {
                const BadIndex bad = scatterPlanes<T, I, Dense>(problem, begin, end);
                if (!bad.found()) return;
                std::lock_guard lock(firstMutex);
                if (bad.before(first)) first = bad;
            });
        });
    });
    if (!first.found()) return {};
    zeroFill(problem.gradInput);
    return {ACLNN_ERR_PARAM_INVALID, describeBadIndex(problem, first)};
}

}  // namespace

RunResult indexScatterBackwardDense(const PoolProblem &problem) { return indexScatterBackward<true>(problem); }
RunResult indexScatterBackwardStrided(const PoolProblem &problem) { return indexScatterBackward<false>(problem); }

}  // namespace poolgrad::cpu
