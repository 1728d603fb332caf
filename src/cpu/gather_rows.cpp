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

int64_t GatherRow(const GatherWidthTables &tables, const int32_t *const *indexRows, const float *const *gradientRows,
                  int64_t rowCount, int32_t rowStart, int64_t width, float *HWY_RESTRICT destination, bool streaming) {
    const hn::CappedTag<float, 16> df;
    const hn::RebindToSigned<decltype(df)> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    const int64_t slots = tables.slots;
    const uintptr_t vectorBytes = static_cast<uintptr_t>(lanes) * sizeof(float);
    int64_t matches = 0;
    for (int64_t block = 0; block < tables.blocks; ++block) {
        const int64_t column = block * lanes;
        const auto position = hn::Iota(di, static_cast<int32_t>(rowStart + column));
        auto sum = hn::Zero(df);
        bool first = true;
        for (int64_t row = 0; row < rowCount; ++row) {
            for (int64_t slot = 0; slot < slots; ++slot) {
                const int64_t entry = block * slots + slot;
                const uint64_t maskBits = tables.laneMask[static_cast<size_t>(entry)];
                if (maskBits == 0) continue;
                uint8_t maskBytes[8];
                std::memcpy(maskBytes, &maskBits, sizeof maskBytes);
                const auto valid = hn::LoadMaskBits(di, maskBytes);
                const int32_t firstOutput = tables.firstOutput[static_cast<size_t>(entry)];
                const int32_t readable = tables.readable[static_cast<size_t>(entry)];
                const int32_t *indexAt = indexRows[row] + firstOutput;
                const int32_t *gradientAt = reinterpret_cast<const int32_t *>(gradientRows[row] + firstOutput);
                hn::Vec<decltype(di)> indices, gradients;
                if (readable == lanes) {
                    indices = hn::LoadU(di, indexAt);
                    gradients = hn::LoadU(di, gradientAt);
                } else {
                    const auto present = hn::FirstN(di, static_cast<size_t>(readable));
                    indices = hn::MaskedLoad(present, di, indexAt);
                    gradients = hn::MaskedLoad(present, di, gradientAt);
                }
                const auto lookup = hn::SetTableIndices(di, tables.laneOffset.data() + entry * lanes);
                const auto match = hn::And(hn::Eq(hn::TableLookupLanes(indices, lookup), position), valid);
                matches += static_cast<int64_t>(hn::CountTrue(di, match));
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
    return matches;
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
HWY_EXPORT(WidenBFloat16Row);

int64_t gatherLaneCount() { return HWY_DYNAMIC_DISPATCH(GatherLaneCount)(); }

int64_t gatherRow(const GatherWidthTables &tables, const int32_t *const *indexRows, const float *const *gradientRows,
                  int64_t rowCount, int32_t rowStart, int64_t width, float *destination, bool streaming) {
    return HWY_DYNAMIC_DISPATCH(GatherRow)(tables, indexRows, gradientRows, rowCount, rowStart, width, destination,
                                           streaming);
}

void widenBFloat16Row(const uint16_t *source, float *destination, int64_t count) {
    HWY_DYNAMIC_DISPATCH(WidenBFloat16Row)(source, destination, count);
}

}  // namespace poolgrad::cpu
#endif
