// Highway implementation of the row helpers: one source compiled for every target Highway supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_rows.cpp"
#include "cpu/simd_rows.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/gradient_sum.h"
#include "cpu/bfloat16_hardware_rounding.h"
#include "cpu/lambda_inline.h"
#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: after highway.h
#include "cpu/simd_bfloat16-inl.h"
#include "cpu/simd_ordered_ops-inl.h"
#include "cpu/simd_store-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Streaming stores only whole 64-byte lines: the elements before the first line boundary and after the
// last one are stored plainly, and a line that took both kinds of store would be read from memory and
// flushed for each plain one (streamingStoresPay). The lines of a row shared with its neighbours thus take
// plain stores only.
constexpr uintptr_t kLineBytes = 64;

// The end of the whole lines of destination[begin, count) that start at begin (a line boundary).
template <typename T>
HWY_INLINE int64_t wholeLinesEnd(int64_t begin, int64_t count) {
    constexpr int64_t lineElements = static_cast<int64_t>(kLineBytes / sizeof(T));
    return begin + (count - begin) / lineElements * lineElements;
}

void StoreFloat32Row(const float *HWY_RESTRICT source, float *HWY_RESTRICT destination, int64_t count, bool streaming) {
    const hn::ScalableTag<float> d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    int64_t i = 0;
    if (streaming) {
        // Non-temporal stores need vector alignment (numpy, for one, aligns its buffers to 16 bytes only).
        while (i < count && reinterpret_cast<uintptr_t>(destination + i) % kLineBytes != 0) {
            destination[i] = source[i];
            ++i;
        }
        for (const int64_t end = wholeLinesEnd<float>(i, count); i + lanes <= end; i += lanes)
            streamStore(hn::LoadU(d, source + i), d, destination + i);
    }
    for (; i + lanes <= count; i += lanes) hn::StoreU(hn::LoadU(d, source + i), d, destination + i);
    for (; i < count; ++i) destination[i] = source[i];
}

// Stores count 16-bit values, Lanes(d16) at a time from convert(i) (the values for source[i..]), and one
// by one from scalar(i) where a vector does not fit. Streaming (whole lines, as above): a 16-bit gradInput is
// half the bytes of a float32 one, and without streaming each of its lines would also be read from memory
// before being overwritten.
template <class D16, class Convert, class Scalar>
HWY_INLINE void storeSixteenBitRow(D16 d16, uint16_t *HWY_RESTRICT destination, int64_t count, bool streaming,
                                   Convert convert, Scalar scalar) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d16));
    int64_t i = 0;
    if (streaming) {
        while (i < count && reinterpret_cast<uintptr_t>(destination + i) % kLineBytes != 0) {
            destination[i] = scalar(i);
            ++i;
        }
        for (const int64_t end = wholeLinesEnd<uint16_t>(i, count); i + lanes <= end; i += lanes)
            streamStore(convert(i), d16, destination + i);
    }
    for (; i + lanes <= count; i += lanes) hn::StoreU(convert(i), d16, destination + i);
    for (; i < count; ++i) destination[i] = scalar(i);
}

// bfloat16 rounded as CANN rounds (simd_bfloat16-inl.h): two vectors of sums make one full vector of
// bfloat16, by the CPU's instruction where it has one.
void StoreBFloat16Row(const float *HWY_RESTRICT source, uint16_t *HWY_RESTRICT destination, int64_t count,
                      bool streaming) {
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<float> df;
    const hn::Repartition<uint16_t, decltype(df)> d16;  // twice the lanes of df
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d16));
    const bool hardware = bfloat16HardwareRounding();
    storeSixteenBitRow(
        d16, destination, count, streaming,
        [&](int64_t i) {
            return BFloat16Pair(df, hn::LoadU(df, source + i), hn::LoadU(df, source + i + lanes / 2), hardware);
        },
        [&](int64_t i) { return fromFloat<BFloat16>(source[i]).bits; });
#else
    (void)streaming;
    for (int64_t i = 0; i < count; ++i) destination[i] = fromFloat<BFloat16>(source[i]).bits;
#endif
}

// These targets convert float16 in hardware (F16C / NEON) with IEEE rounding; older x86 targets would get
// Highway's emulation, which truncates, so they keep the scalar conversions.
#undef POOLGRAD_HARDWARE_FLOAT16
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || HWY_ARCH_ARM
#define POOLGRAD_HARDWARE_FLOAT16 1
#else
#define POOLGRAD_HARDWARE_FLOAT16 0
#endif

void StoreFloat16Row(const float *HWY_RESTRICT source, uint16_t *HWY_RESTRICT destination, int64_t count,
                     bool streaming) {
#if POOLGRAD_HARDWARE_FLOAT16
    const hn::ScalableTag<float> df;
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    const hn::Rebind<uint16_t, decltype(df)> d16;
    storeSixteenBitRow(
        d16, destination, count, streaming,
        [&](int64_t i) { return hn::BitCast(d16, hn::DemoteTo(dh, hn::LoadU(df, source + i))); },
        [&](int64_t i) { return fromFloat<Float16>(source[i]).bits; });
#else
    (void)streaming;
    for (int64_t i = 0; i < count; ++i) destination[i] = fromFloat<Float16>(source[i]).bits;
#endif
}

HWY_INLINE float quietFloat(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    return (bits & 0x7fffffffu) > 0x7f800000u ? std::bit_cast<float>(bits | 0x400000u) : value;
}

// Exact widening; a signalling NaN comes out quiet (the hardware's conversion sets the quiet bit, and so
// does the scalar path below), which changes nothing downstream: every use adds the value to a sum.
void WidenFloat16Row(const uint16_t *HWY_RESTRICT source, float *HWY_RESTRICT destination, int64_t count) {
    int64_t i = 0;
#if POOLGRAD_HARDWARE_FLOAT16
    const hn::ScalableTag<float> df;
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    for (; i + lanes <= count; i += lanes)
        hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t *>(source + i))), df,
                   destination + i);
#endif
    for (; i < count; ++i) destination[i] = quietFloat(toFloat(Float16{source[i]}));
}

void WidenBFloat16Row(const uint16_t *HWY_RESTRICT source, float *HWY_RESTRICT destination, int64_t count) {
    const hn::ScalableTag<uint32_t> d32;
    const hn::Rebind<uint16_t, decltype(d32)> d16;
    const hn::Rebind<float, decltype(d32)> df;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d32));
    int64_t i = 0;
    for (; i + lanes <= count; i += lanes)
        hn::StoreU(hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(d32, hn::LoadU(d16, source + i)))), df,
                   destination + i);
    for (; i < count; ++i) {
        const uint32_t bits = uint32_t{source[i]} << 16;
        std::memcpy(destination + i, &bits, sizeof bits);
    }
}

void AccumulateFirstMatches(const float *const *HWY_RESTRICT inputRows, float *const *HWY_RESTRICT sumRows,
                            int64_t positions, const float *HWY_RESTRICT target, const float *HWY_RESTRICT gradient,
                            int64_t channels) {
    const hn::ScalableTag<float> df;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    int64_t c = 0;
    for (; c + lanes <= channels; c += lanes) {
        const auto wanted = hn::LoadU(df, target + c);
        const auto contribution = hn::LoadU(df, gradient + c);
        auto unmatched = hn::FirstN(df, static_cast<size_t>(lanes));
        // No data-dependent branches: where the first match falls is random, and mispredicting it costs
        // more than the few extra loads and stores of a fixed schedule.
        for (int64_t p = 0; p < positions; ++p) {
            const auto hit = hn::And(unmatched, hn::Eq(hn::LoadU(df, inputRows[p] + c), wanted));
            // The vector addition may put either operand first, so NaN + NaN may keep either payload
            // (core/gradient_sum.h); a lane always takes this path, whatever the thread count, so the
            // bits are still the same on every run. Testing for NaN here cost about a tenth of the kernel.
            if (float *sums = sumRows[p])
                hn::StoreU(hn::Add(hn::LoadU(df, sums + c), hn::IfThenElseZero(hit, contribution)), df, sums + c);
            unmatched = hn::AndNot(hit, unmatched);
        }
    }
    for (; c < channels; ++c) {
        for (int64_t p = 0; p < positions; ++p) {
            if (!(inputRows[p][c] == target[c])) continue;
            if (sumRows[p]) sumRows[p][c] = addToSum(sumRows[p][c], gradient[c]);
            break;
        }
    }
}

// Loads lanes of a row at `column` + lane * stride: contiguous, the even half of an interleaved pair, or
// gathered.
enum class ColumnAccess { Contiguous, EvenOfPairs, Gathered };

template <ColumnAccess Access, class D, class VI>
HWY_INLINE hn::Vec<D> loadColumns(D d, const float *HWY_RESTRICT at, VI laneColumns) {
    if constexpr (Access == ColumnAccess::Contiguous) {
        return hn::LoadU(d, at);
    } else if constexpr (Access == ColumnAccess::EvenOfPairs) {
        hn::Vec<D> even, odd;
        hn::LoadInterleaved2(d, at, even, odd);
        return even;
    } else {
        return hn::GatherIndex(d, at, laneColumns);
    }
}

// Calls chunk(access, i) for chunks of `lanes` consecutive windows i.. of a row (window i starts at column
// firstColumn + i*stride and spans windowSpan columns), as far into [0, count) as vectors can go, and
// returns how many leading windows are done; the caller does the rest one by one. The last chunk moves
// back to end at `count` (windows searched twice give the same answer). Stride 2 uses de-interleaving
// loads, which read one column past a chunk's last window: chunks stop where that column would leave the
// row. Other strides gather.
template <class Chunk>
HWY_INLINE int64_t runChunks(int64_t count, int64_t lanes, int64_t stride, int64_t firstColumn, int64_t windowSpan,
                             int64_t width, const Chunk &chunk) {
    if (count < lanes) return 0;
    int64_t lastStart = count - lanes;
    bool pairs = stride == 2;
    if (pairs) {
        const int64_t slack = width - firstColumn - windowSpan + 1 - 2 * lanes;  // 2*start may not exceed it
        pairs = slack >= 0;
        if (pairs) lastStart = std::min(lastStart, slack / 2);
    }
    for (int64_t i = 0;; i += lanes) {
        i = std::min(i, lastStart);
        if (stride == 1)
            chunk(std::integral_constant<ColumnAccess, ColumnAccess::Contiguous>{}, i);
        else if (pairs)
            chunk(std::integral_constant<ColumnAccess, ColumnAccess::EvenOfPairs>{}, i);
        else
            chunk(std::integral_constant<ColumnAccess, ColumnAccess::Gathered>{}, i);
        if (i == lastStart) return i + lanes;
    }
}

// Window widths up to this are searched by code made for the width: the taps of a row fully unrolled (a loop
// over them cost more instructions than the compares themselves: I3-v3's 3x3 search ran at a quarter of the
// compares' throughput).
constexpr int64_t kFirstMatchFixedWidths = 7;

template <ColumnAccess Access, int64_t kFixedWidth, class D, class DI>
HWY_INLINE void firstMatchChunk(D d, DI di, const float *HWY_RESTRICT plane, int64_t width, int64_t firstRow,
                                int64_t rowCount, int64_t chunkColumn, int64_t runtimeKernelWidth,
                                const float *HWY_RESTRICT targets, int32_t *HWY_RESTRICT positions,
                                hn::Vec<DI> laneColumns) {
    const int64_t kernelWidth = kFixedWidth > 0 ? kFixedWidth : runtimeKernelWidth;
    // Scanned backwards: the last match seen is then the first in scan order, and no lane has to
    // remember that it already matched.
    const auto wanted = hn::LoadU(d, targets);
    const auto one = hn::Set(di, 1);
    auto found = hn::Set(di, -1);
    for (int64_t r = firstRow + rowCount - 1; r >= firstRow; --r) {
        const float *at = plane + r * width + chunkColumn;
        auto flat = hn::Add(laneColumns, hn::Set(di, static_cast<int32_t>(r * width + chunkColumn + kernelWidth - 1)));
        const auto visit = [&](hn::Vec<D> values) {
            found = hn::IfThenElse(hn::RebindMask(di, hn::Eq(values, wanted)), flat, found);
            flat = hn::Sub(flat, one);
        };
        if constexpr (Access == ColumnAccess::EvenOfPairs) {
            // One de-interleaving load serves columns j (even lanes) and j + 1 (odd lanes).
            const int64_t lastPair = (kernelWidth - 1) / 2 * 2;
            for (int64_t j = lastPair; j >= 0; j -= 2) {
                hn::Vec<D> even, odd;
                hn::LoadInterleaved2(d, at + j, even, odd);
                if (j + 1 < kernelWidth) visit(odd);
                visit(even);
            }
        } else {
            for (int64_t j = kernelWidth - 1; j >= 0; --j) visit(loadColumns<Access>(d, at + j, laneColumns));
        }
    }
    hn::StoreU(found, di, positions);
}

// 0, 1, 2, ...: lane numbers, from a table where the vector fits (Highway 1.0's Iota builds its vector with a
// store per lane and a load that waits for them, once per call here: a row's search).
HWY_ALIGN constexpr int32_t kRowLaneNumbers[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
template <class DI>
HWY_INLINE hn::Vec<DI> laneNumbers(DI di) {
    if constexpr (hn::MaxLanes(DI()) <= 16)
        return hn::Load(di, kRowLaneNumbers);
    else
        return hn::Iota(di, 0);
}

template <int64_t kFixedWidth, class D, class DI>
HWY_INLINE int64_t firstMatchChunks(D df, DI di, const float *HWY_RESTRICT plane, int64_t width, int64_t firstRow,
                                    int64_t rowCount, int64_t firstColumn, int64_t stride, int64_t kernelWidth,
                                    const float *HWY_RESTRICT targets, int32_t *HWY_RESTRICT positions, int64_t count) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    const auto laneColumns = hn::Mul(laneNumbers(di), hn::Set(di, static_cast<int32_t>(stride)));
    return runChunks(count, lanes, stride, firstColumn, kernelWidth, width, [&](auto access, int64_t start) {
        constexpr ColumnAccess kAccess = decltype(access)::value;
        // Gathered columns (strides above 2) keep the loop over the taps: a gather outweighs the loop, and clang 14
        // crashed compiling the unrolled gathers with debug information under the sanitizers.
        constexpr int64_t kWidth = kAccess == ColumnAccess::Gathered ? 0 : kFixedWidth;
        firstMatchChunk<kAccess, kWidth>(df, di, plane, width, firstRow, rowCount, firstColumn + start * stride,
                                         kernelWidth, targets + start, positions + start, laneColumns);
    });
}

void FirstMatchPositions(const float *HWY_RESTRICT plane, int64_t width, int64_t firstRow, int64_t rowCount,
                         int64_t firstColumn, int64_t stride, int64_t kernelWidth, const float *HWY_RESTRICT targets,
                         int32_t *HWY_RESTRICT positions, int64_t count) {
    const hn::ScalableTag<float> df;
    const hn::RebindToSigned<decltype(df)> di;
    const auto chunks = [&]<int64_t kFixedWidth>() POOLGRAD_LAMBDA_INLINE {
        return firstMatchChunks<kFixedWidth>(df, di, plane, width, firstRow, rowCount, firstColumn, stride,
                                             kernelWidth, targets, positions, count);
    };
    // The code made for the width, or (0) the one with a loop over the taps.
    static_assert(kFirstMatchFixedWidths == 7);
    int64_t i;
    switch (kernelWidth) {
        case 2:
            i = chunks.template operator()<2>();
            break;
        case 3:
            i = chunks.template operator()<3>();
            break;
        case 4:
            i = chunks.template operator()<4>();
            break;
        case 5:
            i = chunks.template operator()<5>();
            break;
        case 6:
            i = chunks.template operator()<6>();
            break;
        case 7:
            i = chunks.template operator()<7>();
            break;
        default:
            i = chunks.template operator()<0>();
            break;
    }
    for (; i < count; ++i) {
        positions[i] = -1;
        const int64_t column = firstColumn + i * stride;
        for (int64_t r = firstRow; r < firstRow + rowCount && positions[i] < 0; ++r)
            for (int64_t j = 0; j < kernelWidth; ++j)
                if (plane[r * width + column + j] == targets[i]) {
                    positions[i] = static_cast<int32_t>(r * width + column + j);
                    break;
                }
    }
}

// 3x3 windows at stride 1 (firstMatchPositionsThreeByThree): each tap one compare and one select of the tap's
// offset from the window's first element, scanned backwards so that the last match seen is the first in scan
// order; the window's own position is added once at the end. The general search adds a vector a tap to walk its
// positions and goes through a chunk walker per vector: on I3-v3's 56x56 planes it took 19 cycles a vector.
void FirstMatchPositionsThreeByThree(const float *HWY_RESTRICT windowRows, int64_t rowLength, int32_t firstPosition,
                                     const float *HWY_RESTRICT targets, int32_t *HWY_RESTRICT positions,
                                     int64_t count) {
    const hn::CappedTag<float, kThreeByThreeMostLanes> df;
    const hn::RebindToSigned<decltype(df)> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    const float *HWY_RESTRICT top = windowRows;
    const float *HWY_RESTRICT middle = top + rowLength;
    const float *HWY_RESTRICT bottom = middle + rowLength;
    const int32_t rowStep = static_cast<int32_t>(rowLength);
    const auto tap = [&](int32_t row, int32_t column) { return hn::Set(di, row * rowStep + column); };
    const auto tap00 = tap(0, 0), tap01 = tap(0, 1), tap02 = tap(0, 2), tap10 = tap(1, 0), tap11 = tap(1, 1),
               tap12 = tap(1, 2), tap20 = tap(2, 0), tap21 = tap(2, 1), tap22 = tap(2, 2);
    const auto none = hn::Set(di, kThreeByThreeNoMatch);
    auto windowStart = hn::Add(laneNumbers(di), hn::Set(di, firstPosition));
    const auto step = hn::Set(di, static_cast<int32_t>(lanes));
    for (int64_t i = 0; i < count; i += lanes, windowStart = hn::Add(windowStart, step)) {
        const int64_t left = count - i;
        // A last partial vector reads only its own targets (the row may end the tensor); its other lanes
        // search too, but are never stored.
        const auto wanted = left >= lanes
                                ? hn::LoadU(df, targets + i)
                                : MaskedLoadUnaligned(hn::FirstN(df, static_cast<size_t>(left)), df, targets + i);
        auto found = none;
        const auto visit = [&](const float *HWY_RESTRICT at, hn::Vec<decltype(di)> offset) POOLGRAD_LAMBDA_INLINE {
            found = hn::IfThenElse(hn::RebindMask(di, hn::Eq(hn::LoadU(df, at), wanted)), offset, found);
        };
        visit(bottom + i + 2, tap22);
        visit(bottom + i + 1, tap21);
        visit(bottom + i, tap20);
        visit(middle + i + 2, tap12);
        visit(middle + i + 1, tap11);
        visit(middle + i, tap10);
        visit(top + i + 2, tap02);
        visit(top + i + 1, tap01);
        visit(top + i, tap00);
        const auto position = hn::Add(found, windowStart);
        if (left >= lanes)
            hn::StoreU(position, di, positions + i);
        else
            storeFirstLanes(di, position, positions + i, static_cast<size_t>(left));
    }
}

template <ColumnAccess Access, class D, class DI>
HWY_INLINE void argmaxChunk(D d, DI di, const float *HWY_RESTRICT plane, int64_t width,
                            const int64_t *HWY_RESTRICT rowIndices, int64_t rowCount, int64_t chunkColumn,
                            int64_t kernelWidth, int64_t dilation, float *HWY_RESTRICT values,
                            int32_t *HWY_RESTRICT indices, hn::Vec<DI> laneColumns) {
    auto best = hn::Set(d, -std::numeric_limits<float>::infinity());
    auto bestIndex = hn::Set(di, rowCount > 0 ? static_cast<int32_t>(rowIndices[0] * width + chunkColumn) : -1);
    if (rowCount > 0) bestIndex = hn::Add(bestIndex, laneColumns);
    for (int64_t r = 0; r < rowCount; ++r) {
        const int64_t rowStart = rowIndices[r] * width + chunkColumn;
        const float *at = plane + rowStart;
        const auto visit = [&](hn::Vec<D> value, int64_t j) {
            const auto take = hn::Or(hn::Gt(value, best), hn::IsNaN(value));
            best = hn::IfThenElse(take, value, best);
            const auto flat = hn::Add(laneColumns, hn::Set(di, static_cast<int32_t>(rowStart + j * dilation)));
            bestIndex = hn::IfThenElse(hn::RebindMask(di, take), flat, bestIndex);
        };
        if (Access == ColumnAccess::EvenOfPairs && dilation == 1) {
            // One de-interleaving load serves columns j (even lanes) and j + 1 (odd lanes).
            for (int64_t j = 0; j < kernelWidth; j += 2) {
                hn::Vec<D> even, odd;
                hn::LoadInterleaved2(d, at + j, even, odd);
                visit(even, j);
                if (j + 1 < kernelWidth) visit(odd, j + 1);
            }
        } else {
            for (int64_t j = 0; j < kernelWidth; ++j) visit(loadColumns<Access>(d, at + j * dilation, laneColumns), j);
        }
    }
    hn::StoreU(best, d, values);
    hn::StoreU(bestIndex, di, indices);
}

void ArgmaxWindows(const float *HWY_RESTRICT plane, int64_t width, const int64_t *HWY_RESTRICT rowIndices,
                   int64_t rowCount, int64_t firstColumn, int64_t stride, int64_t kernelWidth, int64_t dilation,
                   float *HWY_RESTRICT values, int32_t *HWY_RESTRICT indices, int64_t count) {
    const hn::ScalableTag<float> df;
    const hn::RebindToSigned<decltype(df)> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    const auto laneColumns = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<int32_t>(stride)));
    const int64_t windowSpan = (kernelWidth - 1) * dilation + 1;
    int64_t i = runChunks(count, lanes, stride, firstColumn, windowSpan, width, [&](auto access, int64_t start) {
        argmaxChunk<decltype(access)::value>(df, di, plane, width, rowIndices, rowCount, firstColumn + start * stride,
                                             kernelWidth, dilation, values + start, indices + start, laneColumns);
    });
    for (; i < count; ++i) {
        const int64_t column = firstColumn + i * stride;
        float best = -std::numeric_limits<float>::infinity();
        int64_t bestIndex = rowCount > 0 ? rowIndices[0] * width + column : -1;
        for (int64_t r = 0; r < rowCount; ++r)
            for (int64_t j = 0; j < kernelWidth; ++j) {
                const int64_t flat = rowIndices[r] * width + column + j * dilation;
                const float value = plane[flat];
                if (value > best || std::isnan(value)) {
                    best = value;
                    bestIndex = flat;
                }
            }
        values[i] = best;
        indices[i] = static_cast<int32_t>(bestIndex);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(StoreFloat32Row);
HWY_EXPORT(StoreBFloat16Row);
HWY_EXPORT(StoreFloat16Row);
HWY_EXPORT(WidenFloat16Row);
HWY_EXPORT(WidenBFloat16Row);
HWY_EXPORT(AccumulateFirstMatches);
HWY_EXPORT(FirstMatchPositions);
HWY_EXPORT(FirstMatchPositionsThreeByThree);
HWY_EXPORT(ArgmaxWindows);

void argmaxWindows(const float *plane, int64_t width, const int64_t *rowIndices, int64_t rowCount, int64_t firstColumn,
                   int64_t stride, int64_t kernelWidth, int64_t dilation, float *values, int32_t *indices,
                   int64_t count) {
    HWY_DYNAMIC_DISPATCH(ArgmaxWindows)
    (plane, width, rowIndices, rowCount, firstColumn, stride, kernelWidth, dilation, values, indices, count);
}

void firstMatchPositions(const float *plane, int64_t width, int64_t firstRow, int64_t rowCount, int64_t firstColumn,
                         int64_t stride, int64_t kernelWidth, const float *targets, int32_t *positions, int64_t count) {
    HWY_DYNAMIC_DISPATCH(FirstMatchPositions)
    (plane, width, firstRow, rowCount, firstColumn, stride, kernelWidth, targets, positions, count);
}

void firstMatchPositionsThreeByThree(const float *windowRows, int64_t rowLength, int32_t firstPosition,
                                     const float *targets, int32_t *positions, int64_t count) {
    HWY_DYNAMIC_DISPATCH(FirstMatchPositionsThreeByThree)
    (windowRows, rowLength, firstPosition, targets, positions, count);
}

void accumulateFirstMatches(const float *const *inputRows, float *const *sumRows, int64_t positions,
                            const float *target, const float *gradient, int64_t channels) {
    HWY_DYNAMIC_DISPATCH(AccumulateFirstMatches)(inputRows, sumRows, positions, target, gradient, channels);
}

void storeFloatRow(ElementType type, const float *source, void *destination, int64_t count, bool streaming) {
    switch (type) {
        case ElementType::Float16:
            HWY_DYNAMIC_DISPATCH(StoreFloat16Row)(source, static_cast<uint16_t *>(destination), count, streaming);
            return;
        case ElementType::BFloat16:
            HWY_DYNAMIC_DISPATCH(StoreBFloat16Row)(source, static_cast<uint16_t *>(destination), count, streaming);
            return;
        default:
            HWY_DYNAMIC_DISPATCH(StoreFloat32Row)(source, static_cast<float *>(destination), count, streaming);
            return;
    }
}

void widenFloat16Row(const uint16_t *source, float *destination, int64_t count) {
    HWY_DYNAMIC_DISPATCH(WidenFloat16Row)(source, destination, count);
}

void widenBFloat16Row(const uint16_t *source, float *destination, int64_t count) {
    HWY_DYNAMIC_DISPATCH(WidenBFloat16Row)(source, destination, count);
}

void streamingStoreFence() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_sfence();
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

}  // namespace poolgrad::cpu
#endif
