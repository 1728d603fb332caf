// Recompute-argmax backward (MaxPoolV3Grad) for 3x3 windows at stride 2 on dense planes: the common
// "k3 s2" pooling, whose windows overlap on both axes. Each input element lies in at most 2x2 windows,
// and which ones is fixed by the parity of its row and column, so one output row's windows are searched
// a vector of windows at a time (simd_first_match_3x3_stride2.h) and their gradients summed in registers
// in output order: each gradInput row is produced whole, once, by the thread that owns it (a plane, or a
// band of its rows), with no zero fill and no read-back (streaming past the caches when gradInput is
// larger than them). The channels-last entry does the same with a vector of channels per window.
// Rows are copied into a padded row (16-bit values widened) whose columns outside the input hold NaN:
// every window is then whole, and a tap outside the input never matches, as no NaN does.
#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/prefetch.h"
#include "core/scratch_bound.h"
#include "core/streaming_stores.h"
#include "core/threading.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dense_planes.h"
#include "cpu/dtype_dispatch.h"
#include "cpu/one_depth_plane.h"
#include "cpu/simd_first_match_3x3_stride2.h"
#include "cpu/simd_rows.h"

namespace poolgrad::cpu {
namespace {

struct Stride2Plan final : ImplementationPlan {
    int64_t windows = 0;    // output columns, padded to kStride2WindowPadding
    int64_t rowFloats = 0;  // a padded row: every window's columns and every input column
    int64_t padTop = 0, padLeft = 0;
    int64_t bands = 1;  // work items per plane: bands of output rows
    bool streaming = false;
    int threads = 1;
    int64_t itemsPerTurn = 0;  // itemsPerTurnFor: bands taken in turns of this many, or fixed shares (0)
    // Float32 with at most two padding columns on the left: rows, targets and gradients read where they lie
    // and finished rows written straight to gradInput (sumFirstMatches3x3Stride2); else padded copies.
    bool rowsInPlace = false;

    std::string describe() const override {
        return "3x3 stride-2 rows: " + std::to_string(windows) + " windows a row, " +
               (rowsInPlace ? std::string("rows in place, ") : "rows of " + std::to_string(rowFloats) + " floats, ") +
               std::to_string(bands) + (bands == 1 ? " band" : " bands") +
               " a plane, " + (streaming ? "streaming" : "cached") + " stores, threads=" + std::to_string(threads) +
               turnsText(itemsPerTurn);
    }
};

// Rows of the padded width a thread needs: three input rows (a ring), a row of NaN, the finished top and
// middle sums, and zeros; plus the partial sums (two halves) and one row of targets and gradients.
constexpr int64_t kPaddedRows = 7;

int64_t roundUp(int64_t value, int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

// A work item's output rows [ohBegin, ohEnd) of one plane or image, and the gradInput rows it writes,
// [rowBegin, rowEnd): the top and middle rows of its windows (from row 0 in the first band, to the last
// row in the last). The row a band shares with the next is the next band's: that band first searches the
// output row before its own (without writing) for the sums it leaves in that row.
struct RowBand {
    int64_t ohBegin = 0, ohEnd = 0, rowBegin = 0, rowEnd = 0;

    static RowBand of(int64_t band, int64_t bands, int64_t outH, int64_t inH, int64_t padTop) {
        RowBand b;
        b.ohBegin = outH * band / bands;
        b.ohEnd = outH * (band + 1) / bands;
        b.rowBegin = band == 0 ? 0 : std::clamp<int64_t>(2 * b.ohBegin - padTop, 0, inH);
        b.rowEnd = band == bands - 1 ? inH : std::clamp<int64_t>(2 * b.ohEnd - padTop, 0, inH);
        return b;
    }
    bool owns(int64_t h) const { return h >= rowBegin && h < rowEnd; }
};

// Bands per plane or image: whole ones when there are enough for every thread (two each), else bands of
// output rows; and the threads for them.
void splitIntoBands(int64_t units, int64_t outH, int64_t workPerUnit, int64_t &bands, int &threads) {
    const int64_t available = threadsForWork(saturatingMul(std::max<int64_t>(units, 1), workPerUnit));
    bands = available <= 1 ? 1
                           : std::clamp<int64_t>((2 * available + units - 1) / std::max<int64_t>(units, 1), 1,
                                                 std::max<int64_t>(outH, 1));
    threads = plannedThreadCount(saturatingMul(units, bands), workPerUnit / bands);
}

template <typename T>
class Stride2Planes {
public:
    Stride2Planes(const PoolProblem &problem, const Stride2Plan &plan)
        : problem_(problem),
          plan_(plan),
          inH_(problem.geometry.axes[1].inputSize),
          inW_(problem.geometry.axes[2].inputSize),
          outH_(problem.geometry.axes[1].outputSize),
          outW_(problem.geometry.axes[2].outputSize) {}

    void run(int64_t begin, int64_t end) const {
        if constexpr (std::is_same_v<T, float>) {
            if (plan_.rowsInPlace) return runInPlace(begin, end);
        }
        const int64_t rowFloats = plan_.rowFloats, windows = plan_.windows;
        const float nan = std::numeric_limits<float>::quiet_NaN();
        // Everything outside what each row writes keeps its fill: NaN around input rows, zeros past the
        // windows in the sums, NaN targets (no match) and zero gradients for the padding windows.
        std::vector<float> inputRows(static_cast<size_t>(4 * rowFloats), nan);
        std::vector<float> sums(static_cast<size_t>(3 * rowFloats), 0.0f);
        std::vector<float> partial(static_cast<size_t>(2 * (windows + 1)), 0.0f);
        std::vector<float> targets(static_cast<size_t>(windows), nan), gradients(static_cast<size_t>(windows), 0.0f);
        const float *nanRow = inputRows.data() + 3 * rowFloats;
        float *topSums = sums.data(), *middleSums = topSums + rowFloats, *zeros = middleSums + rowFloats;
        float *partialEven = partial.data(), *partialOdd = partialEven + windows + 1;

        for (int64_t item = begin; item < end; ++item) {
            const WorkItem work = workItem(item);
            std::fill(partial.begin(), partial.end(), 0.0f);
            int64_t held[3] = {-1, -1, -1};  // the input row each ring slot holds
            const auto inputRow = [&](int64_t h) -> const float * {
                if (h < 0 || h >= inH_) return nanRow;
                float *row = inputRows.data() + h % 3 * rowFloats;
                if (held[h % 3] != h) {
                    widenRowToFloat(work.input + h * inW_, row + plan_.padLeft, inW_);
                    held[h % 3] = h;
                }
                return row;
            };
            const auto search = [&](int64_t oh) {
                const int64_t top = 2 * oh - plan_.padTop;
                prefetchAhead(work, oh);
                widenRowToFloat(work.output + oh * outW_, targets.data(), outW_);
                widenRowToFloat(work.gradOutput + oh * outW_, gradients.data(), outW_);
                // The padded rows are whole rows of rowFloats columns whose padding holds NaN: padLeft 0.
                const float *rows[3] = {inputRow(top), inputRow(top + 1), inputRow(top + 2)};
                sumFirstMatches3x3Stride2(rows, rowFloats, 0, targets.data(), gradients.data(), windows, partialEven,
                                          partialOdd, topSums, middleSums, false);
            };
            int64_t emitted = work.band.rowBegin;  // the band's gradInput rows below are written
            const auto emit = [&](int64_t h, const float *rowSums) {
                if (!work.band.owns(h)) return;
                for (; emitted < h; ++emitted) storeRow(zeros, work.gradInput, emitted);
                storeRow(rowSums + plan_.padLeft, work.gradInput, h);
                emitted = h + 1;
            };
            if (work.band.ohBegin > 0) search(work.band.ohBegin - 1);
            for (int64_t oh = work.band.ohBegin; oh < work.band.ohEnd; ++oh) {
                search(oh);
                emit(2 * oh - plan_.padTop, topSums);
                emit(2 * oh - plan_.padTop + 1, middleSums);
            }
            // The last output row's bottom row has all its sums now.
            const int64_t last = 2 * (outH_ - 1) - plan_.padTop + 2;
            if (work.band.ohEnd == outH_ && work.band.owns(last)) {
                for (int64_t i = 0; i <= windows; ++i) {
                    topSums[2 * i] = partialEven[i];
                    topSums[2 * i + 1] = partialOdd[i];
                }
                emit(last, topSums);
            }
            for (; emitted < work.band.rowEnd; ++emitted) storeRow(zeros, work.gradInput, emitted);
        }
    }

private:
    static constexpr int64_t kPrefetchOutputRows = 2;

    // A work item's band of output rows and its plane of each operand.
    struct WorkItem {
        RowBand band;
        const T *input, *output, *gradOutput;
        T *gradInput;
    };
    WorkItem workItem(int64_t item) const {
        const int64_t plane = item / plan_.bands;
        const int64_t n = plane / problem_.geometry.channels, c = plane % problem_.geometry.channels;
        return {RowBand::of(item % plan_.bands, plan_.bands, outH_, inH_, plan_.padTop),
                problem_.input.plane<const T>(n, c), problem_.output.plane<const T>(n, c),
                problem_.gradOutput.plane<const T>(n, c), problem_.gradInput.plane<T>(n, c)};
    }

    // Asks for output row oh's new rows (two input rows, its origOutput and gradOutput rows) a few rows
    // ahead: the row copies, or the loads of rows read in place, would otherwise wait on memory one cache
    // line at a time.
    void prefetchAhead(const WorkItem &work, int64_t oh) const {
        if (oh + kPrefetchOutputRows >= outH_) return;
        const int64_t ahead = 2 * oh - plan_.padTop + 2 * kPrefetchOutputRows;
        for (int64_t h = std::max<int64_t>(ahead + 1, 0); h < std::min(ahead + 3, inH_); ++h)
            prefetchLines(work.input + h * inW_, inW_);
        prefetchLines(work.output + (oh + kPrefetchOutputRows) * outW_, outW_);
        prefetchLines(work.gradOutput + (oh + kPrefetchOutputRows) * outW_, outW_);
    }

    // The float32 rows in place: each finished row goes straight to gradInput, or (a row another band owns,
    // or a streamed row that does not start on a cache line) to a scratch row first.
    void runInPlace(int64_t begin, int64_t end) const {
        const int64_t windows = plan_.windows;
        std::vector<float> partial(static_cast<size_t>(2 * (windows + 1)), 0.0f);
        std::vector<float> scratch(static_cast<size_t>(3 * inW_), 0.0f);
        float *partialEven = partial.data(), *partialOdd = partialEven + windows + 1;
        float *scratchTop = scratch.data(), *scratchMiddle = scratchTop + inW_;
        const float *zeros = scratchMiddle + inW_;
        for (int64_t item = begin; item < end; ++item) {
            const WorkItem work = workItem(item);
            std::fill(partial.begin(), partial.end(), 0.0f);
            int64_t emitted = work.band.rowBegin;  // the band's gradInput rows below are written
            // Where row h's sums go: gradInput itself when the band owns the row and can store it there, else
            // the scratch row (finish() then stores an owned row).
            const auto destination = [&](int64_t h, float *scratchRow) {
                if (!work.band.owns(h)) return scratchRow;
                float *row = work.gradInput + h * inW_;
                return !plan_.streaming || reinterpret_cast<uintptr_t>(row) % 64 == 0 ? row : scratchRow;
            };
            const auto finish = [&](int64_t h, const float *sums) {
                if (!work.band.owns(h)) return;
                for (; emitted < h; ++emitted) storeRow(zeros, work.gradInput, emitted);
                if (sums != work.gradInput + h * inW_) storeRow(sums, work.gradInput, h);
                emitted = h + 1;
            };
            const auto search = [&](int64_t oh) {
                prefetchAhead(work, oh);
                const int64_t top = 2 * oh - plan_.padTop;
                const float *rows[3];
                for (int r = 0; r < 3; ++r)
                    rows[r] = top + r >= 0 && top + r < inH_ ? work.input + (top + r) * inW_ : nullptr;
                float *topOut = destination(top, scratchTop), *middleOut = destination(top + 1, scratchMiddle);
                sumFirstMatches3x3Stride2(rows, inW_, plan_.padLeft, work.output + oh * outW_,
                                          work.gradOutput + oh * outW_, outW_, partialEven, partialOdd, topOut,
                                          middleOut, plan_.streaming);
                finish(top, topOut);
                finish(top + 1, middleOut);
            };
            if (work.band.ohBegin > 0) search(work.band.ohBegin - 1);
            for (int64_t oh = work.band.ohBegin; oh < work.band.ohEnd; ++oh) search(oh);
            // The last output row's bottom row has all its sums now: column x is padded column x + padLeft.
            const int64_t last = 2 * (outH_ - 1) - plan_.padTop + 2;
            if (work.band.ohEnd == outH_ && work.band.owns(last)) {
                for (int64_t x = 0; x < inW_; ++x) {
                    const int64_t column = x + plan_.padLeft, i = column / 2;
                    scratchTop[x] = i > windows ? 0.0f : column % 2 ? partialOdd[i] : partialEven[i];
                }
                finish(last, scratchTop);
            }
            for (; emitted < work.band.rowEnd; ++emitted) storeRow(zeros, work.gradInput, emitted);
        }
    }

    void storeRow(const float *rowSums, T *gradInPlane, int64_t h) const {
        storeFloatRow(problem_.gradInput.type, rowSums, gradInPlane + h * inW_, inW_, plan_.streaming);
    }

    const PoolProblem &problem_;
    const Stride2Plan &plan_;
    const int64_t inH_, inW_, outH_, outW_;
};

struct ChannelsLastStride2Plan final : ImplementationPlan {
    int64_t padTop = 0, padLeft = 0;
    int64_t bands = 1;  // work items per image: bands of output rows
    bool streaming = false;
    int threads = 1;
    int64_t itemsPerTurn = 0;  // itemsPerTurnFor: bands taken in turns of this many, or fixed shares (0)

    std::string describe() const override {
        return "3x3 stride-2 channels-last rows, " + std::to_string(bands) + (bands == 1 ? " band" : " bands") +
               " an image, " + (streaming ? "streaming" : "cached") + " stores, threads=" + std::to_string(threads) +
               turnsText(itemsPerTurn);
    }
};

// Channels-last: the C values of a position are adjacent, so the windows of an output row are walked
// left to right with a vector of channels each (no shuffles), and a row of an image is a row of W*C.
template <typename T>
class ChannelsLastStride2Images {
public:
    ChannelsLastStride2Images(const PoolProblem &problem, const ChannelsLastStride2Plan &plan)
        : problem_(problem),
          plan_(plan),
          channels_(problem.geometry.channels),
          inH_(problem.geometry.axes[1].inputSize),
          inW_(problem.geometry.axes[2].inputSize),
          outH_(problem.geometry.axes[1].outputSize),
          outW_(problem.geometry.axes[2].outputSize),
          rowElements_(inW_ * channels_),
          outRowElements_(outW_ * channels_) {}

    void run(int64_t begin, int64_t end) const {
        // The sums of three rows and a row of zeros; 16-bit values are widened into a ring of three rows
        // and one row each of targets and gradients.
        std::vector<float> sums(static_cast<size_t>(4 * rowElements_ + 3 * channels_), 0.0f);
        std::vector<float> widened(widen ? static_cast<size_t>(3 * rowElements_ + 2 * outRowElements_) : 0);
        float *partial = sums.data(), *topSums = partial + rowElements_, *middleSums = topSums + rowElements_;
        const float *zeros = middleSums + rowElements_;
        float *carries = middleSums + 2 * rowElements_;
        for (int64_t item = begin; item < end; ++item) {
            const int64_t n = item / plan_.bands;
            const RowBand band = RowBand::of(item % plan_.bands, plan_.bands, outH_, inH_, plan_.padTop);
            std::fill(partial, partial + rowElements_, 0.0f);
            int64_t held[3] = {-1, -1, -1};
            const auto inputRow = [&](int64_t h) -> const float * {
                if (h < 0 || h >= inH_) return nullptr;
                const T *row = problem_.input.at<const T>(n, 0, 0, h, 0);
                if constexpr (!widen) {
                    return row;
                } else {
                    float *destination = widened.data() + h % 3 * rowElements_;
                    if (held[h % 3] != h) {
                        widenRowToFloat(row, destination, rowElements_);
                        held[h % 3] = h;
                    }
                    return destination;
                }
            };
            const auto outputRow = [&](const StridedTensor &tensor, int64_t oh, int64_t slot) -> const float * {
                const T *row = tensor.at<const T>(n, 0, 0, oh, 0);
                if constexpr (!widen) {
                    return row;
                } else {
                    float *destination = widened.data() + 3 * rowElements_ + slot * outRowElements_;
                    widenRowToFloat(row, destination, outRowElements_);
                    return destination;
                }
            };
            // Sums of an output row's windows: the finished top and middle rows go to `topOut` and
            // `middleOut` (float32 gradInput rows themselves, or scratch rows).
            const auto search = [&](int64_t oh, float *topOut, float *middleOut) {
                const int64_t top = 2 * oh - plan_.padTop;
                const float *rows[3] = {inputRow(top), inputRow(top + 1), inputRow(top + 2)};
                sumFirstMatches3x3Stride2AcrossChannels(
                    rows, outputRow(problem_.output, oh, 0), outputRow(problem_.gradOutput, oh, 1), outW_, inW_,
                    plan_.padLeft, channels_, partial, topOut, middleOut, carries, plan_.streaming && !widen);
            };
            int64_t emitted = band.rowBegin;  // the band's gradInput rows below are written
            // Whether the band writes row h; the rows between the last written and h are zeros.
            const auto claim = [&](int64_t h) {
                if (!band.owns(h)) return false;
                for (; emitted < h; ++emitted) storeRow(zeros, n, emitted);
                emitted = h + 1;
                return true;
            };
            // float32 rows are finished in gradInput itself; 16-bit ones in scratch, then rounded once.
            const auto destination = [&](bool owned, int64_t h, float *scratch) -> float * {
                if constexpr (!widen) {
                    if (owned) return problem_.gradInput.at<float>(n, 0, 0, h, 0);
                }
                return scratch;
            };
            if (band.ohBegin > 0) search(band.ohBegin - 1, topSums, middleSums);
            for (int64_t oh = band.ohBegin; oh < band.ohEnd; ++oh) {
                const int64_t top = 2 * oh - plan_.padTop;
                const bool ownTop = claim(top), ownMiddle = claim(top + 1);
                search(oh, destination(ownTop, top, topSums), destination(ownMiddle, top + 1, middleSums));
                if constexpr (widen) {
                    if (ownTop) storeRow(topSums, n, top);
                    if (ownMiddle) storeRow(middleSums, n, top + 1);
                }
            }
            const int64_t last = 2 * (outH_ - 1) - plan_.padTop + 2;
            if (band.ohEnd == outH_ && claim(last)) storeRow(partial, n, last);
            for (; emitted < band.rowEnd; ++emitted) storeRow(zeros, n, emitted);
        }
    }

private:
    static constexpr bool widen = !std::is_same_v<T, float>;

    void storeRow(const float *rowSums, int64_t n, int64_t h) const {
        storeFloatRow(problem_.gradInput.type, rowSums, problem_.gradInput.at<T>(n, 0, 0, h, 0), rowElements_,
                      plan_.streaming);
    }

    const PoolProblem &problem_;
    const ChannelsLastStride2Plan &plan_;
    const int64_t channels_, inH_, inW_, outH_, outW_, rowElements_, outRowElements_;
};

bool isThreeByThreeStrideTwo(const WindowAxis &axis) {
    return !axis.adaptive && axis.kernel == 3 && axis.stride == 2 && axis.dilation == 1 && axis.padBegin >= 0;
}

// Why the windows are not the ones these rows take, or nullopt.
std::optional<std::string> windowsDecline(const PoolGeometry &geometry) {
    if (notOneDepthPlane(geometry, "these rows")) return std::string("more than one depth plane");
    if (!isThreeByThreeStrideTwo(geometry.axes[1]) || !isThreeByThreeStrideTwo(geometry.axes[2]))
        return std::string("windows are not 3x3 at stride 2 (dilation 1, padding >= 0)");
    return std::nullopt;
}

}  // namespace

PlanOutcome planRecomputeArgmaxBackward3x3Stride2(const PoolProblem &problem) {
    if (std::optional<std::string> reason = recomputePlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    const PoolGeometry &geometry = problem.geometry;
    const WindowAxis &height = geometry.axes[1], &width = geometry.axes[2];
    if (std::optional<std::string> reason = windowsDecline(geometry)) return PlanOutcome::decline(*reason);
    // Sizes in the bounded scratch (scratch_bound.h): so every product below fits too.
    const int64_t bound = kScratchFloats / (kPaddedRows + 4);
    if (width.outputSize > bound || width.padBegin > bound || width.inputSize > bound)
        return PlanOutcome::decline(scratchDeclineText("the padded rows", std::nullopt));
    Stride2Plan plan;
    plan.windows = roundUp(width.outputSize, kStride2WindowPadding);
    plan.rowFloats = roundUp(std::max(2 * plan.windows + 2, width.padBegin + width.inputSize), 16);
    plan.padTop = height.padBegin;
    plan.padLeft = width.padBegin;
    plan.rowsInPlace = problem.input.type == ElementType::Float32 && plan.padLeft <= 2;
    const int64_t bytes = (kPaddedRows * plan.rowFloats + 4 * (plan.windows + 1)) * static_cast<int64_t>(sizeof(float));
    if (bytes > kScratchBytesPerThread) return PlanOutcome::decline(scratchDeclineText("the padded rows", bytes));
    plan.streaming = streamingStoresPay(problem.gradInput, width.inputSize);  // row by row
    // A plane reads its input and output planes and writes its gradient plane.
    splitIntoBands(
        geometry.planes(), height.outputSize,
        saturatingAdd(saturatingMul<int64_t>(2, geometry.inputPlaneElements()), geometry.outputPlaneElements()),
        plan.bands, plan.threads);
    plan.itemsPerTurn =
        itemsPerTurnFor(plan.threads, saturatingMul(geometry.planes(), plan.bands), problem.bytesMoved());
    return PlanOutcome::accept(std::move(plan));
}

RunResult runRecomputeArgmaxBackward3x3Stride2(const PoolProblem &problem, const ImplementationPlan &made) {
    const Stride2Plan &plan = planAs<Stride2Plan>(made);
    withValueType(problem.input.type, [&](auto value) {
        using T = typename decltype(value)::type;
        const Stride2Planes<T> planes(problem, plan);
        runBlocksOnThreadsInTurnsOf(
            plan.threads, saturatingMul(problem.geometry.planes(), plan.bands), plan.itemsPerTurn,
            fencingStreamingStores(plan.streaming, [&](int64_t begin, int64_t end) { planes.run(begin, end); }));
    });
    return {};
}

}  // namespace poolgrad::cpu

namespace poolgrad::cpu {

PlanOutcome planRecomputeArgmaxBackwardChannelsLast3x3Stride2(const PoolProblem &problem) {
    for (const auto &[role, tensor] :
         {std::pair{"input", &problem.input}, std::pair{"output", &problem.output},
          std::pair{"gradOutput", &problem.gradOutput}, std::pair{"gradInput", &problem.gradInput}})
        if (!tensor->channelsLastDense())
            return PlanOutcome::decline(std::string(role) + " is not dense channels-last");
    const PoolGeometry &geometry = problem.geometry;
    if (std::optional<std::string> reason = windowsDecline(geometry)) return PlanOutcome::decline(*reason);
    // Four rows of sums, three carried columns (C each), and for 16-bit values three widened input rows
    // and two output rows (W*C each).
    const int64_t channels = geometry.channels;
    const std::optional<int64_t> row = checkedMul(geometry.axes[2].inputSize, channels);
    const std::optional<int64_t> outRow = checkedMul(geometry.axes[2].outputSize, channels);
    std::optional<int64_t> floats;
    if (row && outRow) {
        const std::optional<int64_t> sumRows = checkedMul<int64_t>(7, *row), outRows = checkedMul<int64_t>(2, *outRow);
        if (sumRows && outRows)
            if (const std::optional<int64_t> rows = checkedAdd(*sumRows, *outRows))
                floats = checkedAdd(*rows, 3 * channels);  // channels <= *row, so 3 * channels fits
    }
    if (!floats || *floats > kScratchFloats)
        return PlanOutcome::decline(
            scratchDeclineText("the rows of sums", floats ? checkedMul<int64_t>(*floats, 4) : std::nullopt));
    ChannelsLastStride2Plan plan;
    plan.padTop = geometry.axes[1].padBegin;
    plan.padLeft = geometry.axes[2].padBegin;
    // Where a vector is narrower than a line (AVX2, SSE4), the automatic choice stores plainly: streamed, the
    // walk's lines (a group of channels writes one line of each of its columns, the next group the next line)
    // ran slower at every size and thread count measured, from DRAM too. AMD EPYC Zen 3 (AVX2, L3 32 MiB),
    // D-v3-nhwc (51 MB gradInput), ms warm / cold, streamed against plain: one thread 8.9-9.7 / 7.5-8.2
    // against 6.3 / 6.6, two threads 4.4-4.7 / 4.5-4.7 against 3.6-4.1 / 3.8-4.3; streaming each finished
    // row from a scratch row in address order instead: 7.0-7.5 / 7.2-7.6 and 4.3 / 4.4-4.5. ALWAYS still
    // streams; 64-byte vectors (one line a group) keep the rule of the other kernels.
    const bool plainOnNarrowVectors =
        streamingStoresChoice() == StreamingStores::Automatic && firstMatchVectorBytes() < 64;
    const int64_t rowElements = saturatingMul(geometry.axes[2].inputSize, geometry.channels);
    plan.streaming = !plainOnNarrowVectors && streamingStoresPay(problem.gradInput, rowElements);  // row by row
    const int64_t imageElements = saturatingMul(geometry.channels, geometry.inputPlaneElements());
    splitIntoBands(geometry.batch, geometry.axes[1].outputSize, saturatingMul<int64_t>(3, imageElements), plan.bands,
                   plan.threads);
    plan.itemsPerTurn = itemsPerTurnFor(plan.threads, saturatingMul(geometry.batch, plan.bands), problem.bytesMoved());
    return PlanOutcome::accept(std::move(plan));
}

RunResult runRecomputeArgmaxBackwardChannelsLast3x3Stride2(const PoolProblem &problem, const ImplementationPlan &made) {
    const ChannelsLastStride2Plan &plan = planAs<ChannelsLastStride2Plan>(made);
    withValueType(problem.input.type, [&](auto value) {
        using T = typename decltype(value)::type;
        const ChannelsLastStride2Images<T> images(problem, plan);
        runBlocksOnThreadsInTurnsOf(
            plan.threads, saturatingMul(problem.geometry.batch, plan.bands), plan.itemsPerTurn,
            fencingStreamingStores(plan.streaming, [&](int64_t begin, int64_t end) { images.run(begin, end); }));
    });
    return {};
}

}  // namespace poolgrad::cpu
