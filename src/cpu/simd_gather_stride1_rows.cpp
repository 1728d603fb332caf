// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_gather_stride1_rows.cpp"
#include "cpu/simd_gather_stride1_rows.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"

#include "cpu/simd_ordered_ops-inl.h"
#include "cpu/simd_store-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// At most kStride1GatherMostLanes columns a vector, whatever the target offers.
using FloatTag = hn::CappedTag<float, kStride1GatherMostLanes>;
using IndexTag = hn::RebindToSigned<FloatTag>;

// Lanes 0, 1, 2, ...: loaded, not made by Iota, which Highway 1.0 builds with a scalar store per lane and one
// vector load that waits for them (a third of a row's time when it was called per vector).
HWY_ALIGN constexpr int32_t kLaneNumbers[kStride1GatherMostLanes] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                                    8, 9, 10, 11, 12, 13, 14, 15};

// Input rows [0, kRows) of the group, kVectors vectors of columns from `column`: each candidate output row's
// loads at each window offset compared against every row of the group that reads it. Lanes past a row's end
// may match elements of the next row; their sums are never stored.
template <int kRows, int kVectors>
HWY_INLINE void gatherTile(const Stride1GatherRowGroup &group, int64_t column) {
    const FloatTag df;
    const IndexTag di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    hn::Vec<IndexTag> positions[kRows][kVectors];
    hn::Vec<FloatTag> sums[kRows][kVectors];
    for (int r = 0; r < kRows; ++r)
        for (int v = 0; v < kVectors; ++v) {
            const int64_t at = column + v * lanes;
            auto position = hn::Add(hn::Load(di, kLaneNumbers),
                                    hn::Set(di, static_cast<int32_t>(group.rowPosition + r * group.rowStep + at)));
            positions[r][v] = position;
            sums[r][v] = hn::Zero(df);
        }
    // Window d of column c is output column c + padLeft - d: the loads for d walk left from `first`.
    const int64_t first = column + group.padLeft;
    for (int64_t u = group.firstCandidate[0]; u < group.endCandidate[kRows - 1]; ++u) {
        const int32_t *HWY_RESTRICT indices = group.outputRows[u].indices + first;
        const float *HWY_RESTRICT gradients = group.outputRows[u].gradients + first;
        bool reads[kRows];
        for (int r = 0; r < kRows; ++r) reads[r] = u >= group.firstCandidate[r] && u < group.endCandidate[r];
        for (int64_t d = group.kernelWidth - 1; d >= 0; --d) {
            for (int v = 0; v < kVectors; ++v) {
                const auto index = hn::LoadU(di, indices + v * lanes - d);
                const auto gradient = hn::LoadU(df, gradients + v * lanes - d);
                for (int r = 0; r < kRows; ++r) {
                    if (!reads[r]) continue;
                    const auto match = hn::Eq(index, positions[r][v]);
                    sums[r][v] = MaskedAddInOrder(sums[r][v], hn::RebindMask(df, match), gradient);
                }
            }
        }
    }
    for (int r = 0; r < kRows; ++r)
        for (int v = 0; v < kVectors; ++v) {
            const int64_t at = column + v * lanes;
            float *to = group.destination[r] + at;
            // One lane (HWY_SCALAR) always fits: a column is only made when it lies in the row.
            if (HWY_TARGET == HWY_SCALAR || at + lanes <= group.width)
                storeVector(df, sums[r][v], to, group.streaming);
            else
                storeFirstLanes(df, sums[r][v], to, static_cast<size_t>(group.width - at));
        }
}

// One row's column vectors, four at a time.
HWY_INLINE void gatherRow(const Stride1GatherRowGroup &row) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(FloatTag()));
    for (int64_t column = 0; column < row.width; column += 4 * lanes) {
        const int64_t left = (row.width - column + lanes - 1) / lanes;
        if (left >= 4)
            gatherTile<1, 4>(row, column);
        else if (left == 3)
            gatherTile<1, 3>(row, column);
        else if (left == 2)
            gatherTile<1, 2>(row, column);
        else
            gatherTile<1, 1>(row, column);
    }
}

void GatherStride1Rows(const Stride1GatherRowGroup &group) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(FloatTag()));
    const int64_t vectors = (group.width + lanes - 1) / lanes;
    if (group.rows == 4 && vectors == 1) {
        gatherTile<4, 1>(group, 0);
    } else if (group.rows == 2 && vectors == 1) {
        gatherTile<2, 1>(group, 0);
    } else if (group.rows == 2 && vectors == 2) {
        gatherTile<2, 2>(group, 0);
    } else {
        for (int64_t r = 0; r < group.rows; ++r) {
            Stride1GatherRowGroup row = group;
            row.rows = 1;
            row.firstCandidate[0] = group.firstCandidate[r];
            row.endCandidate[0] = group.endCandidate[r];
            row.destination[0] = group.destination[r];
            row.rowPosition = group.rowPosition + r * group.rowStep;
            gatherRow(row);
        }
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(GatherStride1Rows);

void gatherStride1Rows(const Stride1GatherRowGroup &group) { HWY_DYNAMIC_DISPATCH(GatherStride1Rows)(group); }

int64_t stride1GatherGroupRows(int64_t width) {
    const int64_t vectors = (width + kStride1GatherMostLanes - 1) / kStride1GatherMostLanes;
    return vectors >= 3 ? 1 : vectors == 2 ? 2 : 4;
}

Stride1GatherRowColumns stride1GatherRowColumns(int64_t width, int64_t outputWidth, int64_t kernelWidth,
                                                int64_t padLeft) {
    // Columns read: c + padLeft - d for c in [0, width rounded up to a vector), d in [0, kernelWidth).
    const int64_t vectors = (width + kStride1GatherMostLanes - 1) / kStride1GatherMostLanes;
    return {std::max<int64_t>(kernelWidth - 1 - padLeft, 0),
            std::max(outputWidth, vectors * kStride1GatherMostLanes + padLeft)};
}

}  // namespace poolgrad::cpu
#endif  // HWY_ONCE
