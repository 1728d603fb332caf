// Recompute-argmax backward (MaxPoolV3Grad) for channels-last (NHWC) operands, vectorised across C.
// In channels-last storage the C values of one (h, w) position are adjacent, so each window position is
// one contiguous row for every operand: the first-match search runs on all channels at once (a lane
// remembers that it has matched), and a matched lane adds its gradient to the float32 sum of that input
// position. Outputs are visited in row-major (oh, ow) order, so every sum receives its contributions in
// the canonical order of the contract, bit-identical to the reference.
// Work items are (image, band of input rows): a thread owns the gradient rows of its band, visits every
// output window that touches them (searching the whole window, so the first match is the true one) and
// adds only into its own rows, so items never write the same memory. Sums live in a ring of rows that
// stays in the cache; each gradInput row is stored once, when no later window can reach it.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dtype_dispatch.h"
#include "cpu/gather_rows.h"
#include "cpu/simd_first_match_stride1_channels_last.h"
#include "cpu/simd_rows.h"

namespace poolgrad::cpu {
namespace {

// Per-thread buffers: the ring of float32 sums, a row of zeros, widened rows (16-bit types only), one
// window's row pointers.
struct Scratch {
    std::vector<float> sums, zeros, converted;
    std::vector<const float *> inputRows;
    std::vector<float *> sumRows;
};

struct ChannelsLastPlan final : ImplementationPlan {
    WindowTables windows;
    int64_t windowPositions = 0;  // the most taps a window holds
    int64_t ringRows = 1;         // rows of sums alive at once: the largest window span
    int64_t bandsPerImage = 1;    // work items: (image, band of input rows)
    bool streaming = false;       // gradInput much larger than the caches: store past them
    int threads = 1;
    // float32 windows of 3 or 5 rows by 3 or 5 columns moving by 1 along W: the outputs `sliding` of a row whose
    // windows hold all slidingRows rows slide their sums in registers (accumulateFirstMatchesStride1); window
    // ow's first column is ow + slidingFirstColumn. Empty otherwise.
    CongruentRun sliding;
    int64_t slidingRows = 0, slidingFirstColumn = 0;

    std::string describe() const override {
        return "ring of " + std::to_string(ringRows) + " rows of sums, " + std::to_string(bandsPerImage) +
               " bands an image, " + (streaming ? "streaming" : "cached") + " stores, " +
               (sliding.empty() ? std::string()
                                : std::to_string(slidingRows) + "x" + std::to_string(sliding.count) +
                                      " windows " + std::to_string(sliding.begin) + ".." +
                                      std::to_string(sliding.end) + " of a row sliding in registers, ") +
               "threads=" + std::to_string(threads);
    }
};

template <typename T>
class ChannelsLastRecompute {
public:
    ChannelsLastRecompute(const PoolProblem &problem, const ChannelsLastPlan &plan)
        : problem_(problem),
          windowsH_(plan.windows.axes[1]),
          windowsW_(plan.windows.axes[2]),
          channels_(problem.geometry.channels),
          inH_(problem.geometry.axes[1].inputSize),
          inW_(problem.geometry.axes[2].inputSize),
          outH_(problem.geometry.axes[1].outputSize),
          outW_(problem.geometry.axes[2].outputSize),
          windowPositions_(plan.windowPositions),
          ringRows_(plan.ringRows),
          streaming_(plan.streaming),
          sliding_(plan.sliding),
          slidingRows_(plan.slidingRows),
          slidingFirstColumn_(plan.slidingFirstColumn) {}

    int64_t rows() const { return inH_; }

    // Gradient rows [rowBegin, rowEnd) of image n. Windows move down monotonically, so a row's sums
    // live in a small ring of rows (as many as a window spans, cache-resident): zeroed just before the
    // first window that reaches it, and stored to gradInput (converted, streaming past the caches for
    // large outputs) as soon as the windows have moved below it. gradInput is written once and never read.
    void runBand(int64_t n, int64_t rowBegin, int64_t rowEnd, Scratch &scratch) const {
        const int64_t rowElements = inW_ * channels_;
        scratch.sums.resize(static_cast<size_t>(ringRows_ * rowElements));
        scratch.zeros.assign(static_cast<size_t>(rowElements), 0.0f);
        scratch.converted.resize(static_cast<size_t>((2 + windowPositions_) * channels_));
        scratch.inputRows.resize(static_cast<size_t>(windowPositions_));
        scratch.sumRows.resize(static_cast<size_t>(windowPositions_));
        const auto ringRow = [&](int64_t h) { return scratch.sums.data() + h % ringRows_ * rowElements; };
        int64_t stored = rowBegin;  // rows below are in gradInput
        int64_t zeroed = rowBegin;  // rows [stored, zeroed) hold sums in the ring
        const auto storeRowsBelow = [&](int64_t row) {
            for (; stored < row; ++stored)
                storeFloatRow(problem_.gradInput.type, stored < zeroed ? ringRow(stored) : scratch.zeros.data(),
                              problem_.gradInput.at<T>(n, 0, 0, stored, 0), rowElements, streaming_);
            zeroed = std::max(zeroed, stored);
        };
        const auto zeroRowsBelow = [&](int64_t row) {
            for (; zeroed < row; ++zeroed) std::fill(ringRow(zeroed), ringRow(zeroed) + rowElements, 0.0f);
        };

        for (int64_t oh = 0; oh < outH_; ++oh) {
            const AxisWindow wh = windowsH_[oh];
            const int64_t windowEnd = wh.first + (wh.count - 1) * wh.step + 1;
            if (wh.count == 0 || windowEnd <= rowBegin || wh.first >= rowEnd) continue;
            storeRowsBelow(std::max(wh.first, rowBegin));
            zeroRowsBelow(std::min(windowEnd, rowEnd));
            // Windows of all their rows, every row this band's: the run of whole windows slides in registers,
            // the clipped ones at the row's ends go one by one, before and after it, keeping output order.
            bool slides = false;
            if constexpr (!widen)
                slides = !sliding_.empty() && wh.count == slidingRows_ && wh.step == 1 && wh.first >= rowBegin &&
                         wh.first + slidingRows_ <= rowEnd;
            const int64_t slideBegin = slides ? sliding_.begin : outW_, slideEnd = slides ? sliding_.end : outW_;
            for (int64_t ow = 0; ow < outW_; ++ow) {
                if (ow == slideBegin) {
                    const float *inputRows[5];
                    float *sumRows[5];
                    for (int64_t r = 0; r < slidingRows_; ++r) {
                        inputRows[r] = problem_.input.at<const float>(n, 0, 0, wh.first + r, 0);
                        sumRows[r] = ringRow(wh.first + r);
                    }
                    accumulateFirstMatchesStride1(slidingRows_, sliding_.count, inputRows, sumRows,
                                                  problem_.output.at<const float>(n, 0, 0, oh, 0),
                                                  problem_.gradOutput.at<const float>(n, 0, 0, oh, 0), slideBegin,
                                                  slideEnd, slidingFirstColumn_, channels_);
                    ow = slideEnd - 1;
                    continue;
                }
                const AxisWindow ww = windowsW_[ow];
                int64_t positions = 0;
                forEachWindowTap(AxisWindow{0, 1, 1}, wh, ww, [&](int64_t, int64_t h, int64_t w) {
                    const bool ownRow = h >= rowBegin && h < rowEnd;
                    scratch.inputRows[positions] =
                        rowAsFloat(problem_.input.at<const T>(n, 0, 0, h, w), scratch, 2 + positions);
                    scratch.sumRows[positions] = ownRow ? ringRow(h) + w * channels_ : nullptr;
                    ++positions;
                });
                accumulateFirstMatches(scratch.inputRows.data(), scratch.sumRows.data(), positions,
                                       rowAsFloat(problem_.output.at<const T>(n, 0, 0, oh, ow), scratch, 0),
                                       rowAsFloat(problem_.gradOutput.at<const T>(n, 0, 0, oh, ow), scratch, 1),
                                       channels_);
            }
        }
        storeRowsBelow(rowEnd);
    }

private:
    static constexpr bool widen = !std::is_same_v<T, float>;

    // The C values at `row` as float32: the row itself for float, an exact widening into slot `slot` of
    // the scratch for 16-bit types.
    const float *rowAsFloat(const T *row, Scratch &scratch, int64_t slot) const {
        if constexpr (!widen) {
            return row;
        } else {
            float *destination = scratch.converted.data() + slot * channels_;
            widenRowToFloat(row, destination, channels_);
            return destination;
        }
    }

    const PoolProblem &problem_;
    const std::vector<AxisWindow> &windowsH_, &windowsW_;
    const int64_t channels_, inH_, inW_, outH_, outW_, windowPositions_;
    const int64_t ringRows_;  // rows of sums alive at once: the largest window span
    const bool streaming_;    // gradInput much larger than the caches: store past them
    const CongruentRun sliding_;
    const int64_t slidingRows_, slidingFirstColumn_;
};

}  // namespace

PlanOutcome planRecomputeArgmaxBackwardChannelsLast(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    if (geometry.axes[0].inputSize != 1 || geometry.axes[0].outputSize != 1)
        return PlanOutcome::decline("more than one depth plane");
    for (const auto &[role, tensor] :
         {std::pair{"input", &problem.input}, std::pair{"output", &problem.output},
          std::pair{"gradOutput", &problem.gradOutput}, std::pair{"gradInput", &problem.gradInput}})
        if (!tensor->channelsLastDense())
            return PlanOutcome::decline(std::string(role) + " is not dense channels-last");
    ChannelsLastPlan plan;
    plan.windows = WindowTables::of(geometry);
    const std::vector<AxisWindow> &windowsH = plan.windows.axes[1], &windowsW = plan.windows.axes[2];
    // The Scratch of runBand: a ring of rows of sums and a row of zeros (W*C floats each), the C values of
    // every window position and two more rows as float32, two pointers per window position.
    plan.windowPositions = largestWindowCount(windowsH) * largestWindowCount(windowsW);  // <= a plane
    plan.ringRows = std::max<int64_t>(1, largestWindowSpan(windowsH));
    const std::optional<int64_t> row = checkedMul(geometry.axes[2].inputSize, geometry.channels);
    const std::optional<int64_t> rowFloats = row ? checkedMul(*row, plan.ringRows + 1) : std::nullopt;
    const std::optional<int64_t> convertedFloats = checkedMul(plan.windowPositions + 2, geometry.channels);
    const std::optional<int64_t> floats =
        rowFloats && convertedFloats ? checkedAdd(*rowFloats, *convertedFloats) : std::nullopt;
    const std::optional<int64_t> floatBytes = floats ? checkedMul<int64_t>(*floats, 4) : std::nullopt;
    const std::optional<int64_t> bytes = floatBytes ? checkedAdd(*floatBytes, plan.windowPositions * 16) : std::nullopt;
    if (!bytes || *bytes > kScratchBytesPerThread)
        return PlanOutcome::decline(scratchDeclineText("the ring of rows of sums", bytes));
    plan.streaming = streamingStoresPay(problem.gradInput, *row);  // row by row
    // float32 windows 3 or 5 wide moving by 1 along W, 3 or 5 rows (dilation 1): I3-v3-nhwc (3x3, Inception,
    // 16x64x56x56, 2 threads) took 2.19-2.34 ms warm with a load, add and store of the sums for every tap,
    // 1.72-2.05 sliding in registers (docs/kernels/max_pool_v3_grad.md). Windows of 5 keep 15-25 vectors of
    // sums in registers: measured with AVX-512's 32 only.
    const int64_t rowsOfWindows = largestWindowCount(windowsH);
    if (problem.input.type == ElementType::Float32 && rowsOfWindows == largestWindowSpan(windowsH)) {
        const CongruentRun run = largestCongruentRun(windowsW);
        if (!run.empty() && run.step == 1 && run.stride == 1 && slidingWindowShape(rowsOfWindows, run.count) &&
            (std::max(rowsOfWindows, run.count) == 3 || gatherLaneCount() >= 16)) {
            plan.sliding = run;
            plan.slidingRows = rowsOfWindows;
            plan.slidingFirstColumn = windowsW[static_cast<size_t>(run.begin)].first - run.begin;
        }
    }
    // Whole images when there are enough of them for every thread; otherwise bands of rows.
    const int64_t rows = geometry.axes[1].inputSize;
    const int64_t threads = std::max<int64_t>(1, operatorThreadCount());
    plan.bandsPerImage = std::clamp<int64_t>((2 * threads + geometry.batch - 1) / geometry.batch, 1, rows);
    const int64_t items = geometry.batch * plan.bandsPerImage;
    const int64_t workPerItem = std::max<int64_t>(
        1, saturatingMul(saturatingMul<int64_t>(2, geometry.planes()), geometry.inputPlaneElements()) /
               std::max<int64_t>(items, 1));
    plan.threads = plannedThreadCount(items, workPerItem);
    return PlanOutcome::accept(std::move(plan));
}

RunResult runRecomputeArgmaxBackwardChannelsLast(const PoolProblem &problem, const ImplementationPlan &made) {
    const ChannelsLastPlan &plan = planAs<ChannelsLastPlan>(made);
    withValueType(problem.input.type, [&](auto value) {
        using T = typename decltype(value)::type;
        const ChannelsLastRecompute<T> kernel(problem, plan);
        const int64_t rows = kernel.rows(), bands = plan.bandsPerImage;
        runBlocksOnThreads(plan.threads, problem.geometry.batch * bands,
                           fencingStreamingStores(plan.streaming, [&](int64_t begin, int64_t end) {
                               Scratch scratch;
                               for (int64_t item = begin; item < end; ++item) {
                                   const int64_t n = item / bands, band = item % bands;
                                   kernel.runBand(n, rows * band / bands, rows * (band + 1) / bands, scratch);
                               }
                           }));
    });
    return {};
}

}  // namespace poolgrad::cpu
