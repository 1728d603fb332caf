// Highway implementation of sumFirstMatches3x3Stride2, compiled for every target Highway supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_first_match_3x3_stride2.cpp"
#include "cpu/simd_first_match_3x3_stride2.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: after highway.h, compiled once per target
#include "cpu/simd_lanes-inl.h"
#include "cpu/simd_ordered_ops-inl.h"
#include "cpu/simd_store-inl.h"
// clang-format on
#include "cpu/lambda_inline.h"

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
template <class D>
HWY_INLINE float lastLane(D d, hn::Vec<D> v) {
    HWY_ALIGN float lanes[HWY_MAX_BYTES / sizeof(float)];
    hn::StoreU(v, d, lanes);
    return lanes[hn::Lanes(d) - 1];
}
#endif

// One output row of windows (simd_first_match_3x3_stride2.h), with the left padding a template argument:
// window i's taps are columns 2i - PadLeft + {0, 1, 2} of rows[r], and a tap outside [0, inputWidth) never
// matches. Column x of the finished rows is written once, at topOut[x] / middleOut[x].
#if HWY_TARGET == HWY_SCALAR
// One window at a time, the same sums in the same order.
template <int PadLeft>
void sumFirstMatchesOfRow(const float *const *HWY_RESTRICT rows, int64_t inputWidth, const float *HWY_RESTRICT targets,
                          const float *HWY_RESTRICT gradients, int64_t outputWidth, float *HWY_RESTRICT partialEven,
                          float *HWY_RESTRICT partialOdd, float *HWY_RESTRICT topOut, float *HWY_RESTRICT middleOut,
                          bool) {
    const auto put = [&](float *row, int64_t x, float value) {
        if (x >= 0 && x < inputWidth) row[x] = value;
    };
    float carry[3] = {0.0f, 0.0f, 0.0f};
    for (int64_t i = 0; i <= outputWidth; ++i) {
        float tap[3][3] = {};
        if (i < outputWidth) {
            float remaining = 0.0f + gradients[i];
            for (int r = 0; r < 3; ++r)
                for (int j = 0; j < 3; ++j) {
                    const int64_t x = 2 * i - PadLeft + j;
                    if (rows[r] && x >= 0 && x < inputWidth && rows[r][x] == targets[i]) {
                        tap[r][j] = remaining;
                        remaining = 0.0f;
                    }
                }
        }
        const int64_t x = 2 * i - PadLeft;
        put(topOut, x, (partialEven[i] + carry[0]) + tap[0][0]);
        put(topOut, x + 1, partialOdd[i] + tap[0][1]);
        put(middleOut, x, carry[1] + tap[1][0]);
        put(middleOut, x + 1, 0.0f + tap[1][1]);
        partialEven[i] = carry[2] + tap[2][0];
        partialOdd[i] = 0.0f + tap[2][1];
        for (int r = 0; r < 3; ++r) carry[r] = tap[r][2];
    }
    // Columns past the last window's: no window reaches them.
    for (int64_t x = std::max<int64_t>(0, 2 * outputWidth + 2 - PadLeft); x < inputWidth; ++x)
        topOut[x] = middleOut[x] = 0.0f;
}
#else
template <int PadLeft>
void sumFirstMatchesOfRow(const float *const *HWY_RESTRICT rows, int64_t inputWidth, const float *HWY_RESTRICT targets,
                          const float *HWY_RESTRICT gradients, int64_t outputWidth, float *HWY_RESTRICT partialEven,
                          float *HWY_RESTRICT partialOdd, float *HWY_RESTRICT topOut, float *HWY_RESTRICT middleOut,
                          bool streaming) {
    const hn::ScalableTag<float> d;
    using V = hn::Vec<decltype(d)>;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const V zero = hn::Zero(d), nan = hn::Set(d, std::numeric_limits<float>::quiet_NaN());
    // The first `count` lanes from `from`, NaN in the others (reading only those lanes).
    const auto loadFirst = [&](const float *from, int64_t count) POOLGRAD_LAMBDA_INLINE -> V {
        if (count <= 0) return nan;
        if (count >= lanes) return hn::LoadU(d, from);
        const auto present = hn::FirstN(d, static_cast<size_t>(count));
        return hn::IfThenElse(present, MaskedLoadUnaligned(present, d, from), nan);
    };
    // Columns x.. of a row, NaN outside it; x >= -PadLeft, and only the first vector of a row starts left of
    // column 0.
    const auto loadColumns = [&](const float *row, int64_t x) POOLGRAD_LAMBDA_INLINE -> V {
        if (row == nullptr) return nan;
        if constexpr (PadLeft > 0) {
            if (x < 0) return shiftUpLanes<PadLeft>(d, loadFirst(row, std::min(inputWidth, lanes - PadLeft)), nan);
        }
        return loadFirst(row + x, inputWidth - x);
    };
    // A vector of finished sums for columns x.. (x >= 0), clipped at the row's end.
    const auto storeColumns = [&](float *row, int64_t x, V sums) POOLGRAD_LAMBDA_INLINE {
        if (x + lanes <= inputWidth)
            storeVector(d, sums, row + x, streaming);
        else if (x < inputWidth)
            storeFirstLanes(d, sums, row + x, static_cast<size_t>(inputWidth - x));
    };
    // Interleaved sums (columns 2s.. and 2s + lanes.. of the padded row, lower and upper) go to the row's
    // columns PadLeft lanes earlier: with padding, the lanes of `upper` past the first PadLeft wait for the
    // next vector's lower sums (`pending`).
    const auto emit = [&](float *row, int64_t s, V lower, V upper, V &pending) POOLGRAD_LAMBDA_INLINE {
        if constexpr (PadLeft == 0) {
            storeColumns(row, 2 * s, lower);
            storeColumns(row, 2 * s + lanes, upper);
        } else {
            if (s > 0) storeColumns(row, 2 * s - lanes, lanesFrom<PadLeft>(d, pending, lower));
            storeColumns(row, 2 * s, lanesFrom<PadLeft>(d, lower, upper));
            pending = upper;
        }
    };
    // (In locals: the stores below may alias rows[] as far as the compiler knows, and it reloaded them.)
    const float *const topRow = rows[0], *const middleRow = rows[1], *const bottomRow = rows[2];
    V carryTop = zero, carryMiddle = zero, carryBottom = zero, pendingTop = zero, pendingMiddle = zero;
    int64_t s = 0;
    for (; s < outputWidth; s += lanes) {
        V wanted, gradient;
        if (s + lanes <= outputWidth) {
            wanted = hn::LoadU(d, targets + s);
            gradient = hn::LoadU(d, gradients + s);
        } else {  // windows past the row: NaN targets match nothing, and their gradients are +0
            const auto present = hn::FirstN(d, static_cast<size_t>(outputWidth - s));
            wanted = hn::IfThenElse(present, MaskedLoadUnaligned(present, d, targets + s), nan);
            gradient = MaskedLoadUnaligned(present, d, gradients + s);
        }
        // What is left of each window's gradient: all of it until a tap matches, +0 after. 0 + g turns
        // -0 into +0 as the float32 sum from +0 would, so no sum below can become -0 and adding the +0
        // of an unmatched tap never changes a sum.
        V remaining = hn::Add(zero, gradient);
        const auto take = [&](V values) POOLGRAD_LAMBDA_INLINE {
            const auto hit = hn::Eq(values, wanted);
            const V contribution = hn::IfThenElseZero(hit, remaining);
            remaining = hn::IfThenZeroElse(hit, remaining);
            return contribution;
        };
        const int64_t x = 2 * s - PadLeft;  // tap 0 of the vector's first window
        const bool inside = x >= 0 && x + 2 * lanes + 2 <= inputWidth;
        struct RowContributions {
            V tap0, tap1, tap2;
        };
        const auto searchRow = [&](const float *row) POOLGRAD_LAMBDA_INLINE {
            V first, second, thirdLow, thirdHigh;
            if (inside && row) {
                first = hn::LoadU(d, row + x);
                second = hn::LoadU(d, row + x + lanes);
                thirdLow = hn::LoadU(d, row + x + 2);
                thirdHigh = hn::LoadU(d, row + x + 2 + lanes);
            } else {
                first = loadColumns(row, x);
                second = loadColumns(row, x + lanes);
                thirdLow = loadColumns(row, x + 2);
                thirdHigh = loadColumns(row, x + 2 + lanes);
            }
            RowContributions c;
            c.tap0 = take(hn::ConcatEven(d, second, first));
            c.tap1 = take(hn::ConcatOdd(d, second, first));
            c.tap2 = take(hn::ConcatEven(d, thirdHigh, thirdLow));
            return c;
        };
        const RowContributions t = searchRow(topRow);
        const RowContributions m = searchRow(middleRow);
        const RowContributions b = searchRow(bottomRow);

        const V topShifted = shiftUpLanes<1>(d, t.tap2, carryTop);
        const V middleShifted = shiftUpLanes<1>(d, m.tap2, carryMiddle);
        const V bottomShifted = shiftUpLanes<1>(d, b.tap2, carryBottom);
        carryTop = t.tap2;
        carryMiddle = m.tap2;
        carryBottom = b.tap2;

        V lower, upper;
        interleaveLanes(d, hn::Add(hn::Add(hn::LoadU(d, partialEven + s), topShifted), t.tap0),
                        hn::Add(hn::LoadU(d, partialOdd + s), t.tap1), lower, upper);
        emit(topOut, s, lower, upper, pendingTop);
        interleaveLanes(d, hn::Add(middleShifted, m.tap0), m.tap1, lower, upper);
        emit(middleOut, s, lower, upper, pendingMiddle);
        hn::StoreU(hn::Add(bottomShifted, b.tap0), d, partialEven + s);
        hn::StoreU(b.tap1, d, partialOdd + s);
    }
    // Columns 2s and 2s + 1 of the padded row: only the last window's tap 2 reaches the first; none past it.
    // (Made in registers: a vector loaded from lanes just stored waits for the stores to retire.)
    const auto firstLane = hn::FirstN(d, 1);
    const V topLast = hn::IfThenElse(firstLane, hn::Set(d, partialEven[s] + lastLane(d, carryTop)),
                                     hn::IfThenElseZero(hn::FirstN(d, 2), hn::Set(d, partialOdd[s])));
    const V middleLast = hn::IfThenElseZero(firstLane, hn::Set(d, 0.0f + lastLane(d, carryMiddle)));
    partialEven[s] = 0.0f + lastLane(d, carryBottom);
    partialOdd[s] = 0.0f;
    emit(topOut, s, topLast, zero, pendingTop);
    emit(middleOut, s, middleLast, zero, pendingMiddle);
    // Columns further on, which no window reaches (none where the output size follows from the input's).
    for (int64_t x = 2 * s + (PadLeft == 0 ? 2 : 1) * lanes; x < inputWidth; x += lanes) {
        storeColumns(topOut, x, zero);
        storeColumns(middleOut, x, zero);
    }
}
#endif

void SumFirstMatches3x3Stride2(const float *const *HWY_RESTRICT rows, int64_t inputWidth, int64_t padLeft,
                               const float *HWY_RESTRICT targets, const float *HWY_RESTRICT gradients,
                               int64_t outputWidth, float *HWY_RESTRICT partialEven, float *HWY_RESTRICT partialOdd,
                               float *HWY_RESTRICT topOut, float *HWY_RESTRICT middleOut, bool streaming) {
    switch (padLeft) {
        case 0:
            sumFirstMatchesOfRow<0>(rows, inputWidth, targets, gradients, outputWidth, partialEven, partialOdd, topOut,
                                    middleOut, streaming);
            return;
        case 1:
            sumFirstMatchesOfRow<1>(rows, inputWidth, targets, gradients, outputWidth, partialEven, partialOdd, topOut,
                                    middleOut, streaming);
            return;
        default:
            sumFirstMatchesOfRow<2>(rows, inputWidth, targets, gradients, outputWidth, partialEven, partialOdd, topOut,
                                    middleOut, streaming);
            return;
    }
}

// The channels-last rows: one lane group of channels, `V` either a Highway vector or a float (the
// channels past the last whole vector). Windows go left to right; carry[r] holds window ow-1's tap-2
// contribution of row r, which column 2ow - padLeft shares with window ow's tap 0.
template <class Ops>
HWY_INLINE void sumWindowsAcrossChannels(const Ops &ops, const float *const *rows, const float *targets,
                                         const float *gradients, int64_t outputWidth, int64_t inputWidth,
                                         int64_t padLeft, int64_t channels, int64_t c, int64_t owBegin, int64_t owEnd,
                                         float *partial, float *topSums, float *middleSums, float *carries) {
    using V = typename Ops::V;
    const V zero = ops.zero();
    // Sums of column x (x inside the input) of the three rows: top adds to the previous output row's sums.
    const auto finish = [&](int64_t x, V top, V middle, V bottom) {
        if (x < 0 || x >= inputWidth) return;
        const int64_t at = x * channels + c;
        ops.storeOut(ops.add(ops.load(partial + at), top), topSums + at);
        ops.storeOut(middle, middleSums + at);
        ops.store(bottom, partial + at);
    };
    // Columns no window reaches: top keeps the previous sums, the others are +0.
    const auto unreached = [&](int64_t x) { finish(x, zero, zero, zero); };
    // Window ow-1's tap-2 column, which window ow's tap 0 completes: carried between blocks in `carries`.
    V carry[3] = {zero, zero, zero};
    if (owBegin == 0) {
        for (int64_t x = 0; x < std::min(-padLeft, inputWidth); ++x) unreached(x);
    } else {
        for (int r = 0; r < 3; ++r) carry[r] = ops.load(carries + r * channels + c);
    }
    for (int64_t ow = owBegin; ow < owEnd; ++ow) {
        const V wanted = ops.load(targets + ow * channels + c);
        V remaining = ops.add(zero, ops.load(gradients + ow * channels + c));
        V tap[3][3];
        const int64_t first = 2 * ow - padLeft;
        for (int r = 0; r < 3; ++r)
            for (int j = 0; j < 3; ++j) {
                const int64_t x = first + j;
                if (rows[r] == nullptr || x < 0 || x >= inputWidth) {
                    tap[r][j] = zero;
                    continue;
                }
                tap[r][j] = ops.take(ops.load(rows[r] + x * channels + c), wanted, remaining);
            }
        // (previous sums + window ow-1's tap 2) + window ow's tap 0, then tap 1 alone.
        if (first >= 0 && first < inputWidth) {
            const int64_t at = first * channels + c;
            ops.storeOut(ops.add(ops.add(ops.load(partial + at), carry[0]), tap[0][0]), topSums + at);
            ops.storeOut(ops.add(carry[1], tap[1][0]), middleSums + at);
            ops.store(ops.add(carry[2], tap[2][0]), partial + at);
        }
        finish(first + 1, tap[0][1], tap[1][1], tap[2][1]);
        for (int r = 0; r < 3; ++r) carry[r] = tap[r][2];
    }
    if (owEnd < outputWidth) {
        for (int r = 0; r < 3; ++r) ops.store(carry[r], carries + r * channels + c);
        return;
    }
    finish(2 * outputWidth - padLeft, carry[0], carry[1], carry[2]);
    for (int64_t x = std::max<int64_t>(0, 2 * outputWidth - padLeft + 1); x < inputWidth; ++x) unreached(x);
}

struct ScalarLanes {
    using V = float;
    V zero() const { return 0.0f; }
    V load(const float *at) const { return *at; }
    void store(V v, float *at) const { *at = v; }
    void storeOut(V v, float *at) const { *at = v; }
    V add(V a, V b) const { return a + b; }
    V take(V value, V wanted, V &remaining) const {
        if (!(value == wanted)) return 0.0f;
        const V contribution = remaining;
        remaining = 0.0f;
        return contribution;
    }
};

#if HWY_TARGET != HWY_SCALAR
struct VectorLanes {
    hn::ScalableTag<float> d;
    bool streaming = false;  // finished rows bypass the caches (aligned vectors)
    using V = hn::Vec<hn::ScalableTag<float>>;
    V zero() const { return hn::Zero(d); }
    V load(const float *at) const { return hn::LoadU(d, at); }
    void store(V v, float *at) const { hn::StoreU(v, d, at); }
    void storeOut(V v, float *at) const {
        if (streaming && reinterpret_cast<uintptr_t>(at) % (hn::Lanes(d) * sizeof(float)) == 0)
            streamStore(v, d, at);
        else
            hn::StoreU(v, d, at);
    }
    V add(V a, V b) const { return hn::Add(a, b); }
    V take(V value, V wanted, V &remaining) const {
        const auto hit = hn::Eq(value, wanted);
        const V contribution = hn::IfThenElseZero(hit, remaining);
        remaining = hn::IfThenZeroElse(hit, remaining);
        return contribution;
    }
};

// Two adjacent vectors of channels as one lane group, for vectors narrower than a 64-byte line (AVX2,
// SSE4): each walk along the row then uses whole lines of every operand, and a streamed line is filled at
// once. With one 32-byte vector per walk, each line of gradInput was half-filled by one walk and finished
// by the next, a row later, and the write-combining buffers flushed the halves separately (D-v3-nhwc on
// AVX2, AMD EPYC Zen 3: 12.4 ms against 8.2 for the generic channels-last kernel, which this then beats).
struct VectorPairLanes {
    VectorLanes one;
    struct V {
        VectorLanes::V low, high;
    };
    int64_t lanes() const { return static_cast<int64_t>(hn::Lanes(one.d)); }
    V zero() const { return {one.zero(), one.zero()}; }
    V load(const float *at) const { return {one.load(at), one.load(at + lanes())}; }
    void store(V v, float *at) const {
        one.store(v.low, at);
        one.store(v.high, at + lanes());
    }
    void storeOut(V v, float *at) const {
        one.storeOut(v.low, at);
        one.storeOut(v.high, at + lanes());
    }
    V add(V a, V b) const { return {one.add(a.low, b.low), one.add(a.high, b.high)}; }
    V take(V value, V wanted, V &remaining) const {
        return {one.take(value.low, wanted.low, remaining.low), one.take(value.high, wanted.high, remaining.high)};
    }
};
#endif

// Windows per block: each group of channels walks the block's columns of every operand (about 14 columns
// of C floats a window: two columns of three input rows, of the three rows of sums, a target and a
// gradient), then the next group walks the same columns, which are still in the L1. A walk of the whole
// row per group had strided through memory at C * 4 bytes, a new line at every step: D-v3-nhwc (C = 64)
// on the Intel Xeon AVX-512 host, one thread, 17-20 ms, 1.4x the generic channels-last kernel. Blocks of
// 4 KiB (one window at C = 64) took 8-10 ms, 8-16 KiB 9-11 ms, 32 KiB 13-14 ms and 64 KiB 15 ms: columns
// C * 4 bytes apart share a few of the L1's sets, so the block must stay far smaller than the L1.
int64_t FirstMatchVectorBytes() { return static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>()) * sizeof(float)); }

int64_t windowsPerBlock(int64_t channels) {
    constexpr int64_t kBlockBytes = 4096;
    return std::max<int64_t>(1, kBlockBytes / (14 * channels * static_cast<int64_t>(sizeof(float))));
}

template <class Ops>
HWY_INLINE void sumBlockAcrossChannels(const Ops &ops, int64_t step, int64_t &c, const float *const *rows,
                                       const float *targets, const float *gradients, int64_t outputWidth,
                                       int64_t inputWidth, int64_t padLeft, int64_t channels, int64_t owBegin,
                                       int64_t owEnd, float *partial, float *topSums, float *middleSums,
                                       float *carries) {
    for (; c + step <= channels; c += step)
        sumWindowsAcrossChannels(ops, rows, targets, gradients, outputWidth, inputWidth, padLeft, channels, c, owBegin,
                                 owEnd, partial, topSums, middleSums, carries);
}

void SumFirstMatches3x3Stride2AcrossChannels(const float *const *rows, const float *targets, const float *gradients,
                                             int64_t outputWidth, int64_t inputWidth, int64_t padLeft, int64_t channels,
                                             float *partial, float *topSums, float *middleSums, float *carries,
                                             bool streaming) {
    const int64_t block = windowsPerBlock(channels);
    for (int64_t owBegin = 0; owBegin < outputWidth; owBegin += block) {
        const int64_t owEnd = std::min(outputWidth, owBegin + block);
        int64_t c = 0;
#if HWY_TARGET != HWY_SCALAR
        VectorLanes vector;
        vector.streaming = streaming;
        const int64_t lanes = static_cast<int64_t>(hn::Lanes(vector.d));
        if (lanes * static_cast<int64_t>(sizeof(float)) < 64)
            sumBlockAcrossChannels(VectorPairLanes{vector}, 2 * lanes, c, rows, targets, gradients, outputWidth,
                                   inputWidth, padLeft, channels, owBegin, owEnd, partial, topSums, middleSums,
                                   carries);
        sumBlockAcrossChannels(vector, lanes, c, rows, targets, gradients, outputWidth, inputWidth, padLeft, channels,
                               owBegin, owEnd, partial, topSums, middleSums, carries);
#else
        (void)streaming;
#endif
        sumBlockAcrossChannels(ScalarLanes{}, 1, c, rows, targets, gradients, outputWidth, inputWidth, padLeft,
                               channels, owBegin, owEnd, partial, topSums, middleSums, carries);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(SumFirstMatches3x3Stride2AcrossChannels);
HWY_EXPORT(SumFirstMatches3x3Stride2);
HWY_EXPORT(FirstMatchVectorBytes);

int64_t firstMatchVectorBytes() { return HWY_DYNAMIC_DISPATCH(FirstMatchVectorBytes)(); }

void sumFirstMatches3x3Stride2(const float *const *rows, int64_t inputWidth, int64_t padLeft, const float *targets,
                               const float *gradients, int64_t outputWidth, float *partialEven, float *partialOdd,
                               float *topOut, float *middleOut, bool streaming) {
    HWY_DYNAMIC_DISPATCH(SumFirstMatches3x3Stride2)
    (rows, inputWidth, padLeft, targets, gradients, outputWidth, partialEven, partialOdd, topOut, middleOut, streaming);
}

void sumFirstMatches3x3Stride2AcrossChannels(const float *const *rows, const float *targets, const float *gradients,
                                             int64_t outputWidth, int64_t inputWidth, int64_t padLeft, int64_t channels,
                                             float *partial, float *topSums, float *middleSums, float *carries,
                                             bool streaming) {
    HWY_DYNAMIC_DISPATCH(SumFirstMatches3x3Stride2AcrossChannels)
    (rows, targets, gradients, outputWidth, inputWidth, padLeft, channels, partial, topSums, middleSums, carries,
     streaming);
}

}  // namespace poolgrad::cpu
#endif
