// Highway implementation of the stride-2 argmax forward's vector search: one source compiled for every
// target (the scalar target searches one window per "vector").
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_argmax_stride2.cpp"
#include "cpu/simd_argmax_stride2.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "hwy/aligned_allocator.h"
#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: after highway.h
#include "cpu/simd_store-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;

// The selection rule for one candidate: one compare (no NaN expected) or with the NaN rule.
template <bool NanRule>
HWY_INLINE hn::Mask<DF> takes(VF value, VF best) {
    if constexpr (NanRule)
        return hn::Or(hn::Gt(value, best), hn::IsNaN(value));
    else
        return hn::Gt(value, best);
}

// Each window's winner within one input row, for the vector of windows whose lane 0 starts at `column`:
// best (value) and winner (column). Fast: the detector takes tap 1 x tap 2.
template <bool NanRule, bool WithIndices>
HWY_INLINE void searchRow(const float *HWY_RESTRICT row, int64_t column, VI evenColumns, VF &best, VI &winner,
                          VF &detector) {
    const DF d;
    const DI di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const float *at = row + column;
#if HWY_TARGET == HWY_SCALAR
    const VF tap0 = hn::Set(d, at[0]), tap1 = hn::Set(d, at[1]), tap2 = hn::Set(d, at[2]);
    (void)lanes;
#else
    const VF low = hn::LoadU(d, at), high = hn::LoadU(d, at + lanes);
    const VF tap0 = hn::ConcatEven(d, high, low), tap1 = hn::ConcatOdd(d, high, low);
    const VF tap2 = hn::ConcatOdd(d, hn::LoadU(d, at + 1 + lanes), hn::LoadU(d, at + 1));  // columns + 2
#endif
    if constexpr (!NanRule) detector = hn::MulAdd(tap1, tap2, detector);
    best = tap0;
    const auto take1 = takes<NanRule>(tap1, best);
    best = hn::IfThenElse(take1, tap1, best);
    const auto take2 = takes<NanRule>(tap2, best);
    best = hn::IfThenElse(take2, tap2, best);
    if constexpr (WithIndices) {
        const VI first = hn::Add(evenColumns, hn::Set(di, static_cast<int32_t>(column)));
        winner = hn::IfThenElse(hn::RebindMask(di, take2), hn::Add(first, hn::Set(di, 2)),
                                hn::IfThenElse(hn::RebindMask(di, take1), hn::Add(first, hn::Set(di, 1)), first));
    }
}

// Row winners carried from one output row to the next: per depth tap, the last row's (its plane row
// d * inputHeight + h, -1 for none), a vector of values and of columns at best / winner + tap * lanes.
struct Carried {
    int64_t rows[kStride2CarriedDepthTaps];
    float *best;
    int32_t *winner;
};

// One output row's vector of windows (lane 0: window ow, whose first column is `column`). Uses `carried`
// rows where they are this row's first rows (when useCarried) and leaves this row's last rows in it.
// Returns false when the fast search's detector saw a NaN (nothing is stored then).
template <bool NanRule, bool WithIndices>
HWY_INLINE bool searchOutputRow(const Stride2Rows &job, const AxisWindow &wd, const AxisWindow &wh, int64_t column,
                                int64_t q, VI evenColumns, bool useCarried, Carried &carried) {
    const DF d;
    const DI di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    VF best = hn::Zero(d), detector = hn::Zero(d);
    VI index = hn::Zero(di);
    bool first = true;
    for (int64_t jd = 0, dd = wd.first; jd < wd.count; ++jd, dd += wd.step) {
        const bool carries = jd < kStride2CarriedDepthTaps;
        for (int64_t jh = 0, h = wh.first; jh < wh.count; ++jh, h += wh.step) {
            const int64_t planeRow = dd * job.inputHeight + h;
            VF value;
            VI winner = hn::Zero(di);
            if (jh == 0 && carries && useCarried && carried.rows[jd] == planeRow) {
                value = hn::Load(d, carried.best + jd * lanes);
                if constexpr (WithIndices) winner = hn::Load(di, carried.winner + jd * lanes);
            } else {
                searchRow<NanRule, WithIndices>(job.plane + planeRow * job.inputWidth, column, evenColumns, value,
                                                winner, detector);
            }
            if (jh == wh.count - 1 && carries) {
                carried.rows[jd] = planeRow;
                hn::Store(value, d, carried.best + jd * lanes);
                if constexpr (WithIndices) hn::Store(winner, di, carried.winner + jd * lanes);
            }
            if constexpr (WithIndices)
                winner = hn::Add(winner, hn::Set(di, static_cast<int32_t>(planeRow * job.inputWidth)));
            if (first) {
                best = value;
                index = winner;
                first = false;
                continue;
            }
            if constexpr (!NanRule) detector = hn::MulAdd(value, value, detector);
            const auto take = takes<NanRule>(value, best);
            best = hn::IfThenElse(take, value, best);
            if constexpr (WithIndices) index = hn::IfThenElse(hn::RebindMask(di, take), winner, index);
        }
    }
    if constexpr (!NanRule) {
        if (!hn::AllFalse(d, hn::IsNaN(detector))) return false;
    }
    storeVector(d, best, job.values + q, job.streaming);
    if constexpr (WithIndices) {
        if (job.indices32) {
            storeVector(di, index, job.indices32 + q, job.streaming);
        } else {
#if HWY_TARGET == HWY_SCALAR
            job.indices64[q] = hn::GetLane(index);
#else
            const hn::Half<DI> dh;
            const hn::Repartition<int64_t, DI> d64;
            storeVector(d64, hn::PromoteTo(d64, hn::LowerHalf(dh, index)), job.indices64 + q, job.streaming);
            storeVector(d64, hn::PromoteTo(d64, hn::UpperHalf(dh, index)), job.indices64 + q + hn::Lanes(d64),
                        job.streaming);
#endif
        }
    }
    return true;
}

template <bool WithIndices>
HWY_INLINE void searchRows(const Stride2Rows &job) {
    const DF d;
    const DI di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const VI evenColumns = hn::Mul(hn::Iota(di, 0), hn::Set(di, 2));
    // The vectors of a row: every `lanes` windows from wholeBegin, the last moved back to end at wholeEnd.
    const int64_t vectors = (job.wholeEnd - job.wholeBegin + lanes - 1) / lanes;
    // Output rows are walked in order (the input and output planes stream through the caches row by
    // row); each vector keeps its carried row winners here, in L1, from one output row to the next.
    const size_t perVector = static_cast<size_t>(kStride2CarriedDepthTaps * lanes);
    const hwy::AlignedFreeUniquePtr<float[]> carriedBest = hwy::AllocateAligned<float>(vectors * perVector);
    const hwy::AlignedFreeUniquePtr<int32_t[]> carriedWinners = hwy::AllocateAligned<int32_t>(vectors * perVector);
    std::vector<Carried> carried(static_cast<size_t>(vectors));
    for (size_t v = 0; v < carried.size(); ++v) {
        for (int64_t &row : carried[v].rows) row = -1;
        carried[v].best = carriedBest.get() + v * perVector;
        carried[v].winner = carriedWinners.get() + v * perVector;
    }
    int64_t previousDepth = -1;
    for (int64_t outputRow = job.firstRow; outputRow < job.endRow; ++outputRow) {
        const int64_t od = outputRow / job.outputHeight, oh = outputRow % job.outputHeight;
        const AxisWindow &wd = job.depthWindows[od], &wh = job.heightWindows[oh];
        const int64_t rowStart = outputRow * job.outputWidth;
        if (wd.count == 0 || wh.count == 0) {  // dilated windows wholly in padding: empty
            for (int64_t ow = job.wholeBegin; ow < job.wholeEnd; ++ow) {
                job.values[rowStart + ow] = -std::numeric_limits<float>::infinity();
                if (job.indices32) job.indices32[rowStart + ow] = -1;
                if (job.indices64) job.indices64[rowStart + ow] = -1;
            }
            continue;
        }
        const bool useCarried = od == previousDepth;
        previousDepth = od;
        for (int64_t v = 0; v < vectors; ++v) {
            const int64_t ow = std::min(job.wholeBegin + v * lanes, job.wholeEnd - lanes);
            const int64_t column = 2 * ow - job.padLeft, q = rowStart + ow;
            Carried &c = carried[static_cast<size_t>(v)];
            if (!searchOutputRow<false, WithIndices>(job, wd, wh, column, q, evenColumns, useCarried, c))
                searchOutputRow<true, WithIndices>(job, wd, wh, column, q, evenColumns, false, c);
        }
    }
}

void ArgmaxStride2Rows(const Stride2Rows &job) {
    if (job.indices32 || job.indices64)
        searchRows<true>(job);
    else
        searchRows<false>(job);
}

int64_t ArgmaxStride2Lanes() { return static_cast<int64_t>(hn::Lanes(DF())); }

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(ArgmaxStride2Rows);
HWY_EXPORT(ArgmaxStride2Lanes);

void argmaxStride2Rows(const Stride2Rows &rows) { HWY_DYNAMIC_DISPATCH(ArgmaxStride2Rows)(rows); }

int64_t argmaxStride2Lanes() { return HWY_DYNAMIC_DISPATCH(ArgmaxStride2Lanes)(); }

}  // namespace poolgrad::cpu
#endif
