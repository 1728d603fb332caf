// Highway implementation of the argmax forwards' vector searches: one source compiled for every target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_argmax.cpp"
#include "cpu/simd_argmax.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: after highway.h
#include "cpu/simd_store-inl.h"
#include "cpu/simd_widen_sixteen_bit-inl.h"
// clang-format on
#include "cpu/lambda_inline.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The rule every search applies to one candidate: fast (no NaN expected: one compare, one blend) or
// with the NaN rule.
template <bool NanRule, class D, class M = hn::Mask<D>>
HWY_INLINE M takes(D, hn::Vec<D> value, hn::Vec<D> best) {
    if constexpr (NanRule)
        return hn::Or(hn::Gt(value, best), hn::IsNaN(value));
    else
        return hn::Gt(value, best);
}

// ------------------------------------------------------------------------------------------ dense rows

enum class ColumnAccess { Contiguous, EvenOfPairs, Gathered };

// The most 32-bit lanes of a vector of this target: the size of per-lane buffers.
constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);

// Rows are float32, or bfloat16 bits (uint16_t) widened to float32 in the register as they are loaded (a shift:
// exact), so that 16-bit rows are searched where they lie, at half the bytes, with no widened copy.
template <class D>
HWY_INLINE hn::Vec<D> loadColumns(D d, const float *HWY_RESTRICT at) {
    return hn::LoadU(d, at);
}
template <class D>
HWY_INLINE hn::Vec<D> loadColumns(D d, const uint16_t *HWY_RESTRICT at) {
    return widenSixteenBit<false>(d, hn::LoadU(hn::Rebind<uint16_t, D>(), at));
}

#if HWY_TARGET != HWY_SCALAR
// Columns at[0], at[2], ... (even) and at[1], at[3], ... (odd) of 2 x Lanes columns. Float32: two loads split by
// two permutes. Bfloat16: one load of 2 x Lanes bits, each 32-bit lane holding an even column in its low half
// and the next odd one in its high half (little-endian), so a shift and a mask widen both: no permute.
template <class D>
HWY_INLINE hn::Vec<D> evenColumns(D d, const float *HWY_RESTRICT at) {
    return hn::ConcatEven(d, hn::LoadU(d, at + hn::Lanes(d)), hn::LoadU(d, at));
}
template <class D>
HWY_INLINE hn::Vec<D> oddColumns(D d, const float *HWY_RESTRICT at) {
    return hn::ConcatOdd(d, hn::LoadU(d, at + hn::Lanes(d)), hn::LoadU(d, at));
}
// AVX2's ConcatEven and ConcatOdd cross the vector's two 128-bit halves (a shuffle and a permute per tap). One
// shuffle within the halves gives the same columns with the windows in the order 0, 1, 4, 5, 2, 3, 6, 7: the
// same order at every tap, and the labels the search keeps are the same in every lane, so float32 rows are
// searched in that order and the winners put back in order once per chunk (restoreWindowOrder).
#if HWY_TARGET == HWY_AVX2
template <class D>
HWY_INLINE hn::Vec<D> evenColumnsInHalves(D, const float *HWY_RESTRICT at) {
    return hn::Vec<D>{_mm256_shuffle_ps(_mm256_loadu_ps(at), _mm256_loadu_ps(at + 8), 0x88)};
}
template <class D>
HWY_INLINE hn::Vec<D> oddColumnsInHalves(D, const float *HWY_RESTRICT at) {
    return hn::Vec<D>{_mm256_shuffle_ps(_mm256_loadu_ps(at), _mm256_loadu_ps(at + 8), 0xdd)};
}
template <class V>
HWY_INLINE V restoreWindowOrder(V v) {  // swaps the middle two 64-bit quarters: its own inverse
    return hn::BitCast(hn::DFromV<V>(), hn::Vec256<uint64_t>{_mm256_permute4x64_epi64(
                                            hn::BitCast(hn::Full256<uint64_t>(), v).raw, 0xd8)});
}
#endif

template <class D>
HWY_INLINE hn::Vec<D> evenColumns(D d, const uint16_t *HWY_RESTRICT at) {
    const hn::RebindToUnsigned<D> du;
    return hn::BitCast(d, hn::ShiftLeft<16>(hn::BitCast(du, hn::LoadU(hn::Repartition<uint16_t, D>(), at))));
}
template <class D>
HWY_INLINE hn::Vec<D> oddColumns(D d, const uint16_t *HWY_RESTRICT at) {
    const hn::RebindToUnsigned<D> du;
    return hn::BitCast(
        d, hn::And(hn::BitCast(du, hn::LoadU(hn::Repartition<uint16_t, D>(), at)), hn::Set(du, 0xffff0000u)));
}

// The even (kOdd false) or odd columns in the order the search visits the windows (the in-half order for float32
// on AVX2, window order elsewhere), and a searched vector put back in window order: the one place that choice is
// made.
template <bool kOdd, class D, class Source>
HWY_INLINE hn::Vec<D> columnsInSearchOrder(D d, const Source *HWY_RESTRICT at) {
#if HWY_TARGET == HWY_AVX2
    if constexpr (std::is_same_v<Source, float>) return kOdd ? oddColumnsInHalves(d, at) : evenColumnsInHalves(d, at);
#endif
    return kOdd ? oddColumns(d, at) : evenColumns(d, at);
}
template <class Source, class V>
HWY_INLINE V inWindowOrder(V v) {
#if HWY_TARGET == HWY_AVX2
    if constexpr (std::is_same_v<Source, float>) return restoreWindowOrder(v);
#endif
    return v;
}
#endif

template <class D, class DI>
HWY_INLINE hn::Vec<D> gatherColumns(D d, DI, const float *HWY_RESTRICT at, hn::Vec<DI> laneColumns) {
    return hn::GatherIndex(d, at, laneColumns);
}
// Bfloat16 rows of other strides (and every stride on the scalar target), lane by lane.
template <class D, class DI>
HWY_INLINE hn::Vec<D> gatherColumns(D d, DI di, const uint16_t *HWY_RESTRICT at, hn::Vec<DI> laneColumns) {
    HWY_ALIGN_MAX int32_t columns[kMaxLanes];
    HWY_ALIGN_MAX uint32_t bits[kMaxLanes];
    hn::Store(laneColumns, di, columns);
    for (size_t i = 0; i < hn::Lanes(d); ++i) bits[i] = static_cast<uint32_t>(at[columns[i]]) << 16;
    return hn::BitCast(d, hn::Load(hn::RebindToUnsigned<D>(), bits));
}

// Search of `Group` chunks of Lanes(d) consecutive windows at once (independent compare-and-blend chains
// hide each other's latency); chunk g's lane 0 has its first tap at column firstColumns[g]. With Detect,
// returns false when the fast search saw a NaN: its result is then not valid and the chunks must be
// searched with the NaN rule (without Detect the caller knows whether the rows hold NaNs). relative[g] gets
// each winner's index less its lane's first tap column.
template <ColumnAccess Access, bool NanRule, bool Detect, bool WithIndices, int Group, class Source, class D, class DI>
HWY_INLINE bool searchChunks(D d, DI di, const WindowRow &row, const Source *const *HWY_RESTRICT rowStarts,
                             const int32_t *HWY_RESTRICT rowOffsets, int64_t rowCount,
                             const int64_t (&firstColumns)[Group], hn::Vec<DI> laneColumns, hn::Vec<D> (&best)[Group],
                             hn::Vec<DI> (&relative)[Group]) {
    hn::Vec<D> detector[Group];  // sum of every value seen: NaN when one was NaN (or +inf met -inf)
    for (int g = 0; g < Group; ++g) {
        best[g] = hn::Set(d, -std::numeric_limits<float>::infinity());
        relative[g] = hn::Set(di, rowOffsets[0]);
        detector[g] = hn::Zero(d);
    }
    const auto visit = [&](int g, hn::Vec<D> value, int64_t offset) POOLGRAD_LAMBDA_INLINE {
        if constexpr (Detect) detector[g] = hn::Add(detector[g], value);
        const auto take = takes<NanRule>(d, value, best[g]);
        best[g] = hn::IfThenElse(take, value, best[g]);
        if constexpr (WithIndices)
            relative[g] =
                hn::IfThenElse(hn::RebindMask(di, take), hn::Set(di, static_cast<int32_t>(offset)), relative[g]);
    };
    const auto finish = [&]() POOLGRAD_LAMBDA_INLINE {
        if constexpr (Detect) {
            auto sum = detector[0];
            for (int g = 1; g < Group; ++g) sum = hn::Add(sum, detector[g]);
            return hn::AllFalse(d, hn::IsNaN(sum));
        } else {
            return true;
        }
    };
    // Windows two columns wide at stride 2 (2x2 and 2x2x2 pooling): each row is one pair of taps for every chunk,
    // visited without the general walk's branches; the two labels are made once per row for all the chunks.
#if HWY_TARGET != HWY_SCALAR
    if constexpr (Access == ColumnAccess::EvenOfPairs) {
        if (row.kernelWidth == 2 && row.dilation == 1) {
            for (int64_t r = 0; r < rowCount; ++r) {
                const Source *rowStart = rowStarts[r];
                const int64_t offset = rowOffsets[r];
                for (int g = 0; g < Group; ++g) {
                    const Source *at = rowStart + firstColumns[g];
                    visit(g, columnsInSearchOrder<false>(d, at), offset);
                    visit(g, columnsInSearchOrder<true>(d, at), offset + 1);
                }
            }
            return finish();
        }
    }
#endif
    for (int64_t r = 0; r < rowCount; ++r) {
        const Source *rowStart = rowStarts[r];
        for (int64_t j = 0; j < row.kernelWidth; ++j) {
            const int64_t offset = rowOffsets[r] + j * row.dilation;
            if constexpr (Access == ColumnAccess::Contiguous) {
                for (int g = 0; g < Group; ++g)
                    visit(g, loadColumns(d, rowStart + firstColumns[g] + j * row.dilation), offset);
            } else if constexpr (Access == ColumnAccess::EvenOfPairs) {
#if HWY_TARGET != HWY_SCALAR
                const bool pairs = row.dilation == 1 && j + 1 < row.kernelWidth;  // odd columns: the next tap
                for (int g = 0; g < Group; ++g) {
                    const Source *at = rowStart + firstColumns[g] + j * row.dilation;
                    visit(g, columnsInSearchOrder<false>(d, at), offset);
                    if (pairs) visit(g, columnsInSearchOrder<true>(d, at), offset + 1);
                }
                if (pairs) ++j;
#endif
            } else {
                for (int g = 0; g < Group; ++g)
                    visit(g, gatherColumns(d, di, rowStart + firstColumns[g] + j * row.dilation, laneColumns), offset);
            }
        }
    }
    return finish();
}

// Winners stored as the rows' type: float32 as they are; bfloat16 narrowed back (exact: they were widened by
// a shift), whole vectors only where the target narrows in vectors.
template <class Source>
constexpr bool storesWhole() {
    return std::is_same_v<Source, float> || HWY_TARGET != HWY_SCALAR;
}
template <class D>
HWY_INLINE void storeValues(D d, hn::Vec<D> values, float *HWY_RESTRICT at, bool streaming) {
    storeVector(d, values, at, streaming);
}
template <class D>
HWY_INLINE void storeValues(D d, hn::Vec<D> values, uint16_t *HWY_RESTRICT at, bool streaming) {
    const hn::Rebind<uint16_t, D> d16;
    hn::Vec<decltype(d16)> bits;
    if (narrowSixteenBitExactly<false>(d, values, bits)) storeVector(d16, bits, at, streaming);
}
template <class Source>
HWY_INLINE Source narrowedFrom(float value) {
    if constexpr (std::is_same_v<Source, float>)
        return value;
    else
    {
        uint32_t bits;
        std::memcpy(&bits, &value, sizeof bits);
        return static_cast<uint16_t>(bits >> 16);
    }
}

// What a row search knows of NaNs: nothing (the fast search detects them and the chunks that saw one are
// searched again with the NaN rule), none (the rows were checked while they were copied), or some (the NaN
// rule at once).
enum class NanKnowledge { Unknown, None, Some };

// Searches the chunks starting at outputs starts[g] and writes their outputs (`count` each: fewer than a
// vector only in a row shorter than one).
template <ColumnAccess Access, NanKnowledge Nans, bool WithIndices, int Group, class Source, class D, class DI>
HWY_INLINE void runChunks(D d, DI di, const WindowRow &row, const Source *const *HWY_RESTRICT rowStarts,
                          const int32_t *HWY_RESTRICT rowOffsets, int64_t rowCount, const int64_t (&starts)[Group],
                          hn::Vec<DI> laneColumns, int64_t count, Source *HWY_RESTRICT values,
                          int32_t *HWY_RESTRICT indices32, int64_t *HWY_RESTRICT indices64, bool streaming) {
    int64_t firstColumns[Group];
    for (int g = 0; g < Group; ++g) firstColumns[g] = row.origin + starts[g] * row.stride;
    hn::Vec<D> best[Group];
    hn::Vec<DI> relative[Group];
    const bool searched = Nans != NanKnowledge::Some &&
                          searchChunks<Access, false, Nans == NanKnowledge::Unknown, WithIndices, Group>(
                              d, di, row, rowStarts, rowOffsets, rowCount, firstColumns, laneColumns, best, relative);
    if (!searched)
        searchChunks<Access, true, false, WithIndices, Group>(d, di, row, rowStarts, rowOffsets, rowCount, firstColumns,
                                                              laneColumns, best, relative);
#if HWY_TARGET != HWY_SCALAR
    if constexpr (Access == ColumnAccess::EvenOfPairs) {
        for (int g = 0; g < Group; ++g) {
            best[g] = inWindowOrder<Source>(best[g]);
            relative[g] = inWindowOrder<Source>(relative[g]);
        }
    }
#endif
    for (int g = 0; g < Group; ++g) {
        const auto index =
            hn::Add(relative[g], hn::Add(laneColumns, hn::Set(di, static_cast<int32_t>(firstColumns[g]))));
        const int64_t at = starts[g];
        if (count == static_cast<int64_t>(hn::Lanes(d)) && storesWhole<Source>()) {
            storeValues(d, best[g], values + at, streaming);
            if constexpr (WithIndices)
                storeInt32Lanes(di, index, indices32 ? indices32 + at : nullptr, indices64 ? indices64 + at : nullptr,
                                streaming);
            continue;
        }
        // A row shorter than a vector: through a buffer, so that nothing past the row is written.
        HWY_ALIGN_MAX float bestValues[kMaxLanes];
        HWY_ALIGN_MAX int32_t bestIndices[kMaxLanes];
        hn::Store(best[g], d, bestValues);
        hn::Store(index, di, bestIndices);
        for (int64_t i = 0; i < count; ++i) values[at + i] = narrowedFrom<Source>(bestValues[i]);
        for (int64_t i = 0; i < count && WithIndices; ++i) {
            if (indices32) indices32[at + i] = bestIndices[i];
            if (indices64) indices64[at + i] = bestIndices[i];
        }
    }
}

template <ColumnAccess Access, NanKnowledge Nans, bool WithIndices, class Source>
HWY_INLINE void argmaxRowWith(const WindowRow &row, const Source *const *HWY_RESTRICT rowStarts,
                              const int32_t *HWY_RESTRICT rowOffsets, int64_t rowCount, Source *HWY_RESTRICT values,
                              int32_t *HWY_RESTRICT indices32, int64_t *HWY_RESTRICT indices64, bool streaming) {
    const hn::ScalableTag<float> d;
    const hn::RebindToSigned<decltype(d)> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const auto laneColumns = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<int32_t>(row.stride)));
    const int64_t count = std::min(lanes, row.outputs);
    // Chunks start every `lanes` outputs; the last moves back to end at the row's end (windows searched
    // twice agree).
    const int64_t chunks = (row.outputs + lanes - 1) / lanes, lastStart = std::max<int64_t>(row.outputs - lanes, 0);
    const auto startOf = [&](int64_t chunk) { return std::min(chunk * lanes, lastStart); };
    int64_t c = 0;
    for (; c + 4 <= chunks; c += 4)
        runChunks<Access, Nans, WithIndices, 4>(d, di, row, rowStarts, rowOffsets, rowCount,
                                                {startOf(c), startOf(c + 1), startOf(c + 2), startOf(c + 3)},
                                                laneColumns, count, values, indices32, indices64, streaming);
    for (; c + 2 <= chunks; c += 2)
        runChunks<Access, Nans, WithIndices, 2>(d, di, row, rowStarts, rowOffsets, rowCount,
                                                {startOf(c), startOf(c + 1)}, laneColumns, count, values, indices32,
                                                indices64, streaming);
    if (c < chunks)
        runChunks<Access, Nans, WithIndices, 1>(d, di, row, rowStarts, rowOffsets, rowCount, {startOf(c)}, laneColumns,
                                                count, values, indices32, indices64, streaming);
}

template <NanKnowledge Nans, bool WithIndices, class Source>
HWY_INLINE void argmaxRowIndices(const WindowRow &row, const Source *const *HWY_RESTRICT rowStarts,
                                 const int32_t *HWY_RESTRICT rowOffsets, int64_t rowCount, Source *HWY_RESTRICT values,
                                 int32_t *HWY_RESTRICT indices32, int64_t *HWY_RESTRICT indices64, bool streaming) {
#if HWY_TARGET != HWY_SCALAR
    if (row.stride == 2) {
        argmaxRowWith<ColumnAccess::EvenOfPairs, Nans, WithIndices>(row, rowStarts, rowOffsets, rowCount, values,
                                                                    indices32, indices64, streaming);
        return;
    }
#endif
    if (row.stride == 1)
        argmaxRowWith<ColumnAccess::Contiguous, Nans, WithIndices>(row, rowStarts, rowOffsets, rowCount, values,
                                                                   indices32, indices64, streaming);
    else
        argmaxRowWith<ColumnAccess::Gathered, Nans, WithIndices>(row, rowStarts, rowOffsets, rowCount, values,
                                                                 indices32, indices64, streaming);
}

template <NanKnowledge Nans, class Source>
HWY_INLINE void argmaxRowNans(const WindowRow &row, const Source *const *HWY_RESTRICT rowStarts,
                              const int32_t *HWY_RESTRICT rowOffsets, int64_t rowCount, Source *HWY_RESTRICT values,
                              int32_t *HWY_RESTRICT indices32, int64_t *HWY_RESTRICT indices64,
                              bool streaming = false) {
    if (indices32 || indices64)
        argmaxRowIndices<Nans, true>(row, rowStarts, rowOffsets, rowCount, values, indices32, indices64, streaming);
    else
        argmaxRowIndices<Nans, false>(row, rowStarts, rowOffsets, rowCount, values, nullptr, nullptr, streaming);
}

template <class Source>
HWY_INLINE void argmaxRowsInPlace(const WindowRow &row, const OutputRowRun &run, const Source **HWY_RESTRICT rowStarts,
                                  int32_t *HWY_RESTRICT rowOffsets, int64_t rowCount, Source *HWY_RESTRICT values,
                                  int32_t *HWY_RESTRICT indices32, int64_t *HWY_RESTRICT indices64) {
    for (int64_t k = 0; k < run.outputRows; ++k) {
        if (k > 0) {
            for (int64_t r = 0; r < rowCount; ++r) {
                rowStarts[r] += run.inputRowStep;
                rowOffsets[r] += static_cast<int32_t>(run.inputRowStep);
            }
            values += run.outputStep;
            if (indices32) indices32 += run.outputStep;
            if (indices64) indices64 += run.outputStep;
        }
        argmaxRowNans<NanKnowledge::Unknown>(row, rowStarts, rowOffsets, rowCount, values, indices32, indices64,
                                             run.streaming);
    }
}

void ArgmaxWindowRowsInPlace(const WindowRow &row, const OutputRowRun &run, const float **HWY_RESTRICT rowStarts,
                             int32_t *HWY_RESTRICT rowOffsets, int64_t rowCount, float *HWY_RESTRICT values,
                             int32_t *HWY_RESTRICT indices32, int64_t *HWY_RESTRICT indices64) {
    argmaxRowsInPlace(row, run, rowStarts, rowOffsets, rowCount, values, indices32, indices64);
}

void ArgmaxWindowRowsInPlaceBFloat16(const WindowRow &row, const OutputRowRun &run,
                                     const uint16_t **HWY_RESTRICT rowStarts, int32_t *HWY_RESTRICT rowOffsets,
                                     int64_t rowCount, uint16_t *HWY_RESTRICT values, int32_t *HWY_RESTRICT indices32,
                                     int64_t *HWY_RESTRICT indices64) {
    argmaxRowsInPlace(row, run, rowStarts, rowOffsets, rowCount, values, indices32, indices64);
}

// Copies `width` floats (the last vector moves back to end at the row's end) and adds those it copied into sum:
// NaN when one was NaN (or +inf met -inf). The rows of an output row share one sum, reduced once.
template <class D>
HWY_INLINE void copyRow(D d, const float *HWY_RESTRICT source, float *HWY_RESTRICT destination, int64_t width,
                        hn::Vec<D> &sum) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    if (width < lanes) {
        float rowSum = 0;
        for (int64_t i = 0; i < width; ++i) rowSum += destination[i] = source[i];
        sum = hn::Add(sum, hn::Set(d, rowSum));
        return;
    }
    for (int64_t i = 0;; i += lanes) {
        i = std::min(i, width - lanes);
        const auto values = hn::LoadU(d, source + i);
        sum = hn::Add(sum, values);
        hn::StoreU(values, d, destination + i);
        if (i == width - lanes) return;
    }
}

void ArgmaxWindowRow(const WindowRow &row, const float **HWY_RESTRICT rowStarts, const int32_t *HWY_RESTRICT rowOffsets,
                     int64_t rowCount, float *HWY_RESTRICT paddedRows, int64_t paddedStride, float *HWY_RESTRICT values,
                     int32_t *HWY_RESTRICT indices32, int64_t *HWY_RESTRICT indices64) {
    // The copies tell whether the rows hold a NaN: the search then needs no detector of its own.
    const hn::ScalableTag<float> d;
    auto sum = hn::Zero(d);
    for (int64_t r = 0; r < rowCount; ++r) {
        float *copy = paddedRows + r * paddedStride;
        copyRow(d, rowStarts[r], copy, row.width, sum);
        rowStarts[r] = copy;
    }
    if (!hn::AllFalse(d, hn::IsNaN(sum)))
        argmaxRowNans<NanKnowledge::Some>(row, rowStarts, rowOffsets, rowCount, values, indices32, indices64);
    else
        argmaxRowNans<NanKnowledge::None>(row, rowStarts, rowOffsets, rowCount, values, indices32, indices64);
}

// Values only, windows 3 wide at stride 2: the max of each column over the window's rows first (one Max
// per row and column), then of three adjacent column maxima per window (even and odd columns split out of
// two vectors); about half the vector work of the search, which blends every tap of every window. Max does
// not keep the first of equal values, so bits may differ only where equal values differ in bits: -0 and +0,
// and NaNs. Rows holding either (a NaN shows in the sum of the values, as does +inf meeting -inf; -0 is the
// lowest bit pattern as a signed integer) return false and are left to the search.
bool MaxRowOfThreeWideStride2(const WindowRow &row, const float *const *HWY_RESTRICT rowStarts, int64_t rowCount,
                              float *HWY_RESTRICT columnMax, float *HWY_RESTRICT values) {
#if HWY_TARGET == HWY_SCALAR
    (void)row, (void)rowStarts, (void)rowCount, (void)columnMax, (void)values;
    return false;
#else
    const hn::ScalableTag<float> d;
    const hn::RebindToSigned<decltype(d)> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    if (rowCount < 1 || row.width < lanes || row.outputs < lanes) return false;
    auto detector = hn::Zero(d);
    auto lowestBits = hn::Set(di, std::numeric_limits<int32_t>::max());
    for (int64_t x = 0;; x += lanes) {
        x = std::min(x, row.width - lanes);  // the last vector moves back to end at the row's end
        auto column = hn::LoadU(d, rowStarts[0] + x);
        detector = hn::Add(detector, column);
        lowestBits = hn::Min(lowestBits, hn::BitCast(di, column));
        for (int64_t r = 1; r < rowCount; ++r) {
            const auto value = hn::LoadU(d, rowStarts[r] + x);
            detector = hn::Add(detector, value);
            lowestBits = hn::Min(lowestBits, hn::BitCast(di, value));
            column = hn::Max(column, value);
        }
        hn::StoreU(column, d, columnMax + x);
        if (x == row.width - lanes) break;
    }
    if (!hn::AllFalse(d, hn::IsNaN(detector)) ||
        !hn::AllFalse(di, hn::Eq(lowestBits, hn::Set(di, std::numeric_limits<int32_t>::min()))))
        return false;
    for (int64_t start = 0;; start += lanes) {
        start = std::min(start, row.outputs - lanes);
        const float *at = columnMax + row.origin + 2 * start;
        const auto low = hn::LoadU(d, at), high = hn::LoadU(d, at + lanes);
        const auto third = hn::ConcatEven(d, hn::LoadU(d, at + 2 + lanes), hn::LoadU(d, at + 2));
        hn::StoreU(hn::Max(hn::Max(hn::ConcatEven(d, high, low), hn::ConcatOdd(d, high, low)), third), d,
                   values + start);
        if (start == row.outputs - lanes) return true;
    }
#endif
}

template <bool kHalf>
HWY_INLINE void storeWinners(const float *HWY_RESTRICT values, const int32_t *HWY_RESTRICT indices,
                             const uint16_t *HWY_RESTRICT plane, uint16_t *HWY_RESTRICT outValues,
                             int32_t *HWY_RESTRICT outIndices32, int64_t *HWY_RESTRICT outIndices64, int64_t count) {
    const hn::ScalableTag<float> d;
    const hn::RebindToSigned<decltype(d)> di;
    const hn::Rebind<uint16_t, decltype(d)> d16;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    constexpr uint16_t kMinusInfinity = kHalf ? 0xfc00u : 0xff80u;  // an empty window's value
    const auto copyNamed = [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) outValues[i] = indices[i] >= 0 ? plane[indices[i]] : kMinusInfinity;
    };
    if (count < lanes) {
        copyNamed(0, count);
    } else {
        for (int64_t i = 0;; i += lanes) {
            i = std::min(i, count - lanes);  // the last vector moves back to end at the row's end
            hn::Vec<decltype(d16)> bits;
            if (narrowSixteenBitExactly<kHalf>(d, hn::LoadU(d, values + i), bits))
                hn::StoreU(bits, d16, outValues + i);
            else
                copyNamed(i, i + lanes);
            if (i == count - lanes) break;
        }
    }
    if (outIndices32) {
        std::memcpy(outIndices32, indices, static_cast<size_t>(count) * sizeof(int32_t));
    } else if (outIndices64) {
        int64_t i = 0;
        for (; i + lanes <= count; i += lanes)
            storeInt32Lanes(di, hn::LoadU(di, indices + i), nullptr, outIndices64 + i, false);
        for (; i < count; ++i) outIndices64[i] = indices[i];
    }
}

void StoreSixteenBitWinners(const float *HWY_RESTRICT values, const int32_t *HWY_RESTRICT indices,
                            const uint16_t *HWY_RESTRICT plane, uint16_t *HWY_RESTRICT outValues,
                            int32_t *HWY_RESTRICT outIndices32, int64_t *HWY_RESTRICT outIndices64, int64_t count,
                            bool half) {
    if (half)
        storeWinners<true>(values, indices, plane, outValues, outIndices32, outIndices64, count);
    else
        storeWinners<false>(values, indices, plane, outValues, outIndices32, outIndices64, count);
}

int64_t ArgmaxRowLanes() { return static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>())); }

// ------------------------------------------------------------------------------------------ channels-last

// Groups of channels searched together: two vectors (two independent compare-and-blend chains hide each
// other's latency), else one. Returns false when the fast search saw a NaN.
template <int Vectors, bool NanRule, class D, class DI>
HWY_INLINE bool searchChannels(D d, DI di, const float *const *HWY_RESTRICT inputRows,
                               const int32_t *HWY_RESTRICT labels, int64_t positions, int64_t c, hn::Vec<D> *best,
                               hn::Vec<DI> *winner) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    auto detector = hn::Zero(d);
    for (int v = 0; v < Vectors; ++v) {
        best[v] = hn::Set(d, -std::numeric_limits<float>::infinity());
        winner[v] = hn::Set(di, labels[0]);
    }
    for (int64_t p = 0; p < positions; ++p) {
        const auto label = hn::Set(di, labels[p]);
        for (int v = 0; v < Vectors; ++v) {
            const auto value = hn::LoadU(d, inputRows[p] + c + v * lanes);
            if constexpr (!NanRule) detector = hn::Add(detector, value);
            const auto take = takes<NanRule>(d, value, best[v]);
            best[v] = hn::IfThenElse(take, value, best[v]);
            winner[v] = hn::IfThenElse(hn::RebindMask(di, take), label, winner[v]);
        }
    }
    if constexpr (NanRule)
        return true;
    else
        return hn::AllFalse(d, hn::IsNaN(detector));
}

template <int Vectors, class D, class DI>
HWY_INLINE void channelGroup(D d, DI di, const float *const *HWY_RESTRICT inputRows, const int32_t *HWY_RESTRICT labels,
                             int64_t positions, int64_t c, float *HWY_RESTRICT values, int32_t *HWY_RESTRICT winners32,
                             int64_t *HWY_RESTRICT winners64, bool streaming) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    hn::Vec<D> best[Vectors];
    hn::Vec<DI> winner[Vectors];
    if (!searchChannels<Vectors, false>(d, di, inputRows, labels, positions, c, best, winner))
        searchChannels<Vectors, true>(d, di, inputRows, labels, positions, c, best, winner);
    for (int v = 0; v < Vectors; ++v) {
        const int64_t at = c + v * lanes;
        storeVector(d, best[v], values + at, streaming);
        storeInt32Lanes(di, winner[v], winners32 ? winners32 + at : nullptr, winners64 ? winners64 + at : nullptr,
                     streaming);
    }
}

void ArgmaxAcrossChannels(const float *const *HWY_RESTRICT inputRows, const int32_t *HWY_RESTRICT labels,
                          int64_t positions, float *HWY_RESTRICT values, int32_t *HWY_RESTRICT winners32,
                          int64_t *HWY_RESTRICT winners64, int64_t channels, bool streaming) {
    const hn::ScalableTag<float> d;
    const hn::RebindToSigned<decltype(d)> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    int64_t c = 0;
    for (; c + 2 * lanes <= channels; c += 2 * lanes)
        channelGroup<2>(d, di, inputRows, labels, positions, c, values, winners32, winners64, streaming);
    for (; c + lanes <= channels; c += lanes)
        channelGroup<1>(d, di, inputRows, labels, positions, c, values, winners32, winners64, streaming);
    for (; c < channels; ++c) {
        float best = -std::numeric_limits<float>::infinity();
        int32_t winner = labels[0];
        for (int64_t p = 0; p < positions; ++p) {
            const float value = inputRows[p][c];
            if (value > best || std::isnan(value)) {
                best = value;
                winner = labels[p];
            }
        }
        values[c] = best;
        if (winners32) winners32[c] = winner;
        if (winners64) winners64[c] = winner;
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(MaxRowOfThreeWideStride2);
HWY_EXPORT(ArgmaxWindowRow);
HWY_EXPORT(ArgmaxWindowRowsInPlace);
HWY_EXPORT(ArgmaxWindowRowsInPlaceBFloat16);
HWY_EXPORT(ArgmaxRowLanes);
HWY_EXPORT(StoreSixteenBitWinners);
HWY_EXPORT(ArgmaxAcrossChannels);

bool maxRowOfThreeWideStride2(const WindowRow &row, const float *const *rowStarts, int64_t rowCount, float *columnMax,
                              float *values) {
    return HWY_DYNAMIC_DISPATCH(MaxRowOfThreeWideStride2)(row, rowStarts, rowCount, columnMax, values);
}

void argmaxWindowRow(const WindowRow &row, const float **rowStarts, const int32_t *rowOffsets, int64_t rowCount,
                     float *paddedRows, int64_t paddedStride, float *values, int32_t *indices32, int64_t *indices64) {
    HWY_DYNAMIC_DISPATCH(ArgmaxWindowRow)
    (row, rowStarts, rowOffsets, rowCount, paddedRows, paddedStride, values, indices32, indices64);
}

void argmaxWindowRowsInPlace(const WindowRow &row, const OutputRowRun &run, const float **rowStarts,
                             int32_t *rowOffsets, int64_t rowCount, float *values, int32_t *indices32,
                             int64_t *indices64) {
    HWY_DYNAMIC_DISPATCH(ArgmaxWindowRowsInPlace)(row, run, rowStarts, rowOffsets, rowCount, values, indices32,
                                                  indices64);
}

void argmaxWindowRowsInPlaceBFloat16(const WindowRow &row, const OutputRowRun &run, const uint16_t **rowStarts,
                                     int32_t *rowOffsets, int64_t rowCount, uint16_t *values, int32_t *indices32,
                                     int64_t *indices64) {
    HWY_DYNAMIC_DISPATCH(ArgmaxWindowRowsInPlaceBFloat16)(row, run, rowStarts, rowOffsets, rowCount, values,
                                                          indices32, indices64);
}

int64_t argmaxRowLanes() { return HWY_DYNAMIC_DISPATCH(ArgmaxRowLanes)(); }

void storeSixteenBitWinners(const float *values, const int32_t *indices, const uint16_t *plane, uint16_t *outValues,
                            int32_t *outIndices32, int64_t *outIndices64, int64_t count, bool half) {
    HWY_DYNAMIC_DISPATCH(StoreSixteenBitWinners)
    (values, indices, plane, outValues, outIndices32, outIndices64, count, half);
}

void argmaxAcrossChannels(const float *const *inputRows, const int32_t *labels, int64_t positions, float *values,
                          int32_t *winners32, int64_t *winners64, int64_t channels, bool streaming) {
    HWY_DYNAMIC_DISPATCH(ArgmaxAcrossChannels)
    (inputRows, labels, positions, values, winners32, winners64, channels, streaming);
}

}  // namespace poolgrad::cpu
#endif
