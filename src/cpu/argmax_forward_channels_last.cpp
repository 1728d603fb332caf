// Argmax forward for channels-last operands (NDHWC / NHWC storage), vectorised across C: the C values of
// one input position are adjacent, so every window position is one contiguous row and all channels of an
// output position are searched at once (simd_rows: argmaxAcrossChannels). Work items are output rows
// (n, od, oh), each writing its own outputs: float32 values and int32 indices straight from the vectors,
// with streaming stores when the outputs are larger than the cache (12% off D-fwd-cl). 16-bit types are
// searched on exactly widened rows and the winning element's bits are copied from the input, so values
// stay bit-exact.
#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dtype_dispatch.h"
#include "cpu/simd_rows.h"

namespace poolgrad::cpu {
namespace {

struct Scratch {
    std::vector<const float *> rows;
    std::vector<int64_t> flat;             // plane index of each window position
    std::vector<int32_t> flat32;           // the same, when planes are addressable in 32 bits
    std::vector<int32_t> positionNumbers;  // 0, 1, 2, ...: labels that name the winning position
    std::vector<const void *> sources;     // its C values in the input
    std::vector<float> widened, values;
    std::vector<int32_t> winners;
};

template <typename T, typename I>
class ChannelsLastArgmax {
public:
    explicit ChannelsLastArgmax(const PoolProblem &problem)
        : problem_(problem),
          windowsD_(problem.geometry.axes[0].allWindows()),
          windowsH_(problem.geometry.axes[1].allWindows()),
          windowsW_(problem.geometry.axes[2].allWindows()),
          channels_(problem.geometry.channels),
          inH_(problem.geometry.axes[1].inputSize),
          inW_(problem.geometry.axes[2].inputSize),
          largestWindow_(largestWindowCount(windowsD_) * largestWindowCount(windowsH_) * largestWindowCount(windowsW_)),
          flatFitsInt32_(problem.geometry.inputPlaneElements() < (int64_t{1} << 31)),
          streaming_(streamingStoresPay(problem.output)) {}

    int64_t outputRows() const {
        return problem_.geometry.batch * static_cast<int64_t>(windowsD_.size() * windowsH_.size());
    }

    void runRow(int64_t row, Scratch &scratch) const {
        const int64_t n = row / static_cast<int64_t>(windowsD_.size() * windowsH_.size());
        const int64_t od = row / static_cast<int64_t>(windowsH_.size()) % static_cast<int64_t>(windowsD_.size());
        const int64_t oh = row % static_cast<int64_t>(windowsH_.size());
        const AxisWindow wd = windowsD_[od], wh = windowsH_[oh];
        scratch.rows.resize(static_cast<size_t>(largestWindow_));
        scratch.flat.resize(static_cast<size_t>(largestWindow_));
        scratch.flat32.resize(static_cast<size_t>(largestWindow_));
        if (scratch.positionNumbers.size() != static_cast<size_t>(largestWindow_)) {
            scratch.positionNumbers.resize(static_cast<size_t>(largestWindow_));
            for (size_t p = 0; p < scratch.positionNumbers.size(); ++p)
                scratch.positionNumbers[p] = static_cast<int32_t>(p);
        }
        scratch.sources.resize(static_cast<size_t>(largestWindow_));
        scratch.values.resize(static_cast<size_t>(channels_));
        scratch.winners.resize(static_cast<size_t>(channels_));
        if constexpr (!std::is_same_v<T, float>)
            scratch.widened.resize(static_cast<size_t>(largestWindow_ * channels_));
        for (int64_t ow = 0; ow < static_cast<int64_t>(windowsW_.size()); ++ow) {
            const AxisWindow ww = windowsW_[ow];
            int64_t positions = 0;
            for (int64_t jd = 0, d = wd.first; jd < wd.count; ++jd, d += wd.step)
                for (int64_t jh = 0, h = wh.first; jh < wh.count; ++jh, h += wh.step)
                    for (int64_t jw = 0, w = ww.first; jw < ww.count; ++jw, w += ww.step, ++positions) {
                        const T *source = problem_.input.at<const T>(n, 0, d, h, w);
                        scratch.flat[positions] = (d * inH_ + h) * inW_ + w;
                        scratch.flat32[positions] = static_cast<int32_t>(scratch.flat[positions]);
                        scratch.sources[positions] = source;
                        if constexpr (std::is_same_v<T, float>) {
                            scratch.rows[positions] = source;
                        } else {
                            float *widened = scratch.widened.data() + positions * channels_;
                            for (int64_t c = 0; c < channels_; ++c) widened[c] = toFloat(source[c]);
                            scratch.rows[positions] = widened;
                        }
                    }
            T *out = problem_.output.at<T>(n, 0, od, oh, ow);
            I *indices = problem_.indices.present() ? problem_.indices.at<I>(n, 0, od, oh, ow) : nullptr;
            if (positions == 0) {  // a window wholly in padding (dilation > 1): -inf, index -1
                for (int64_t c = 0; c < channels_; ++c) {
                    out[c] = fromFloat<T>(-std::numeric_limits<float>::infinity());
                    if (indices) indices[c] = static_cast<I>(-1);
                }
                continue;
            }
            if constexpr (std::is_same_v<T, float> && std::is_same_v<I, int32_t>) {
                if (flatFitsInt32_) {
                    // Values and flat indices go straight to the outputs (no indices: to the scratch).
                    argmaxAcrossChannels(scratch.rows.data(), scratch.flat32.data(), positions, out,
                                         indices ? indices : scratch.winners.data(), channels_, streaming_);
                    continue;
                }
            }
            argmaxAcrossChannels(scratch.rows.data(), scratch.positionNumbers.data(), positions, scratch.values.data(),
                                 scratch.winners.data(), channels_);
            for (int64_t c = 0; c < channels_; ++c) {
                const int32_t winner = scratch.winners[c];
                if constexpr (std::is_same_v<T, float>)
                    out[c] = scratch.values[c];
                else  // the bits of the winning element itself
                    out[c] = static_cast<const T *>(scratch.sources[winner])[c];
                if (indices) indices[c] = static_cast<I>(scratch.flat[winner]);
            }
        }
    }

private:
    const PoolProblem &problem_;
    const std::vector<AxisWindow> windowsD_, windowsH_, windowsW_;
    const int64_t channels_, inH_, inW_, largestWindow_;
    const bool flatFitsInt32_, streaming_;
};

}  // namespace

std::optional<std::string> argmaxForwardChannelsLastScratchDecline(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    // Per window position: a row pointer, two flat indices, a label and a source pointer (32 bytes), and
    // for 16-bit types its C values widened to float32; per channel a value and a winner (8 bytes).
    const int64_t positions = largestWindowCount(geometry.axes[0].allWindows()) *
                              largestWindowCount(geometry.axes[1].allWindows()) *
                              largestWindowCount(geometry.axes[2].allWindows());  // <= an input plane
    const int64_t widenedBytes = problem.input.type == ElementType::Float32 ? 0 : 4;
    const std::optional<int64_t> widened = checkedMul(widenedBytes, geometry.channels);
    const std::optional<int64_t> perPosition = widened ? checkedAdd<int64_t>(*widened, 32) : std::nullopt;
    const std::optional<int64_t> positionBytes = perPosition ? checkedMul(positions, *perPosition) : std::nullopt;
    const std::optional<int64_t> channelBytes = checkedMul<int64_t>(8, geometry.channels);
    const std::optional<int64_t> bytes =
        positionBytes && channelBytes ? checkedAdd(*positionBytes, *channelBytes) : std::nullopt;
    if (!bytes || *bytes > kScratchBytesPerThread) return scratchDeclineText("one window of all channels", bytes);
    return std::nullopt;
}

RunResult argmaxForwardChannelsLast(const PoolProblem &problem) {
    withValueType(problem.input.type, [&](auto value) {
        withIndexType(problem.indices.type, [&](auto index) {
            using T = typename decltype(value)::type;
            using I = typename decltype(index)::type;
            const ChannelsLastArgmax<T, I> kernel(problem);
            const int64_t rows = kernel.outputRows();
            const int64_t workPerRow = std::max<int64_t>(
                1, saturatingMul(problem.geometry.planes(), saturatingAdd(problem.geometry.inputPlaneElements(),
                                                                          problem.geometry.outputPlaneElements())) /
                       std::max<int64_t>(rows, 1));
            parallelForBlocks(rows, workPerRow, [&](int64_t begin, int64_t end) {
                Scratch scratch;
                for (int64_t row = begin; row < end; ++row) kernel.runRow(row, scratch);
            });
            streamingStoreFence();
        });
    });
    return {};
}

}  // namespace poolgrad::cpu
