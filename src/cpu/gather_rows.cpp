// Highway implementation of gather_rows.h: one source compiled for every target Highway supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/gather_rows.cpp"
#include "cpu/gather_rows.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// Per target, after highway.h:
#include "cpu/gather_sixteen_bit-inl.h"
#include "cpu/lambda_inline.h"
#include "cpu/simd_match_count-inl.h"
#include "cpu/simd_ordered_ops-inl.h"
#include "cpu/simd_store-inl.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

int64_t GatherLaneCount() { return static_cast<int64_t>(hn::Lanes(hn::CappedTag<float, 16>())); }

// The first `count` (fewer than all) indices at `row`; the lanes past them -1, which matches no position.
template <class DI>
HWY_INLINE hn::Vec<DI> LoadTailIndices(DI di, const int32_t *HWY_RESTRICT row, size_t count) {
    const auto present = hn::FirstN(di, count);
    return hn::IfThenElse(present, MaskedLoadUnaligned(present, di, row), hn::Set(di, -1));
}

// kRows consecutive float32 input rows (1 or 2) from their one candidate output row (indexRow/gradientRow;
// null: no window reaches the rows, whose sums are then +0); adds each lane's matches (as -1s) to
// matchCount. Two rows of one window height share the loads and lane permutations of their output row.
template <int kRows, class DF, class DI>
HWY_INLINE void GatherFloatRows(DF df, DI di, const GatherWidthTables &tables, const int32_t *HWY_RESTRICT indexRow,
                                const float *gradientRow, int32_t rowStart, float *HWY_RESTRICT destination,
                                bool streaming, hn::Vec<DI> &matchCount) {
    static_assert(kRows == 1 || kRows == 2);
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    const int64_t width = tables.width;
    const uintptr_t vectorBytes = static_cast<uintptr_t>(lanes) * sizeof(float);
    // Table pointers in locals: the stores below may alias any memory as far as the compiler knows, and
    // it would reload them from the tables for every vector (that doubled the time of case A).
    const int32_t *HWY_RESTRICT columns = tables.columns.data();
    const uint64_t *HWY_RESTRICT masks = tables.laneMask.data();
    const int32_t *HWY_RESTRICT firstOutputs = tables.firstOutput.data();
    const int32_t *HWY_RESTRICT readables = tables.readable.data();
    const int32_t *HWY_RESTRICT offsets = tables.laneOffset.data();
    const int32_t *HWY_RESTRICT gradientBits = reinterpret_cast<const int32_t *>(gradientRow);
    const int64_t pairChunks = indexRow == nullptr ? 0 : tables.pairChunks, blocks = tables.blocks;
    const int64_t pairTail = indexRow == nullptr ? 0 : tables.pairTail;
    // The lanes' columns come from the tables: Iota builds its vector through memory, and a vector load
    // right after 16 scalar stores waits for them (once per row, it made the kernel several times slower).
    const auto rowStartVector = hn::Set(di, rowStart);
    const auto nextRow = hn::Set(di, static_cast<int32_t>(width));
    const auto zero = hn::Zero(df);
    const auto store = [&](hn::Vec<DF> sums, float *at) {
        if (streaming && reinterpret_cast<uintptr_t>(at) % vectorBytes == 0)
            streamStore(sums, df, at);
        else
            hn::StoreU(sums, df, at);
    };
    auto count = matchCount;
    int64_t firstBlock = 0;
    if (pairChunks > 0 || pairTail > 0) {
        // Lanes of the lower (upper) half of a chunk's 2*lanes columns take outputs i/2 (lanes/2 + i/2):
        // indices and gradients are spread to them once and compared with each row's positions.
        const auto lowerEvenColumns = hn::LoadU(di, columns), upperEvenColumns = hn::LoadU(di, columns + lanes);
        const auto lowerPairs = hn::SetTableIndices(di, tables.lowerPairs.data());
        const auto upperPairs = hn::SetTableIndices(di, tables.upperPairs.data());
        for (int64_t chunk = 0; chunk < pairChunks; ++chunk) {
            const int64_t firstOutput = chunk * lanes, column = 2 * firstOutput;
            const auto indices = hn::LoadU(di, indexRow + firstOutput);
            // One window per element: the sum is +0 + gradient (a -0 gradient arrives as +0, a signalling NaN
            // quiet, as in the scatter's sum from +0) or +0.
            const auto sums =
                hn::BitCast(di, hn::Add(zero, hn::BitCast(df, hn::LoadU(di, gradientBits + firstOutput))));
            const auto lowerIndices = hn::TableLookupLanes(indices, lowerPairs);
            const auto upperIndices = hn::TableLookupLanes(indices, upperPairs);
            const auto lowerSums = hn::TableLookupLanes(sums, lowerPairs);
            const auto upperSums = hn::TableLookupLanes(sums, upperPairs);
            auto chunkStart = hn::Set(di, static_cast<int32_t>(rowStart + column));
            const auto lowerFirst = hn::Eq(lowerIndices, hn::Add(lowerEvenColumns, chunkStart));
            const auto upperFirst = hn::Eq(upperIndices, hn::Add(upperEvenColumns, chunkStart));
            store(hn::BitCast(df, hn::IfThenElseZero(lowerFirst, lowerSums)), destination + column);
            store(hn::BitCast(df, hn::IfThenElseZero(upperFirst, upperSums)), destination + column + lanes);
            if constexpr (kRows == 2) {
                // A lane's output matches one position at most: in this row or the next.
                chunkStart = hn::Add(chunkStart, nextRow);
                const auto lowerSecond = hn::Eq(lowerIndices, hn::Add(lowerEvenColumns, chunkStart));
                const auto upperSecond = hn::Eq(upperIndices, hn::Add(upperEvenColumns, chunkStart));
                store(hn::BitCast(df, hn::IfThenElseZero(lowerSecond, lowerSums)), destination + width + column);
                store(hn::BitCast(df, hn::IfThenElseZero(upperSecond, upperSums)),
                      destination + width + column + lanes);
                count = hn::Add(hn::Add(count, hn::VecFromMask(di, hn::Or(lowerFirst, lowerSecond))),
                                hn::VecFromMask(di, hn::Or(upperFirst, upperSecond)));
            } else {
                count = hn::Add(hn::Add(count, hn::VecFromMask(di, lowerFirst)), hn::VecFromMask(di, upperFirst));
            }
        }
        firstBlock = 2 * pairChunks;
        if (pairTail > 0) {
            // The last outputs, fewer than lanes: absent ones read as index -1 (matching nothing), and only the
            // 2 * tail columns they make are stored.
            const size_t tail = static_cast<size_t>(pairTail);
            const int64_t firstOutput = pairChunks * lanes, column = 2 * firstOutput;
            const auto present = hn::FirstN(di, tail);
            const auto indices = LoadTailIndices(di, indexRow + firstOutput, tail);
            const auto sums = hn::BitCast(
                di, hn::Add(zero, hn::BitCast(df, MaskedLoadUnaligned(present, di, gradientBits + firstOutput))));
            const auto lowerIndices = hn::TableLookupLanes(indices, lowerPairs);
            const auto upperIndices = hn::TableLookupLanes(indices, upperPairs);
            const auto lowerSums = hn::TableLookupLanes(sums, lowerPairs);
            const auto upperSums = hn::TableLookupLanes(sums, upperPairs);
            const size_t lowerColumns = std::min<size_t>(2 * tail, static_cast<size_t>(lanes));
            const size_t upperColumns = 2 * tail - lowerColumns;
            auto chunkStart = hn::Set(di, static_cast<int32_t>(rowStart + column));
            for (int row = 0; row < kRows; ++row, chunkStart = hn::Add(chunkStart, nextRow)) {
                const auto lowerMatch = hn::Eq(lowerIndices, hn::Add(lowerEvenColumns, chunkStart));
                const auto upperMatch = hn::Eq(upperIndices, hn::Add(upperEvenColumns, chunkStart));
                float *at = destination + row * width + column;
                storeFirstLanes(df, hn::BitCast(df, hn::IfThenElseZero(lowerMatch, lowerSums)), at, lowerColumns);
                if (upperColumns > 0)
                    storeFirstLanes(df, hn::BitCast(df, hn::IfThenElseZero(upperMatch, upperSums)), at + lanes,
                                    upperColumns);
                count = hn::Add(hn::Add(count, hn::VecFromMask(di, lowerMatch)), hn::VecFromMask(di, upperMatch));
            }
            firstBlock = blocks;
        }
    }
    for (int64_t block = firstBlock; block < blocks; ++block) {
        const int64_t column = block * lanes;
        auto sums = hn::Zero(di), laneIndices = hn::Zero(di);
        hn::Mask<DI> valid = hn::FirstN(di, 0);
        if (indexRow != nullptr) {
            const int32_t firstOutput = firstOutputs[block], readable = readables[block];
            hn::Vec<DI> indices, gradients;
            if (readable == lanes) {
                indices = hn::LoadU(di, indexRow + firstOutput);
                gradients = hn::LoadU(di, gradientBits + firstOutput);
            } else {
                const auto present = hn::FirstN(di, static_cast<size_t>(readable));
                indices = MaskedLoadUnaligned(present, di, indexRow + firstOutput);
                gradients = MaskedLoadUnaligned(present, di, gradientBits + firstOutput);
            }
            const auto permutation = hn::SetTableIndices(di, offsets + column);
            laneIndices = hn::TableLookupLanes(indices, permutation);
            sums = hn::BitCast(di, hn::Add(zero, hn::BitCast(df, hn::TableLookupLanes(gradients, permutation))));
            // Little-endian: the mask's first byte holds lanes 0-7.
            valid = hn::LoadMaskBits(di, reinterpret_cast<const uint8_t *>(masks + block));
        }
        auto position = hn::Add(hn::LoadU(di, columns + column), rowStartVector);
        for (int row = 0; row < kRows; ++row, position = hn::Add(position, nextRow)) {
            const auto match = hn::And(hn::Eq(laneIndices, position), valid);
            count = CountMatch(di, match, count);
            const auto rowSums = hn::BitCast(df, hn::IfThenElseZero(match, sums));
            float *at = destination + row * width + column;
            if (column + lanes <= width)
                store(rowSums, at);
            else
                hn::BlendedStore(rowSums, hn::FirstN(df, static_cast<size_t>(width - column)), df, at);
        }
    }
    matchCount = count;
}

// kRows consecutive 16-bit input rows (1 or 2) from the same candidate output row, as GatherOneFloatRow, on
// the gradients' bit patterns (SixteenBitSum): the indices' compares in int32 lanes, each gradient
// zero-extended into the lane of its output. Two rows of one window height share the loads, the lane
// permutations and the NaN/zero tests of their output row.
template <GatherValue kValue, int kRows, class DI>
HWY_INLINE void GatherSixteenBitRows(DI di, const GatherWidthTables &tables, const int32_t *HWY_RESTRICT indexRow,
                                     const uint16_t *gradientRow, int32_t rowStart, uint16_t *HWY_RESTRICT destination,
                                     bool streaming, hn::Vec<DI> &matchCount) {
    static_assert(kRows == 1 || kRows == 2);
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(di));
    const int64_t width = tables.width;
    const int32_t *HWY_RESTRICT columns = tables.columns.data();
    const uint64_t *HWY_RESTRICT masks = tables.laneMask.data();
    const int32_t *HWY_RESTRICT firstOutputs = tables.firstOutput.data();
    const int32_t *HWY_RESTRICT readables = tables.readable.data();
    const int32_t *HWY_RESTRICT offsets = tables.laneOffset.data();
    const int64_t pairChunks = indexRow == nullptr ? 0 : tables.pairChunks, blocks = tables.blocks;
    const int64_t pairTail = indexRow == nullptr ? 0 : tables.pairTail;
    const SixteenBitSum<kValue, DI> sumOf(di);
    const auto rowStartVector = hn::Set(di, rowStart);
    const auto nextRow = hn::Set(di, static_cast<int32_t>(width));
    auto count = matchCount;
    int64_t firstBlock = 0;
#if HWY_TARGET != HWY_SCALAR  // one lane: never pairs
    if (pairChunks > 0 || pairTail > 0) {
        const hn::Repartition<uint16_t, DI> dPairs;  // twice the lanes of DI: the columns of one chunk
        const uintptr_t pairBytes = hn::Lanes(dPairs) * sizeof(uint16_t);
        const auto evenColumns = hn::LoadU(di, tables.evenColumns.data());
        const auto one = hn::Set(di, 1);
        // One row's 2*lanes columns from `lanes` outputs whose even columns sit at `even`; marks in `matched`
        // the outputs that matched. Lane i holds columns 2i (low half) and 2i+1 (high half): little-endian,
        // the row's order.
        const auto pairColumns = [&](hn::Vec<DI> indices, const auto &prepared, hn::Vec<DI> even,
                                     hn::Mask<DI> &matched) POOLGRAD_LAMBDA_INLINE {
            const auto evenMatch = hn::Eq(indices, even), oddMatch = hn::Eq(indices, hn::Add(even, one));
            matched = hn::Or(matched, hn::Or(evenMatch, oddMatch));
            return hn::BitCast(
                dPairs, hn::Or(sumOf.select(prepared, evenMatch), hn::ShiftLeft<16>(sumOf.select(prepared, oddMatch))));
        };
        for (int64_t chunk = 0; chunk < pairChunks; ++chunk) {
            const int64_t firstOutput = chunk * lanes, column = 2 * firstOutput;
            const auto indices = hn::LoadU(di, indexRow + firstOutput);
            const auto prepared =
                sumOf.prepare(LoadSixteenBit(di, gradientRow + firstOutput, static_cast<size_t>(lanes)));
            auto even = hn::Add(evenColumns, hn::Set(di, static_cast<int32_t>(rowStart + column)));
            // Each output matches at most one of the compares below (they test different positions).
            auto matched = hn::FirstN(di, 0);
            for (int row = 0; row < kRows; ++row, even = hn::Add(even, nextRow)) {
                const auto pairs = pairColumns(indices, prepared, even, matched);
                uint16_t *at = destination + row * width + column;
                if (streaming && reinterpret_cast<uintptr_t>(at) % pairBytes == 0)
                    streamStore(pairs, dPairs, at);
                else
                    hn::StoreU(pairs, dPairs, at);
            }
            count = CountMatch(di, matched, count);
        }
        firstBlock = 2 * pairChunks;
        if (pairTail > 0) {
            // The last outputs, fewer than lanes (see the float32 rows).
            const size_t tail = static_cast<size_t>(pairTail);
            const int64_t firstOutput = pairChunks * lanes, column = 2 * firstOutput;
            const auto indices = LoadTailIndices(di, indexRow + firstOutput, tail);
            const auto prepared = sumOf.prepare(LoadSixteenBit(di, gradientRow + firstOutput, tail));
            auto even = hn::Add(evenColumns, hn::Set(di, static_cast<int32_t>(rowStart + column)));
            auto matched = hn::FirstN(di, 0);
            for (int row = 0; row < kRows; ++row, even = hn::Add(even, nextRow)) {
                storeFirstLanes(dPairs, pairColumns(indices, prepared, even, matched),
                                destination + row * width + column, 2 * tail);
            }
            count = CountMatch(di, matched, count);
            firstBlock = blocks;
        }
    }
#else
    (void)pairChunks;
    (void)pairTail;
#endif
    for (int64_t block = firstBlock; block < blocks; ++block) {
        const int64_t column = block * lanes;
        const size_t stored = static_cast<size_t>(std::min(lanes, width - column));
        if (indexRow == nullptr) {
            for (int row = 0; row < kRows; ++row)
                StoreSixteenBit(di, hn::Zero(di), destination + row * width + column, stored, streaming);
            continue;
        }
        const int32_t firstOutput = firstOutputs[block], readable = readables[block];
        const auto indices = readable == lanes ? hn::LoadU(di, indexRow + firstOutput)
                                               : MaskedLoadUnaligned(hn::FirstN(di, static_cast<size_t>(readable)), di,
                                                                     indexRow + firstOutput);
        const auto lookup = hn::SetTableIndices(di, offsets + column);
        const auto laneIndices = hn::TableLookupLanes(indices, lookup);
        const auto prepared = sumOf.prepare(
            hn::TableLookupLanes(LoadSixteenBit(di, gradientRow + firstOutput, static_cast<size_t>(readable)), lookup));
        const auto valid = hn::LoadMaskBits(di, reinterpret_cast<const uint8_t *>(masks + block));
        auto position = hn::Add(hn::LoadU(di, columns + column), rowStartVector);
        for (int row = 0; row < kRows; ++row, position = hn::Add(position, nextRow)) {
            const auto match = hn::And(hn::Eq(laneIndices, position), valid);
            count = CountMatch(di, match, count);
            StoreSixteenBit(di, sumOf.select(prepared, match), destination + row * width + column, stored, streaming);
        }
    }
    matchCount = count;
}

// One input row of any value type.
template <class DF, class DI>
HWY_INLINE void GatherOneRow(DF df, DI di, const GatherWidthTables &tables, GatherValue value,
                             const int32_t *HWY_RESTRICT indexRow, const void *gradientRow, int32_t rowStart,
                             void *HWY_RESTRICT destination, bool streaming, hn::Vec<DI> &matchCount) {
    switch (value) {
        case GatherValue::Float32:
            GatherFloatRows<1>(df, di, tables, indexRow, static_cast<const float *>(gradientRow), rowStart,
                               static_cast<float *>(destination), streaming, matchCount);
            break;
        case GatherValue::Float16:
            GatherSixteenBitRows<GatherValue::Float16, 1>(di, tables, indexRow,
                                                          static_cast<const uint16_t *>(gradientRow), rowStart,
                                                          static_cast<uint16_t *>(destination), streaming, matchCount);
            break;
        case GatherValue::BFloat16:
            GatherSixteenBitRows<GatherValue::BFloat16, 1>(di, tables, indexRow,
                                                           static_cast<const uint16_t *>(gradientRow), rowStart,
                                                           static_cast<uint16_t *>(destination), streaming, matchCount);
            break;
    }
}

size_t ElementBytes(GatherValue value) { return value == GatherValue::Float32 ? 4 : 2; }

template <GatherValue kValue>
int64_t GatherPlaneRowsOf(const GatherWidthTables &tables, const GatherRowCandidates &candidates, int64_t firstRow,
                          int64_t endRow, const int32_t *indexPlane, const void *gradientPlane,
                          void *HWY_RESTRICT destinationPlane, bool streaming) {
    const hn::CappedTag<float, 16> df;
    const hn::RebindToSigned<decltype(df)> di;
    const int64_t outputWidth = candidates.outputWidth, width = tables.width;
    const size_t bytes = ElementBytes(kValue);
    const auto *gradientBytes = static_cast<const unsigned char *>(gradientPlane);
    auto *destinationBytes = static_cast<unsigned char *>(destinationPlane);
    // Each lane counts its matches as -1s, at most one per row: summed into the int64 total every 2^20
    // rows, far from int32 overflow.
    int64_t matches = 0;
    auto matchCount = hn::Zero(di);
    int64_t rowsCounted = 0;
    for (int64_t row = firstRow; row < endRow;) {
        if (rowsCounted >= (int64_t{1} << 20)) {
            matches -= static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, matchCount)));
            matchCount = hn::Zero(di);
            rowsCounted = 0;
        }
        const int64_t outputRow = candidates.outputRow[static_cast<size_t>(row)];
        const int32_t *indexRow = outputRow < 0 ? nullptr : indexPlane + outputRow * outputWidth;
        const void *gradientRow =
            outputRow < 0 ? nullptr : gradientBytes + static_cast<size_t>(outputRow * outputWidth) * bytes;
        void *destination = destinationBytes + static_cast<size_t>(row * width) * bytes;
        const auto rowStart = static_cast<int32_t>(row * width);
        // Two rows of one window height at once.
        if (row + 1 < endRow && candidates.outputRow[static_cast<size_t>(row + 1)] == outputRow) {
            if constexpr (kValue == GatherValue::Float32)
                GatherFloatRows<2>(df, di, tables, indexRow, static_cast<const float *>(gradientRow), rowStart,
                                   static_cast<float *>(destination), streaming, matchCount);
            else
                GatherSixteenBitRows<kValue, 2>(di, tables, indexRow, static_cast<const uint16_t *>(gradientRow),
                                                rowStart, static_cast<uint16_t *>(destination), streaming, matchCount);
            row += 2;
            rowsCounted += 2;
            continue;
        }
        // The value type is a template argument here so that the per-row switch folds away.
        GatherOneRow(df, di, tables, kValue, indexRow, gradientRow, rowStart, destination, streaming, matchCount);
        ++row;
        ++rowsCounted;
    }
    return matches - static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, matchCount)));
}

int64_t GatherPlaneRows(const GatherWidthTables &tables, GatherValue value, const GatherRowCandidates &candidates,
                        int64_t firstRow, int64_t endRow, const int32_t *indexPlane, const void *gradientPlane,
                        void *HWY_RESTRICT destinationPlane, bool streaming) {
    switch (value) {
        case GatherValue::Float16:
            return GatherPlaneRowsOf<GatherValue::Float16>(tables, candidates, firstRow, endRow, indexPlane,
                                                           gradientPlane, destinationPlane, streaming);
        case GatherValue::BFloat16:
            return GatherPlaneRowsOf<GatherValue::BFloat16>(tables, candidates, firstRow, endRow, indexPlane,
                                                            gradientPlane, destinationPlane, streaming);
        default:
            return GatherPlaneRowsOf<GatherValue::Float32>(tables, candidates, firstRow, endRow, indexPlane,
                                                           gradientPlane, destinationPlane, streaming);
    }
}

template <typename I>
int64_t CountIndicesInUseOf(const I *HWY_RESTRICT indices, int64_t count) {
    const hn::ScalableTag<I> d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const auto minusOne = hn::Set(d, I{-1});
    // Each lane counts the -1s it sees (a true mask is -1, so subtracting it adds one): at most count / lanes,
    // and the callers count an output row or a block of one plane's outputs, fewer than 2^31.
    auto unusedPerLane = hn::Zero(d);
    int64_t i = 0;
    for (; i + lanes <= count; i += lanes)
        unusedPerLane = hn::Sub(unusedPerLane, hn::VecFromMask(d, hn::Eq(hn::LoadU(d, indices + i), minusOne)));
    int64_t unused = static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(d, unusedPerLane)));
    for (; i < count; ++i) unused += indices[i] == I{-1};
    return count - unused;
}

int64_t ConvertIndicesToInt32(const int64_t *HWY_RESTRICT indices, int32_t *HWY_RESTRICT converted, int64_t count) {
    int64_t i = 0, unused = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<int64_t> d64;
    const hn::RebindToUnsigned<decltype(d64)> du64;
    const hn::Rebind<uint32_t, decltype(d64)> du32;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d64));
    const auto lowest = hn::Set(d64, int64_t{std::numeric_limits<int32_t>::min()});
    const auto highest = hn::Set(d64, int64_t{std::numeric_limits<int32_t>::max()});
    const auto minusOne = hn::Set(d64, int64_t{-1});
    // Each lane counts the -1s it sees as -1s (at most count / lanes of them).
    auto unusedPerLane = hn::Zero(d64);
    for (; i + lanes <= count; i += lanes) {
        const auto index = hn::LoadU(d64, indices + i);
        unusedPerLane = hn::Add(unusedPerLane, hn::VecFromMask(d64, hn::Eq(index, minusOne)));
        const auto clamped = hn::Min(hn::Max(index, lowest), highest);
        hn::StoreU(hn::TruncateTo(du32, hn::BitCast(du64, clamped)), du32, reinterpret_cast<uint32_t *>(converted + i));
    }
    unused = -hn::GetLane(hn::SumOfLanes(d64, unusedPerLane));
#endif
    for (; i < count; ++i) {
        unused += indices[i] == -1;
        converted[i] = static_cast<int32_t>(
            std::clamp<int64_t>(indices[i], std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
    }
    return count - unused;
}

int64_t CountIndicesInUse32(const int32_t *HWY_RESTRICT indices, int64_t count) {
    return CountIndicesInUseOf(indices, count);
}
int64_t CountIndicesInUse64(const int64_t *HWY_RESTRICT indices, int64_t count) {
    return CountIndicesInUseOf(indices, count);
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(GatherLaneCount);
HWY_EXPORT(ConvertIndicesToInt32);
HWY_EXPORT(GatherPlaneRows);
HWY_EXPORT(CountIndicesInUse32);
HWY_EXPORT(CountIndicesInUse64);

int64_t gatherLaneCount() { return HWY_DYNAMIC_DISPATCH(GatherLaneCount)(); }

int64_t gatherPlaneRows(const GatherWidthTables &tables, GatherValue value, const GatherRowCandidates &candidates,
                        int64_t firstRow, int64_t endRow, const int32_t *indexPlane, const void *gradientPlane,
                        void *destinationPlane, bool streaming) {
    return HWY_DYNAMIC_DISPATCH(GatherPlaneRows)(tables, value, candidates, firstRow, endRow, indexPlane, gradientPlane,
                                                 destinationPlane, streaming);
}

int64_t countIndicesInUse(const int32_t *indices, int64_t count) {
    return HWY_DYNAMIC_DISPATCH(CountIndicesInUse32)(indices, count);
}
int64_t countIndicesInUse(const int64_t *indices, int64_t count) {
    return HWY_DYNAMIC_DISPATCH(CountIndicesInUse64)(indices, count);
}

int64_t convertIndicesToInt32(const int64_t *indices, int32_t *converted, int64_t count) {
    return HWY_DYNAMIC_DISPATCH(ConvertIndicesToInt32)(indices, converted, count);
}

}  // namespace poolgrad::cpu
#endif
