// cpu_argmax_forward_stride1 (2-D windows moving by one row and one column, any kernel up to 64 rows and any
// padding: each input row searched once for every window's winner in it, the output rows taking their windows'
// row winners in scan order), forced and checked through poolgradGetLastRunReport that it ran, against the naive
// reference of tests/reference: exact cases (ties across rows and columns, -0/+0, the last NaN across rows, all
// -inf windows clipped by padding), a NaN moved over every position, random kernels and paddings on tie-heavy
// data with NaN payloads and infinities, INT32 and INT64 indices, 1-3 threads, the vector widths of AVX2, SSE4 and
// the scalar target, float16 and bfloat16 (a signalling NaN keeps its bits) and the values-only forward. Outputs
// are poisoned; values are compared bit for bit with the input element the reference names. Also: what the
// dispatch chooses and what the plan declines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "hwy/targets.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_max_pool_v3.h"
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
using test_support::listsOf;
using test_support::tieHeavyBits;

constexpr const char *kStride1 = "cpu_argmax_forward_stride1";
constexpr float kInf = std::numeric_limits<float>::infinity();

uint32_t bitsOf(float value) { return test_support::bitsFromFloat(value); }

std::vector<int64_t> check(const ArgmaxForwardCase &c, int threads) {
    return test_support::checkArgmaxForward(c, kStride1, threads);
}


// ------------------------------------------------------------------------------------------------ exact cases

TEST(ArgmaxForwardStride1, ExactWindowsAtEveryEdge) {
    // 4 rows of 20 columns, 3x3 windows with padding 1: 4x20 outputs, every window of the first and last row
    // and column clipped by the padding.
    for (const bool special : {false, true}) {
        SCOPED_TRACE(special ? "with NaN and -inf" : "finite");
        ArgmaxForwardCase c;
        c.input = {1, 1, 1, 4, 20};
        c.params = test_support::stride1Windows(3, 3, 1, 1);
        c.bits.assign(4 * 20, bitsOf(0.0f));
        const auto at = [&](int64_t h, int64_t w) -> uint32_t & { return c.bits[static_cast<size_t>(h * 20 + w)]; };
        // Window (1, 6): rows 0-2, columns 5-7: 4 at (2,5) and (0,7): row 0 first in scan order.
        at(0, 7) = at(2, 5) = bitsOf(4);
        // Window (2, 10): rows 1-3, columns 9-11: -0 at (1,9) before +0 everywhere else: -0 kept.
        at(1, 9) = bitsOf(-0.0f);
        // Window (1, 14): rows 0-2, columns 13-15: NaNs at (0,15) and (2,13): the last in scan order.
        at(0, 15) = special ? 0x7fc00001u : bitsOf(5);
        at(2, 13) = special ? 0xff800002u : bitsOf(5);  // signalling, negative: its own bits
        // Window (3, 0): rows 2-3, columns 0-1 (row 4 and column -1 padding), all -inf (finite: -3): its
        // first element (2,0), never a padding column.
        for (int64_t h = 2; h <= 3; ++h)
            for (int64_t w = 0; w <= 1; ++w) at(h, w) = bitsOf(special ? -kInf : -3.0f);
        // Window (3, 19): rows 2-3, columns 18-19: 9 at (3,18) and (2,19): (2,19).
        at(3, 18) = at(2, 19) = bitsOf(9);
        const std::vector<int64_t> indices = check(c, 1);
        ASSERT_EQ(indices.size(), 80u);
        EXPECT_EQ(indices[1 * 20 + 6], 0 * 20 + 7);
        EXPECT_EQ(indices[2 * 20 + 10], 1 * 20 + 9);
        EXPECT_EQ(indices[1 * 20 + 14], special ? 2 * 20 + 13 : 0 * 20 + 15);
        EXPECT_EQ(indices[3 * 20 + 0], 2 * 20 + 0);
        EXPECT_EQ(indices[3 * 20 + 19], 2 * 20 + 19);
    }
}

TEST(ArgmaxForwardStride1, ExactPyramidPoolingWindows) {
    // 5x5 windows with padding 2 (YOLO's pyramid pooling) on 6 rows of 24 rising values: each window's last
    // row and column inside the plane; an even 4x4 kernel with padding 2 (the last window row and column clipped).
    for (const int64_t kernel : {5, 4}) {
        ArgmaxForwardCase c;
        c.input = {1, 1, 1, 6, 24};
        c.params = test_support::stride1Windows(kernel, kernel, 2, 2);
        for (int64_t h = 0; h < 6; ++h)
            for (int64_t w = 0; w < 24; ++w) c.bits.push_back(bitsOf(static_cast<float>(h * 100 + w)));
        c.indexType = ACL_INT64;
        const std::vector<int64_t> indices = check(c, 1);
        const int64_t outH = 6 + 4 - kernel + 1, outW = 24 + 4 - kernel + 1;
        ASSERT_EQ(static_cast<int64_t>(indices.size()), outH * outW);
        for (int64_t oh = 0; oh < outH; ++oh)
            for (int64_t ow = 0; ow < outW; ++ow) {
                const int64_t row = std::min<int64_t>(oh - 2 + kernel - 1, 5);
                const int64_t column = std::min<int64_t>(ow - 2 + kernel - 1, 23);
                EXPECT_EQ(indices[static_cast<size_t>(oh * outW + ow)], row * 24 + column) << oh << "," << ow;
            }
    }
}

// ------------------------------------------------------------------------------------------------ NaN placement

TEST(ArgmaxForwardStride1, NaNInEveryPosition) {
    // 5 rows of 41 and 7 rows of 19 columns, 3x3 and 5x5 windows: the row holding a NaN and every output row taking
    // its winners use the NaN rule.
    test_support::checkNaNInEveryPosition(kStride1, {{5, 41}, {7, 19}}, {3, 5}, 12);
}

// ------------------------------------------------------------------------------------------------ random problems

// A random 2-D stride-1 problem with at least 16 windows per row (what the plan asks): kernels 1-7 by 1-7 (not
// 1x1), paddings up to half the kernel.
ArgmaxForwardCase randomCase(std::mt19937_64 &rng, int trial) {
    auto draw = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
    ArgmaxForwardCase c;
    c.indexType = trial % 2 ? ACL_INT64 : ACL_INT32;
    int64_t kernelH = draw(1, 7), kernelW = draw(1, 7);
    if (kernelH * kernelW == 1) kernelW = 2;
    c.params = test_support::stride1Windows(kernelH, kernelW, draw(0, kernelH / 2), draw(0, kernelW / 2));
    c.params.ceilMode = draw(0, 1) == 1;
    const int64_t leastWidth = 16 + kernelW - 1 - 2 * c.params.padding[2];
    c.input = {draw(1, 2), draw(1, 3), 1, draw(std::max<int64_t>(1, kernelH - 2 * c.params.padding[1]), 13),
               draw(leastWidth, 90)};
    const int64_t count = c.input[0] * c.input[1] * c.input[3] * c.input[4];
    // A quarter without NaN, and of those half without infinities: the fast search's results stand.
    c.bits = tieHeavyBits(rng, count, trial % 4 == 0 ? 0.0 : 0.02, trial % 5 == 0 ? 0.1 : 0.0, trial % 8 == 0);
    return c;
}

TEST(ArgmaxForwardStride1, RandomProblemsAgreeWithTheReference) {
    std::mt19937_64 rng(20261205);
    for (int trial = 0; trial < 200; ++trial) {
        check(randomCase(rng, trial), 1 + trial % 3);
        if (HasFailure()) return;
    }
}

TEST(ArgmaxForwardStride1, NarrowerVectorsAgreeWithTheReference) {
    // The dispatch held to AVX2 (8 lanes), SSE4 (4) and the scalar target (1): other chunk layouts, the row copies'
    // masked tails.
    std::mt19937_64 rng(8);
    for (const int64_t target : {int64_t{HWY_AVX2}, int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
        SCOPED_TRACE("target " + std::string(hwy::TargetName(target)));
        const test_support::HighwayTargetMock mock(target);
        for (int trial = 0; trial < 24; ++trial) {
            check(randomCase(rng, trial), 1 + trial % 2);
            if (HasFailure()) return;
        }
    }
}

// ------------------------------------------------------------------------------------------------ 16-bit values

TEST(ArgmaxForwardStride1, SixteenBitValuesAgreeWithTheReference) {
    // float16 and bfloat16 inputs: compared widened to float32, every output value the input element's own bits,
    // on the CPU's vectors and on the mocked AVX2, SSE4 and scalar targets.
    std::mt19937_64 rng(16);
    const auto checkRandom = [&](aclDataType type, int trials, int mostThreads) {
        for (int trial = 0; trial < trials; ++trial) {
            ArgmaxForwardCase c = randomCase(rng, trial);
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

TEST(ArgmaxForwardStride1, SixteenBitSignallingNaNInEveryPosition) {
    std::mt19937_64 rng(17);
    for (const aclDataType type : {ACL_FLOAT16, ACL_BF16}) {
        ArgmaxForwardCase c;
        c.valueType = type;
        c.input = {1, 1, 1, 5, 23};
        c.params = test_support::stride1Windows(3, 3, 1, 1);
        const std::vector<uint32_t> base = test_support::sixteenBitPatterns(tieHeavyBits(rng, 5 * 23, 0, 0, true), type);
        const uint32_t signalling = type == ACL_FLOAT16 ? 0x7d23u : 0x7f91u;
        for (int64_t position = 0; position < 5 * 23; ++position) {
            c.bits = base;
            c.bits[static_cast<size_t>(position)] = signalling;
            check(c, 1);
            if (HasFailure()) return;
        }
    }
}

// ------------------------------------------------------------------------------------------------ values only

TEST(ArgmaxForwardStride1, ValueOnlyForwardMatchesTheReference) {
    // aclnnMaxPoolV3WithAttrs writes no indices: 3x3 windows at stride 1 with padding 1, forced. Three kinds of
    // data for the three searches: NaNs and infinities (the NaN rule), finite values with -0 (one compare: -0
    // before +0 must stay), finite values without -0 (maxima: rows whose maximum has the rule winner's bits).
    test_support::checkStride1ValuesOnly(kStride1, 9, 29, 3, 1, 3, 6);
}

TEST(ArgmaxForwardStride1, RowsNarrowerThanAVectorThroughWidePadding) {
    // MaxPoolV3WithAttrs' CALCULATED pads may reach kernel - 1: rows of 1-15 columns under 16-wide windows with
    // padding 15 still give 16 or more windows per row, and the row copies take their masked path on every
    // target (16, 8, 4 lanes). Finite values without -0 (maxima) and with NaN (the rule), against the SPEC's
    // values-only reference.
    std::mt19937_64 rng(15);
    const auto run = [&](int64_t width, bool nan) {
        const int64_t n = 1, ch = 2, h = 3, k = 16, pad = 15;
        std::vector<uint32_t> bits = tieHeavyBits(rng, n * ch * h * width, nan ? 0.05 : 0.0, 0, !nan);
        for (uint32_t &b : bits)
            if (b == 0x80000000u) b = 0;
        TestTensor x({n, ch, h, width}, ACL_FLOAT);
        std::vector<float> values(bits.size());
        for (size_t i = 0; i < bits.size(); ++i) {
            x.setBits(static_cast<int64_t>(i), bits[i]);
            values[i] = test_support::floatFromBits(bits[i]);
        }
        reference::MaxPoolV3Params params;
        params.kernelH = params.kernelW = k;
        params.pads = {pad, pad, pad, pad};
        const reference::MaxPoolV3Windows windows = reference::maxPoolV3Windows(h, width, params);
        ASSERT_GE(windows.outW, 16);
        const std::vector<float> expected = reference::maxPoolV3Forward(values, n, ch, h, width, params);
        TestTensor y({n, ch, windows.outH, windows.outW}, ACL_FLOAT);
        y.poison();
        ASSERT_EQ(poolgradForceImplementation(kStride1), ACL_SUCCESS);
        const max_pool_v3_test::V3Attributes attributes{
            {1, 1, k, k}, {1, 1, 1, 1}, "CALCULATED", std::vector<int64_t>{pad, pad, pad, pad}, "NCHW", false, false};
        const max_pool_v3_test::V3Status status = max_pool_v3_test::runMaxPoolV3WithAttrs(x, attributes, y);
        poolgradRunReport report{};
        EXPECT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
        poolgradForceImplementation(nullptr);
        ASSERT_EQ(status.phaseTwo, 0) << status.message;
        EXPECT_STREQ(report.implementation, kStride1);
        for (int64_t q = 0; q < y.elementCount(); ++q) {
            const float want = expected[static_cast<size_t>(q)];
            const float got = test_support::floatFromBits(y.bitsAt(q));
            if (std::isnan(want))
                ASSERT_TRUE(std::isnan(got)) << "output " << q << ", width " << width;
            else
                ASSERT_EQ(y.bitsAt(q), test_support::bitsFromFloat(want)) << "output " << q << ", width " << width;
        }
    };
    for (const int64_t target : {int64_t{0}, int64_t{HWY_AVX2}, int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
        SCOPED_TRACE(target == 0 ? std::string("the CPU's target") : "target " + std::string(hwy::TargetName(target)));
        std::optional<test_support::HighwayTargetMock> mock;
        if (target != 0) mock.emplace(target);
        for (const int64_t width : {1, 3, 7, 15})
            for (const bool nan : {false, true}) {
                run(width, nan);
                if (HasFailure()) return;
            }
    }
}

// ------------------------------------------------------------------------------------------------ plans


TEST(ArgmaxForwardStride1, TheDispatchTakesItForTwoDimensionalPlanes) {
    // Rows of 48 windows (up to 40 the flat stride-1 forward comes first).
    const reference::Shape5 input{2, 3, 1, 20, 48};
    const reference::Pool3dParams params = test_support::stride1Windows(5, 5, 2, 2);
    TestTensor self(std::vector<int64_t>(input.begin(), input.end()), ACL_FLOAT);
    for (int64_t i = 0; i < self.elementCount(); ++i) self.setBits(i, bitsOf(static_cast<float>(i % 7)));
    const reference::Shape5 o = reference::pooledShape(input, params);
    const std::vector<int64_t> outputShape(o.begin(), o.end());
    TestTensor out(outputShape, ACL_FLOAT), indices(outputShape, ACL_INT32);
    const test_support::TwoPhaseStatus status = test_support::runMaxPool3dWithArgmax(self, listsOf(params), out, indices);
    EXPECT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
    poolgradRunReport report{};
    ASSERT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
    EXPECT_STREQ(report.implementation, kStride1);
    ASSERT_NE(report.plan, nullptr);
    EXPECT_NE(std::string(report.plan).find("stride-1 row winners, 5x5 windows from padding 2,2"), std::string::npos)
        << report.plan;
}

TEST(ArgmaxForwardStride1, DeclinesWhatItCannotSearch) {
    // Forced onto problems it declines, phase 1 fails with its reason.
    const auto reasonFor = [](const reference::Shape5 &input, const reference::Pool3dParams &params,
                              std::vector<int64_t> dilation = {1}) {
        TestTensor self(std::vector<int64_t>(input.begin(), input.end()), ACL_FLOAT);
        const reference::Shape5 o = reference::pooledShape(input, params);
        const std::vector<int64_t> outputShape(o.begin(), o.end());
        TestTensor out(outputShape, ACL_FLOAT), indices(outputShape, ACL_INT32);
        EXPECT_EQ(poolgradForceImplementation(kStride1), ACL_SUCCESS);
        test_support::MaxPool3dLists lists = listsOf(params);
        lists.dilation = dilation;
        const test_support::TwoPhaseStatus status = test_support::runMaxPool3dWithArgmax(self, lists, out, indices);
        const std::string message = aclGetRecentErrMsg();
        poolgradForceImplementation(nullptr);
        EXPECT_NE(status.phaseOne, 0);
        return message;
    };
    reference::Pool3dParams dilated = test_support::stride1Windows(3, 3, 1, 1);
    dilated.dilation = {1, 2, 1};
    const std::string dilatedReason = reasonFor({1, 2, 1, 20, 40}, dilated, {1, 2, 1});
    EXPECT_NE(dilatedReason.find("height windows do not move by 1 without dilation"), std::string::npos)
        << dilatedReason;
    reference::Pool3dParams threeD = test_support::stride1Windows(3, 3, 1, 1);
    threeD.kernel[0] = 2;
    EXPECT_NE(reasonFor({1, 2, 6, 20, 40}, threeD).find("this search takes 2-D planes"), std::string::npos);
    EXPECT_NE(reasonFor({1, 2, 1, 20, 15}, test_support::stride1Windows(3, 3, 1, 1)).find("rows of 15 windows, fewer than 16"),
              std::string::npos);
    reference::Pool3dParams stride2 = test_support::stride1Windows(3, 3, 1, 1);
    stride2.stride[2] = 2;
    EXPECT_NE(reasonFor({1, 2, 1, 20, 40}, stride2).find("width windows do not move by 1 without dilation"),
              std::string::npos);
    EXPECT_NE(reasonFor({1, 1, 1, 20, 40}, test_support::stride1Windows(65, 3, 32, 1)).find("windows of 65 rows, over 64"),
              std::string::npos);
    EXPECT_NE(reasonFor({1, 2, 1, 20, 40}, test_support::stride1Windows(1, 1, 0, 0)).find("1x1 windows"), std::string::npos);
    // Windows longer than the row and its padding (the plan would load mostly padding).
    const std::string overlong = reasonFor({1, 1, 1, 4, 30}, test_support::stride1Windows(3, 61, 1, 30));
    EXPECT_NE(overlong.find("windows of 61 columns, longer than the 30 of a row and its padding of 30"),
              std::string::npos)
        << overlong;
}

}  // namespace
