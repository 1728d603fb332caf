// The plan-time layout of the flat stride-1 search (simd_argmax_stride1_flat.h) and a thread's scratch for it: what
// a plan holds and a thread allocates to run it (cpu_argmax_forward_stride1_flat).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/checked_arithmetic.h"
#include "core/scratch_bound.h"
#include "cpu/simd_argmax_stride1_flat.h"

namespace poolgrad::cpu {

// Rows of more windows than this are searched row by row (cpu_argmax_forward_stride1), whose vectors fill their
// lanes there and which measured as fast (48-112 windows a row).
inline constexpr int64_t kStride1FlatMostOutputColumns = 40;
// Padded positions searched between two copies: the band's rows, their winners and the tables stay in the L1
// cache (4 rows of 58 and 10 of 24 measured best).
inline constexpr int64_t kStride1FlatBandPositions = 256;

struct Stride1FlatLayout {
    int64_t height = 0, width = 0, paddedWidth = 0, bandRows = 1;
    int64_t paddedFloats = 0, winnerFloats = 0;
    int64_t scratchBytes = 0;  // per thread
    std::vector<int32_t> tapPositions, firstPositions;
};

// The layout for planes of height x width under windows kernelWidth wide from padding padLeft giving outputWidth
// windows a row (the caller has checked that the windows move by 1 and each holds an element), or the reason the
// flat search declines them.
inline std::optional<std::string> stride1FlatLayoutOf(int64_t height, int64_t width, int64_t outputWidth,
                                                      int64_t kernelWidth, int64_t padLeft, Stride1FlatLayout &layout) {
    if (outputWidth > kStride1FlatMostOutputColumns)
        return joinText("rows of ", outputWidth, " windows, more than ", kStride1FlatMostOutputColumns,
                        ": row-by-row vectors fill their lanes there");
    // Windows longer than the row and its leading padding would load mostly padding, every tap of every window.
    if (kernelWidth > width + padLeft)
        return joinText("windows of ", kernelWidth, " columns, longer than the ", width, " of a row and its padding of ",
                        padLeft);
    layout.height = height;
    layout.width = width;
    // Every window's columns, from its first (padding included): a row's padding on both sides.
    layout.paddedWidth = outputWidth + kernelWidth - 1;
    const std::optional<int64_t> padded = stride1FlatPaddedFloats(height, layout.paddedWidth, kernelWidth);
    const std::optional<int64_t> winners = stride1FlatWinnerFloats(height, layout.paddedWidth);
    if (!padded || !winners || *padded >= std::numeric_limits<int32_t>::max())
        return std::string("padded planes whose positions do not fit in 32 bits");
    // Per thread: the padded rows, the winners' values and positions, a byte per row; per plan: two tables.
    const std::optional<int64_t> winnerBytes = checkedMul<int64_t>(*winners, 16);
    const std::optional<int64_t> paddedBytes = checkedMul<int64_t>(*padded, 4);
    const std::optional<int64_t> bytes =
        winnerBytes && paddedBytes ? checkedAdd(*winnerBytes + *paddedBytes, height) : std::nullopt;
    if (!bytes || *bytes > kScratchBytesPerThread)
        return scratchDeclineText("padded rows, their winners and position tables", bytes);
    if (checkedMul(height, width).value_or(std::numeric_limits<int64_t>::max()) >= (int64_t{1} << 31))
        return std::string("plane positions do not fit in 32 bits");
    layout.paddedFloats = *padded;
    layout.winnerFloats = *winners;
    layout.scratchBytes = *bytes;
    layout.bandRows = std::max<int64_t>(1, kStride1FlatBandPositions / layout.paddedWidth);
    layout.tapPositions.resize(static_cast<size_t>(*winners));
    layout.firstPositions.resize(static_cast<size_t>(*winners));
    stride1FlatTables(height, width, layout.paddedWidth, padLeft, layout.tapPositions.data(),
                      layout.firstPositions.data());
    return std::nullopt;
}

// A thread's scratch for flat searches of one layout; the padding columns stay -inf (the copies write only the
// rows' own columns).
struct Stride1FlatScratch {
    std::vector<float> padded, rowValues;
    std::vector<int32_t> rowPositions;
    std::vector<uint8_t> rowFindings;

    explicit Stride1FlatScratch(const Stride1FlatLayout &layout)
        : padded(static_cast<size_t>(layout.paddedFloats), -std::numeric_limits<float>::infinity()),
          rowValues(static_cast<size_t>(layout.winnerFloats)),
          rowPositions(static_cast<size_t>(layout.winnerFloats)),
          rowFindings(static_cast<size_t>(layout.height)) {}

    // A job over `plane` with this scratch, the layout's tables and shape; the caller sets the windows, the
    // output rows and where they go.
    Stride1FlatJob job(const Stride1FlatLayout &layout, const float *plane) {
        Stride1FlatJob job{};
        job.plane = plane;
        job.height = layout.height;
        job.width = layout.width;
        job.paddedWidth = layout.paddedWidth;
        job.bandRows = layout.bandRows;
        job.tapPositions = layout.tapPositions.data();
        job.firstPositions = layout.firstPositions.data();
        job.padded = padded.data();
        job.rowValues = rowValues.data();
        job.rowPositions = rowPositions.data();
        job.rowFindings = rowFindings.data();
        return job;
    }
};

}  // namespace poolgrad::cpu
