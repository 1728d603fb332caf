// Highway implementation of the channels-last forward's search: one source compiled for every target, and
// for each value type (16-bit values compared as integers by vectors of twice the channels, and widened to
// float32 as they load where a NaN or a rest of channels needs the float32 search). A block is U output positions times V vectors of channels, U * V independent compare-and-blend
// chains that hide each other's compare latency: V = 2 or 4 vectors of one output, or 8 outputs of the
// last vector (one output position of 16 channels alone is a single chain on AVX-512). Each tap's label is its plane
// offset from the window's first row (the same for every window of a congruent run), turned into the flat plane index
// with one add per output when the block is stored. NaNs: the search adds the values it loads into a few
// detectors (an add per tap and vector, on pipes the compares and blends leave idle: measured free on Zen 4,
// while a separate pass checking the rows for NaNs cost 10-15%), and a block whose detectors come out NaN
// is searched again with the NaN rule.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_argmax_channels_last.cpp"
#include "cpu/simd_argmax_channels_last.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
#include "cpu/lambda_inline.h"
// clang-format off: after highway.h
#include "cpu/simd_ordered_ops-inl.h"
#include "cpu/simd_store-inl.h"
#include "cpu/simd_widen_sixteen_bit-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The most 32-bit lanes of a vector of this target: the size of per-lane buffers.
constexpr size_t kMostLanes = HWY_MAX_BYTES / sizeof(float);

// The two searches of a block: the fast one (TakeGreater per tap and vector) that also adds
// every value into a detector, and the NaN rule (a NaN is taken too).
enum class NanSearch { Detect, Rule };

// Detectors per block: each shared by U * V / kDetectors chains, whose adds still keep up with the taps. With 16
// vector registers, four detectors beside four values and four winners pushed two winners to the stack, each tap's
// blend then waiting on a store and a reload (AMD Zen 3, one thread, in cache: 32 channels of 3x3x3 stride 2 0.157
// -> 0.145 ms with two, 2x2x2 0.036 -> 0.029; one detector, four adds a tap in one chain: 1.3x slower).
#if HWY_TARGET <= HWY_AVX3  // AVX-512 and better: 32 vector registers
constexpr int kDetectors = 4;
#else
constexpr int kDetectors = 2;
#endif

// The outputs of a row, as the block searches use them (a local copy: stores through its pointers cannot
// change it).
struct RowOutputs {
    void *values;
    int32_t *winners32;
    int64_t *winners64;
    int64_t pixelStride;
    bool streaming;
};

// Searches the windows of outputs first..first+U-1 (window first + u starting u * stride columns after
// window first's, all of its count and step) across V vectors of channels from c; with Partial, one
// vector of which only `valid` lanes are channels (the others are neither read nor written).
// Element type of the rows for a value type.
template <ArgmaxValueType Type>
using ElementOf = std::conditional_t<Type == ArgmaxValueType::Float32, float, uint16_t>;

// One vector of channels at `at` (with Partial only the first `valid`), as float32.
template <ArgmaxValueType Type, bool Partial, class D>
HWY_INLINE hn::Vec<D> loadChannels(D d, const ElementOf<Type> *HWY_RESTRICT at, size_t valid) {
    if constexpr (Type == ArgmaxValueType::Float32) {
        if constexpr (Partial)
            return MaskedLoadUnaligned(hn::FirstN(d, valid), d, at);
        else
            return hn::LoadU(d, at);
    } else {
        const hn::Rebind<uint16_t, D> d16;
        hn::Vec<decltype(d16)> bits;
        if constexpr (Partial)
            bits = MaskedLoadUnaligned(hn::FirstN(d16, valid), d16, at);
        else
            bits = hn::LoadU(d16, at);
        return widenSixteenBit<Type == ArgmaxValueType::Float16>(d, bits);
    }
}

// One vector of winners' values to `at` (with Partial only the first `valid` lanes): float32 as they are;
// 16-bit ones narrowed back where that gives the input's bits, else copied from the elements the flat
// indices name.
template <ArgmaxValueType Type, bool Partial, class D, class DI>
HWY_INLINE void storeValues(D d, DI di, const ChannelsLastRow &row, hn::Vec<D> best, hn::Vec<DI> flat,
                            ElementOf<Type> *HWY_RESTRICT at, int64_t channel, size_t valid, bool streaming) {
    const size_t lanes = Partial ? valid : hn::Lanes(d);
    if constexpr (Type == ArgmaxValueType::Float32) {
        if constexpr (!Partial) {
            storeVector(d, best, at, streaming);
        } else {  // through a buffer: nothing past the channels is written
            HWY_ALIGN_MAX float buffer[kMostLanes];
            hn::Store(best, d, buffer);
            std::memcpy(at, buffer, lanes * sizeof(float));
        }
    } else {
        const hn::Rebind<uint16_t, D> d16;
        hn::Vec<decltype(d16)> bits;
        if (narrowSixteenBitExactly<Type == ArgmaxValueType::Float16>(d, best, bits)) {
            if constexpr (!Partial) {
                hn::StoreU(bits, d16, at);
            } else {
                HWY_ALIGN_MAX uint16_t buffer[kMostLanes];
                hn::Store(bits, d16, buffer);
                std::memcpy(at, buffer, lanes * sizeof(uint16_t));
            }
        } else {  // the elements themselves (a float16 NaN, which the widening may have quieted)
            HWY_ALIGN_MAX int32_t positions[kMostLanes] = {};
            hn::Store(flat, di, positions);
            const uint16_t *image = static_cast<const uint16_t *>(row.imageStart);
            const uint16_t minusInfinity = Type == ArgmaxValueType::Float16 ? 0xfc00u : 0xff80u;
            for (size_t i = 0; i < lanes; ++i) {
                const int64_t flat = positions[i], w = flat % row.imageWidth, dh = flat / row.imageWidth;
                const int64_t h = dh % row.imageHeight, d = dh / row.imageHeight;
                at[i] = flat >= 0 ? image[d * row.imageStrides[0] + h * row.imageStrides[1] +
                                          w * row.inputPixelStride + channel + static_cast<int64_t>(i)]
                                  : minusInfinity;
            }
        }
    }
}

// The flat plane index of label 0 of output first + u (window first + u starts u * stride columns after window
// first's).
template <class DI>
HWY_INLINE hn::Vec<DI> flatOfLabelZero(DI di, const ChannelsLastRow &row, const AxisWindow &window, int u,
                                       int64_t stride) {
    return hn::Set(di, static_cast<int32_t>(row.rowFlat[0] + window.first + static_cast<int64_t>(u) * stride));
}

// What the integer search of a block did.
enum class KeySearch { Written, SawNaN, LabelsTooWide };

#if HWY_TARGET != HWY_SCALAR
// 16-bit values compared as integers, twice the channels of a float32 vector per instruction: a float16 or
// bfloat16 is sign and magnitude, so the magnitude negated where the sign is set is a signed integer in the
// values' order, -0 and +0 both 0 (ties keep the first tap, as in float32). Infinities are the keys
// +-infinityKey; a NaN's key lies beyond them (above for a positive NaN, which the search then takes, below for a
// negative one, which it never takes), so NaNs are told afterwards: the best key above +infinityKey, or the
// largest input bits (as unsigned) above -infinity's. The winners' bits are kept as they were loaded.
template <class DK>
HWY_INLINE hn::Vec<DK> orderedKey(DK dk, hn::Vec<DK> bits) {
    const auto sign = hn::ShiftRight<15>(bits);  // 0 or -1
    return hn::Sub(hn::Xor(hn::And(bits, hn::Set(dk, int16_t{0x7fff})), sign), sign);
}

// The integer search of a block of 16-bit values: U outputs times VK vectors of 2 x lanes channels from c.
// Writes nothing when a window holds a NaN (the float search's NaN rule then decides) or when a window's labels
// (tap offsets from its first position) do not fit in 16 bits (the float search).
template <ArgmaxValueType Type, int U, int VK, class D, class DI>
HWY_INLINE KeySearch searchBlockKeys([[maybe_unused]] D d, DI di, const ChannelsLastRow &row, const RowOutputs &out,
                                     int64_t first, int64_t stride, int64_t c) {
    const hn::Repartition<int16_t, D> dk;
    const hn::RebindToUnsigned<decltype(dk)> du;
    const hn::Half<decltype(dk)> dh;
    const int64_t keyLanes = static_cast<int64_t>(hn::Lanes(dk));
    const AxisWindow &window = row.windows[first];
    const int32_t firstRowFlat = row.rowFlat[0];
    if (int64_t{row.rowFlat[row.rowCount - 1]} - firstRowFlat + (window.count - 1) * window.step > 0x7fff)
        return KeySearch::LabelsTooWide;
    const int64_t pixel = row.inputPixelStride;
    const int64_t outputStep = U > 1 ? stride * pixel : 0, tapStep = window.count > 1 ? window.step * pixel : 0;
    constexpr bool kHalf = Type == ArgmaxValueType::Float16;
    const int16_t infinityKey = kHalf ? 0x7c00 : 0x7f80;
    const uint16_t minusInfinityBits = kHalf ? 0xfc00u : 0xff80u;
    const auto tapLabelStep = hn::Set(dk, static_cast<int16_t>(window.step));
    constexpr int kChainDetectors = U * VK < kDetectors ? U * VK : kDetectors;
    hn::Vec<decltype(dk)> bestKey[U][VK], bestBits[U][VK], label[U][VK];
    hn::Vec<decltype(du)> largestBits[kChainDetectors];
    for (int u = 0; u < U; ++u)
        for (int v = 0; v < VK; ++v) {
            bestKey[u][v] = hn::Set(dk, static_cast<int16_t>(-infinityKey));
            bestBits[u][v] = hn::BitCast(dk, hn::Set(du, minusInfinityBits));
            label[u][v] = hn::Zero(dk);  // the first tap: the winner of a window of -inf
        }
    for (int k = 0; k < kChainDetectors; ++k) largestBits[k] = hn::Zero(du);
    const auto search = [&]<int Taps>() POOLGRAD_LAMBDA_INLINE {
        const int64_t taps = Taps > 0 ? Taps : window.count;
        for (int64_t r = 0; r < row.rowCount; ++r) {
            const int16_t *tap =
                static_cast<const int16_t *>(row.rowStarts[r]) + window.first * pixel + c;
            auto tapLabel = hn::Set(dk, static_cast<int16_t>(row.rowFlat[r] - firstRowFlat));
#pragma GCC unroll 4
            for (int64_t j = 0; j < taps; ++j, tap += tapStep, tapLabel = hn::Add(tapLabel, tapLabelStep)) {
                for (int u = 0; u < U; ++u)
                    for (int v = 0; v < VK; ++v) {
                        const auto bits = inRegister(hn::LoadU(dk, tap + u * outputStep + v * keyLanes));
                        auto &largest = largestBits[(u * VK + v) % kChainDetectors];
                        largest = hn::Max(largest, hn::BitCast(du, bits));
                        const auto key = orderedKey(dk, bits);
                        const auto take = hn::Gt(key, bestKey[u][v]);
                        bestKey[u][v] = hn::IfThenElse(take, key, bestKey[u][v]);
                        bestBits[u][v] = hn::IfThenElse(take, bits, bestBits[u][v]);
                        label[u][v] = hn::IfThenElse(take, tapLabel, label[u][v]);
                    }
            }
        }
    };
    // The tap loop unrolled for windows 3 and 2 wide (most pooling), counted at run time otherwise. Called here
    // directly: through a helper taking the lambda, GCC 12 left the search out of line with the block's vectors
    // in memory (2x the time, float32 and 16-bit alike).
    if (window.count == 3)
        search.template operator()<3>();
    else if (window.count == 2)
        search.template operator()<2>();
    else
        search.template operator()<0>();
    auto largest = largestBits[0];
    for (int k = 1; k < kChainDetectors; ++k) largest = hn::Max(largest, largestBits[k]);
    auto nan = hn::Gt(largest, hn::Set(du, minusInfinityBits));
    for (int u = 0; u < U; ++u)
        for (int v = 0; v < VK; ++v)
            nan = hn::Or(nan, hn::RebindMask(du, hn::Gt(bestKey[u][v], hn::Set(dk, infinityKey))));
    if (!hn::AllFalse(du, nan)) return KeySearch::SawNaN;
    for (int u = 0; u < U; ++u) {
        const int64_t output = first + u;
        const auto flatOfLabel = flatOfLabelZero(di, row, window, u, stride);
        for (int v = 0; v < VK; ++v) {
            const int64_t at = output * out.pixelStride + c + v * keyLanes;
            storeVector(dk, bestBits[u][v], static_cast<int16_t *>(out.values) + at, out.streaming);
            const auto lower = hn::Add(hn::PromoteTo(di, hn::LowerHalf(dh, label[u][v])), flatOfLabel);
            const auto upper = hn::Add(hn::PromoteTo(di, hn::UpperHalf(dh, label[u][v])), flatOfLabel);
            const int64_t half = keyLanes / 2;
            storeInt32Lanes(di, lower, out.winners32 ? out.winners32 + at : nullptr,
                            out.winners64 ? out.winners64 + at : nullptr, out.streaming);
            storeInt32Lanes(di, upper, out.winners32 ? out.winners32 + at + half : nullptr,
                            out.winners64 ? out.winners64 + at + half : nullptr, out.streaming);
        }
    }
    return KeySearch::Written;
}
#endif

template <ArgmaxValueType Type, int U, int V, bool Partial, class D, class DI>
HWY_INLINE void searchBlock(D d, DI di, const ChannelsLastRow &row, const RowOutputs &out, int64_t first,
                            int64_t stride, int64_t c, size_t valid) {
    static_assert(!Partial || V == 1);
    // Whether the integer search already saw a NaN: the float search then goes straight to the NaN rule.
    bool sawNaN = false;
#if HWY_TARGET != HWY_SCALAR
    if constexpr (Type != ArgmaxValueType::Float32 && !Partial && V % 2 == 0) {
        const KeySearch keys = searchBlockKeys<Type, U, V / 2>(d, di, row, out, first, stride, c);
        if (keys == KeySearch::Written) return;
        sawNaN = keys == KeySearch::SawNaN;
    }
#endif
    using Element = ElementOf<Type>;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const AxisWindow &window = row.windows[first];
    const int64_t pixel = row.inputPixelStride;
    // The walk below steps its pointer once past the last tap. A one-tap window may carry a huge step (kernel 1,
    // dilation INT64_MAX is valid) and one output a huge stride: neither is used then, and multiplied out
    // they overflowed (found by the fuzzer: tap + INT64_MAX floats).
    const int64_t outputStep = U > 1 ? stride * pixel : 0, tapStep = window.count > 1 ? window.step * pixel : 0;
    const int32_t firstRowFlat = row.rowFlat[0];
    // A vector add per tap rather than a broadcast from a general register into every blend.
    const auto tapLabelStep = hn::Set(di, static_cast<int32_t>(window.step));
    constexpr int kChainDetectors = U * V < kDetectors ? U * V : kDetectors;
    hn::Vec<D> best[U][V], detector[kChainDetectors];
    hn::Vec<DI> winner[U][V];
    const auto search = [&]<NanSearch Mode, int Taps>() POOLGRAD_LAMBDA_INLINE {
        const int64_t taps = Taps > 0 ? Taps : window.count;
        for (int u = 0; u < U; ++u)
            for (int v = 0; v < V; ++v) {
                best[u][v] = hn::Set(d, -std::numeric_limits<float>::infinity());
                winner[u][v] = hn::Zero(di);  // the first tap: the winner of a window of -inf
            }
        for (int k = 0; k < kChainDetectors; ++k) detector[k] = hn::Zero(d);
        for (int64_t r = 0; r < row.rowCount; ++r) {
            const Element *tap = static_cast<const Element *>(row.rowStarts[r]) + window.first * pixel + c;
            auto tapLabel = hn::Set(di, row.rowFlat[r] - firstRowFlat);
#pragma GCC unroll 4
            for (int64_t j = 0; j < taps; ++j, tap += tapStep, tapLabel = hn::Add(tapLabel, tapLabelStep)) {
                for (int u = 0; u < U; ++u)
                    for (int v = 0; v < V; ++v) {
                        const hn::Vec<D> value =
                            inRegister(loadChannels<Type, Partial>(d, tap + u * outputStep + v * lanes, valid));
                        if constexpr (Mode == NanSearch::Detect) {
                            auto &sum = detector[(u * V + v) % kChainDetectors];
                            sum = hn::Add(sum, value);
                        }
                        if constexpr (Mode == NanSearch::Rule) {
                            const auto take = hn::Or(hn::Gt(value, best[u][v]), hn::IsNaN(value));
                            best[u][v] = hn::IfThenElse(take, value, best[u][v]);
                            winner[u][v] = hn::IfThenElse(hn::RebindMask(di, take), tapLabel, winner[u][v]);
                        } else {
                            // Below AVX-512 a max, an integer compare and one blend (AMD Zen 3, one thread, in
                            // cache: 32 channels 3x3x3 stride 2 0.037 -> 0.032 ms, 64 channels 3x3 stride 1
                            // 0.076 -> 0.063, 64 channels 3x3 stride 2 0.062 -> 0.054).
                            TakeGreater(value, tapLabel, best[u][v], winner[u][v]);
                        }
                    }
            }
        }
        if constexpr (Mode == NanSearch::Detect) {
            auto sum = detector[0];
            for (int k = 1; k < kChainDetectors; ++k) sum = hn::Add(sum, detector[k]);
            return hn::AllFalse(d, hn::IsNaN(sum));
        }
        return true;
    };
    bool clean = false;
    if (sawNaN)
        clean = false;
    else if (window.count == 3)
        clean = search.template operator()<NanSearch::Detect, 3>();
    else if (window.count == 2)
        clean = search.template operator()<NanSearch::Detect, 2>();
    else
        clean = search.template operator()<NanSearch::Detect, 0>();
    if (!clean) search.template operator()<NanSearch::Rule, 0>();
    for (int u = 0; u < U; ++u) {
        const int64_t output = first + u;
        const auto flatOfLabel = flatOfLabelZero(di, row, window, u, stride);
        for (int v = 0; v < V; ++v) {
            const int64_t at = output * out.pixelStride + c + v * lanes;
            const auto flat = hn::Add(winner[u][v], flatOfLabel);
            storeValues<Type, Partial>(d, di, row, best[u][v], flat, static_cast<Element *>(out.values) + at,
                                       c + v * lanes, valid, out.streaming);
            if constexpr (!Partial) {
                storeInt32Lanes(di, flat, out.winners32 ? out.winners32 + at : nullptr,
                             out.winners64 ? out.winners64 + at : nullptr, out.streaming);
            } else {  // through a buffer: nothing past the channels is written
                HWY_ALIGN_MAX int32_t bestFlat[kMostLanes] = {};  // g++ cannot see that Store fills the valid lanes
                hn::Store(flat, di, bestFlat);
                for (size_t i = 0; i < valid; ++i) {
                    if (out.winners32) out.winners32[at + i] = bestFlat[i];
                    if (out.winners64) out.winners64[at + i] = bestFlat[i];
                }
            }
        }
    }
}

// The blocks off the row's steady loops (a run's last block, the edge windows) are called, one copy per block
// shape: with every block inlined where it is used, the row's function grew to a 7-minute compile on an AVX2
// host (all targets and value types in one translation unit) and made the sanitizer builds run past CI's limit.
// The steady loops keep their block inline: called, A-fwd-cl-cache took 1.2x the time.
template <ArgmaxValueType Type, int U, int V, bool Partial, class D, class DI>
HWY_NOINLINE void searchBlockOutOfLine(D d, DI di, const ChannelsLastRow &row, RowOutputs out, int64_t first,
                                       int64_t stride, int64_t c, size_t valid) {
    searchBlock<Type, U, V, Partial>(d, di, row, out, first, stride, c, valid);
}

// Outputs [begin, end) of a congruent run (window ow + 1 starts `stride` columns after window ow), U at a
// time, the rest in smaller blocks.
template <ArgmaxValueType Type, int U, int V, bool Partial, class D, class DI>
HWY_NOINLINE void searchRun(D d, DI di, const ChannelsLastRow &row, RowOutputs out, int64_t begin, int64_t end,
                            int64_t stride, int64_t c, size_t valid) {
    int64_t ow = begin;
    for (; ow + U <= end; ow += U) searchBlock<Type, U, V, Partial>(d, di, row, out, ow, stride, c, valid);
    if (ow == end) return;
    if (end - begin >= U) {  // the last block moves back to end at the run's end (windows searched twice agree)
        searchBlockOutOfLine<Type, U, V, Partial>(d, di, row, out, end - U, stride, c, valid);
    } else if constexpr (U > 1) {
        searchRun<Type, U / 2, V, Partial>(d, di, row, out, ow, end, stride, c, valid);
    }
}

// Outputs [begin, end) outside the congruent run, window by window (a window wholly in padding was written by
// the caller).
template <ArgmaxValueType Type, int V, bool Partial, class D, class DI>
HWY_INLINE void searchEdgeWindows(D d, DI di, const ChannelsLastRow &row, const RowOutputs &out, int64_t begin,
                                  int64_t end, int64_t c, size_t valid) {
    for (int64_t ow = begin; ow < end; ++ow)
        if (row.windows[ow].count > 0) searchBlockOutOfLine<Type, 1, V, Partial>(d, di, row, out, ow, 0, c, valid);
}

// Every output of the row for V vectors of channels from c: the edge windows one by one, the congruent run U
// windows at a time.
template <ArgmaxValueType Type, int U, int V, bool Partial, class D, class DI>
HWY_INLINE void searchChannels(D d, DI di, const ChannelsLastRow &row, const RowOutputs &out, int64_t c, size_t valid) {
    const CongruentRun &run = row.congruentRun;
    if (run.begin > 0) searchEdgeWindows<Type, V, Partial>(d, di, row, out, 0, run.begin, c, valid);
    searchRun<Type, U, V, Partial>(d, di, row, out, run.begin, run.end, run.stride, c, valid);
    if (run.end < row.outputs) searchEdgeWindows<Type, V, Partial>(d, di, row, out, run.end, row.outputs, c, valid);
}

template <ArgmaxValueType Type>
HWY_INLINE void argmaxRow(const ChannelsLastRow &row) {
    using Element = ElementOf<Type>;
    const RowOutputs out{row.values, row.winners32, row.winners64, row.outputPixelStride,
                         row.streaming};
    // Windows wholly in padding (dilation > 1), or every window when no input row is in the window: -inf,
    // index -1.
    if (row.someWindowEmpty || row.rowCount == 0) {
        for (int64_t ow = 0; ow < row.outputs; ++ow) {
            if (row.rowCount > 0 && row.windows[ow].count > 0) continue;
            const int64_t at = ow * out.pixelStride;
            for (int64_t c = 0; c < row.channels; ++c) {
                Element minusInfinity;
                if constexpr (Type == ArgmaxValueType::Float32)
                    minusInfinity = -std::numeric_limits<float>::infinity();
                else
                    minusInfinity = Type == ArgmaxValueType::Float16 ? 0xfc00u : 0xff80u;
                static_cast<Element *>(out.values)[at + c] = minusInfinity;
                if (out.winners32) out.winners32[at + c] = -1;
                if (out.winners64) out.winners64[at + c] = -1;
            }
        }
        if (row.rowCount == 0) return;
    }
    const hn::ScalableTag<float> d;
    const hn::RebindToSigned<decltype(d)> di;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    // Channels of 2 or more vectors: one output at a time, its channel vectors the chains (blocks of 2 or 4
    // outputs were as fast with the input in cache but 1.3-1.6x slower on DRAM-sized A-fwd-cl and C2-fwd-cl:
    // their loads skip between columns and the prefetchers fall behind). A single vector of channels: blocks
    // of 8 outputs (1.3x faster than one at a time on A-fwd-cl-cache).
    int64_t c = 0;
    // Channels of several groups of 4 vectors (64 channels with AVX2): output by output, every group of its
    // channels before the next output, so that the row is read once, in order. A walk along the row per
    // group read a part of every C * 4 bytes and the next walk the rest, from memory at a fraction of the
    // bandwidth (D-fwd-cl on AVX2, AMD EPYC Zen 3: 1.5-2x PyTorch's time, which walks pixel by pixel).
    if (const int64_t groups = row.channels / (4 * lanes); groups >= 2) {
        for (int64_t ow = 0; ow < row.outputs; ++ow) {
            if (row.windows[ow].count == 0) continue;  // wholly in padding: written above
            for (int64_t g = 0; g < groups; ++g)
                searchBlock<Type, 1, 4, false>(d, di, row, out, ow, 0, g * 4 * lanes, 0);
        }
        c = groups * 4 * lanes;
    }
    for (; c + 4 * lanes <= row.channels; c += 4 * lanes) searchChannels<Type, 1, 4, false>(d, di, row, out, c, 0);
    for (; c + 2 * lanes <= row.channels; c += 2 * lanes) searchChannels<Type, 1, 2, false>(d, di, row, out, c, 0);
    for (; c + lanes <= row.channels; c += lanes) searchChannels<Type, 8, 1, false>(d, di, row, out, c, 0);
    if (c < row.channels)
        searchChannels<Type, 8, 1, true>(d, di, row, out, c, static_cast<size_t>(row.channels - c));
}

void ArgmaxChannelsLastRow(const ChannelsLastRow &row) {
    switch (row.valueType) {
        case ArgmaxValueType::Float16:
            argmaxRow<ArgmaxValueType::Float16>(row);
            break;
        case ArgmaxValueType::BFloat16:
            argmaxRow<ArgmaxValueType::BFloat16>(row);
            break;
        default:
            argmaxRow<ArgmaxValueType::Float32>(row);
            break;
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(ArgmaxChannelsLastRow);

void argmaxChannelsLastRow(const ChannelsLastRow &row) { HWY_DYNAMIC_DISPATCH(ArgmaxChannelsLastRow)(row); }

}  // namespace poolgrad::cpu
#endif
