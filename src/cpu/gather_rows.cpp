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

// One input row; adds each lane's match count (as -1 per match) to matchCount.
template <class DF, class DI>
HWY_INLINE void GatherOneRow(DF df, DI di, const GatherWidthTables &tables, const int32_t *const *indexRows,
                             const float *const *gradientRows, int64_t rowCount, int32_t rowStart,
                             float *HWY_RESTRICT destination, bool streaming, hn::Vec<DI> &matchCount) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    const int64_t slots = tables.slots, width = tables.width;
    const uintptr_t vectorBytes = static_cast<uintptr_t>(lanes) * sizeof(float);
    // The lanes' columns come from the tables: Iota builds its vector through memory, and a vector load
    // right after 16 scalar stores waits for them (once per row, it made the kernel several times slower).
    const auto rowStartVector = hn::Set(di, rowStart);
    // Disjoint windows along W and one candidate output row: at most one contribution per element, and
    // a loop without the general one's bookkeeping (table pointers in registers, no NaN care).
    const bool single = rowCount == 1 && slots == 1;
    if (single) {
        const int32_t *HWY_RESTRICT columns = tables.columns.data();
        const uint64_t *HWY_RESTRICT masks = tables.laneMask.data();
        const int32_t *HWY_RESTRICT firstOutputs = tables.firstOutput.data();
        const int32_t *HWY_RESTRICT readables = tables.readable.data();
        const int32_t *HWY_RESTRICT offsets = tables.laneOffset.data();
        const int32_t *HWY_RESTRICT indexRow = indexRows[0];
        const int32_t *HWY_RESTRICT gradientRow = reinterpret_cast<const int32_t *>(gradientRows[0]);
        const auto zero = hn::Zero(df);
        auto count = matchCount;
        for (int64_t block = 0; block < tables.blocks; ++block) {
            const int64_t column = block * lanes;
            const auto position = hn::Add(hn::LoadU(di, columns + column), rowStartVector);
            const int32_t firstOutput = firstOutputs[block], readable = readables[block];
            hn::Vec<DI> indices, gradients;
            if (readable == lanes) {
                indices = hn::LoadU(di, indexRow + firstOutput);
                gradients = hn::LoadU(di, gradientRow + firstOutput);
            } else {
                const auto present = hn::FirstN(di, static_cast<size_t>(readable));
                indices = hn::MaskedLoad(present, di, indexRow + firstOutput);
                gradients = hn::MaskedLoad(present, di, gradientRow + firstOutput);
            }
            const auto lookup = hn::SetTableIndices(di, offsets + column);
            const auto valid = hn::LoadMaskBits(di, reinterpret_cast<const uint8_t *>(masks + block));
            const auto match = hn::And(hn::Eq(hn::TableLookupLanes(indices, lookup), position), valid);
            count = hn::Add(count, hn::VecFromMask(di, match));
            // +0 + gradient: a -0 gradient arrives as +0, as in a sum that starts from +0.
            const auto sum =
                hn::Add(zero, hn::IfThenElseZero(hn::RebindMask(df, match),
                                                 hn::BitCast(df, hn::TableLookupLanes(gradients, lookup))));
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
        return;
    }
    // Table and row pointers in locals: the stores below may alias any memory as far as the compiler
    // knows, and it would reload them from the tables for every vector.
    const int32_t *HWY_RESTRICT columns = tables.columns.data();
    const uint64_t *HWY_RESTRICT masks = tables.laneMask.data();
    const int32_t *HWY_RESTRICT firstOutputs = tables.firstOutput.data();
    const int32_t *HWY_RESTRICT readables = tables.readable.data();
    const int32_t *HWY_RESTRICT offsets = tables.laneOffset.data();
    const int32_t *rowIndices[kMostGatherRows];
    const int32_t *rowGradients[kMostGatherRows];
    for (int64_t row = 0; row < rowCount; ++row) {
        rowIndices[row] = indexRows[row];
        rowGradients[row] = reinterpret_cast<const int32_t *>(gradientRows[row]);
    }
    auto count = matchCount;
    for (int64_t block = 0; block < tables.blocks; ++block) {
        const int64_t column = block * lanes;
        const auto position = hn::Add(hn::LoadU(di, columns + column), rowStartVector);
        auto sum = hn::Zero(df);
        bool first = true;
        // Output rows outer, window slots (increasing ow) inner: increasing output order.
        for (int64_t row = 0; row < rowCount; ++row) {
            for (int64_t slot = 0; slot < slots; ++slot) {
                const int64_t entry = block * slots + slot;
                if (masks[entry] == 0) continue;
                // Little-endian: the mask's first byte holds lanes 0-7.
                const auto valid = hn::LoadMaskBits(di, reinterpret_cast<const uint8_t *>(masks + entry));
                const int32_t firstOutput = firstOutputs[entry], readable = readables[entry];
                const auto lookup = hn::SetTableIndices(di, offsets + entry * lanes);
                hn::Vec<DI> indices, gradients;
                if (readable == lanes) {
                    indices = hn::LoadU(di, rowIndices[row] + firstOutput);
                    gradients = hn::LoadU(di, rowGradients[row] + firstOutput);
                } else {
                    const auto present = hn::FirstN(di, static_cast<size_t>(readable));
                    indices = hn::MaskedLoad(present, di, rowIndices[row] + firstOutput);
                    gradients = hn::MaskedLoad(present, di, rowGradients[row] + firstOutput);
                }
                const auto match = hn::And(hn::Eq(hn::TableLookupLanes(indices, lookup), position), valid);
                count = hn::Add(count, hn::VecFromMask(di, match));
                const auto gradient = hn::IfThenElseZero(hn::RebindMask(df, match),
                                                         hn::BitCast(df, hn::TableLookupLanes(gradients, lookup)));
                // Lanes without a match add +0, which leaves every sum as it was (a sum that starts at +0
                // is never -0). A NaN sum keeps its own NaN, as addToSum does, whichever operand order the
                // compiler gives the addition; the first addition starts from +0 and needs no such care.
                const auto added = hn::Add(sum, gradient);
                sum = first ? added : hn::IfThenElse(hn::IsNaN(sum), sum, added);
                first = false;
            }
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

int64_t GatherRow(const GatherWidthTables &tables, const int32_t *const *indexRows, const float *const *gradientRows,
                  int64_t rowCount, int32_t rowStart, float *HWY_RESTRICT destination, bool streaming) {
    const hn::CappedTag<float, 16> df;
    const hn::RebindToSigned<decltype(df)> di;
    auto matchCount = hn::Zero(di);
    GatherOneRow(df, di, tables, indexRows, gradientRows, rowCount, rowStart, destination, streaming, matchCount);
    return -static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, matchCount)));
}

int64_t GatherPlaneRows(const GatherWidthTables &tables, const GatherRowCandidates &candidates, int64_t firstRow,
                        int64_t endRow, const int32_t *indexPlane, const float *gradientPlane,
                        float *HWY_RESTRICT destinationPlane, bool streaming) {
    const hn::CappedTag<float, 16> df;
    const hn::RebindToSigned<decltype(df)> di;
    const int64_t outputWidth = candidates.outputWidth, width = tables.width;
    const int32_t *indexRows[kMostGatherRows];
    const float *gradientRows[kMostGatherRows];
    // Each lane counts its matches as -1s; a lane matches at most kMostGatherRows times per row, so a
    // count is summed into the int64 total every 2^20 rows, far from int32 overflow.
    int64_t matches = 0;
    auto matchCount = hn::Zero(di);
    for (int64_t row = firstRow; row < endRow; ++row) {
        if (((row - firstRow) & ((int64_t{1} << 20) - 1)) == 0 && row != firstRow) {
            matches -= static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, matchCount)));
            matchCount = hn::Zero(di);
        }
        const int64_t begin = candidates.start[static_cast<size_t>(row)],
                      end = candidates.start[static_cast<size_t>(row + 1)];
        for (int64_t k = begin; k < end; ++k) {
            const int64_t outputRow = candidates.outputRows[static_cast<size_t>(k)];
            indexRows[k - begin] = indexPlane + outputRow * outputWidth;
            gradientRows[k - begin] = gradientPlane + outputRow * outputWidth;
        }
        GatherOneRow(df, di, tables, indexRows, gradientRows, end - begin, static_cast<int32_t>(row * width),
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

int64_t gatherRow(const GatherWidthTables &tables, const int32_t *const *indexRows, const float *const *gradientRows,
                  int64_t rowCount, int32_t rowStart, float *destination, bool streaming) {
    return HWY_DYNAMIC_DISPATCH(GatherRow)(tables, indexRows, gradientRows, rowCount, rowStart, destination, streaming);
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
