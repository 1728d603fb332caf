// Highway implementation of the stride-2 argmax forward's two passes: one source compiled for every target.
// The row pass splits each input row into even and odd columns (one permute per pair of loads), so that a
// vector of consecutive windows' three taps are three vectors: even, odd, and the odd columns one further on.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_argmax_stride2.cpp"
#include "cpu/simd_argmax_stride2.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: after highway.h
#include "cpu/simd_store-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The selection rule for one candidate: one compare (no NaN expected) or with the NaN rule.
template <bool NanRule, class D>
HWY_INLINE hn::Mask<D> takes(D, hn::Vec<D> value, hn::Vec<D> best) {
    if constexpr (NanRule)
        return hn::Or(hn::Gt(value, best), hn::IsNaN(value));
    else
        return hn::Gt(value, best);
}

// Window ow of a row, one column at a time with the NaN rule: the clipped edge windows and rows too short
// for a vector of whole windows.
template <bool WithColumns>
HWY_INLINE void scalarWindow(const float *HWY_RESTRICT row, int64_t width, int64_t padLeft, int64_t ow,
                             float *HWY_RESTRICT bestValues, int32_t *HWY_RESTRICT bestColumns) {
    const int64_t first = std::max<int64_t>(2 * ow - padLeft, 0), last = std::min(2 * ow - padLeft + 2, width - 1);
    float best = row[first];
    int64_t column = first;
    for (int64_t c = first + 1; c <= last; ++c)
        if (row[c] > best || std::isnan(row[c])) {
            best = row[c];
            column = c;
        }
    bestValues[ow] = best;
    if constexpr (WithColumns) bestColumns[ow] = static_cast<int32_t>(column);
}

// The whole windows [begin, end) (at least a vector of them) of a row, a vector of windows at a time (the
// last vector moves back to end at `end`). Returns false when the fast search's detector saw a NaN.
template <bool NanRule, bool WithColumns>
HWY_INLINE bool rowVectors(const float *HWY_RESTRICT row, int64_t padLeft, int64_t begin, int64_t end,
                           float *HWY_RESTRICT bestValues, int32_t *HWY_RESTRICT bestColumns) {
#if HWY_TARGET == HWY_SCALAR
    (void)row, (void)padLeft, (void)begin, (void)end, (void)bestValues, (void)bestColumns;
    return true;
#else
    const hn::ScalableTag<float> d;
    const hn::RebindToSigned<decltype(d)> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const auto tap0 = hn::Mul(hn::Iota(di, 0), hn::Set(di, 2));  // lane i's columns, less the vector's first
    const auto tap1 = hn::Add(tap0, hn::Set(di, 1)), tap2 = hn::Add(tap0, hn::Set(di, 2));
    auto detector = hn::Zero(d);  // NaN when a tap 1 or 2 was NaN (or a product overflowed into inf - inf)
    for (int64_t ow = begin;; ow += lanes) {
        ow = std::min(ow, end - lanes);
        const int64_t column = 2 * ow - padLeft;  // of lane 0's tap 0
        const float *at = row + column;
        const auto low = hn::LoadU(d, at), high = hn::LoadU(d, at + lanes);
        const auto lowNext = hn::LoadU(d, at + 1), highNext = hn::LoadU(d, at + 1 + lanes);
        const auto even = hn::ConcatEven(d, high, low), odd = hn::ConcatOdd(d, high, low);
        const auto evenNext = hn::ConcatOdd(d, highNext, lowNext);  // columns column + 2 + 2i
        if constexpr (!NanRule) detector = hn::MulAdd(odd, evenNext, detector);
        auto best = even;
        auto taken = tap0;
        const auto take1 = takes<NanRule>(d, odd, best);
        best = hn::IfThenElse(take1, odd, best);
        if constexpr (WithColumns) taken = hn::IfThenElse(hn::RebindMask(di, take1), tap1, taken);
        const auto take2 = takes<NanRule>(d, evenNext, best);
        best = hn::IfThenElse(take2, evenNext, best);
        hn::StoreU(best, d, bestValues + ow);
        if constexpr (WithColumns) {
            taken = hn::IfThenElse(hn::RebindMask(di, take2), tap2, taken);
            hn::StoreU(hn::Add(taken, hn::Set(di, static_cast<int32_t>(column))), di, bestColumns + ow);
        }
        if (ow == end - lanes) break;
    }
    return NanRule || hn::AllFalse(d, hn::IsNaN(detector));
#endif
}

template <bool WithColumns>
HWY_INLINE void rowPass(const float *HWY_RESTRICT row, int64_t width, int64_t padLeft, int64_t outputs,
                        float *HWY_RESTRICT bestValues, int32_t *HWY_RESTRICT bestColumns) {
    // Whole windows: [padLeft, wholeEnd), the columns 2*ow - padLeft + 2 inside the row.
    const int64_t wholeBegin = std::min(padLeft, outputs);
    const int64_t wholeEnd = std::clamp<int64_t>((width - 3 + padLeft) / 2 + 1, wholeBegin, outputs);
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>()));
    int64_t scalarBegin = 0;
    if (HWY_TARGET != HWY_SCALAR && wholeEnd - wholeBegin >= lanes) {
        for (int64_t ow = 0; ow < wholeBegin; ++ow)
            scalarWindow<WithColumns>(row, width, padLeft, ow, bestValues, bestColumns);
        if (!rowVectors<false, WithColumns>(row, padLeft, wholeBegin, wholeEnd, bestValues, bestColumns))
            rowVectors<true, WithColumns>(row, padLeft, wholeBegin, wholeEnd, bestValues, bestColumns);
        scalarBegin = wholeEnd;
    }
    for (int64_t ow = scalarBegin; ow < outputs; ++ow)
        scalarWindow<WithColumns>(row, width, padLeft, ow, bestValues, bestColumns);
}

void ArgmaxStride2Row(const float *HWY_RESTRICT row, int64_t width, int64_t padLeft, int64_t outputs,
                      float *HWY_RESTRICT bestValues, int32_t *HWY_RESTRICT bestColumns) {
    rowPass<true>(row, width, padLeft, outputs, bestValues, bestColumns);
}

void MaxStride2Row(const float *HWY_RESTRICT row, int64_t width, int64_t padLeft, int64_t outputs,
                   float *HWY_RESTRICT bestValues) {
    rowPass<false>(row, width, padLeft, outputs, bestValues, nullptr);
}

// Stores int32 indices as they are or widened to int64 (two half vectors).
template <class DI>
HWY_INLINE void storeIndices(DI di, hn::Vec<DI> indices, int32_t *HWY_RESTRICT indices32,
                             int64_t *HWY_RESTRICT indices64, bool streaming) {
    if (indices32) {
        storeVector(di, indices, indices32, streaming);
    } else {
#if HWY_TARGET == HWY_SCALAR
        indices64[0] = hn::GetLane(indices);
#else
        const hn::Half<DI> dh;
        const hn::Repartition<int64_t, DI> d64;
        storeVector(d64, hn::PromoteTo(d64, hn::LowerHalf(dh, indices)), indices64, streaming);
        storeVector(d64, hn::PromoteTo(d64, hn::UpperHalf(dh, indices)), indices64 + hn::Lanes(d64), streaming);
#endif
    }
}

// All windows of the output row, a vector at a time (the last moves back to end at the row's end). Returns
// false when the fast search's detector saw a NaN in a row after the first.
template <bool NanRule, bool WithIndices>
HWY_INLINE bool combineVectors(const float *const *HWY_RESTRICT rowValues,
                               const int32_t *const *HWY_RESTRICT rowColumns, const int32_t *HWY_RESTRICT rowOffsets,
                               int64_t rowCount, int64_t outputs, float *HWY_RESTRICT values,
                               int32_t *HWY_RESTRICT indices32, int64_t *HWY_RESTRICT indices64, bool streaming) {
    const hn::ScalableTag<float> d;
    const hn::RebindToSigned<decltype(d)> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    auto detector = hn::Zero(d);  // NaN when a value of rows 1.. was NaN (or products overflowed into inf - inf)
    for (int64_t ow = 0;; ow += lanes) {
        ow = std::min(ow, outputs - lanes);
        auto best = hn::LoadU(d, rowValues[0] + ow);
        hn::Vec<decltype(di)> index;
        if constexpr (WithIndices) index = hn::Add(hn::LoadU(di, rowColumns[0] + ow), hn::Set(di, rowOffsets[0]));
        for (int64_t r = 1; r < rowCount; ++r) {
            const auto value = hn::LoadU(d, rowValues[r] + ow);
            if constexpr (!NanRule) {
                // Rows in pairs: one multiply-add per two rows, the last alone squared.
                if (r + 1 < rowCount && r % 2 == 1)
                    detector = hn::MulAdd(value, hn::LoadU(d, rowValues[r + 1] + ow), detector);
                else if (r % 2 == 1)
                    detector = hn::MulAdd(value, value, detector);
            }
            const auto take = takes<NanRule>(d, value, best);
            best = hn::IfThenElse(take, value, best);
            if constexpr (WithIndices)
                index = hn::IfThenElse(hn::RebindMask(di, take),
                                       hn::Add(hn::LoadU(di, rowColumns[r] + ow), hn::Set(di, rowOffsets[r])), index);
        }
        storeVector(d, best, values + ow, streaming);
        if constexpr (WithIndices)
            storeIndices(di, index, indices32 ? indices32 + ow : nullptr, indices64 ? indices64 + ow : nullptr,
                         streaming);
        if (ow == outputs - lanes) break;
    }
    return NanRule || hn::AllFalse(d, hn::IsNaN(detector));
}

template <bool WithIndices>
HWY_INLINE void combinePass(const float *const *HWY_RESTRICT rowValues, const int32_t *const *HWY_RESTRICT rowColumns,
                            const int32_t *HWY_RESTRICT rowOffsets, int64_t rowCount, int64_t outputs,
                            float *HWY_RESTRICT values, int32_t *HWY_RESTRICT indices32,
                            int64_t *HWY_RESTRICT indices64, bool streaming) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>()));
    if (outputs >= lanes) {
        if (!combineVectors<false, WithIndices>(rowValues, rowColumns, rowOffsets, rowCount, outputs, values, indices32,
                                                indices64, streaming))
            combineVectors<true, WithIndices>(rowValues, rowColumns, rowOffsets, rowCount, outputs, values, indices32,
                                              indices64, streaming);
        return;
    }
    for (int64_t ow = 0; ow < outputs; ++ow) {
        float best = rowValues[0][ow];
        int64_t index = WithIndices ? int64_t{rowOffsets[0]} + rowColumns[0][ow] : 0;
        for (int64_t r = 1; r < rowCount; ++r) {
            const float value = rowValues[r][ow];
            if (value > best || std::isnan(value)) {
                best = value;
                if constexpr (WithIndices) index = int64_t{rowOffsets[r]} + rowColumns[r][ow];
            }
        }
        values[ow] = best;
        if (indices32) indices32[ow] = static_cast<int32_t>(index);
        if (indices64) indices64[ow] = index;
    }
}

void CombineStride2Rows(const float *const *HWY_RESTRICT rowValues, const int32_t *const *HWY_RESTRICT rowColumns,
                        const int32_t *HWY_RESTRICT rowOffsets, int64_t rowCount, int64_t outputs,
                        float *HWY_RESTRICT values, int32_t *HWY_RESTRICT indices32, int64_t *HWY_RESTRICT indices64,
                        bool streaming) {
    if (indices32 || indices64)
        combinePass<true>(rowValues, rowColumns, rowOffsets, rowCount, outputs, values, indices32, indices64,
                          streaming);
    else
        combinePass<false>(rowValues, rowColumns, rowOffsets, rowCount, outputs, values, nullptr, nullptr, streaming);
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(ArgmaxStride2Row);
HWY_EXPORT(MaxStride2Row);
HWY_EXPORT(CombineStride2Rows);

void argmaxStride2Row(const float *row, int64_t width, int64_t padLeft, int64_t outputs, float *bestValues,
                      int32_t *bestColumns) {
    HWY_DYNAMIC_DISPATCH(ArgmaxStride2Row)(row, width, padLeft, outputs, bestValues, bestColumns);
}

void maxStride2Row(const float *row, int64_t width, int64_t padLeft, int64_t outputs, float *bestValues) {
    HWY_DYNAMIC_DISPATCH(MaxStride2Row)(row, width, padLeft, outputs, bestValues);
}

void combineStride2Rows(const float *const *rowValues, const int32_t *const *rowColumns, const int32_t *rowOffsets,
                        int64_t rowCount, int64_t outputs, float *values, int32_t *indices32, int64_t *indices64,
                        bool streaming) {
    HWY_DYNAMIC_DISPATCH(CombineStride2Rows)
    (rowValues, rowColumns, rowOffsets, rowCount, outputs, values, indices32, indices64, streaming);
}

}  // namespace poolgrad::cpu
#endif
