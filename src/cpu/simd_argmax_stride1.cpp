// Highway implementation of simd_argmax_stride1.h: one source compiled for every target (the scalar target
// searches one window per "vector").
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_argmax_stride1.cpp"
#include "cpu/simd_argmax_stride1.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/checked_arithmetic.h"
#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: after highway.h, compiled once per target
#include "cpu/simd_ordered_ops-inl.h"
#include "cpu/simd_store-inl.h"
#include "cpu/simd_stride1_search_rule-inl.h"
#include "cpu/simd_widen_sixteen_bit-inl.h"
// clang-format on
#include "cpu/lambda_inline.h"

// Target-independent: compiled once, though foreach_target.h includes this file once per target.
#ifndef POOLGRAD_CPU_SIMD_ARGMAX_STRIDE1_LAYOUT_
#define POOLGRAD_CPU_SIMD_ARGMAX_STRIDE1_LAYOUT_
namespace poolgrad::cpu {
namespace {

// A ring row of row winners holds the row's outputs (rounded up to whole lines) and, past them, a slot for the row's last vector where that
// vector overlaps the one before it (moved back to end at the row's end): stored in place, it would cover part of
// the vector before, and a load of that vector (the next output row's) would take bytes from two stores, which the
// CPU cannot forward (I3-fwd, 56 windows a row: 40 % of the time on that load). Room for the widest target's lanes.
constexpr int64_t kRingTailSlot = 16;

// Floats of whole cache lines holding n: ring rows start on lines (given a scratch that does), so that the row
// winners' vector stores and the combine's loads do not split across two lines (I3-fwd in cache, one thread, 64
// planes of 56x56: 0.20-0.23 -> 0.188-0.189 ms).
constexpr int64_t roundUpToLine(int64_t n) { return (n + 15) / 16 * 16; }

// Where each piece of a call's scratch starts, in floats.
struct ScratchLayout {
    int64_t ringRow = 0;       // floats between consecutive ring rows
    int64_t paddedLength = 0;  // each of the two padded row copies
    int64_t ringValues = 0, ringPositions = 0, ringNan = 0;
    int64_t winnerValues = 0, winnerPositions = 0;  // 16-bit values: the output row before its narrowing
    int64_t total = 0;
};

std::optional<ScratchLayout> scratchLayoutOf(const Stride1Rows &rows) {
    ScratchLayout layout;
    const std::optional<int64_t> padded = checkedAdd(rows.padLeft, rows.width);
    const std::optional<int64_t> reach = checkedAdd(rows.outputWidth, rows.kernelWidth - 1);
    const std::optional<int64_t> ringRow = checkedAdd(roundUpToLine(rows.outputWidth), kRingTailSlot);
    // kernelHeight + 1 rows: two output rows made together read that many.
    const std::optional<int64_t> ringRows = checkedAdd(rows.kernelHeight, int64_t{1});
    const std::optional<int64_t> ring = ringRow && ringRows ? checkedMul(*ringRows, *ringRow) : std::nullopt;
    if (!padded || !reach || !ring) return std::nullopt;
    layout.ringRow = *ringRow;
    layout.paddedLength = roundUpToLine(std::max(*padded, *reach));
    std::optional<int64_t> at = checkedMul<int64_t>(2, layout.paddedLength);
    layout.ringValues = at.value_or(0);
    at = at ? checkedAdd(*at, *ring) : std::nullopt;
    layout.ringPositions = at.value_or(0);
    at = at ? checkedAdd(*at, *ring) : std::nullopt;
    layout.ringNan = at.value_or(0);
    at = at && ringRows ? checkedAdd(*at, *ringRows) : std::nullopt;
    const int64_t winnerRow = rows.type == ArgmaxValueType::Float32 ? 0 : rows.outputWidth;
    layout.winnerValues = at.value_or(0);
    at = at ? checkedAdd(*at, winnerRow) : std::nullopt;
    layout.winnerPositions = at.value_or(0);
    at = at ? checkedAdd(*at, winnerRow) : std::nullopt;
    if (!at) return std::nullopt;
    layout.total = *at;
    return layout;
}

}  // namespace
}  // namespace poolgrad::cpu
#endif

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// At most 16 lanes: the plan asks for 16 windows per row (a vector of the widest x86 target), so that a vector of
// windows never leaves a row on wider targets either.
using FloatTag = hn::CappedTag<float, 16>;
using IndexTag = hn::RebindToSigned<FloatTag>;
using VF = hn::Vec<FloatTag>;
using VI = hn::Vec<IndexTag>;

// 0, 1, 2, ...: lane numbers (from a table: Iota builds its vector through memory).
HWY_ALIGN constexpr int32_t kLaneNumbers[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

// What a row copy saw: a NaN, a -0.
struct RowFindings {
    bool nan = false;
    bool negativeZero = false;
};

// `width` values of Type from `row` as float32 at `destination` (16-bit ones widened, exact), and what they hold:
// a NaN when one is NaN, a -0 when their lowest bit pattern as a signed integer is -0's. (The NaN test is a
// compare and an or a vector: a running sum, one add, was a chain of adds that held each row's copy up.)
template <ArgmaxValueType Type>
HWY_INLINE RowFindings copyRow(const void *HWY_RESTRICT row, int64_t width, float *HWY_RESTRICT destination) {
    const FloatTag d;
    const hn::Rebind<uint16_t, FloatTag> d16;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const auto load = [&](int64_t at) -> VF {
        if constexpr (Type == ArgmaxValueType::Float32)
            return hn::LoadU(d, static_cast<const float *>(row) + at);
        else
            return widenSixteenBit<Type == ArgmaxValueType::Float16>(
                d, hn::LoadU(d16, static_cast<const uint16_t *>(row) + at));
    };
    const IndexTag di;
    auto nan = hn::FirstN(d, 0);
    auto lowest = hn::Set(di, std::numeric_limits<int32_t>::max());
    const auto findings = [&] {
        return RowFindings{!hn::AllFalse(d, nan),
                           !hn::AllFalse(di, hn::Eq(lowest, hn::Set(di, std::numeric_limits<int32_t>::min())))};
    };
    if (width < lanes) {  // a row narrower than a vector: masked, nothing past it read or written
        const size_t count = static_cast<size_t>(width);
        VF values;
        if constexpr (Type == ArgmaxValueType::Float32)
            values = MaskedLoadUnaligned(hn::FirstN(d, count), d, static_cast<const float *>(row));
        else
            values = widenSixteenBit<Type == ArgmaxValueType::Float16>(
                d, MaskedLoadUnaligned(hn::FirstN(d16, count), d16, static_cast<const uint16_t *>(row)));
        storeFirstLanes(d, values, destination, count);
        const auto present = hn::FirstN(d, count);
        nan = hn::And(present, hn::IsNaN(values));
        lowest = hn::IfThenElse(hn::RebindMask(di, present), hn::BitCast(di, values), lowest);
        return findings();
    }
    // The last vector moves back to end at the row's end.
    for (int64_t at = 0;; at += lanes) {
        at = std::min(at, width - lanes);
        const VF values = load(at);
        nan = hn::Or(nan, hn::IsNaN(values));
        lowest = hn::Min(lowest, hn::BitCast(di, values));
        hn::StoreU(values, d, destination + at);
        if (at == width - lanes) break;
    }
    return findings();
}

// Row winners of Group vectors of windows starting at output columns starts[g], on a padded row copy whose
// column c is padded[padLeft + c]: window ow's taps are padded[ow + j], its first column inside the plane
// max(ow - padLeft, 0). Without WithPositions only the values (Search::Max: the maxima).
template <Search Mode, bool WithPositions, int Group, int FixedTaps>
HWY_INLINE void rowWinnerChunks(const float *HWY_RESTRICT padded, int64_t padLeft, int64_t kernelWidth,
                                int32_t rowStart, const int64_t (&starts)[Group], const int64_t (&slots)[Group],
                                float *HWY_RESTRICT values, int32_t *HWY_RESTRICT positions) {
    const FloatTag d;
    const IndexTag di;
    VF best[Group];
    VI winner[Group], tapPosition[Group];
    for (int g = 0; g < Group; ++g) {
        const VI column = hn::Add(hn::Load(di, kLaneNumbers), hn::Set(di, static_cast<int32_t>(starts[g] - padLeft)));
        // Tap 0 taken as it is: a padding column's -inf, whose lane keeps its first column inside the plane,
        // or the first column itself (where a NaN is the rule's answer so far too).
        best[g] = hn::LoadU(d, padded + starts[g]);
        winner[g] = hn::Add(hn::Max(column, hn::Zero(di)), hn::Set(di, rowStart));
        tapPosition[g] = hn::Add(column, hn::Set(di, rowStart + 1));
    }
    const VI one = hn::Set(di, 1);
    const int64_t taps = FixedTaps > 0 ? FixedTaps : kernelWidth;
    for (int64_t j = 1; j < taps; ++j) {
        for (int g = 0; g < Group; ++g) {
            const VF value = hn::LoadU(d, padded + starts[g] + j);
            if constexpr (Mode == Search::Max) {
                best[g] = hn::Max(best[g], value);
            } else {
                const auto take = takes<Mode>(value, best[g]);
                best[g] = hn::IfThenElse(take, value, best[g]);
                if constexpr (WithPositions) {
                    winner[g] = hn::IfThenElse(hn::RebindMask(di, take), tapPosition[g], winner[g]);
                    tapPosition[g] = hn::Add(tapPosition[g], one);
                }
            }
        }
    }
    for (int g = 0; g < Group; ++g) {
        hn::StoreU(best[g], d, values + slots[g]);
        if constexpr (WithPositions) hn::StoreU(winner[g], di, positions + slots[g]);
    }
}

// The chunks of a row of `outputs` windows: vectors from column 0, the last moved back to end at the row's end
// (windows computed twice agree; outputs holds at least a vector), in groups of 4, 2 and 1.
// body(starts, slots): slots are where each chunk's row winners lie in a ring row (kRingTailSlot).
template <class Body>
HWY_INLINE void forEachChunkGroup(int64_t outputs, const Body &body) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(FloatTag()));
    const int64_t chunks = (outputs + lanes - 1) / lanes, lastStart = outputs - lanes;
    const auto startOf = [&](int64_t chunk) { return std::min(chunk * lanes, lastStart); };
    // The last chunk, where it overlaps the one before, keeps its row winners past the row's outputs.
    const auto slotOf = [&](int64_t chunk) {
        return chunk * lanes > lastStart && chunk > 0 ? (outputs + lanes - 1) / lanes * lanes : chunk * lanes;
    };
    int64_t c = 0;
    for (; c + 4 <= chunks; c += 4) {
        const int64_t starts[4] = {startOf(c), startOf(c + 1), startOf(c + 2), startOf(c + 3)};
        const int64_t slots[4] = {slotOf(c), slotOf(c + 1), slotOf(c + 2), slotOf(c + 3)};
        body(starts, slots);
    }
    for (; c + 2 <= chunks; c += 2) {
        const int64_t starts[2] = {startOf(c), startOf(c + 1)};
        const int64_t slots[2] = {slotOf(c), slotOf(c + 1)};
        body(starts, slots);
    }
    if (c < chunks) {
        const int64_t starts[1] = {startOf(c)};
        const int64_t slots[1] = {slotOf(c)};
        body(starts, slots);
    }
}

// Windows 3 wide (Inception's 3x3) take straight-line code (with 3-row combines: I3-fwd's 16 planes of 56x56 in
// cache, one thread, 0.058 -> 0.055 ms on AMD Zen 3).
template <Search Mode, bool WithPositions>
HWY_INLINE void rowWinners(const float *HWY_RESTRICT padded, int64_t padLeft, int64_t kernelWidth, int32_t rowStart,
                           int64_t outputs, float *HWY_RESTRICT values, int32_t *HWY_RESTRICT positions) {
    const auto search = [&]<int FixedTaps>() POOLGRAD_LAMBDA_INLINE {
        forEachChunkGroup(outputs, [&](const auto &starts, const auto &slots) POOLGRAD_LAMBDA_INLINE {
            constexpr int kGroup = static_cast<int>(std::extent_v<std::remove_reference_t<decltype(starts)>>);
            rowWinnerChunks<Mode, WithPositions, kGroup, FixedTaps>(padded, padLeft, kernelWidth, rowStart, starts,
                                                                    slots, values, positions);
        });
    };
    if (kernelWidth == 3)
        search.template operator()<3>();
    else
        search.template operator()<0>();
}

// The winners of one output row: rows r < rowCount of row winners (values[r], positions[r]) taken in scan order
// (without WithPositions the values only).
template <Search Mode, bool WithPositions, int Group, int FixedRows>
HWY_INLINE void combineChunks(const float *const *HWY_RESTRICT values, const int32_t *const *HWY_RESTRICT positions,
                              int64_t rowCount, const int64_t (&starts)[Group], const int64_t (&slots)[Group],
                              float *HWY_RESTRICT outValues, int32_t *HWY_RESTRICT outIndices32,
                              int64_t *HWY_RESTRICT outIndices64, bool streaming) {
    const FloatTag d;
    const IndexTag di;
    VF best[Group];
    VI winner[Group];
    for (int g = 0; g < Group; ++g) {
        best[g] = hn::LoadU(d, values[0] + slots[g]);
        if constexpr (WithPositions) winner[g] = hn::LoadU(di, positions[0] + slots[g]);
    }
    const int64_t rows = FixedRows > 0 ? FixedRows : rowCount;
    for (int64_t r = 1; r < rows; ++r)
        for (int g = 0; g < Group; ++g) {
            const VF value = hn::LoadU(d, values[r] + slots[g]);
            if constexpr (Mode == Search::Max) {
                best[g] = hn::Max(best[g], value);
            } else {
                const auto take = takes<Mode>(value, best[g]);
                best[g] = hn::IfThenElse(take, value, best[g]);
                if constexpr (WithPositions)
                    winner[g] = hn::IfThenElse(hn::RebindMask(di, take),
                                               inRegister(hn::LoadU(di, positions[r] + slots[g])), winner[g]);
            }
        }
    for (int g = 0; g < Group; ++g) {
        storeVector(d, best[g], outValues + starts[g], streaming);
        if constexpr (WithPositions)
            storeInt32Lanes(IndexTag(), winner[g], outIndices32 ? outIndices32 + starts[g] : nullptr,
                           outIndices64 ? outIndices64 + starts[g] : nullptr, streaming);
    }
}

template <Search Mode, bool WithPositions>
HWY_INLINE void combineRows(const float *const *values, const int32_t *const *positions, int64_t rowCount,
                            int64_t outputs, float *outValues, int32_t *outIndices32, int64_t *outIndices64,
                            bool streaming) {
    const auto combine = [&]<int FixedRows>() POOLGRAD_LAMBDA_INLINE {
        forEachChunkGroup(outputs, [&](const auto &starts, const auto &slots) POOLGRAD_LAMBDA_INLINE {
            constexpr int kGroup = static_cast<int>(std::extent_v<std::remove_reference_t<decltype(starts)>>);
            combineChunks<Mode, WithPositions, kGroup, FixedRows>(values, positions, rowCount, starts, slots, outValues,
                                                                  outIndices32, outIndices64, streaming);
        });
    };
    if (rowCount == 3)
        combine.template operator()<3>();
    else
        combine.template operator()<0>();
}

// Two output rows at once: rows [0, upper) of the lists are the first output row's alone, the next `shared` both
// rows', the next `lower` the second's alone (shared >= 1). The shared rows are taken once, then taken into the
// first row's earlier rows and followed by the second row's later ones: the rule orders winners by NaN-ness,
// value and scan position, so it is associative (3x3 windows: 3 steps for two output rows instead of 4).
// kThreeByThree: upper 1, shared 2, lower 1, as straight-line code.
template <Search Mode, bool WithPositions, bool kThreeByThree>
HWY_INLINE void combineRowPair(const float *const *HWY_RESTRICT values, const int32_t *const *HWY_RESTRICT positions,
                               int64_t upper, int64_t shared, int64_t lower, int64_t outputs,
                               float *HWY_RESTRICT firstValues, int32_t *HWY_RESTRICT firstIndices32,
                               int64_t *HWY_RESTRICT firstIndices64, int64_t outputStep, bool streaming) {
    const FloatTag d;
    const IndexTag di;
    if constexpr (kThreeByThree) upper = 1, shared = 2, lower = 1;
    using Winner = WindowWinners<FloatTag>;
    const auto rowWinner = [&](int64_t r, int64_t slot) POOLGRAD_LAMBDA_INLINE {
        Winner w{hn::LoadU(d, values[r] + slot), hn::Zero(di)};
        if constexpr (WithPositions) w.position = hn::LoadU(di, positions[r] + slot);
        return w;
    };
    const auto take = [&](Winner &earlier, const Winner &later)
                          POOLGRAD_LAMBDA_INLINE { takeLater<Mode, WithPositions>(earlier, later); };
    const auto store = [&](const Winner &w, int64_t row, int64_t start) POOLGRAD_LAMBDA_INLINE {
        const int64_t at = row * outputStep + start;
        storeVector(d, w.value, firstValues + at, streaming);
        if constexpr (WithPositions)
            storeInt32Lanes(di, w.position, firstIndices32 ? firstIndices32 + at : nullptr,
                            firstIndices64 ? firstIndices64 + at : nullptr, streaming);
    };
    forEachChunkGroup(outputs, [&](const auto &starts, const auto &slots) POOLGRAD_LAMBDA_INLINE {
        constexpr int kGroup = static_cast<int>(std::extent_v<std::remove_reference_t<decltype(starts)>>);
        for (int g = 0; g < kGroup; ++g) {
            Winner both = rowWinner(upper, slots[g]);
            for (int64_t r = upper + 1; r < upper + shared; ++r) take(both, rowWinner(r, slots[g]));
            Winner first = both;
            if (upper > 0) {
                first = rowWinner(0, slots[g]);
                for (int64_t r = 1; r < upper; ++r) take(first, rowWinner(r, slots[g]));
                take(first, both);
            }
            for (int64_t r = upper + shared; r < upper + shared + lower; ++r) take(both, rowWinner(r, slots[g]));
            store(first, 0, starts[g]);
            store(both, 1, starts[g]);
        }
    });
}

// The three searches of a row or an output row, chosen by what its rows hold.
template <bool WithPositions, class Run>
HWY_INLINE void withSearch(bool maxima, bool nan, const Run &run) {
    if (nan)
        run.template operator()<Search::NanRule, WithPositions>();
    else if (!WithPositions && maxima)
        run.template operator()<Search::Max, WithPositions>();
    else
        run.template operator()<Search::Fast, WithPositions>();
}

// WithPositions false: float32 values only (no indices), each row and output row by maxima where its rows hold
// no NaN or -0.
template <ArgmaxValueType Type, bool WithPositions>
HWY_INLINE void argmaxRows(const Stride1Rows &job, const ScratchLayout &layout) {
    using Element = std::conditional_t<Type == ArgmaxValueType::Float32, float, uint16_t>;
    const Element *plane = static_cast<const Element *>(job.plane);
    float *scratch = job.scratch;
    float *padded[2] = {scratch, scratch + layout.paddedLength};
    float *ringValues = scratch + layout.ringValues;
    int32_t *ringPositions = reinterpret_cast<int32_t *>(scratch + layout.ringPositions);
    // Per ring row: bit 0 a NaN, bit 1 a -0 (RowFindings).
    int32_t *ringFindings = reinterpret_cast<int32_t *>(scratch + layout.ringNan);
    const int64_t kh = job.kernelHeight, outW = job.outputWidth;
    std::fill(scratch, scratch + 2 * layout.paddedLength, -std::numeric_limits<float>::infinity());
    // The rows of one output row, or of two made together.
    const float *valueRows[kMostWindowRows + 1];
    const int32_t *positionRows[kMostWindowRows + 1];
    // Rows are copied one ahead of their search: loads straight after the copy's stores, at other offsets,
    // would wait for them to retire (store forwarding fails across vectors: measured 1.5x slower).
    RowFindings copied[2];
    int64_t nextRow = std::max<int64_t>(job.firstRow - job.padTop, 0);  // the next input row to search
    const auto copy = [&](int64_t row) POOLGRAD_LAMBDA_INLINE {
        copied[row % 2] = copyRow<Type>(plane + row * job.width, job.width, padded[row % 2] + job.padLeft);
    };
    if (nextRow < job.height) copy(nextRow);
    // The ring holds the last ringRows rows searched, row h in slot h % ringRows; nextRow % ringRows is kept as
    // the rows go (a 64-bit division per row: 0.055 against 0.052 ms on I3-fwd's planes in cache).
    const int64_t ringRows = kh + 1;
    int64_t nextSlot = nextRow % ringRows;
    // The slot of row h, one of the last ringRows rows searched (nextRow - ringRows <= h < nextRow).
    const auto slotOf = [&](int64_t h) POOLGRAD_LAMBDA_INLINE {
        const int64_t slot = nextSlot - (nextRow - h);
        return slot < 0 ? slot + ringRows : slot;
    };
    // Rows [first, end)'s row winners listed in scan order in valueRows / positionRows; returns what they hold.
    const auto listRows = [&](int64_t first, int64_t end) POOLGRAD_LAMBDA_INLINE {
        int32_t findings = 0;
        for (int64_t h = first; h < end; ++h) {
            const int64_t slot = slotOf(h);
            findings |= ringFindings[slot];
            valueRows[h - first] = ringValues + slot * layout.ringRow;
            positionRows[h - first] = ringPositions + slot * layout.ringRow;
        }
        return findings;
    };
    for (int64_t oh = job.firstRow; oh < job.endRow;) {
        const int64_t top = oh - job.padTop;
        const int64_t firstRow = std::max<int64_t>(top, 0), endRow = std::min(top + kh, job.height);
        // float32 output rows two at a time where their windows share rows (16-bit ones go through one scratch
        // row of winners).
        const int64_t nextFirst = std::max<int64_t>(top + 1, 0), nextEnd = std::min(top + 1 + kh, job.height);
        const bool pair = Type == ArgmaxValueType::Float32 && oh + 1 < job.endRow && nextFirst < endRow;
        const int64_t searchEnd = pair ? nextEnd : endRow;
        for (; nextRow < searchEnd; ++nextRow, nextSlot = nextSlot + 1 == ringRows ? 0 : nextSlot + 1) {
            if (nextRow + 1 < job.height) copy(nextRow + 1);
            const int64_t slot = nextSlot;
            const RowFindings findings = copied[nextRow % 2];
            ringFindings[slot] = (findings.nan ? 1 : 0) | (findings.negativeZero ? 2 : 0);
            const auto rowStart = static_cast<int32_t>(nextRow * job.width);
            const float *row = padded[nextRow % 2];
            withSearch<WithPositions>(!findings.negativeZero, findings.nan, [&]<Search Mode, bool Positions>() POOLGRAD_LAMBDA_INLINE {
                rowWinners<Mode, Positions>(row, job.padLeft, job.kernelWidth, rowStart, outW,
                                            ringValues + slot * layout.ringRow, ringPositions + slot * layout.ringRow);
            });
        }
        const bool streaming = job.streaming && Type == ArgmaxValueType::Float32;
        if (pair) {
            const int32_t findings = listRows(firstRow, nextEnd);
            const int64_t upper = nextFirst - firstRow, shared = endRow - nextFirst, lower = nextEnd - endRow;
            const bool threeByThree = upper == 1 && shared == 2 && lower == 1;
            withSearch<WithPositions>((findings & 2) == 0, (findings & 1) != 0,
                                      [&]<Search Mode, bool Positions>() POOLGRAD_LAMBDA_INLINE {
                                          const auto combine = [&]<bool kThreeByThree>() POOLGRAD_LAMBDA_INLINE {
                                              combineRowPair<Mode, Positions, kThreeByThree>(
                                                  valueRows, positionRows, upper, shared, lower, outW,
                                                  static_cast<float *>(job.values) + oh * outW,
                                                  job.indices32 ? job.indices32 + oh * outW : nullptr,
                                                  job.indices64 ? job.indices64 + oh * outW : nullptr, outW, streaming);
                                          };
                                          if (threeByThree)
                                              combine.template operator()<true>();
                                          else
                                              combine.template operator()<false>();
                                      });
            oh += 2;
            continue;
        }
        float *outValues;
        int32_t *outIndices32;
        int64_t *outIndices64;
        if constexpr (Type == ArgmaxValueType::Float32) {
            outValues = static_cast<float *>(job.values) + oh * outW;
            outIndices32 = job.indices32 ? job.indices32 + oh * outW : nullptr;
            outIndices64 = job.indices64 ? job.indices64 + oh * outW : nullptr;
        } else {
            outValues = scratch + layout.winnerValues;
            outIndices32 = reinterpret_cast<int32_t *>(scratch + layout.winnerPositions);
            outIndices64 = nullptr;
        }
        // The window's rows in scan order (at most kMostWindowRows: the plan's bound).
        const int32_t findings = listRows(firstRow, endRow);
        const int64_t count = endRow - firstRow;
        withSearch<WithPositions>((findings & 2) == 0, (findings & 1) != 0, [&]<Search Mode, bool Positions>() POOLGRAD_LAMBDA_INLINE {
            combineRows<Mode, Positions>(valueRows, positionRows, count, outW, outValues, outIndices32, outIndices64,
                                         streaming);
        });
        if constexpr (Type != ArgmaxValueType::Float32)
            storeSixteenBitWinners(outValues, outIndices32, plane, static_cast<uint16_t *>(job.values) + oh * outW,
                                   job.indices32 ? job.indices32 + oh * outW : nullptr,
                                   job.indices64 ? job.indices64 + oh * outW : nullptr, outW,
                                   Type == ArgmaxValueType::Float16);
        ++oh;
    }
}

void ArgmaxStride1Rows(const Stride1Rows &job) {
    const std::optional<ScratchLayout> layout = scratchLayoutOf(job);
    if (!layout) return;  // the plan checked it
    switch (job.type) {
        case ArgmaxValueType::Float16:
            argmaxRows<ArgmaxValueType::Float16, true>(job, *layout);
            break;
        case ArgmaxValueType::BFloat16:
            argmaxRows<ArgmaxValueType::BFloat16, true>(job, *layout);
            break;
        default:
            if (job.indices32 || job.indices64)
                argmaxRows<ArgmaxValueType::Float32, true>(job, *layout);
            else
                argmaxRows<ArgmaxValueType::Float32, false>(job, *layout);
            break;
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(ArgmaxStride1Rows);

void argmaxStride1Rows(const Stride1Rows &rows) { HWY_DYNAMIC_DISPATCH(ArgmaxStride1Rows)(rows); }

std::optional<int64_t> stride1ScratchFloats(const Stride1Rows &rows) {
    const std::optional<ScratchLayout> layout = scratchLayoutOf(rows);
    if (!layout) return std::nullopt;
    return layout->total;
}

}  // namespace poolgrad::cpu
#endif
