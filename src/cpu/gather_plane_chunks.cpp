// Highway implementation of gather_plane_chunks.h: one source compiled for every target Highway supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/gather_plane_chunks.cpp"
#include "cpu/gather_plane_chunks.h"

#include <algorithm>

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: simd_store-inl.h needs highway.h first
#include "cpu/simd_lanes-inl.h"
#include "cpu/simd_match_count-inl.h"
#include "cpu/simd_ordered_ops-inl.h"
#include "cpu/simd_store-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

int64_t PlaneChunkLaneCount() { return static_cast<int64_t>(hn::Lanes(hn::CappedTag<float, 16>())); }

// +0 + gradient in the lanes of match, +0 elsewhere: a -0 gradient arrives as +0 and a signalling NaN quiet,
// as in the scatter's sum from +0.
template <class DF, class M, class V>
HWY_INLINE V SumFromZero(DF df, M match, V gradient) {
#if HWY_TARGET <= HWY_AVX3 && HWY_TARGET >= HWY_AVX3_DL && HWY_ARCH_X86
    if constexpr (hn::MaxLanes(df) == 16) return V{_mm512_maskz_add_ps(match.raw, _mm512_setzero_ps(), gradient.raw)};
#endif
    return hn::IfThenElseZero(match, hn::Add(hn::Zero(df), gradient));
}

// Every target with two lanes or more: AVX-512 interleaves the even and odd sums with two two-source permutes,
// AVX2 with two in-block unpacks and two block permutes (simd_lanes-inl.h). Until 2026-12-07 pair units were
// AVX-512's only, and AVX2 hosts ran E at the slab scatter's speed (about 8 cycles a chunk).
constexpr bool kPairs = HWY_TARGET != HWY_SCALAR;

bool PlaneChunkPairsSupported() { return kPairs; }

// The pair units listed in tables.pairUnit[begin, end). Adds each lane's matches (as -1s) to count.
template <bool kStreaming, class DF, class DI>
HWY_INLINE void GatherPairUnits(DF df, DI di, const PlaneChunkTables &tables, int64_t begin, int64_t end,
                                const int32_t *HWY_RESTRICT indices, const int32_t *HWY_RESTRICT gradientBits,
                                float *HWY_RESTRICT destination, int64_t firstPosition, hn::Vec<DI> &count) {
#if HWY_TARGET != HWY_SCALAR
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(di));
    const int32_t *HWY_RESTRICT units = tables.pairUnit.data();
    const int32_t *HWY_RESTRICT firstOutputs = tables.pairFirstOutput.data();
    const int32_t *HWY_RESTRICT readables = tables.pairReadable.data();
    const int32_t *HWY_RESTRICT offsets = tables.pairOffset.data();
    const int32_t *HWY_RESTRICT positions = tables.pairPosition.data();
    const auto zero = hn::Zero(di), one = hn::Set(di, 1);
    auto matches = count;
    for (int64_t k = begin; k < end; ++k) {
        const int64_t position = static_cast<int64_t>(units[k]) * 2 * lanes;
        const int64_t first = firstOutputs[k];
        hn::Vec<DI> indexVector, gradientVector;
        if (readables[k] == lanes) {
            indexVector = hn::LoadU(di, indices + first);
            gradientVector = hn::LoadU(di, gradientBits + first);
        } else {  // the plane's last outputs
            const auto present = hn::FirstN(di, static_cast<size_t>(readables[k]));
            indexVector = MaskedLoadUnaligned(present, di, indices + first);
            gradientVector = MaskedLoadUnaligned(present, di, gradientBits + first);
        }
        const auto lookup = hn::IndicesFromVec(di, hn::LoadU(di, offsets + k * lanes));
        const auto index = hn::TableLookupLanes(indexVector, lookup);
        const auto gradient = hn::BitCast(df, hn::TableLookupLanes(gradientVector, lookup));
        // 0: the index is the pair's even position, 1: its odd one (wrapping: only for those two indices).
        const auto offset = hn::Sub(index, hn::LoadU(di, positions + k * lanes));
        const auto even = hn::Eq(offset, zero), odd = hn::Eq(offset, one);
        matches = hn::Add(matches, hn::VecFromMask(di, hn::Or(even, odd)));
        const auto evenSums = SumFromZero(df, hn::RebindMask(df, even), gradient);
        const auto oddSums = SumFromZero(df, hn::RebindMask(df, odd), gradient);
        float *at = destination + (position - firstPosition);
        hn::Vec<DF> low, high;
        interleaveLanes(df, evenSums, oddSums, low, high);
        storeVector(df, low, at, kStreaming);
        storeVector(df, high, at + lanes, kStreaming);
    }
    count = matches;
#else
    (void)df, (void)di, (void)tables, (void)begin, (void)end, (void)indices, (void)gradientBits, (void)destination,
        (void)firstPosition, (void)count;
#endif
}

// The plain chunks listed in tables.plainChunk[begin, end): whole chunks inside the plane whose outputs lie
// in one vector that exists whole. Adds each lane's matches (as -1s) to count.
template <bool kStreaming, class DF, class DI>
HWY_INLINE void GatherPlainChunks(DF df, DI di, const PlaneChunkTables &tables, int64_t begin, int64_t end,
                                  const int32_t *HWY_RESTRICT indices, const int32_t *HWY_RESTRICT gradientBits,
                                  float *HWY_RESTRICT destination, int64_t firstPosition, hn::Vec<DI> &count) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    const int32_t *HWY_RESTRICT plainChunks = tables.plainChunk.data();
    const int32_t *HWY_RESTRICT plainFirstOutputs = tables.plainFirstOutput.data();
    const int32_t *HWY_RESTRICT offsets = tables.laneOffset.data();
    const int32_t *HWY_RESTRICT positions = tables.lanePosition.data();
    auto matches = count;
    for (int64_t k = begin; k < end; ++k) {
        const int64_t position = static_cast<int64_t>(plainChunks[k]) * lanes;
        const int64_t first = plainFirstOutputs[k];
        const auto lookup = hn::IndicesFromVec(di, hn::LoadU(di, offsets + position));
        const auto index = hn::TableLookupLanes(hn::LoadU(di, indices + first), lookup);
        const auto gradient = hn::TableLookupLanes(hn::LoadU(di, gradientBits + first), lookup);
        const auto match = hn::Eq(index, hn::LoadU(di, positions + position));
        matches = CountMatch(di, match, matches);
        const auto sum = SumFromZero(df, hn::RebindMask(df, match), hn::BitCast(df, gradient));
        float *at = destination + (position - firstPosition);
        if constexpr (kStreaming)
            storeVector(df, sum, at, true);
        else
            hn::StoreU(sum, df, at);
    }
    count = matches;
}

// The other chunks of tables.otherChunk[begin, end): outputs in two vectors, a vector that does not exist
// whole, the plane's last partial chunk, chunks in no window.
template <class DF, class DI>
HWY_INLINE void GatherOtherChunks(DF df, DI di, const PlaneChunkTables &tables, int64_t begin, int64_t end,
                                  const int32_t *HWY_RESTRICT indices, const int32_t *HWY_RESTRICT gradientBits,
                                  float *HWY_RESTRICT destination, int64_t firstPosition, bool streaming,
                                  hn::Vec<DI> &count) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    const int32_t *HWY_RESTRICT offsets = tables.laneOffset.data();
    const int32_t *HWY_RESTRICT positions = tables.lanePosition.data();
    const int64_t planeElements = tables.planeElements;
    const auto laneLimit = hn::Set(di, static_cast<int32_t>(lanes));
    const auto lastLane = hn::Set(di, static_cast<int32_t>(lanes - 1));
    // A vector of outputs from first on, `readable` of them existing (the rest read as 0).
    const auto load = [&](const int32_t *from, int64_t first, int32_t readable) {
        if (readable == lanes) return hn::LoadU(di, from + first);
        return MaskedLoadUnaligned(hn::FirstN(di, static_cast<size_t>(readable)), di, from + first);
    };
    for (int64_t k = begin; k < end; ++k) {
        const int64_t chunk = tables.otherChunk[static_cast<size_t>(k)];
        const PlaneChunkTables::Chunk entry = tables.chunk[static_cast<size_t>(chunk)];
        const int64_t position = chunk * lanes;
        auto sum = hn::Zero(df);
        if (entry.reach != PlaneChunkTables::kNoWindow) {
            const auto offset = hn::LoadU(di, offsets + position);
            const auto lowIndex = load(indices, entry.firstOutput, entry.readable);
            const auto lowGradient = load(gradientBits, entry.firstOutput, entry.readable);
            hn::Vec<DI> index, gradient;
            if (entry.reach == PlaneChunkTables::kOneVector) {
                const auto lookup = hn::IndicesFromVec(di, offset);
                index = hn::TableLookupLanes(lowIndex, lookup);
                gradient = hn::TableLookupLanes(lowGradient, lookup);
            } else {
                // Offsets 0 .. 2*lanes-1: each lane takes its lane of the first or of the second vector.
                const auto highIndex = load(indices, entry.secondOutput, entry.secondReadable);
                const auto highGradient = load(gradientBits, entry.secondOutput, entry.secondReadable);
                const auto high = hn::Gt(offset, lastLane);
                const auto lookup = hn::IndicesFromVec(di, hn::IfThenElse(high, hn::Sub(offset, laneLimit), offset));
                index = hn::IfThenElse(high, hn::TableLookupLanes(highIndex, lookup),
                                       hn::TableLookupLanes(lowIndex, lookup));
                gradient = hn::IfThenElse(high, hn::TableLookupLanes(highGradient, lookup),
                                          hn::TableLookupLanes(lowGradient, lookup));
            }
            auto match = hn::Eq(index, hn::LoadU(di, positions + position));
            // The plane's last chunk: its lanes past the plane's end name positions outside it, which an index
            // outside the plane must not match (found by the fuzzer: index 6 of a 6-element plane counted as
            // matched, and the call succeeded instead of handing over to the scatter's 161002).
            if (position + lanes > planeElements)
                match = hn::And(match, hn::FirstN(di, static_cast<size_t>(planeElements - position)));
            count = CountMatch(di, match, count);
            sum = SumFromZero(df, hn::RebindMask(df, match), hn::BitCast(df, gradient));
        }
        float *at = destination + (position - firstPosition);
        if (position + lanes <= planeElements)
            storeVector(df, sum, at, streaming);
        else
            hn::BlendedStore(sum, hn::FirstN(df, static_cast<size_t>(planeElements - position)), df, at);
    }
}

int64_t GatherPlaneChunks(const PlaneChunkTables &tables, int64_t firstChunk, int64_t endChunk,
                          const int32_t *HWY_RESTRICT indices, const float *HWY_RESTRICT gradients,
                          float *HWY_RESTRICT destination, bool streaming) {
    const hn::CappedTag<float, 16> df;
    const hn::RebindToSigned<decltype(df)> di;
    const int64_t firstPosition = firstChunk * static_cast<int64_t>(hn::Lanes(df));
    const int32_t *gradientBits = reinterpret_cast<const int32_t *>(gradients);
    // Each lane counts its matches as -1s, at most one per chunk: summed into the int64 total every 2^20
    // chunks, far from int32 overflow.
    constexpr int64_t kBatch = int64_t{1} << 20;
    int64_t matches = 0;
    const auto addBatch = [&](auto &&gather, int64_t begin, int64_t end) {
        for (int64_t batch = begin; batch < end; batch += kBatch) {
            auto count = hn::Zero(di);
            gather(batch, std::min(end, batch + kBatch), count);
            matches -= static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, count)));
        }
    };
    const int64_t plainBegin = tables.plainBefore[static_cast<size_t>(firstChunk)],
                  plainEnd = tables.plainBefore[static_cast<size_t>(endChunk)];
    addBatch(
        [&](int64_t begin, int64_t end, hn::Vec<decltype(di)> &count) {
            if (streaming)
                GatherPairUnits<true>(df, di, tables, begin, end, indices, gradientBits, destination, firstPosition,
                                      count);
            else
                GatherPairUnits<false>(df, di, tables, begin, end, indices, gradientBits, destination, firstPosition,
                                       count);
        },
        tables.pairBefore[static_cast<size_t>(firstChunk)], tables.pairBefore[static_cast<size_t>(endChunk)]);
    addBatch(
        [&](int64_t begin, int64_t end, hn::Vec<decltype(di)> &count) {
            if (streaming)
                GatherPlainChunks<true>(df, di, tables, begin, end, indices, gradientBits, destination, firstPosition,
                                        count);
            else
                GatherPlainChunks<false>(df, di, tables, begin, end, indices, gradientBits, destination, firstPosition,
                                         count);
        },
        plainBegin, plainEnd);
    addBatch(
        [&](int64_t begin, int64_t end, hn::Vec<decltype(di)> &count) {
            GatherOtherChunks(df, di, tables, begin, end, indices, gradientBits, destination, firstPosition, streaming,
                              count);
        },
        tables.otherBefore[static_cast<size_t>(firstChunk)], tables.otherBefore[static_cast<size_t>(endChunk)]);
    return matches;
}

IndexCounts CountIndices(const int32_t *HWY_RESTRICT indices, int64_t count, int64_t planeElements) {
    const hn::ScalableTag<int32_t> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(di));
    const auto absent = hn::Set(di, -1);
    const auto end = hn::Set(di, static_cast<int32_t>(planeElements));
    IndexCounts counts;
    int64_t i = 0;
    for (; i + lanes <= count; i += lanes) {
        const auto index = hn::LoadU(di, indices + i);
        counts.present += static_cast<int64_t>(hn::CountTrue(di, hn::Not(hn::Eq(index, absent))));
        counts.outsidePlane +=
            static_cast<int64_t>(hn::CountTrue(di, hn::Or(hn::Lt(index, absent), hn::Not(hn::Lt(index, end)))));
    }
    for (; i < count; ++i) {
        counts.present += indices[i] != -1;
        counts.outsidePlane += indices[i] < -1 || indices[i] >= planeElements;
    }
    return counts;
}

WholePlaneCounts GatherWholePlanes(const PlaneChunkTables &tables, const PlaneChunkOperands &operands,
                                   int64_t firstPlane, int64_t endPlane, bool streaming) {
    const hn::CappedTag<float, 16> df;
    const hn::RebindToSigned<decltype(df)> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(di));
    const int64_t outputs = tables.planeOutputs, chunks = tables.chunks;
    const int64_t pairUnits = static_cast<int64_t>(tables.pairUnit.size());
    const int64_t plainChunks = static_cast<int64_t>(tables.plainChunk.size());
    const int64_t otherChunks = static_cast<int64_t>(tables.otherChunk.size());
    const auto absent = hn::Set(di, -1), planeEnd = hn::Set(di, static_cast<int32_t>(tables.planeElements));
    // Each lane counts as -1s: per plane at most one match per chunk and one index per vector of outputs, so
    // the lanes are summed into the int64 totals before 2^30 could be reached.
    const int64_t planesPerSum = std::max<int64_t>(1, (int64_t{1} << 30) / (chunks + outputs + 1));
    auto matched = hn::Zero(di), present = hn::Zero(di), outside = hn::Zero(di);
    WholePlaneCounts counts;
    const auto sumLanes = [&] {
        counts.matched -= static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, matched)));
        counts.indices.present -= static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, present)));
        counts.indices.outsidePlane -= static_cast<int64_t>(hn::GetLane(hn::SumOfLanes(di, outside)));
        matched = present = outside = hn::Zero(di);
    };
    const auto countOutputs = [&](auto index, auto valid) {
        present = hn::Add(present, hn::VecFromMask(di, hn::AndNot(hn::Eq(index, absent), valid)));
        const auto beyond = hn::Or(hn::Lt(index, absent), hn::Not(hn::Lt(index, planeEnd)));
        outside = hn::Add(outside, hn::VecFromMask(di, hn::And(beyond, valid)));
    };
    int64_t sinceSum = 0;
    for (int64_t plane = firstPlane; plane < endPlane; ++plane) {
        const int64_t n = plane / operands.channels, c = plane % operands.channels;
        const int32_t *HWY_RESTRICT indices =
            operands.indices + n * operands.indexStride[0] + c * operands.indexStride[1];
        const int32_t *HWY_RESTRICT gradientBits = reinterpret_cast<const int32_t *>(
            operands.gradients + n * operands.gradientStride[0] + c * operands.gradientStride[1]);
        float *HWY_RESTRICT destination =
            operands.destination + n * operands.destinationStride[0] + c * operands.destinationStride[1];
        if (streaming) {
            GatherPairUnits<true>(df, di, tables, 0, pairUnits, indices, gradientBits, destination, 0, matched);
            GatherPlainChunks<true>(df, di, tables, 0, plainChunks, indices, gradientBits, destination, 0, matched);
        } else {
            GatherPairUnits<false>(df, di, tables, 0, pairUnits, indices, gradientBits, destination, 0, matched);
            GatherPlainChunks<false>(df, di, tables, 0, plainChunks, indices, gradientBits, destination, 0, matched);
        }
        GatherOtherChunks(df, di, tables, 0, otherChunks, indices, gradientBits, destination, 0, streaming, matched);
        // Counted after the chunks have read the indices, from the cache (counted first, from memory, the pass
        // waits for DRAM with no work to overlap it).
        int64_t q = 0;
        for (; q + lanes <= outputs; q += lanes) countOutputs(hn::LoadU(di, indices + q), hn::FirstN(di, lanes));
        if (q < outputs) {
            const auto valid = hn::FirstN(di, static_cast<size_t>(outputs - q));
            countOutputs(MaskedLoadUnaligned(valid, di, indices + q), valid);
        }
        if (++sinceSum == planesPerSum) {
            sumLanes();
            sinceSum = 0;
        }
    }
    sumLanes();
    return counts;
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(PlaneChunkLaneCount);
HWY_EXPORT(PlaneChunkPairsSupported);
HWY_EXPORT(GatherPlaneChunks);
HWY_EXPORT(CountIndices);
HWY_EXPORT(GatherWholePlanes);

int64_t planeChunkLaneCount() { return HWY_DYNAMIC_DISPATCH(PlaneChunkLaneCount)(); }
bool planeChunkPairsSupported() { return HWY_DYNAMIC_DISPATCH(PlaneChunkPairsSupported)(); }

int64_t gatherPlaneChunks(const PlaneChunkTables &tables, int64_t firstChunk, int64_t endChunk, const int32_t *indices,
                          const float *gradients, float *destination, bool streaming) {
    return HWY_DYNAMIC_DISPATCH(GatherPlaneChunks)(tables, firstChunk, endChunk, indices, gradients, destination,
                                                   streaming);
}

IndexCounts countIndices(const int32_t *indices, int64_t count, int64_t planeElements) {
    return HWY_DYNAMIC_DISPATCH(CountIndices)(indices, count, planeElements);
}

WholePlaneCounts gatherWholePlanes(const PlaneChunkTables &tables, const PlaneChunkOperands &operands,
                                   int64_t firstPlane, int64_t endPlane, bool streaming) {
    return HWY_DYNAMIC_DISPATCH(GatherWholePlanes)(tables, operands, firstPlane, endPlane, streaming);
}

}  // namespace poolgrad::cpu
#endif
