// Argmax forward of dense float32, float16 and bfloat16 planes, one output row at a time by vectors across its
// windows (simd_argmax: argmaxWindowRow), values and INT32/INT64 indices written straight from the vectors. When
// windows leave the row (padding) or the vector loads would read past it, the window's input rows are
// first copied into per-thread rows padded with -inf, so that the edge windows take the same vector code
// as the others; a clipped window whose result is -inf (all its elements -inf, or none) is then searched
// again element by element, since the padding may have named it. Float16 rows, and bfloat16 rows that need
// padding or are read at strides above 2, are copied widened to float32 (exact), and each window's value then
// comes out with the bits of the input element its index names (narrowed back where that is exact, copied
// otherwise), a NaN's payload included; other bfloat16 rows are read in place, widened in the register (a
// shift), and the winners narrowed back in the register. Work items are output rows (n, c, od, oh), so that a
// few planes still fill every thread.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/data_type.h"
#include "core/scratch_bound.h"
#include "core/threading.h"
#include "core/window_walk.h"
#include "cpu/cpu_kernels.h"
#include "cpu/dense_planes.h"
#include "cpu/dtype_dispatch.h"
#include "cpu/simd_argmax.h"
#include "cpu/simd_rows.h"

namespace poolgrad::cpu {
namespace {

struct DenseRowsPlan final : ImplementationPlan {
    WindowTables windows;
    WindowRow row;            // the W axis as the row search sees it
    int64_t largestRows = 0;  // input rows of the largest window: the per-thread row list
    // Padded row copies: -inf columns before and after the row (none: rows are read in place).
    int64_t padBefore = 0, padAfter = 0;
    // Outputs [0, clippedBefore) and [clippedAfter, outputs) have windows cut by the row's edges.
    int64_t clippedBefore = 0, clippedAfter = 0;
    int64_t outputRows = 0;  // work items
    int threads = 1;
    int64_t rowsPerTurn = 0;  // itemsPerTurnFor: taken in turns of this many rows, or fixed shares (0)
    // Values only, windows 3 wide at stride 2: column maxima first (maxRowOfThreeWideStride2), the search
    // for rows it leaves.
    bool columnMaxima = false;
    // Float16 / bfloat16 values: rows widened into the per-thread copies, winners kept as int32 in scratch;
    // bfloat16 rows that need no padding and are read at stride 1 or 2: in place, widened as they are loaded.
    bool sixteenBit = false;
    bool bfloat16InPlace = false;
    // Float32 and bfloat16 rows read in place whose output rows start on cache lines: their outputs are streamed
    // where large.
    bool streaming = false;

    bool padded() const { return padBefore > 0 || padAfter > 0; }
    bool widensRows() const { return sixteenBit && !bfloat16InPlace; }
    bool copiesRows() const { return padded() || widensRows(); }
    // Rows read where they lie, runs of output rows in one call (values-only column maxima go row by row).
    bool searchesInPlace() const { return !copiesRows() && !columnMaxima; }

    std::string describe() const override {
        const char *loads = row.stride == 1 ? "contiguous" : row.stride == 2 ? "pairs" : "gathered";
        return "row vectors: " + std::to_string(row.outputs) + " windows k" + std::to_string(row.kernelWidth) + " s" +
               std::to_string(row.stride) + " d" + std::to_string(row.dilation) + " from column " +
               std::to_string(row.origin) + ", " + loads + " loads, up to " + std::to_string(largestRows) +
               (bfloat16InPlace ? " bfloat16 rows in place, widened in the register"
                : sixteenBit ? " rows widened to float32 (values: the bits of the elements the indices name)"
                : padded()   ? " padded rows"
                             : " rows in place") +
               (searchesInPlace() ? ", runs of output rows a call" : "") + (streaming ? ", streaming stores; " : "; ") +
               (columnMaxima ? "values by column maxima where the rows hold no NaN or -0; " : "") +
               std::to_string(outputRows) + " output rows on " + std::to_string(threads) + " threads" +
               turnsText(rowsPerTurn);
    }
};

// The window the row search gives output ow: columns origin + ow*stride + j*dilation inside [0, width).
AxisWindow clippedWindow(const WindowRow &row, int64_t ow) {
    const int64_t column = row.origin + ow * row.stride;  // of tap 0
    const int64_t firstTap = column >= 0 ? 0 : (-column + row.dilation - 1) / row.dilation;
    const int64_t lastTap = column + (row.kernelWidth - 1) * row.dilation < row.width
                                ? row.kernelWidth - 1
                                : (row.width - 1 - column) / row.dilation - (row.width - 1 - column < 0 ? 1 : 0);
    if (lastTap < firstTap) return AxisWindow{0, row.dilation, 0};
    return AxisWindow{column + firstTap * row.dilation, row.dilation, lastTap - firstTap + 1};
}

bool sameWindow(const AxisWindow &a, const AxisWindow &b) {
    return a.count == b.count && (a.count == 0 || (a.first == b.first && (a.count == 1 || a.step == b.step)));
}

}  // namespace

PlanOutcome planArgmaxForwardDenseRows(const PoolProblem &problem) {
    const PoolGeometry &geometry = problem.geometry;
    const ElementType type = problem.input.type;
    if (type != ElementType::Float32 && type != ElementType::Float16 && type != ElementType::BFloat16)
        return PlanOutcome::decline("values are not float32, float16 or bfloat16");
    if (std::optional<std::string> reason = forwardPlanesNotDense(problem)) return PlanOutcome::decline(*reason);
    DenseRowsPlan plan;
    plan.sixteenBit = type != ElementType::Float32;
    plan.windows = WindowTables::of(geometry);
    const WindowAxis &axisW = geometry.axes[2];
    const std::vector<AxisWindow> &windowsW = plan.windows.axes[2];
    WindowRow &row = plan.row;
    row.width = axisW.inputSize;
    row.outputs = axisW.outputSize;
    if (axisW.adaptive) {
        // Adaptive windows are one regular row only when the input divides evenly.
        const CongruentRun run = largestCongruentRun(windowsW);
        if (run.begin != 0 || run.end != row.outputs)
            return PlanOutcome::decline("adaptive width windows of different sizes");
        row.origin = windowsW[0].first;
        row.stride = run.stride;
        row.kernelWidth = run.count;
        row.dilation = run.step;
    } else {
        row.origin = -axisW.padBegin;
        row.stride = axisW.stride;
        row.kernelWidth = axisW.kernel;
        row.dilation = axisW.dilation;
    }
    // Every offset, column and index the vectors form must fit in int32: the plane, plus the columns a
    // chunk reaches before and past the row (two vectors of windows).
    const int64_t lanes = argmaxRowLanes();
    std::optional<int64_t> extent = checkedMul<int64_t>(row.stride, saturatingAdd<int64_t>(row.outputs, 2 * lanes));
    for (const std::optional<int64_t> term :
         {checkedMul(row.kernelWidth - 1, row.dilation), std::optional<int64_t>(std::max<int64_t>(-row.origin, 0)),
          std::optional<int64_t>(geometry.inputPlaneElements())})
        extent = extent && term ? checkedAdd(*extent, *term) : std::nullopt;
    if (!extent || *extent >= (int64_t{1} << 31)) return PlanOutcome::decline("plane offsets do not fit in 32 bits");
    for (int64_t ow = 0; ow < row.outputs; ++ow)
        if (!sameWindow(clippedWindow(row, ow), windowsW[static_cast<size_t>(ow)]))
            return PlanOutcome::decline("width windows are not one regular row");
    const std::optional<int64_t> rows =
        checkedMul(largestWindowCount(plan.windows.axes[0]), largestWindowCount(plan.windows.axes[1]));
    if (!rows || *rows > kScratchBytesPerThread / static_cast<int64_t>(sizeof(int32_t)))
        return PlanOutcome::decline(
            scratchDeclineText("the row list of a window", rows ? checkedMul<int64_t>(*rows, 4) : std::nullopt));
    plan.largestRows = *rows;
    const int64_t lastColumn =  // the furthest column the last chunk's loads reach
        row.origin + std::max<int64_t>(row.outputs - lanes, 0) * row.stride + argmaxRowReach(row, lanes);
    plan.padBefore = std::max<int64_t>(0, -row.origin);
    plan.padAfter = std::max<int64_t>(0, lastColumn + 1 - row.width);
    plan.bfloat16InPlace = type == ElementType::BFloat16 && !plan.padded() && (row.stride == 1 || row.stride == 2);
    // The row copies, and for 16-bit values a row of float32 winners and one of int32 indices.
    std::optional<int64_t> paddedBytes = 0;
    if (plan.copiesRows()) {
        paddedBytes = checkedAdd(checkedProduct<int64_t>({*rows, plan.padBefore + row.width + plan.padAfter, int64_t{4}}),
                                 checkedMul<int64_t>(row.outputs, plan.widensRows() ? 8 : 0));
    }
    if (!paddedBytes || *paddedBytes > kScratchBytesPerThread - *rows * 12)
        return PlanOutcome::decline(scratchDeclineText("the padded rows of a window", paddedBytes));
    while (plan.clippedBefore < row.outputs && windowsW[plan.clippedBefore].count < row.kernelWidth)
        ++plan.clippedBefore;
    plan.clippedAfter = row.outputs;
    while (plan.clippedAfter > plan.clippedBefore && windowsW[plan.clippedAfter - 1].count < row.kernelWidth)
        --plan.clippedAfter;
    plan.columnMaxima = !plan.sixteenBit && !problem.indices.present() && row.stride == 2 && row.kernelWidth == 3 && row.dilation == 1;
    plan.streaming = plan.searchesInPlace() &&
                     forwardOutputsStreamingPay(problem.output, problem.indices, row.outputs);
    plan.outputRows =
        saturatingMul(geometry.planes(), saturatingMul(geometry.axes[0].outputSize, geometry.axes[1].outputSize));
    const int64_t workPerRow =
        std::max<int64_t>(1, saturatingAdd(geometry.inputPlaneElements(), geometry.outputPlaneElements()) /
                                 std::max<int64_t>(1, geometry.axes[0].outputSize * geometry.axes[1].outputSize));
    plan.threads = plannedThreadCount(plan.outputRows, workPerRow);
    plan.rowsPerTurn = itemsPerTurnFor(plan.threads, plan.outputRows, problem.bytesMoved());
    return PlanOutcome::accept(std::move(plan));
}

namespace {

// A clipped window whose vector search found only -inf: searched again on the plane itself, so that the
// first element of the window (or -1 for an empty one) is named, never a padding column.
template <typename Value>
void searchClippedWindow(const Value *plane, const int32_t *rowOffsets, int64_t rowCount, const AxisWindow &window,
                         float &value, int64_t &index) {
    value = -std::numeric_limits<float>::infinity();
    index = -1;
    for (int64_t r = 0; r < rowCount; ++r)
        for (int64_t j = 0, w = window.first; j < window.count; ++j, w += window.step) {
            const float candidate = toFloat(plane[rowOffsets[r] + w]);
            if (index < 0) index = rowOffsets[r] + w;
            if (candidate > value || std::isnan(candidate)) {
                value = candidate;
                index = rowOffsets[r] + w;
            }
        }
}

// Output rows oh, oh + 1, ... (before limit) whose height windows are oh's moved by one fixed step, so that
// their rows are oh's moved by that many rows: how many.
int64_t outputRowRun(const std::vector<AxisWindow> &heights, int64_t oh, int64_t limit) {
    const AxisWindow &first = heights[static_cast<size_t>(oh)];
    int64_t last = oh;
    while (last + 1 < limit) {
        const AxisWindow &previous = heights[static_cast<size_t>(last)], &next = heights[static_cast<size_t>(last + 1)];
        if (next.count != first.count || (first.count > 1 && next.step != first.step)) break;
        if (last > oh && next.first - previous.first != heights[static_cast<size_t>(oh + 1)].first - first.first) break;
        ++last;
    }
    return last - oh + 1;
}

template <typename Value>
void runDenseRows(const PoolProblem &problem, const DenseRowsPlan &plan) {
    constexpr bool kSixteenBit = !std::is_same_v<Value, float>;
    const PoolGeometry &geometry = problem.geometry;
    const int64_t outD = geometry.axes[0].outputSize, outH = geometry.axes[1].outputSize;
    const int64_t inH = geometry.axes[1].inputSize, inW = geometry.axes[2].inputSize;
    const int64_t outW = geometry.axes[2].outputSize;
    const StridedTensor &in = problem.input, &out = problem.output, &idx = problem.indices;
    const bool wide = idx.present() && idx.type == ElementType::Int64;
    const int64_t paddedWidth = plan.padBefore + inW + plan.padAfter;
    const auto body = [&](int64_t begin, int64_t end) {
        const size_t largest = static_cast<size_t>(std::max<int64_t>(plan.largestRows, 1));
        std::vector<int32_t> rowOffsets(largest);
        std::vector<const float *> rowStarts(largest);
        // Padding columns are written once; each output row copies only the row's own columns.
        std::vector<float> paddedRows(plan.copiesRows() ? largest * static_cast<size_t>(paddedWidth) : 0,
                                      -std::numeric_limits<float>::infinity());
        std::vector<float> columnMax(plan.columnMaxima ? static_cast<size_t>(paddedWidth) : 0,
                                     -std::numeric_limits<float>::infinity());
        std::vector<float> winnerValues(plan.widensRows() ? static_cast<size_t>(outW) : 0);
        std::vector<int32_t> winnerIndices(plan.widensRows() ? static_cast<size_t>(outW) : 0);
        std::vector<const uint16_t *> bitRowStarts(plan.bfloat16InPlace ? largest : 0);
        int64_t plane = begin / (outD * outH), od = begin / outH % outD, oh = begin % outH;
        for (int64_t item = begin; item < end; ++item) {
            const int64_t n = plane / geometry.channels, c = plane % geometry.channels;
            const Value *inPlane = in.plane<const Value>(n, c);
            int64_t rowCount = 0;
            forEachWindowRow(plan.windows.depth(od), plan.windows.height(oh), [&](int64_t d, int64_t h) {
                const int64_t offset = (d * inH + h) * inW;
                rowOffsets[static_cast<size_t>(rowCount)] = static_cast<int32_t>(offset);
                if constexpr (kSixteenBit) {
                    if (plan.bfloat16InPlace) {
                        bitRowStarts[static_cast<size_t>(rowCount)] =
                            reinterpret_cast<const uint16_t *>(inPlane + offset);
                    } else {
                        float *copy = paddedRows.data() + rowCount * paddedWidth + plan.padBefore;
                        widenRowToFloat(inPlane + offset, copy, inW);
                        rowStarts[static_cast<size_t>(rowCount)] = copy;
                    }
                } else {
                    rowStarts[static_cast<size_t>(rowCount)] = inPlane + offset;
                }
                ++rowCount;
            });
            const int64_t q = (od * outH + oh) * outW;  // first output of the row in its plane
            int32_t *outIndices32 = idx.present() && !wide ? idx.plane<int32_t>(n, c) + q : nullptr;
            int64_t *outIndices64 = wide ? idx.plane<int64_t>(n, c) + q : nullptr;
            if (plan.searchesInPlace() && rowCount > 0) {
                // Every window lies inside its rows (no padding): the search's winners are final. The output rows
                // below whose height windows are this one's moved by a fixed step are searched in the same call.
                const int64_t run = outputRowRun(plan.windows.axes[1], oh, std::min(outH, oh + (end - item)));
                const OutputRowRun rows{
                    run, run > 1 ? (plan.windows.height(oh + 1).first - plan.windows.height(oh).first) * inW : 0, outW,
                    plan.streaming};
                if constexpr (kSixteenBit)
                    argmaxWindowRowsInPlaceBFloat16(plan.row, rows, bitRowStarts.data(), rowOffsets.data(), rowCount,
                                                    reinterpret_cast<uint16_t *>(out.plane<Value>(n, c) + q),
                                                    outIndices32, outIndices64);
                else
                    argmaxWindowRowsInPlace(plan.row, rows, rowStarts.data(), rowOffsets.data(), rowCount,
                                            out.plane<float>(n, c) + q, outIndices32, outIndices64);
                item += run - 1;
                oh += run - 1;
            } else if (plan.bfloat16InPlace) {
                // Windows without rows (dilated depth or height windows wholly in padding) are empty.
                uint16_t *outBits = reinterpret_cast<uint16_t *>(out.plane<Value>(n, c) + q);
                std::fill(outBits, outBits + outW, uint16_t{0xff80});  // -inf
                if (outIndices32) std::fill(outIndices32, outIndices32 + outW, -1);
                if (outIndices64) std::fill(outIndices64, outIndices64 + outW, -1);
            } else {
                // Float32 rows are searched into the outputs; 16-bit rows into the winner rows, copied out below.
                float *values = winnerValues.data();
                if constexpr (!kSixteenBit) values = out.plane<float>(n, c) + q;
                int32_t *indices32 = kSixteenBit ? winnerIndices.data() : outIndices32;
                int64_t *indices64 = kSixteenBit ? nullptr : outIndices64;
                const bool byColumns =
                    plan.columnMaxima && maxRowOfThreeWideStride2(plan.row, rowStarts.data(), rowCount,
                                                                  columnMax.data() + plan.padBefore, values);
                if (rowCount > 0 && !byColumns) {
                    if (plan.padded() && !kSixteenBit)
                        argmaxWindowRow(plan.row, rowStarts.data(), rowOffsets.data(), rowCount,
                                        paddedRows.data() + plan.padBefore, paddedWidth, values, indices32, indices64);
                    else  // rows in place (values by column maxima left them), or 16-bit rows widened into copies
                        argmaxWindowRowsInPlace(plan.row, OutputRowRun{}, rowStarts.data(), rowOffsets.data(),
                                                rowCount, values, indices32, indices64);
                }
                for (int64_t ow = 0; ow < outW; ++ow) {
                    // Windows without rows (dilated depth or height windows wholly in padding) are all empty.
                    if (ow == plan.clippedBefore && rowCount > 0) ow = std::max(ow, plan.clippedAfter);
                    if (ow >= outW) break;
                    if (rowCount > 0 && !(values[ow] == -std::numeric_limits<float>::infinity())) continue;
                    float value;
                    int64_t index;
                    searchClippedWindow(inPlane, rowOffsets.data(), rowCount, plan.windows.width(ow), value, index);
                    values[ow] = value;
                    if (indices32) indices32[ow] = static_cast<int32_t>(index);
                    if (indices64) indices64[ow] = index;
                }
                if constexpr (kSixteenBit)
                    storeSixteenBitWinners(winnerValues.data(), winnerIndices.data(),
                                           reinterpret_cast<const uint16_t *>(inPlane),
                                           reinterpret_cast<uint16_t *>(out.plane<Value>(n, c) + q), outIndices32,
                                           outIndices64, outW, std::is_same_v<Value, Float16>);
            }
            if (++oh == outH) {
                oh = 0;
                if (++od == outD) {
                    od = 0;
                    ++plane;
                }
            }
        }
    };
    runBlocksOnThreadsInTurnsOf(plan.threads, plan.outputRows, plan.rowsPerTurn,
                                fencingStreamingStores(plan.streaming, body));
}

}  // namespace

RunResult runArgmaxForwardDenseRows(const PoolProblem &problem, const ImplementationPlan &made) {
    const DenseRowsPlan &plan = planAs<DenseRowsPlan>(made);
    withValueType(problem.input.type,
                  [&](auto tag) { runDenseRows<typename decltype(tag)::type>(problem, plan); });
    return {};
}

}  // namespace poolgrad::cpu
