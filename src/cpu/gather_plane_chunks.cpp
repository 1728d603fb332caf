// Highway implementation of gather_plane_chunks.h: one source compiled for every target Highway supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/gather_plane_chunks.cpp"
#include "cpu/gather_plane_chunks.h"

#include <algorithm>

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: simd_store-inl.h needs highway.h first
#include "cpu/simd_store-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

int64_t PlaneChunkLaneCount() { return static_cast<int64_t>(hn::Lanes(hn::CappedTag<float, 16>())); }

int64_t GatherPlaneChunks(const PlaneChunkTables &tables, int64_t firstChunk, int64_t endChunk,
                          const int32_t *HWY_RESTRICT indices, const float *HWY_RESTRICT gradients,
                          int64_t outputOffset, float *HWY_RESTRICT destination, bool streaming) {
    const hn::CappedTag<float, 16> df;
    const hn::RebindToSigned<decltype(df)> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    // Table pointers in locals: the stores may alias any memory as far as the compiler knows, and it would
    // reload them from the vectors for every chunk.
    const uint8_t *HWY_RESTRICT reaches = tables.reach.data();
    const int32_t *HWY_RESTRICT firstOutputs = tables.firstOutput.data();
    const int32_t *HWY_RESTRICT readables = tables.readable.data();
    const int32_t *HWY_RESTRICT secondOutputs = tables.secondOutput.data();
    const int32_t *HWY_RESTRICT secondReadables = tables.secondReadable.data();
    const uint64_t *HWY_RESTRICT masks = tables.laneMask.data();
    const int32_t *HWY_RESTRICT offsets = tables.laneOffset.data();
    const int32_t *HWY_RESTRICT gradientBits = reinterpret_cast<const int32_t *>(gradients);
    const int64_t planeElements = tables.planeElements;
    // The lanes' numbers come from the table: Iota builds its vector through memory, and a load right after
    // the scalar stores waits for them.
    const auto laneNumbers = hn::LoadU(di, tables.laneNumbers.data());
    const auto zero = hn::Zero(df);
    const auto laneLimit = hn::Set(di, static_cast<int32_t>(lanes));
    const auto lastLane = hn::Set(di, static_cast<int32_t>(lanes - 1));
    // Each lane counts its matches as -1s, at most one per chunk: summed into the int64 total every 2^20
    // chunks, far from int32 overflow.
    int64_t matches = 0;
    auto count = hn::Zero(di);
    for (int64_t chunk = firstChunk; chunk < endChunk; ++chunk) {
        if (((chunk - firstChunk) & ((int64_t{1} << 20) - 1)) == 0 && chunk != firstChunk) {
            matches -= static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, count)));
            count = hn::Zero(di);
        }
        const int64_t position = chunk * lanes;
        auto sum = zero;
        const uint8_t reach = reaches[chunk];
        if (reach != PlaneChunkTables::kNoWindow) {
            const int64_t first = firstOutputs[chunk] - outputOffset;
            const int32_t readable = readables[chunk];
            const int32_t *indexAt = indices + first;
            const int32_t *gradientAt = gradientBits + first;
            const auto offset = hn::LoadU(di, offsets + position);
            // Little-endian: the mask's first byte holds lanes 0-7.
            const auto valid = hn::LoadMaskBits(di, reinterpret_cast<const uint8_t *>(masks + chunk));
            hn::Vec<decltype(di)> index, gradient;
            if (reach == PlaneChunkTables::kOneVector) {
                hn::Vec<decltype(di)> indexVector, gradientVector;
                if (readable == lanes) {
                    indexVector = hn::LoadU(di, indexAt);
                    gradientVector = hn::LoadU(di, gradientAt);
                } else {
                    const auto present = hn::FirstN(di, static_cast<size_t>(readable));
                    indexVector = hn::MaskedLoad(present, di, indexAt);
                    gradientVector = hn::MaskedLoad(present, di, gradientAt);
                }
                const auto lookup = hn::IndicesFromVec(di, offset);
                index = hn::TableLookupLanes(indexVector, lookup);
                gradient = hn::TableLookupLanes(gradientVector, lookup);
            } else {
                // Offsets 0 .. 2*lanes-1: each lane takes its lane of the first or of the second vector.
                hn::Vec<decltype(di)> lowIndex, lowGradient, highIndex, highGradient;
                if (readable == lanes) {
                    lowIndex = hn::LoadU(di, indexAt);
                    lowGradient = hn::LoadU(di, gradientAt);
                } else {
                    const auto present = hn::FirstN(di, static_cast<size_t>(readable));
                    lowIndex = hn::MaskedLoad(present, di, indexAt);
                    lowGradient = hn::MaskedLoad(present, di, gradientAt);
                }
                const int64_t second = secondOutputs[chunk] - outputOffset;
                const int32_t secondReadable = secondReadables[chunk];
                if (secondReadable == lanes) {
                    highIndex = hn::LoadU(di, indices + second);
                    highGradient = hn::LoadU(di, gradientBits + second);
                } else {
                    const auto present = hn::FirstN(di, static_cast<size_t>(secondReadable));
                    highIndex = hn::MaskedLoad(present, di, indices + second);
                    highGradient = hn::MaskedLoad(present, di, gradientBits + second);
                }
                const auto high = hn::Gt(offset, lastLane);
                const auto lookup = hn::IndicesFromVec(di, hn::IfThenElse(high, hn::Sub(offset, laneLimit), offset));
                index = hn::IfThenElse(high, hn::TableLookupLanes(highIndex, lookup),
                                       hn::TableLookupLanes(lowIndex, lookup));
                gradient = hn::IfThenElse(high, hn::TableLookupLanes(highGradient, lookup),
                                          hn::TableLookupLanes(lowGradient, lookup));
            }
            const auto lanePosition = hn::Add(laneNumbers, hn::Set(di, static_cast<int32_t>(position)));
            const auto match = hn::And(hn::Eq(index, lanePosition), valid);
            count = hn::Add(count, hn::VecFromMask(di, match));
            // One window per position: the sum is +0 + gradient (a -0 gradient arrives as +0, a signalling
            // NaN quiet, as in the scatter's sum from +0) or +0.
            sum = hn::Add(zero, hn::IfThenElseZero(hn::RebindMask(df, match), hn::BitCast(df, gradient)));
        }
        float *at = destination + (position - firstChunk * lanes);
        if (position + lanes <= planeElements)
            storeVector(df, sum, at, streaming);
        else
            hn::BlendedStore(sum, hn::FirstN(df, static_cast<size_t>(planeElements - position)), df, at);
    }
    return matches - static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, count)));
}

int64_t CountPresentIndices(const int32_t *HWY_RESTRICT indices, int64_t count) {
    const hn::ScalableTag<int32_t> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(di));
    const auto absent = hn::Set(di, -1);
    int64_t present = 0;
    int64_t i = 0;
    // Per lane at most 2^20 ones before the int64 total takes them.
    while (i + lanes <= count) {
        auto ones = hn::Zero(di);
        const int64_t end = std::min(count - lanes + 1, i + (int64_t{1} << 20) * lanes);
        for (; i < end; i += lanes)
            ones = hn::Sub(ones, hn::VecFromMask(di, hn::Ne(hn::LoadU(di, indices + i), absent)));
        present += static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, ones)));
    }
    for (; i < count; ++i) present += indices[i] != -1;
    return present;
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(PlaneChunkLaneCount);
HWY_EXPORT(GatherPlaneChunks);
HWY_EXPORT(CountPresentIndices);

int64_t planeChunkLaneCount() { return HWY_DYNAMIC_DISPATCH(PlaneChunkLaneCount)(); }

int64_t gatherPlaneChunks(const PlaneChunkTables &tables, int64_t firstChunk, int64_t endChunk, const int32_t *indices,
                          const float *gradients, int64_t outputOffset, float *destination, bool streaming) {
    return HWY_DYNAMIC_DISPATCH(GatherPlaneChunks)(tables, firstChunk, endChunk, indices, gradients, outputOffset,
                                                   destination, streaming);
}

int64_t countPresentIndices(const int32_t *indices, int64_t count) {
    return HWY_DYNAMIC_DISPATCH(CountPresentIndices)(indices, count);
}

}  // namespace poolgrad::cpu
#endif
