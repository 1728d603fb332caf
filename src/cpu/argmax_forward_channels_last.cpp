// Argmax forward for channels-last operands (NDHWC / NHWC storage), vectorised across C: the C values of
// one input position are adjacent, so every window tap is one contiguous vector of channels. Work items
// are output rows (n, od, oh), each writing its own outputs. Float32 rows are searched whole
// (simd_argmax_channels_last: the channel vectors of an output, or 8 outputs of a single vector, as
// independent chains; flat INT32/INT64 indices straight from the vectors; streaming stores when the
// outputs are larger than the cache); one compare and two blends per tap (below AVX-512 a max, an integer
// compare and one blend), a NaN detector on the side, and the NaN rule again where it saw a NaN. 16-bit rows
// of at least two float32 vectors of channels are searched on vectors of twice the channels, the values
// compared as integers ordered like them; windows holding a NaN (or taps more than 2^15 positions apart) and
// the remaining channels take the float32 search, each load widened (exactly), each value coming out as the
// winning element's bits (narrowed back where exact, copied from the input otherwise); planes past int32
// positions go position by position on widened taps.
#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dtype_dispatch.h"
#include "cpu/simd_argmax.h"
#include "cpu/simd_argmax_channels_last.h"
#include "cpu/simd_rows.h"

namespace poolgrad::cpu {
namespace {

// What the channels-last forward decides before seeing data.
struct ChannelsLastPlan final : ImplementationPlan {
    WindowTables windows;
    int64_t largestWindow = 0;     // positions of the largest window: the per-thread scratch
    int64_t largestRows = 0;       // input rows (d, h) of the largest window
    bool wholeRows = false;        // planes addressable in 32 bits: rows searched whole, flat indices
    bool streaming = false;        // outputs larger than the cache bypass it
    CongruentRun congruentRun;     // width windows searched several at once (whole rows)
    bool someWindowEmpty = false;  // a width window without taps (whole rows)
    bool integerKeys = false;      // 16-bit whole rows: vectors of twice the channels compared as integers
    int64_t outputRows = 0;        // work items (n, od, oh)
    int threads = 1;
    int64_t rowsPerTurn = 0;  // itemsPerTurnFor: taken in turns of this many rows, or fixed shares (0)

    std::string describe() const override {
        return "across channels, up to " + std::to_string(largestWindow) + " positions" +
               (wholeRows ? ", whole rows" : ", position by position") +
               (integerKeys ? ", 16-bit values compared as integers by pairs of vectors" : "") + (streaming ? ", streaming stores" : "") +
               "; " + std::to_string(outputRows) + " output rows on " + std::to_string(threads) + " threads" +
               turnsText(rowsPerTurn);
    }
};

struct Scratch {
    std::vector<const float *> rows;
    std::vector<const void *> rowStarts;   // the input rows of a window (whole rows)
    std::vector<int64_t> flat;             // plane index of each window position
    std::vector<int32_t> flat32;           // plane index of each window row's column 0 (whole rows)
    std::vector<int32_t> positionNumbers;  // 0, 1, 2, ...: labels that name the winning position
    std::vector<const void *> sources;     // its C values in the input
    std::vector<float> widened, values;
    std::vector<int32_t> winners;
};

template <typename T, typename I>
class ChannelsLastArgmax {
public:
    ChannelsLastArgmax(const PoolProblem &problem, const ChannelsLastPlan &plan)
        : problem_(problem),
          plan_(plan),
          channels_(problem.geometry.channels),
          outD_(problem.geometry.axes[0].outputSize),
          outH_(problem.geometry.axes[1].outputSize),
          inH_(problem.geometry.axes[1].inputSize),
          inW_(problem.geometry.axes[2].inputSize) {}

    void runRow(int64_t row, Scratch &scratch) const {
        const int64_t n = row / (outD_ * outH_), od = row / outH_ % outD_, oh = row % outH_;
        const AxisWindow &wd = plan_.windows.depth(od), &wh = plan_.windows.height(oh);
        const size_t largest = static_cast<size_t>(plan_.largestWindow);
        // Whole rows list the window's input rows; positions list its taps (none when every width window
        // is empty, while rows may still be listed).
        scratch.rows.resize(largest);
        scratch.rowStarts.resize(static_cast<size_t>(plan_.largestRows));
        scratch.flat.resize(largest);
        scratch.flat32.resize(std::max(largest, static_cast<size_t>(plan_.largestRows)));
        if (scratch.positionNumbers.size() != largest) {
            scratch.positionNumbers.resize(largest);
            for (size_t p = 0; p < largest; ++p) scratch.positionNumbers[p] = static_cast<int32_t>(p);
        }
        scratch.sources.resize(largest);
        scratch.values.resize(static_cast<size_t>(channels_));
        scratch.winners.resize(static_cast<size_t>(channels_));
        if constexpr (!std::is_same_v<T, float>) scratch.widened.resize(largest * static_cast<size_t>(channels_));
        const int64_t outW = problem_.geometry.axes[2].outputSize;
        I *rowIndices = problem_.indices.present() ? problem_.indices.at<I>(n, 0, od, oh, 0) : nullptr;
        if (plan_.wholeRows) {
            // The whole output row in one search: values and flat indices straight to the outputs.
            int64_t rowCount = 0;
            forEachWindowRow(wd, wh, [&](int64_t d, int64_t h) {
                scratch.rowStarts[rowCount] = problem_.input.at<const T>(n, 0, d, h, 0);
                scratch.flat32[rowCount] = static_cast<int32_t>((d * inH_ + h) * inW_);
                ++rowCount;
            });
            ChannelsLastRow search{std::is_same_v<T, float>     ? ArgmaxValueType::Float32
                                   : std::is_same_v<T, Float16> ? ArgmaxValueType::Float16
                                                                : ArgmaxValueType::BFloat16,
                                   scratch.rowStarts.data(),
                                   problem_.input.at<const T>(n, 0, 0, 0, 0),
                                   inH_,
                                   inW_,
                                   {problem_.input.stride[2], problem_.input.stride[3]},
                                   scratch.flat32.data(),
                                   rowCount,
                                   plan_.windows.axes[2].data(),
                                   outW,
                                   plan_.congruentRun,
                                   channels_,
                                   problem_.input.stride[4],
                                   problem_.output.stride[4],
                                   problem_.output.at<T>(n, 0, od, oh, 0),
                                   nullptr,
                                   nullptr,
                                   plan_.streaming,
                                   plan_.someWindowEmpty};
            if constexpr (std::is_same_v<I, int64_t>)
                search.winners64 = rowIndices;
            else
                search.winners32 = rowIndices;
            argmaxChannelsLastRow(search);
            return;
        }
        for (int64_t ow = 0; ow < outW; ++ow) {
            int64_t positions = 0;
            forEachWindowTap(wd, wh, plan_.windows.width(ow), [&](int64_t d, int64_t h, int64_t w) {
                const T *source = problem_.input.at<const T>(n, 0, d, h, w);
                scratch.flat[positions] = (d * inH_ + h) * inW_ + w;
                scratch.sources[positions] = source;
                if constexpr (std::is_same_v<T, float>) {
                    scratch.rows[positions] = source;
                } else {
                    float *widened = scratch.widened.data() + positions * channels_;
                    widenRowToFloat(source, widened, channels_);
                    scratch.rows[positions] = widened;
                }
                ++positions;
            });
            T *out = problem_.output.at<T>(n, 0, od, oh, ow);
            I *indices = problem_.indices.present() ? problem_.indices.at<I>(n, 0, od, oh, ow) : nullptr;
            if (positions == 0) {  // a window wholly in padding (dilation > 1): -inf, index -1
                for (int64_t c = 0; c < channels_; ++c) {
                    out[c] = fromFloat<T>(-std::numeric_limits<float>::infinity());
                    if (indices) indices[c] = static_cast<I>(-1);
                }
                continue;
            }
            argmaxAcrossChannels(scratch.rows.data(), scratch.positionNumbers.data(), positions, scratch.values.data(),
                                 scratch.winners.data(), nullptr, channels_, false);
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
    const ChannelsLastPlan &plan_;
    const int64_t channels_, outD_, outH_, inH_, inW_;
};

}  // namespace

PlanOutcome planArgmaxForwardChannelsLast(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    if (!isCommonValueType(problem.input.type))
        return PlanOutcome::decline(std::string(elementTypeName(problem.input.type)) +
                                    " values are searched by the planar kernels");
    for (const auto &[role, tensor] : {std::pair{"input", &problem.input}, std::pair{"output", &problem.output},
                                       std::pair{"indices", &problem.indices}})
        if (tensor->present() && !tensor->channelsLastDense())
            return PlanOutcome::decline(std::string(role) + " is not dense channels-last");
    ChannelsLastPlan plan;
    plan.windows = WindowTables::of(geometry);
    // Per window position: a row pointer, two flat indices, a label and a source pointer (32 bytes), and
    // for 16-bit types its C values widened to float32; per channel a value and a winner (8 bytes); per
    // input row of a window (whole-row search) a row pointer and a flat index (12 bytes).
    const std::optional<int64_t> positions =
        checkedProduct<int64_t>({largestWindowCount(plan.windows.axes[0]), largestWindowCount(plan.windows.axes[1]),
                                 largestWindowCount(plan.windows.axes[2])});
    const int64_t widenedBytes = problem.input.type == ElementType::Float32 ? 0 : 4;
    const std::optional<int64_t> widened = checkedMul(widenedBytes, geometry.channels);
    const std::optional<int64_t> perPosition = widened ? checkedAdd<int64_t>(*widened, 32) : std::nullopt;
    const std::optional<int64_t> positionBytes =
        perPosition && positions ? checkedMul(*positions, *perPosition) : std::nullopt;
    const std::optional<int64_t> channelBytes = checkedMul<int64_t>(8, geometry.channels);
    const int64_t rows = largestWindowCount(plan.windows.axes[0]) * largestWindowCount(plan.windows.axes[1]);
    const std::optional<int64_t> bytes =
        positionBytes && channelBytes ? checkedAdd(*positionBytes, *channelBytes + rows * 12) : std::nullopt;
    if (!bytes || *bytes > kScratchBytesPerThread)
        return PlanOutcome::decline(scratchDeclineText("one window of all channels", bytes));
    plan.largestWindow = *positions;
    plan.largestRows = rows;
    plan.wholeRows = geometry.inputPlaneElements() < (int64_t{1} << 31);
    // Position by position: the channels of one position are a piece of both outputs (values only for
    // MaxPoolV3WithAttrs, which has no indices).
    // 16-bit whole rows stream where every position's channels are whole vectors of the integer search (32 on
    // AVX-512, 16 on AVX2); the float32 search's narrowed values, half vectors, are stored plainly.
    plan.streaming = (!plan.wholeRows || problem.input.type == ElementType::Float32 || geometry.channels % 32 == 0) &&
                     forwardOutputsStreamingPay(problem.output, problem.indices, geometry.channels);
    if (plan.wholeRows) {
        plan.congruentRun = largestCongruentRun(plan.windows.axes[2]);
        if (plan.congruentRun.count == 0) plan.congruentRun = CongruentRun{};
        for (const AxisWindow &window : plan.windows.axes[2]) plan.someWindowEmpty |= window.count == 0;
        plan.integerKeys = problem.input.type != ElementType::Float32;
    }
    plan.outputRows =
        saturatingMul(geometry.batch, saturatingMul(geometry.axes[0].outputSize, geometry.axes[1].outputSize));
    const int64_t workPerRow = std::max<int64_t>(
        1,
        saturatingMul(geometry.planes(), saturatingAdd(geometry.inputPlaneElements(), geometry.outputPlaneElements())) /
            std::max<int64_t>(plan.outputRows, 1));
    plan.threads = plannedThreadCount(plan.outputRows, workPerRow);
    plan.rowsPerTurn = itemsPerTurnFor(plan.threads, plan.outputRows, problem.bytesMoved());
    return PlanOutcome::accept(std::move(plan));
}

RunResult runArgmaxForwardChannelsLast(const PoolProblem &problem, const ImplementationPlan &made) {
    const ChannelsLastPlan &plan = planAs<ChannelsLastPlan>(made);
    withValueType(problem.input.type, [&](auto value) {
        withIndexType(problem.indices.type, [&](auto index) {
            using T = typename decltype(value)::type;
            using I = typename decltype(index)::type;
            const ChannelsLastArgmax<T, I> kernel(problem, plan);
            runBlocksOnThreadsInTurnsOf(plan.threads, plan.outputRows, plan.rowsPerTurn,
                                        fencingStreamingStores(plan.streaming, [&](int64_t begin, int64_t end) {
                                            Scratch scratch;
                                            for (int64_t row = begin; row < end; ++row) kernel.runRow(row, scratch);
                                        }));
        });
    });
    return {};
}

}  // namespace poolgrad::cpu
