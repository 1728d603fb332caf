// Highway implementation of simd_argmax_narrow_rows.h: one source compiled for every target Highway supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_argmax_narrow_rows.cpp"
#include "cpu/simd_argmax_narrow_rows.h"

#include <cstring>
#include <limits>

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: after highway.h, compiled once per target
#include "cpu/simd_ordered_ops-inl.h"
#include "cpu/simd_store-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using FloatTag = hn::CappedTag<float, 16>;
using IndexTag = hn::RebindToSigned<FloatTag>;

// 0, 1, 2, ...: each lane's column (from a table: Iota builds its vector through memory).
HWY_ALIGN constexpr int32_t kLaneColumns[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

// The position of a window that has no element yet: larger than every plane position.
constexpr int32_t kNoPosition = std::numeric_limits<int32_t>::max();

int64_t ArgmaxNarrowRowLanes() { return static_cast<int64_t>(hn::Lanes(FloatTag())); }

struct ColumnWinners {
    hn::Vec<FloatTag> values;
    hn::Vec<IndexTag> positions;
};

// Each column's winner over the rows in scan order. Without kNaNRule one compare and one blend per row,
// and sawNaN tells whether a NaN (or +inf meeting -inf) was read, in which case the result does not count.
template <bool kNaNRule>
HWY_INLINE ColumnWinners columnWinners(const float *HWY_RESTRICT plane, const int32_t *HWY_RESTRICT rowOffsets,
                                       int64_t rowCount, hn::Mask<FloatTag> inRow, hn::Vec<IndexTag> columns,
                                       bool &sawNaN) {
    const FloatTag df;
    const IndexTag di;
    // Lanes past the row load as +0 and are never named by a tap.
    ColumnWinners best{MaskedLoadUnaligned(inRow, df, plane + rowOffsets[0]),
                       hn::Add(hn::Set(di, rowOffsets[0]), columns)};
    auto detector = best.values;
    for (int64_t r = 1; r < rowCount; ++r) {
        const auto value = MaskedLoadUnaligned(inRow, df, plane + rowOffsets[r]);
        auto take = hn::Gt(value, best.values);
        if constexpr (kNaNRule)
            take = hn::Or(take, hn::IsNaN(value));
        else
            detector = hn::Add(detector, value);
        best.values = hn::IfThenElse(take, value, best.values);
        best.positions =
            hn::IfThenElse(hn::RebindMask(di, take), hn::Add(hn::Set(di, rowOffsets[r]), columns), best.positions);
    }
    if constexpr (!kNaNRule) sawNaN = !hn::AllFalse(df, hn::IsNaN(detector));
    return best;
}

// Window ow's winner in lane ow, from its columns' winners in increasing column order: the larger value,
// or the smaller position among equal values; with kNaNRule a NaN wins over any number and a NaN at a
// larger position over a NaN. Windows with no tap keep -inf and position -1.
template <bool kNaNRule>
HWY_INLINE void combineTaps(const NarrowRowTables &tables, const ColumnWinners &columns, hn::Vec<FloatTag> &value,
                            hn::Vec<IndexTag> &position) {
    const FloatTag df;
    const IndexTag di;
    value = hn::Set(df, -std::numeric_limits<float>::infinity());
    position = hn::Set(di, kNoPosition);
    const int32_t *HWY_RESTRICT tapColumns = tables.tapColumns.data();
    const uint64_t *HWY_RESTRICT tapLanes = tables.tapLanes.data();
    const int64_t lanes = tables.lanes;
    for (int64_t tap = 0; tap < tables.taps; ++tap) {
        const int32_t *from = tapColumns + tap * lanes;
        const auto candidate = hn::TableLookupLanes(columns.values, hn::SetTableIndices(df, from));
        const auto candidatePosition = hn::TableLookupLanes(columns.positions, hn::SetTableIndices(di, from));
        // Little-endian: the first byte holds lanes 0-7.
        const auto present =
            hn::RebindMask(df, hn::LoadMaskBits(di, reinterpret_cast<const uint8_t *>(tapLanes + tap)));
        const auto earlier = hn::RebindMask(df, hn::Lt(candidatePosition, position));
        auto take = hn::Or(hn::Gt(candidate, value), hn::And(hn::Eq(candidate, value), earlier));
        if constexpr (kNaNRule) {
            const auto heldNaN = hn::IsNaN(value), candidateNaN = hn::IsNaN(candidate);
            const auto later = hn::RebindMask(df, hn::Gt(candidatePosition, position));
            take =
                hn::Or(hn::And(heldNaN, hn::And(candidateNaN, later)), hn::AndNot(heldNaN, hn::Or(take, candidateNaN)));
        }
        take = hn::And(present, take);
        value = hn::IfThenElse(take, candidate, value);
        position = hn::IfThenElse(hn::RebindMask(di, take), candidatePosition, position);
    }
    position = hn::IfThenElse(hn::Eq(position, hn::Set(di, kNoPosition)), hn::Set(di, -1), position);
}

void ArgmaxNarrowRows(const NarrowRowTables &tables, const NarrowRowWindows &windows, const float *plane,
                      int64_t firstRow, int64_t endRow, float *values, int32_t *indices32, int64_t *indices64) {
    const FloatTag df;
    const IndexTag di;
    const auto inRow = hn::FirstN(df, static_cast<size_t>(tables.width));
    const auto columns = hn::Load(di, kLaneColumns);
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df)), outputs = tables.outputs;
    const int64_t *HWY_RESTRICT start = windows.start.data();
    const int32_t *HWY_RESTRICT offsets = windows.offsets.data();
    const int64_t endOutput = endRow * outputs;
    for (int64_t r = firstRow; r < endRow; ++r) {
        const int64_t first = r * outputs, rowCount = start[r + 1] - start[r];
        hn::Vec<FloatTag> value = hn::Set(df, -std::numeric_limits<float>::infinity());
        hn::Vec<IndexTag> position = hn::Set(di, -1);
        if (rowCount > 0) {
            const int32_t *rowOffsets = offsets + start[r];
            bool sawNaN = false;
            const ColumnWinners fast = columnWinners<false>(plane, rowOffsets, rowCount, inRow, columns, sawNaN);
            if (!sawNaN)
                combineTaps<false>(tables, fast, value, position);
            else
                combineTaps<true>(tables, columnWinners<true>(plane, rowOffsets, rowCount, inRow, columns, sawNaN),
                                  value, position);
        }
        // Whole vectors where they end inside the range: the rows after this one overwrite what runs over.
        if (first + lanes <= endOutput) {
            hn::StoreU(value, df, values + first);
            if (indices32 != nullptr) hn::StoreU(position, di, indices32 + first);
        } else {
            storeFirstLanes(df, value, values + first, static_cast<size_t>(outputs));
            if (indices32 != nullptr) storeFirstLanes(di, position, indices32 + first, static_cast<size_t>(outputs));
        }
        if (indices64 != nullptr) {
#if HWY_TARGET == HWY_SCALAR
            indices64[first] = hn::GetLane(position);
#else
            const hn::Half<IndexTag> dh;
            const hn::Repartition<int64_t, IndexTag> d64;
            const auto lower = hn::PromoteTo(d64, hn::LowerHalf(dh, position));
            const auto upper = hn::PromoteTo(d64, hn::UpperHalf(dh, position));
            const int64_t half = static_cast<int64_t>(hn::Lanes(d64));
            if (first + lanes <= endOutput) {
                hn::StoreU(lower, d64, indices64 + first);
                hn::StoreU(upper, d64, indices64 + first + half);
            } else if (outputs <= half) {
                storeFirstLanes(d64, lower, indices64 + first, static_cast<size_t>(outputs));
            } else {
                hn::StoreU(lower, d64, indices64 + first);
                storeFirstLanes(d64, upper, indices64 + first + half, static_cast<size_t>(outputs - half));
            }
#endif
        }
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(ArgmaxNarrowRowLanes);
HWY_EXPORT(ArgmaxNarrowRows);

int64_t argmaxNarrowRowLanes() { return HWY_DYNAMIC_DISPATCH(ArgmaxNarrowRowLanes)(); }

void argmaxNarrowRows(const NarrowRowTables &tables, const NarrowRowWindows &windows, const float *plane,
                      int64_t firstRow, int64_t endRow, float *values, int32_t *indices32, int64_t *indices64) {
    HWY_DYNAMIC_DISPATCH(ArgmaxNarrowRows)(tables, windows, plane, firstRow, endRow, values, indices32, indices64);
}

}  // namespace poolgrad::cpu
#endif
