// The driver of the stride-1 write-once gather (recompute_argmax_backward_stride1.cpp, from positions recomputed
// out of origInput / origOutput; an index gather would fill the rows from its indices): the plan's
// layout of 2-D planes whose windows move by one row and one column, and the making of a block of input rows
// from a ring of padded output rows (simd_gather_stride1_rows.h). The output rows' contents come from the
// caller (fillRow), one row at a time and one ahead of its first reader: copied at the last moment, a row's
// unaligned loads would wait for the fill's stores to reach the cache.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/error_message.h"
#include "core/pool_problem.h"
#include "core/scratch_bound.h"
#include "core/window_walk.h"
#include "cpu/simd_gather_stride1_rows.h"
#include "cpu/stride1_axis.h"

namespace poolgrad::cpu {

// The most windows that may contain one element: every one costs a compare and a masked add per vector of
// columns, where the scatter's cost does not grow with the kernel.
inline constexpr int64_t kStride1GatherMostWindows = 25;
// Rows narrower than this leave most lanes of their one vector idle.
inline constexpr int64_t kStride1GatherLeastColumns = 8;

struct Stride1GatherLayout {
    Stride1Axis height, width;
    int64_t planeHeight = 0, planeWidth = 0, outputHeight = 0, outputWidth = 0;
    Stride1GatherRowColumns rowColumns;
    int64_t groupRows = 1;  // input rows made together (stride1GatherGroupRows)
    int64_t ringRows = 0;   // a power of two: the output rows a group reads and the one filled ahead

    std::string describe() const {
        return joinText(height.kernel, "x", width.kernel, " windows from padding ", height.pad, ",", width.pad, ", ",
                        groupRows, groupRows == 1 ? " input row" : " input rows", " at a time from a ring of ",
                        ringRows, " padded output rows");
    }
};

// The layout of a problem's planes, or the reason the stride-1 gathers decline it.
inline std::optional<std::string> stride1GatherLayoutOf(const PoolGeometry &geometry, Stride1GatherLayout &layout) {
    if (std::optional<std::string> reason = notOneDepthPlane(geometry, "this gather")) return reason;
    const WindowTables windows = WindowTables::of(geometry);
    if (std::optional<std::string> reason = stride1AxisOf(geometry.axes[1], windows.axes[1], "height", layout.height))
        return reason;
    if (std::optional<std::string> reason = stride1AxisOf(geometry.axes[2], windows.axes[2], "width", layout.width))
        return reason;
    const std::optional<int64_t> taps = checkedMul(layout.height.kernel, layout.width.kernel);
    if (!taps || *taps > kStride1GatherMostWindows)
        return joinText("windows of ", layout.height.kernel, "x", layout.width.kernel, " taps: an element lies in more than ",
                        kStride1GatherMostWindows, ", where the scatter adds each output once");
    if (*taps == 1) return std::string("1x1 windows do not overlap: the disjoint gathers take them");
    layout.planeHeight = geometry.axes[1].inputSize;
    layout.planeWidth = geometry.axes[2].inputSize;
    layout.outputHeight = geometry.axes[1].outputSize;
    layout.outputWidth = geometry.axes[2].outputSize;
    const int64_t W = layout.planeWidth;
    if (W < kStride1GatherLeastColumns)
        return joinText("rows of ", W, " columns, fewer than ", kStride1GatherLeastColumns);
    // Windows longer than the row and its leading padding would compare mostly padding.
    if (layout.width.kernel > W + layout.width.pad)
        return joinText("windows of ", layout.width.kernel, " columns, longer than the ", W,
                        " of a row and its padding of ", layout.width.pad);
    // A row's last vector holds positions up to a vector past the plane's end.
    if (geometry.inputPlaneElements() >= std::numeric_limits<int32_t>::max() - 2 * kStride1GatherMostLanes)
        return joinText("planes of ", geometry.inputPlaneElements(), " elements need 64-bit positions");
    layout.rowColumns = stride1GatherRowColumns(W, layout.outputWidth, layout.width.kernel, layout.width.pad);
    layout.groupRows = stride1GatherGroupRows(W);
    // A power of two: a row's slot is a mask of its number (a division per row took a quarter of S5's time).
    layout.ringRows = static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(layout.height.kernel + layout.groupRows)));
    // Per thread: the ring (int32 positions and float32 gradients a column).
    const std::optional<int64_t> ringColumns =
        checkedMul(layout.ringRows, layout.rowColumns.leftMargin + layout.rowColumns.rightEnd);
    const std::optional<int64_t> bytes = ringColumns ? checkedMul(*ringColumns, int64_t{8}) : std::nullopt;
    if (!bytes || *bytes > kScratchBytesPerThread) return scratchDeclineText("a ring of padded output rows", bytes);
    return std::nullopt;
}

// One thread's ring of padded output rows: slot s holds output row `rowInSlot[s]`; every column outside a row
// holds index -1 and gradient +0 for good (fills write only the row's own columns).
struct PaddedRowRing {
    std::vector<int32_t> indices;
    std::vector<float> gradients;
    std::vector<int64_t> rowInSlot;
    int64_t slotColumns = 0, leftMargin = 0;

    explicit PaddedRowRing(const Stride1GatherLayout &layout)
        : indices(static_cast<size_t>(layout.ringRows * (layout.rowColumns.leftMargin + layout.rowColumns.rightEnd)),
                  -1),
          gradients(indices.size(), 0.0f),
          rowInSlot(static_cast<size_t>(layout.ringRows), -1),
          slotColumns(layout.rowColumns.leftMargin + layout.rowColumns.rightEnd),
          leftMargin(layout.rowColumns.leftMargin) {}

    int32_t *indexRow(int64_t slot) { return indices.data() + slot * slotColumns + leftMargin; }
    float *gradientRow(int64_t slot) { return gradients.data() + slot * slotColumns + leftMargin; }
};

// Makes input rows [firstRow, endRow) of one float32 plane, each written once into gradInput. fillRow(oh,
// positions, gradients) fills output row oh's copy: outputWidth int32 positions (-1 for none) counted in a
// plane `positionWidth` wide whose element (h, w) is at h * positionWidth + positionOffset + w (a padded copy of
// the input), and its float32 gradients.
template <typename FillRow>
void gatherStride1Block(const Stride1GatherLayout &layout, int64_t firstRow, int64_t endRow, int64_t positionWidth,
                        int64_t positionOffset, PaddedRowRing &ring, float *gradInput, bool streaming,
                        const FillRow &fillRow) {
    const int64_t W = layout.planeWidth, Ho = layout.outputHeight, ringRows = layout.ringRows;
    // A fresh block owns no ring rows: another plane's rows may sit in them.
    std::fill(ring.rowInSlot.begin(), ring.rowInSlot.end(), -1);
    const auto ensureRow = [&](int64_t oh) {
        const int64_t slot = oh & (ringRows - 1);
        if (ring.rowInSlot[static_cast<size_t>(slot)] == oh) return;
        fillRow(oh, ring.indexRow(slot), ring.gradientRow(slot));
        ring.rowInSlot[static_cast<size_t>(slot)] = oh;
    };
    // The output rows a group's windows reach: at most kernelHeight + group rows - 1.
    Stride1GatherRow outputRows[kStride1GatherMostWindows + kStride1GatherMostGroupRows];
    Stride1GatherRowGroup group;
    group.outputRows = outputRows;
    group.width = W;
    group.kernelWidth = layout.width.kernel;
    group.padLeft = layout.width.pad;
    group.rowStep = positionWidth;
    group.streaming = streaming;
    for (int64_t h = firstRow; h < endRow; h += group.rows) {
        group.rows = std::min(layout.groupRows, endRow - h);
        // Input row h + r reads output rows oh with oh - padTop <= h + r <= oh - padTop + kernelHeight - 1.
        const int64_t lowest = std::max<int64_t>(h + layout.height.pad - layout.height.kernel + 1, 0);
        const int64_t highest = std::min<int64_t>(h + group.rows - 1 + layout.height.pad, Ho - 1);
        for (int64_t oh = lowest; oh <= std::min<int64_t>(highest + 1, Ho - 1); ++oh) ensureRow(oh);
        for (int64_t oh = lowest; oh <= highest; ++oh) {
            const int64_t slot = oh & (ringRows - 1);
            outputRows[oh - lowest] = {ring.indexRow(slot), ring.gradientRow(slot)};
        }
        const int64_t candidates = std::max<int64_t>(highest - lowest + 1, 0);
        for (int64_t r = 0; r < group.rows; ++r) {
            group.firstCandidate[r] =
                std::clamp<int64_t>(h + r + layout.height.pad - layout.height.kernel + 1 - lowest, 0, candidates);
            group.endCandidate[r] = std::clamp<int64_t>(h + r + layout.height.pad + 1 - lowest, 0, candidates);
            group.destination[r] = gradInput + (h + r) * W;
        }
        group.rowPosition = h * positionWidth + positionOffset;
        gatherStride1Rows(group);
    }
}

}  // namespace poolgrad::cpu
