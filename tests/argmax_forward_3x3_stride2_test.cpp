// cpu_argmax_forward_3x3_stride2 (2-D 3x3 windows at stride 2, padding 0 or 1: each input row searched once,
// its winners kept for the next output row, the edge windows in the same vectors with clipped taps replaced by
// their neighbours; 3-D planes with 3x3x3 windows slice by slice, the slices' winners combined in scan order),
// forced and checked through poolgradGetLastRunReport that it ran, against the naive reference of
// tests/reference: exact cases (ties across rows, columns and slices, -0/+0, the last NaN across rows and
// slices, all -inf, windows clipped at every edge), a NaN moved over every column of every row (the detector of
// each chunk kind) and over every slice, random problems on tie-heavy data with NaN payloads and overflowing
// products, every padding and ceil mode, INT32 and INT64 indices, 1-3 threads, the vector widths of AVX2, SSE4
// and the scalar target, and the values-only forward. Outputs are poisoned; values are compared bit for bit with
// the input element the reference names. Also: what the dispatch chooses and what the plan declines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool_v3_with_attrs.h"
#include "hwy/targets.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_pooling.h"
#include "support/argmax_forward_case.h"
#include "support/float_bits.h"
#include "support/highway_target_mock.h"
#include "support/max_pool3d_run.h"
#include "support/max_pool_v3_run.h"
#include "support/test_tensor.h"

namespace {

using test_support::ArgmaxForwardCase;
using test_support::TestTensor;
using test_support::threeByThreeStride2;
using test_support::tieHeavyBits;

constexpr const char *kThreeByThree = "cpu_argmax_forward_3x3_stride2";
constexpr float kInf = std::numeric_limits<float>::infinity();

uint32_t bitsOf(float value) { return test_support::bitsFromFloat(value); }

std::vector<int64_t> check(const ArgmaxForwardCase &c, int threads) {
    return test_support::checkArgmaxForward(c, kThreeByThree, threads);
}

// ------------------------------------------------------------------------------------------------ exact cases

TEST(ArgmaxForward3x3Stride2, ExactWindowsAtEveryEdge) {
    // 5 rows of 37 columns, padding 1: 3x19 outputs. Column windows 2*ow - 1 .. 2*ow + 1: window 0 starts in
    // the padding (column -1), window 18 ends in it (column 37); row windows likewise (rows -1 and 5). With
    // 16 lanes the first vector reads the row from column 0 and the last three windows take the masked path.
    for (const bool special : {false, true}) {
        SCOPED_TRACE(special ? "with NaN and -inf" : "finite");
        ArgmaxForwardCase c;
        c.input = {1, 1, 1, 5, 37};
        c.params = threeByThreeStride2(1, 1);
        c.bits.assign(5 * 37, bitsOf(0.0f));
        const auto at = [&](int64_t h, int64_t w) -> uint32_t & { return c.bits[static_cast<size_t>(h * 37 + w)]; };
        // (0, 3): rows 0-1, columns 5-7: 4 at (0,7) and (1,5): row 0 comes first in scan order.
        at(0, 7) = at(1, 5) = bitsOf(4);
        // (1, 5): rows 1-3, columns 9-11: -0 at (1,9) before +0: -0 kept (not greater).
        at(1, 9) = bitsOf(-0.0f);
        // (1, 6): rows 1-3, columns 11-13: -1 everywhere but 2 at (3,12) and (3,13): (3,12).
        for (int64_t h = 1; h <= 3; ++h)
            for (int64_t w = 11; w <= 13; ++w) at(h, w) = bitsOf(-1);
        at(3, 12) = at(3, 13) = bitsOf(2);
        // (1, 8): rows 1-3, columns 15-17: NaNs at (1,17) and (3,15): the last in scan order, (3,15); finite: 5
        // at both, the first.
        at(1, 17) = special ? 0x7fc00001u : bitsOf(5);
        at(3, 15) = special ? 0xff800002u : bitsOf(5);  // signalling, negative: its own bits
        // (2, 11): rows 3-4, columns 21-23: all -inf (finite: all -3): the first element (3,21).
        for (int64_t h = 3; h <= 4; ++h)
            for (int64_t w = 21; w <= 23; ++w) at(h, w) = bitsOf(special ? -kInf : -3.0f);
        // (2, 18): rows 3-4, columns 35-36: 9 at (4,36) and (4,35): (4,35).
        at(4, 36) = at(4, 35) = bitsOf(9);
        // (1, 0): rows 1-3, columns 0-1 (column -1 padding), all -inf (finite: -3): its first element (1,0), not a
        // padding column. (0, 0): rows 0-1, columns 0-1: +0 at (0,0) first.
        for (int64_t h = 1; h <= 3; ++h)
            for (int64_t w = 0; w <= 1; ++w) at(h, w) = bitsOf(special ? -kInf : -3.0f);
        for (const int threads : {1, 2}) {
            const std::vector<int64_t> indices = check(c, threads);
            ASSERT_EQ(indices.size(), 57u);
            EXPECT_EQ(indices[3], 7);
            EXPECT_EQ(indices[19 + 5], 37 + 9);
            EXPECT_EQ(indices[19 + 6], 3 * 37 + 12);
            EXPECT_EQ(indices[19 + 8], special ? 3 * 37 + 15 : 37 + 17);
            EXPECT_EQ(indices[38 + 11], 3 * 37 + 21);
            EXPECT_EQ(indices[0], 0);
            EXPECT_EQ(indices[38 + 18], 4 * 37 + 35);
            EXPECT_EQ(indices[19], 37);
        }
    }
}

TEST(ArgmaxForward3x3Stride2, ExactRowsWithoutPaddingAndClippedLastWindows) {
    // 4 rows of 36 columns, padding 0 with ceil mode: 2x18 outputs, the last window of each row columns 34-35
    // (column 36 past the row) and the last output row rows 2-3 (row 4 past the plane). Rising values: each
    // window's last column of its last row.
    ArgmaxForwardCase c;
    c.input = {1, 1, 1, 4, 36};
    c.params = threeByThreeStride2(0, 0);
    c.params.ceilMode = true;
    for (int64_t h = 0; h < 4; ++h)
        for (int64_t w = 0; w < 36; ++w) c.bits.push_back(bitsOf(static_cast<float>(h * 100 + w)));
    c.indexType = ACL_INT64;
    const std::vector<int64_t> indices = check(c, 1);
    ASSERT_EQ(indices.size(), 36u);
    for (int64_t ow = 0; ow < 18; ++ow) {
        const int64_t column = std::min<int64_t>(2 * ow + 2, 35);
        EXPECT_EQ(indices[static_cast<size_t>(ow)], 2 * 36 + column) << ow;
        EXPECT_EQ(indices[static_cast<size_t>(18 + ow)], 3 * 36 + column) << ow;
    }
}

// 3x3x3 windows at stride 2 with padding `pad` on every axis.
reference::Pool3dParams threeCubedStride2(int64_t pad) {
    reference::Pool3dParams params = threeByThreeStride2(pad, pad);
    params.kernel[0] = 3;
    params.stride[0] = 2;
    params.padding[0] = pad;
    return params;
}

TEST(ArgmaxForward3x3Stride2, ExactVolumeWindowsAcrossSlices) {
    // 5 slices of 3 rows of 33 columns, padding 1: 3x2x17 outputs. Depth windows: slices 0-1, 1-3 and 3-4 (slice 1
    // in the first two windows, slice 3 in the last two: searched once, kept). Scan order is slices first: a tie
    // across slices keeps the earlier slice even where its element comes later within the slice.
    ArgmaxForwardCase c;
    c.input = {1, 1, 5, 3, 33};
    c.params = threeCubedStride2(1);
    const int64_t slice = 3 * 33;
    c.bits.assign(static_cast<size_t>(5 * slice), bitsOf(-1.0f));
    const auto at = [&](int64_t d, int64_t h, int64_t w) -> uint32_t & {
        return c.bits[static_cast<size_t>(d * slice + h * 33 + w)];
    };
    // (0, 0, 2): slices 0-1, rows 0-1, columns 3-5: 7 at (1,0,3) and (0,1,5): slice 0's, later in its slice.
    at(1, 0, 3) = at(0, 1, 5) = bitsOf(7);
    // (1, 0, 4): slices 1-3, rows 0-1, columns 7-9: -0 at (2,0,7), +0 at (3,0,7): -0 kept (not greater).
    at(2, 0, 7) = bitsOf(-0.0f);
    at(3, 0, 7) = bitsOf(0.0f);
    // (1, 1, 6): slices 1-3, rows 1-2, columns 11-13: NaN at (1,2,13) and (3,1,11): the last in scan order, slice
    // 3's; a greater value after them in slice 2 does not win.
    at(1, 2, 13) = 0x7fc00011u;
    at(3, 1, 11) = 0xffc00033u;
    at(2, 1, 12) = bitsOf(50);
    // (2, 1, 16): slices 3-4, rows 1-2, columns 31-32 (column 33 padding): all -inf: its first element (3,1,31).
    for (int64_t d = 3; d <= 4; ++d)
        for (int64_t h = 1; h <= 2; ++h)
            for (int64_t w = 31; w <= 32; ++w) at(d, h, w) = bitsOf(-kInf);
    // (0, 1, 8) and (1, 1, 8): slice 1's (1,2,16) = 9 wins both windows (kept slice), over 9 at (2,1,17).
    at(1, 2, 16) = at(2, 1, 17) = bitsOf(9);
    for (const aclDataType indexType : {ACL_INT32, ACL_INT64}) {
        c.indexType = indexType;
        for (const int threads : {1, 2, 3}) {
            const std::vector<int64_t> indices = check(c, threads);
            ASSERT_EQ(indices.size(), 3u * 2 * 17);
            const auto output = [&](int64_t od, int64_t oh, int64_t ow) {
                return indices[static_cast<size_t>((od * 2 + oh) * 17 + ow)];
            };
            EXPECT_EQ(output(0, 0, 2), 0 * slice + 1 * 33 + 5);
            EXPECT_EQ(output(1, 0, 4), 2 * slice + 0 * 33 + 7);
            EXPECT_EQ(output(1, 1, 6), 3 * slice + 1 * 33 + 11);
            EXPECT_EQ(output(2, 1, 16), 3 * slice + 1 * 33 + 31);
            EXPECT_EQ(output(0, 1, 8), 1 * slice + 2 * 33 + 16);
            EXPECT_EQ(output(1, 1, 8), 1 * slice + 2 * 33 + 16);
        }
    }
}

TEST(ArgmaxForward3x3Stride2, NaNInEverySliceOfAVolume) {
    // One NaN moved over every position of 7 slices of 5 rows of 35 columns (the first, kept and last slices of
    // each window, each row and column), both paddings, 16-bit values too: the slices' combine takes the NaN rule.
    std::mt19937_64 rng(33);
    for (const aclDataType type : {ACL_FLOAT, ACL_BF16})
        for (const int64_t pad : {1, 0}) {
            ArgmaxForwardCase c;
            c.valueType = type;
            c.input = {1, 1, 7, 5, 35};
            c.params = threeCubedStride2(pad);
            const int64_t count = 7 * 5 * 35;
            std::vector<uint32_t> base = tieHeavyBits(rng, count, 0, 0, true);
            if (type != ACL_FLOAT) base = test_support::sixteenBitPatterns(base, type);
            const uint32_t nan = type == ACL_FLOAT ? 0x7fc00000u : 0x7fc1u;
            for (int64_t position = 0; position < count; position += 1 + position % 2) {
                c.bits = base;
                c.bits[static_cast<size_t>(position)] = nan + static_cast<uint32_t>(position % 7);
                check(c, 1);
                if (HasFailure()) return;
            }
        }
}

// ------------------------------------------------------------------------------------------------ NaN placement

TEST(ArgmaxForward3x3Stride2, NaNInEveryColumnOfEveryRow) {
    // One NaN (every third time two) moved over every position of 5 rows of 41 and of 7 rows of 64 columns
    // (every lane of every chunk kind: the first vector with and without padding, the interior ones, the last
    // moved back or masked), each padding: each output row's detector must send its NaN to the NaN rule.
    std::mt19937_64 rng(12);
    for (const int64_t width : {41, 64}) {
        const int64_t height = width == 41 ? 5 : 7;
        for (const int64_t padH : {0, 1})
            for (const int64_t padW : {0, 1}) {
                ArgmaxForwardCase c;
                c.input = {1, 1, 1, height, width};
                c.params = threeByThreeStride2(padH, padW);
                const std::vector<uint32_t> base = tieHeavyBits(rng, height * width, 0, 0, true);
                for (int64_t position = 0; position < height * width; ++position) {
                    c.bits = base;
                    c.bits[static_cast<size_t>(position)] = 0x7fc00000u + static_cast<uint32_t>(position);
                    if (position % 3 == 0)
                        c.bits[static_cast<size_t>((position * 7 + 5) % (height * width))] = 0xffc00001u;
                    check(c, 1);
                    if (HasFailure()) return;
                }
            }
    }
}

// ------------------------------------------------------------------------------------------------ random problems

// A random 2-D 3x3 stride-2 problem with at least 16 windows per row (what the plan asks).
ArgmaxForwardCase randomCase(std::mt19937_64 &rng, int trial) {
    auto draw = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
    ArgmaxForwardCase c;
    c.indexType = trial % 2 ? ACL_INT64 : ACL_INT32;
    c.params = threeByThreeStride2(draw(0, 1), draw(0, 1));
    c.params.ceilMode = draw(0, 1) == 1;
    c.input = {draw(1, 2), draw(1, 3), 1, draw(c.params.padding[1] == 1 ? 1 : 3, 13), draw(33, 140)};
    const int64_t count = c.input[0] * c.input[1] * c.input[3] * c.input[4];
    // A quarter without NaN, and of those half without infinities: the fast search's results stand.
    c.bits = tieHeavyBits(rng, count, trial % 4 == 0 ? 0.0 : 0.02, trial % 5 == 0 ? 0.1 : 0.0, trial % 8 == 0);
    return c;
}

TEST(ArgmaxForward3x3Stride2, RandomProblemsAgreeWithTheReference) {
    std::mt19937_64 rng(20261204);
    for (int trial = 0; trial < 160; ++trial) {
        check(randomCase(rng, trial), 1 + trial % 3);
        if (HasFailure()) return;
    }
}

// A random 3-D 3x3x3 stride-2 problem: depth paddings and clipped last slices, at least 16 windows a row, every
// fourth one of tall wide slices.
ArgmaxForwardCase randomVolumeCase(std::mt19937_64 &rng, int trial) {
    auto draw = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
    ArgmaxForwardCase c = randomCase(rng, trial);
    c.params.kernel[0] = 3;
    c.params.stride[0] = 2;
    c.params.padding[0] = draw(0, 1);
    c.input[2] = draw(c.params.padding[0] == 1 ? 1 : 3, 9);
    c.input[3] = std::min<int64_t>(c.input[3], 9);
    c.input[4] = std::min<int64_t>(c.input[4], 80);
    if (trial % 4 == 3) {
        // Tall wide slices: several blocks of output rows (three slots of a block's slice winners in 32 KiB), each
        // slice's kept row winners carried from block to block.
        c.input = {1, draw(1, 2), draw(c.params.padding[0] == 1 ? 1 : 3, 5), draw(20, 61), draw(200, 400)};
    }
    const int64_t count = c.input[0] * c.input[1] * c.input[2] * c.input[3] * c.input[4];
    c.bits = tieHeavyBits(rng, count, trial % 4 == 0 ? 0.0 : 0.02, trial % 5 == 0 ? 0.1 : 0.0, trial % 8 == 0);
    return c;
}

TEST(ArgmaxForward3x3Stride2, RandomVolumesAgreeWithTheReference) {
    std::mt19937_64 rng(20261205);
    for (int trial = 0; trial < 120; ++trial) {
        check(randomVolumeCase(rng, trial), 1 + trial % 3);
        if (HasFailure()) return;
    }
}

TEST(ArgmaxForward3x3Stride2, NarrowerVectorsAgreeWithTheReference) {
    // The dispatch held to AVX2 (8 lanes), SSE4 (4) and the scalar target (1): other chunk layouts, the masked
    // loads' buffer path, the scalar taps.
    std::mt19937_64 rng(8);
    for (const int64_t target : {int64_t{HWY_AVX2}, int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
        SCOPED_TRACE("target " + std::string(hwy::TargetName(target)));
        const test_support::HighwayTargetMock mock(target);
        for (int trial = 0; trial < 24; ++trial) {
            check(trial % 3 == 2 ? randomVolumeCase(rng, trial) : randomCase(rng, trial), 1 + trial % 2);
            if (HasFailure()) return;
        }
    }
}

// ------------------------------------------------------------------------------------------------ 16-bit values

TEST(ArgmaxForward3x3Stride2, SixteenBitValuesAgreeWithTheReference) {
    // float16 and bfloat16 inputs: compared widened to float32, every output value the input element's own bits
    // (a float16 signalling NaN too, which the hardware widening quiets), on the CPU's vectors and on the mocked
    // AVX2, SSE4 and scalar targets (float16 widened on the bits there).
    std::mt19937_64 rng(16);
    // `trials` random problems of `type`, threads 1 to mostThreads; false after a failure.
    const auto checkRandom = [&](aclDataType type, int trials, int mostThreads) {
        for (int trial = 0; trial < trials; ++trial) {
            ArgmaxForwardCase c = trial % 3 == 2 ? randomVolumeCase(rng, trial) : randomCase(rng, trial);
            c.valueType = type;
            c.bits = test_support::sixteenBitPatterns(c.bits, type);
            check(c, 1 + trial % mostThreads);
            if (HasFailure()) return false;
        }
        return true;
    };
    for (const aclDataType type : {ACL_FLOAT16, ACL_BF16}) {
        SCOPED_TRACE(type == ACL_FLOAT16 ? "float16" : "bfloat16");
        if (!checkRandom(type, 60, 3)) return;
        for (const int64_t target : {int64_t{HWY_AVX2}, int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
            SCOPED_TRACE("target " + std::string(hwy::TargetName(target)));
            const test_support::HighwayTargetMock mock(target);
            if (!checkRandom(type, 12, 2)) return;
        }
    }
}

TEST(ArgmaxForward3x3Stride2, SixteenBitNaNInEveryColumnOfEveryRow) {
    // A signalling NaN moved over every position of 5 rows of 41 columns of float16 and bfloat16 (every chunk
    // kind, both paddings): the detector sends it to the NaN rule and the output keeps its bits.
    std::mt19937_64 rng(17);
    for (const aclDataType type : {ACL_FLOAT16, ACL_BF16})
        for (const int64_t padding : {1, 0}) {
            ArgmaxForwardCase c;
            c.valueType = type;
            c.input = {1, 1, 1, 5, 41};
            c.params = threeByThreeStride2(padding, padding);
            const std::vector<uint32_t> base =
                test_support::sixteenBitPatterns(tieHeavyBits(rng, 5 * 41, 0, 0, true), type);
            const uint32_t signalling = type == ACL_FLOAT16 ? 0x7d23u : 0x7f91u;
            for (int64_t position = 0; position < 5 * 41; ++position) {
                c.bits = base;
                c.bits[static_cast<size_t>(position)] = signalling;
                check(c, 1);
                if (HasFailure()) return;
            }
        }
}

// ------------------------------------------------------------------------------------------------ values only

TEST(ArgmaxForward3x3Stride2, ValueOnlyForwardMatchesTheReference) {
    // aclnnMaxPoolV3WithAttrs writes no indices; forced here (the dispatch passes values-only problems on).
    std::mt19937_64 rng(6);
    for (const int threads : {1, 2, 3}) {
        poolgradSetNumThreads(threads);
        poolgradSetParallelThreshold(1);
        const int64_t n = 2, ch = 3, h = 9, w = 47;
        const std::vector<uint32_t> bits = tieHeavyBits(rng, n * ch * h * w, 0.02, 0.05);
        TestTensor x({n, ch, h, w}, ACL_FLOAT);
        std::vector<float> values(bits.size());
        for (size_t i = 0; i < bits.size(); ++i) {
            x.setBits(static_cast<int64_t>(i), bits[i]);
            values[i] = test_support::floatFromBits(bits[i]);
        }
        const reference::ForwardResult expected =
            reference::maxPool3dWithArgmax(values, {n, ch, 1, h, w}, threeByThreeStride2(1, 1));
        TestTensor y({n, ch, expected.outputShape[3], expected.outputShape[4]}, ACL_FLOAT);
        y.poison();
        ASSERT_EQ(poolgradForceImplementation(kThreeByThree), ACL_SUCCESS);
        const max_pool_v3_test::V3Attributes attributes{
            {1, 1, 3, 3}, {1, 1, 2, 2}, "CALCULATED", std::vector<int64_t>{1, 1, 1, 1}, "NCHW", false, false};
        const max_pool_v3_test::V3Status status = max_pool_v3_test::runMaxPoolV3WithAttrs(x, attributes, y);
        poolgradRunReport report{};
        EXPECT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
        poolgradForceImplementation(nullptr);
        poolgradSetNumThreads(0);
        poolgradSetParallelThreshold(0);
        EXPECT_EQ(status.phaseTwo, 0) << status.message;
        EXPECT_STREQ(report.implementation, kThreeByThree);
        const int64_t planeIn = h * w, planeOut = expected.outputShape[3] * expected.outputShape[4];
        for (int64_t q = 0; q < y.elementCount(); ++q) {
            const int64_t index = expected.indices[static_cast<size_t>(q)];
            ASSERT_GE(index, 0) << "output " << q;
            ASSERT_EQ(y.bitsAt(q), bits[static_cast<size_t>(q / planeOut * planeIn + index)])
                << "output " << q << ", " << threads << " threads";
        }
    }
}

// ------------------------------------------------------------------------------------------------ plans

// What phase 1 decides for an unforced aclnnMaxPool3dWithArgmax on `input` with `params`: the implementation
// and its plan text.
poolgradRunReport dispatchedFor(const reference::Shape5 &input, const reference::Pool3dParams &params) {
    TestTensor self(std::vector<int64_t>(input.begin(), input.end()), ACL_FLOAT);
    for (int64_t i = 0; i < self.elementCount(); ++i) self.setBits(i, bitsOf(static_cast<float>(i % 7)));
    const reference::Shape5 o = reference::pooledShape(input, params);
    const std::vector<int64_t> outputShape(o.begin(), o.end());
    TestTensor out(outputShape, ACL_FLOAT), indices(outputShape, ACL_INT32);
    const test_support::TwoPhaseStatus status =
        test_support::runMaxPool3dWithArgmax(self, test_support::listsOf(params), out, indices);
    EXPECT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
    poolgradRunReport report{};
    EXPECT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
    return report;
}

TEST(ArgmaxForward3x3Stride2, TheDispatchTakesItForTwoDimensionalPlanes) {
    const poolgradRunReport report = dispatchedFor({2, 3, 1, 20, 40}, threeByThreeStride2(1, 1));
    EXPECT_STREQ(report.implementation, kThreeByThree);
    ASSERT_NE(report.plan, nullptr);
    EXPECT_NE(std::string(report.plan).find("3x3 stride-2 row winners from padding 1,1"), std::string::npos)
        << report.plan;
}

TEST(ArgmaxForward3x3Stride2, TheDispatchTakesItForThreeCubedWindows) {
    const poolgradRunReport report = dispatchedFor({2, 3, 6, 20, 40}, threeCubedStride2(1));
    EXPECT_STREQ(report.implementation, kThreeByThree);
    ASSERT_NE(report.plan, nullptr);
    EXPECT_NE(std::string(report.plan).find("3x3x3 stride-2 slice winners from padding 1,1,1"), std::string::npos)
        << report.plan;
    EXPECT_NE(std::string(report.plan).find("of output depths per plane"), std::string::npos) << report.plan;
}

TEST(ArgmaxForward3x3Stride2, DeclinesWhatItCannotSearch) {
    // Forced onto problems it declines, phase 1 fails with its reason.
    const auto reasonFor = [](const reference::Shape5 &input, const reference::Pool3dParams &params) {
        TestTensor self(std::vector<int64_t>(input.begin(), input.end()), ACL_FLOAT);
        const reference::Shape5 o = reference::pooledShape(input, params);
        const std::vector<int64_t> outputShape(o.begin(), o.end());
        TestTensor out(outputShape, ACL_FLOAT), indices(outputShape, ACL_INT32);
        EXPECT_EQ(poolgradForceImplementation(kThreeByThree), ACL_SUCCESS);
        const test_support::TwoPhaseStatus status =
            test_support::runMaxPool3dWithArgmax(self, test_support::listsOf(params), out, indices);
        const std::string message = aclGetRecentErrMsg();
        poolgradForceImplementation(nullptr);
        EXPECT_NE(status.phaseOne, 0);
        return message;
    };
    reference::Pool3dParams depthStride1 = threeCubedStride2(1);
    depthStride1.stride[0] = 1;
    EXPECT_NE(reasonFor({1, 2, 6, 20, 40}, depthStride1)
                  .find("the planes are 3-D (depth 6): this search takes 2-D planes or 3x3x3 windows at stride 2 "
                        "without dilation, padding 0 or 1"),
              std::string::npos);
    reference::Pool3dParams depthKernel2 = threeCubedStride2(1);
    depthKernel2.kernel[0] = 2;
    depthKernel2.padding[0] = 0;
    EXPECT_NE(reasonFor({1, 2, 6, 20, 40}, depthKernel2).find("the planes are 3-D (depth 6)"), std::string::npos);
    // Each of 300 slices keeps the row winners of 2001 windows (32,528 bytes a slice): 9.8 MB, over the bound.
    EXPECT_NE(reasonFor({1, 1, 300, 3, 4001}, threeCubedStride2(1)).find("keeping every slice's row winners"),
              std::string::npos);
    EXPECT_NE(reasonFor({1, 2, 1, 20, 29}, threeByThreeStride2(1, 1)).find("rows of 15 windows, fewer than 16"),
              std::string::npos);
    reference::Pool3dParams stride3 = threeByThreeStride2(1, 1);
    stride3.stride[1] = 3;
    EXPECT_NE(reasonFor({1, 2, 1, 20, 40}, stride3).find("height windows are not 3 wide at stride 2"),
              std::string::npos);
}

}  // namespace
