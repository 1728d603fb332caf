// Highway implementation of gather_rows.h: one source compiled for every target Highway supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/gather_rows.cpp"
#include "cpu/gather_rows.h"

#include <cstring>

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

int64_t GatherLaneCount() { return static_cast<int64_t>(hn::Lanes(hn::CappedTag<float, 16>())); }

// One input row from its one candidate output row (indexRow/gradientRow; null: no window reaches the
// row, whose sums are then +0); adds each lane's matches (as -1s) to matchCount.
template <class DF, class DI>
HWY_INLINE void GatherOneRow(DF df, DI di, const GatherWidthTables &tables, const int32_t *HWY_RESTRICT indexRow,
                             const float *gradientRow, int32_t rowStart, float *HWY_RESTRICT destination,
                             bool streaming, hn::Vec<DI> &matchCount) {
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
    // The lanes' columns come from the tables: Iota builds its vector through memory, and a vector load
    // right after 16 scalar stores waits for them (once per row, it made the kernel several times slower).
    const auto rowStartVector = hn::Set(di, rowStart);
    const auto zero = hn::Zero(df);
    auto count = matchCount;
    int64_t firstBlock = 0;
    if (indexRow != nullptr && tables.pairChunks > 0) {
        const auto evenColumns = hn::LoadU(di, tables.evenColumns.data());
        const auto one = hn::Set(di, 1);
        const auto lowerPairs = hn::SetTableIndices(df, tables.lowerPairs.data());
        const auto upperPairs = hn::SetTableIndices(df, tables.upperPairs.data());
        for (int64_t chunk = 0; chunk < tables.pairChunks; ++chunk) {
            const int64_t firstOutput = chunk * lanes, column = 2 * firstOutput;
            const auto indices = hn::LoadU(di, indexRow + firstOutput);
            const auto gradients = hn::BitCast(df, hn::LoadU(di, gradientBits + firstOutput));
            const auto even = hn::Add(evenColumns, hn::Set(di, static_cast<int32_t>(rowStart + column)));
            const auto evenMatch = hn::Eq(indices, even), oddMatch = hn::Eq(indices, hn::Add(even, one));
            count = hn::Add(hn::Add(count, hn::VecFromMask(di, evenMatch)), hn::VecFromMask(di, oddMatch));
            // +0 + gradient, as below.
            const auto evenSums = hn::Add(zero, hn::IfThenElseZero(hn::RebindMask(df, evenMatch), gradients));
            const auto oddSums = hn::Add(zero, hn::IfThenElseZero(hn::RebindMask(df, oddMatch), gradients));
            const auto lower =
                hn::OddEven(hn::TableLookupLanes(oddSums, lowerPairs), hn::TableLookupLanes(evenSums, lowerPairs));
            const auto upper =
                hn::OddEven(hn::TableLookupLanes(oddSums, upperPairs), hn::TableLookupLanes(evenSums, upperPairs));
            float *at = destination + column;
            if (streaming && reinterpret_cast<uintptr_t>(at) % vectorBytes == 0) {
                hn::Stream(lower, df, at);
                hn::Stream(upper, df, at + lanes);
            } else {
                hn::StoreU(lower, df, at);
                hn::StoreU(upper, df, at + lanes);
            }
        }
        firstBlock = 2 * tables.pairChunks;
    }
    for (int64_t block = firstBlock; block < tables.blocks; ++block) {
        const int64_t column = block * lanes;
        auto sum = zero;
        if (indexRow != nullptr) {
            const auto position = hn::Add(hn::LoadU(di, columns + column), rowStartVector);
            const int32_t firstOutput = firstOutputs[block], readable = readables[block];
            hn::Vec<DI> indices, gradients;
            if (readable == lanes) {
                indices = hn::LoadU(di, indexRow + firstOutput);
                gradients = hn::LoadU(di, gradientBits + firstOutput);
            } else {
                const auto present = hn::FirstN(di, static_cast<size_t>(readable));
                indices = hn::MaskedLoad(present, di, indexRow + firstOutput);
                gradients = hn::MaskedLoad(present, di, gradientBits + firstOutput);
            }
            const auto lookup = hn::SetTableIndices(di, offsets + column);
            // Little-endian: the mask's first byte holds lanes 0-7.
            const auto valid = hn::LoadMaskBits(di, reinterpret_cast<const uint8_t *>(masks + block));
            const auto match = hn::And(hn::Eq(hn::TableLookupLanes(indices, lookup), position), valid);
            count = hn::Add(count, hn::VecFromMask(di, match));
            // One window per element: the sum is +0 + gradient (a -0 gradient arrives as +0, a signalling
            // NaN quiet, as in the scatter's sum from +0) or +0.
            sum = hn::Add(zero, hn::IfThenElseZero(hn::RebindMask(df, match),
                                                   hn::BitCast(df, hn::TableLookupLanes(gradients, lookup))));
        }
        float *at = destination + column;
        if (column + lanes <= width) {
            if (streaming && reinterpret_cast<uintptr_t>(at) % vectorBytes == 0)
                hn::Stream(sum, df, at);
            else
                hn::StoreU(sum, df, at);
        } else {
            hn::BlendedStore(sum, hn::FirstN(df, static_cast<size_t>(width - column)), df, at);
        }
    }
    matchCount = count;
}

int64_t GatherRow(const GatherWidthTables &tables, const int32_t *indexRow, const float *gradientRow, int32_t rowStart,
                  float *HWY_RESTRICT destination, bool streaming) {
    const hn::CappedTag<float, 16> df;
    const hn::RebindToSigned<decltype(df)> di;
    auto matchCount = hn::Zero(di);
    GatherOneRow(df, di, tables, indexRow, gradientRow, rowStart, destination, streaming, matchCount);
    return -static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, matchCount)));
}

int64_t GatherPlaneRows(const GatherWidthTables &tables, const GatherRowCandidates &candidates, int64_t firstRow,
                        int64_t endRow, const int32_t *indexPlane, const float *gradientPlane,
                        float *HWY_RESTRICT destinationPlane, bool streaming) {
    const hn::CappedTag<float, 16> df;
    const hn::RebindToSigned<decltype(df)> di;
    const int64_t outputWidth = candidates.outputWidth, width = tables.width;
    // Each lane counts its matches as -1s, at most one per row: summed into the int64 total every 2^20
    // rows, far from int32 overflow.
    int64_t matches = 0;
    auto matchCount = hn::Zero(di);
    for (int64_t row = firstRow; row < endRow; ++row) {
        if (((row - firstRow) & ((int64_t{1} << 20) - 1)) == 0 && row != firstRow) {
            matches -= static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, matchCount)));
            matchCount = hn::Zero(di);
        }
        const int64_t outputRow = candidates.outputRow[static_cast<size_t>(row)];
        const int32_t *indexRow = outputRow < 0 ? nullptr : indexPlane + outputRow * outputWidth;
        const float *gradientRow = outputRow < 0 ? nullptr : gradientPlane + outputRow * outputWidth;
        GatherOneRow(df, di, tables, indexRow, gradientRow, static_cast<int32_t>(row * width),
                     destinationPlane + row * width, streaming, matchCount);
    }
    return matches - static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, matchCount)));
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

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(GatherLaneCount);
HWY_EXPORT(GatherRow);
HWY_EXPORT(GatherPlaneRows);
HWY_EXPORT(WidenBFloat16Row);

int64_t gatherLaneCount() { return HWY_DYNAMIC_DISPATCH(GatherLaneCount)(); }

int64_t gatherRow(const GatherWidthTables &tables, const int32_t *indexRow, const float *gradientRow, int32_t rowStart,
                  float *destination, bool streaming) {
    return HWY_DYNAMIC_DISPATCH(GatherRow)(tables, indexRow, gradientRow, rowStart, destination, streaming);
}

int64_t gatherPlaneRows(const GatherWidthTables &tables, const GatherRowCandidates &candidates, int64_t firstRow,
                        int64_t endRow, const int32_t *indexPlane, const float *gradientPlane, float *destinationPlane,
                        bool streaming) {
    return HWY_DYNAMIC_DISPATCH(GatherPlaneRows)(tables, candidates, firstRow, endRow, indexPlane, gradientPlane,
                                                 destinationPlane, streaming);
}

void widenBFloat16Row(const uint16_t *source, float *destination, int64_t count) {
    HWY_DYNAMIC_DISPATCH(WidenBFloat16Row)(source, destination, count);
}

}  // namespace poolgrad::cpu
#endif
