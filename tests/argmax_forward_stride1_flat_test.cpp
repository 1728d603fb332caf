// cpu_argmax_forward_stride1_flat (small float32 2-D planes whose windows move by one row and one column: the rows
// copied paddedWidth apart between -inf and searched as one flat array, then each output row taking its window
// rows' winners), forced and checked through poolgradGetLastRunReport that it ran, against the naive reference of
// tests/reference: exact cases (ties across rows and columns, -0/+0, the last NaN across rows, windows of -inf
// clipped by padding at every edge, rows narrower than a vector), a NaN moved over every position, random kernels
// and paddings on tie-heavy data with NaN payloads and infinities over planes tall enough for several bands, INT32
// and INT64 indices, 1-3 threads, every instruction set this CPU has (and so the flat vectors crossing row ends at
// 16, 8, 4 and 1 lanes), the values-only forward. Outputs are poisoned; values are compared bit for bit with the
// input element the reference names. Also: what the dispatch chooses and what the plan declines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "hwy/targets.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_pooling.h"
#include "support/argmax_forward_case.h"
#include "support/float_bits.h"
#include "support/highway_target_mock.h"
#include "support/max_pool3d_run.h"
#include "support/max_pool_v3_run.h"
#include "support/test_tensor.h"
#include "support/host_vectors.h"

namespace {

using test_support::ArgmaxForwardCase;
using test_support::TestTensor;
using test_support::listsOf;
using test_support::tieHeavyBits;

constexpr const char *kFlat = "cpu_argmax_forward_stride1_flat";
constexpr float kInf = std::numeric_limits<float>::infinity();

uint32_t bitsOf(float value) { return test_support::bitsFromFloat(value); }

std::vector<int64_t> check(const ArgmaxForwardCase &c, int threads) {
    return test_support::checkArgmaxForward(c, kFlat, threads);
}


// The instruction sets this CPU has, its own first (0: no mock).
std::vector<int64_t> targetsToRun() {
    std::vector<int64_t> targets{0};
    for (const int64_t target : {int64_t{HWY_AVX2}, int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}})
        if (test_support::targetDispatchable(target)) targets.push_back(target);
    return targets;
}

// ------------------------------------------------------------------------------------------------ exact cases

TEST(ArgmaxForwardStride1Flat, ExactWindowsAtEveryEdge) {
    // 5 rows of 20 columns, 3x3 windows with padding 1: every window of the first and last row and column
    // clipped, windows of -inf in all four corners (the first element inside the plane named, never padding).
    for (const int64_t target : targetsToRun()) {
        std::optional<test_support::HighwayTargetMock> mock;
        if (target != 0) mock.emplace(target);
        SCOPED_TRACE(target == 0 ? std::string("the CPU's target") : hwy::TargetName(target));
        for (const bool special : {false, true}) {
            SCOPED_TRACE(special ? "with NaN and -inf" : "finite");
            ArgmaxForwardCase c;
            c.input = {1, 1, 1, 5, 20};
            c.params = test_support::stride1Windows(3, 3, 1, 1);
            c.bits.assign(5 * 20, bitsOf(0.0f));
            const auto at = [&](int64_t h, int64_t w) -> uint32_t & { return c.bits[static_cast<size_t>(h * 20 + w)]; };
            // Window (1, 6): rows 0-2, columns 5-7: 4 at (2,5) and (0,7): row 0 first in scan order.
            at(0, 7) = at(2, 5) = bitsOf(4);
            // Window (2, 10): rows 1-3, columns 9-11: -0 at (1,9) before +0 everywhere else: -0 kept.
            at(1, 9) = bitsOf(-0.0f);
            // Window (1, 14): rows 0-2, columns 13-15: NaNs at (0,15) and (2,13): the last in scan order.
            at(0, 15) = special ? 0x7fc00001u : bitsOf(5);
            at(2, 13) = special ? 0xff800002u : bitsOf(5);  // signalling, negative: its own bits
            // The four corners' 2x2 blocks all -inf (finite: -3): each corner window names its first element.
            for (const int64_t h0 : {0, 3})
                for (const int64_t w0 : {0, 18})
                    for (int64_t h = h0; h <= h0 + 1; ++h)
                        for (int64_t w = w0; w <= w0 + 1; ++w) at(h, w) = bitsOf(special ? -kInf : -3.0f);
            const std::vector<int64_t> indices = check(c, 1);
            ASSERT_EQ(indices.size(), 100u);
            EXPECT_EQ(indices[1 * 20 + 6], 0 * 20 + 7);
            EXPECT_EQ(indices[2 * 20 + 10], 1 * 20 + 9);
            EXPECT_EQ(indices[1 * 20 + 14], special ? 2 * 20 + 13 : 0 * 20 + 15);
            EXPECT_EQ(indices[0 * 20 + 0], 0 * 20 + 0);
            EXPECT_EQ(indices[0 * 20 + 19], 0 * 20 + 18);
            EXPECT_EQ(indices[4 * 20 + 0], 3 * 20 + 0);
            EXPECT_EQ(indices[4 * 20 + 19], 3 * 20 + 18);
            if (HasFailure()) return;
        }
    }
}

TEST(ArgmaxForwardStride1Flat, ExactPyramidPoolingWindows) {
    // 5x5 windows with padding 2 (YOLO's pyramid pooling) and an even 4x4 kernel with padding 2 on 7 rows of 20
    // rising values: each window's last row and column inside the plane.
    for (const int64_t kernel : {5, 4}) {
        ArgmaxForwardCase c;
        c.input = {1, 2, 1, 7, 20};
        c.params = test_support::stride1Windows(kernel, kernel, 2, 2);
        for (int64_t plane = 0; plane < 2; ++plane)
            for (int64_t h = 0; h < 7; ++h)
                for (int64_t w = 0; w < 20; ++w) c.bits.push_back(bitsOf(static_cast<float>(h * 100 + w - plane)));
        c.indexType = ACL_INT64;
        const std::vector<int64_t> indices = check(c, 2);
        const int64_t outH = 7 + 4 - kernel + 1, outW = 20 + 4 - kernel + 1;
        ASSERT_EQ(static_cast<int64_t>(indices.size()), 2 * outH * outW);
        for (int64_t plane = 0; plane < 2; ++plane)
            for (int64_t oh = 0; oh < outH; ++oh)
                for (int64_t ow = 0; ow < outW; ++ow) {
                    const int64_t row = std::min<int64_t>(oh - 2 + kernel - 1, 6);
                    const int64_t column = std::min<int64_t>(ow - 2 + kernel - 1, 19);
                    EXPECT_EQ(indices[static_cast<size_t>((plane * outH + oh) * outW + ow)], row * 20 + column)
                        << plane << ": " << oh << "," << ow;
                }
    }
}

TEST(ArgmaxForwardStride1Flat, RowsNarrowerThanAVector) {
    // Rows of 3 to 12 windows (fewer than the 16 lanes of AVX-512): the output rows go through a vector of lanes
    // stored one by one, the flat search crosses several row ends in one vector.
    std::mt19937_64 rng(3);
    for (const int64_t width : {3, 5, 9, 12})
        for (const int64_t kernel : {2, 3, 5}) {
            ArgmaxForwardCase c;
            c.input = {1, 2, 1, 11, width};
            c.params = test_support::stride1Windows(kernel, kernel, kernel / 2, std::min<int64_t>(kernel / 2, width - 1));
            if (!test_support::hasOutputs(c.input, c.params)) continue;
            c.bits = tieHeavyBits(rng, 2 * 11 * width, 0.03, 0.0);
            c.indexType = width % 2 ? ACL_INT64 : ACL_INT32;
            check(c, 1);
            if (HasFailure()) return;
        }
}

TEST(ArgmaxForwardStride1Flat, NaNInEveryPosition) {
    // 7 rows of 19 and 9 rows of 30 columns, 3x3 and 5x5 windows: the band holding a NaN and every output row taking
    // its winners use the NaN rule.
    test_support::checkNaNInEveryPosition(kFlat, {{7, 19}, {9, 30}}, {3, 5}, 12);
}

// ------------------------------------------------------------------------------------------------ random problems

// A random 2-D stride-1 problem the plan takes: kernels 1-7 by 1-7 (not 1x1), paddings up to half the kernel,
// 1 to 40 windows a row, up to 60 rows (several bands).
ArgmaxForwardCase randomCase(std::mt19937_64 &rng, int trial) {
    auto draw = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
    for (;;) {
        ArgmaxForwardCase c;
        c.indexType = trial % 2 ? ACL_INT64 : ACL_INT32;
        int64_t kernelH = draw(1, 7), kernelW = draw(1, 7);
        if (kernelH * kernelW == 1) kernelW = 2;
        c.params = test_support::stride1Windows(kernelH, kernelW, draw(0, kernelH / 2), draw(0, kernelW / 2));
        c.params.ceilMode = draw(0, 1) == 1;
        c.input = {draw(1, 2), draw(1, 3), 1, draw(std::max<int64_t>(1, kernelH - 2 * c.params.padding[1]), 60),
                   draw(std::max<int64_t>(1, kernelW - 2 * c.params.padding[2]), 40 + kernelW - 1)};
        if (!test_support::hasOutputs(c.input, c.params)) continue;
        if (reference::pooledShape(c.input, c.params)[4] > 40) continue;
        if (kernelW > c.input[4] + c.params.padding[2]) continue;  // mostly padding: the plan declines it
        const int64_t count = c.input[0] * c.input[1] * c.input[3] * c.input[4];
        // A quarter without NaN, and of those half without infinities.
        c.bits = tieHeavyBits(rng, count, trial % 4 == 0 ? 0.0 : 0.02, trial % 5 == 0 ? 0.1 : 0.0, trial % 8 == 0);
        return c;
    }
}

TEST(ArgmaxForwardStride1Flat, RandomProblemsAgreeWithTheReferenceOnEveryInstructionSet) {
    std::mt19937_64 rng(20261205);
    for (const int64_t target : targetsToRun()) {
        std::optional<test_support::HighwayTargetMock> mock;
        if (target != 0) mock.emplace(target);
        SCOPED_TRACE(target == 0 ? std::string("the CPU's target") : hwy::TargetName(target));
        const int trials = target == 0 ? 150 : 30;
        for (int trial = 0; trial < trials; ++trial) {
            check(randomCase(rng, trial), 1 + trial % 3);
            if (HasFailure()) return;
        }
    }
}

// ------------------------------------------------------------------------------------------------ values only

TEST(ArgmaxForwardStride1Flat, ValueOnlyForwardMatchesTheReference) {
    // aclnnMaxPoolV3WithAttrs writes no indices: 5x5 windows at stride 1 with padding 2 on 20-wide rows, forced; NaNs
    // and infinities (the NaN rule), finite values with -0 among +0 ties (one compare: -0 before +0 must stay),
    // finite values without -0 (maxima).
    test_support::checkStride1ValuesOnly(kFlat, 13, 20, 5, 2, 3, 6);
}

// ------------------------------------------------------------------------------------------------ plans


// Runs a float32 problem through the dispatch (or `forced`) and returns the report's implementation and plan,
// or phase 1's error message.
std::string runOnce(const reference::Shape5 &input, const reference::Pool3dParams &params, const char *forced,
                    std::string *plan = nullptr, aclDataType type = ACL_FLOAT) {
    TestTensor self(std::vector<int64_t>(input.begin(), input.end()), type);
    for (int64_t i = 0; i < self.elementCount(); ++i) self.setBits(i, type == ACL_FLOAT ? bitsOf(float(i % 7)) : 0u);
    const reference::Shape5 o = reference::pooledShape(input, params);
    const std::vector<int64_t> outputShape(o.begin(), o.end());
    TestTensor out(outputShape, type), indices(outputShape, ACL_INT32);
    if (forced) EXPECT_EQ(poolgradForceImplementation(forced), ACL_SUCCESS);
    const test_support::TwoPhaseStatus status = test_support::runMaxPool3dWithArgmax(self, listsOf(params), out, indices);
    const std::string message = aclGetRecentErrMsg();
    poolgradForceImplementation(nullptr);
    if (status.phaseOne != 0) return message;
    poolgradRunReport report{};
    EXPECT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
    if (plan) *plan = report.plan ? report.plan : "";
    return report.implementation ? report.implementation : "";
}

TEST(ArgmaxForwardStride1Flat, TheDispatchTakesItForSmallPlanes) {
    std::string plan;
    // YOLO's pyramid pooling on a 20x20 map: rows 24 floats apart, bands of 10 rows.
    EXPECT_EQ(runOnce({2, 3, 1, 20, 20}, test_support::stride1Windows(5, 5, 2, 2), nullptr, &plan), kFlat);
    EXPECT_NE(plan.find("stride-1 flat rows, 5x5 windows from padding 2,2, rows 24 floats apart searched as one in "
                        "bands of 10"),
              std::string::npos)
        << plan;
    // Rows of 56 windows go to the row-by-row search.
    EXPECT_EQ(runOnce({1, 2, 1, 20, 56}, test_support::stride1Windows(3, 3, 1, 1), nullptr), "cpu_argmax_forward_stride1");
}

TEST(ArgmaxForwardStride1Flat, DeclinesWhatItCannotSearch) {
    EXPECT_NE(runOnce({1, 2, 1, 20, 56}, test_support::stride1Windows(3, 3, 1, 1), kFlat).find("rows of 56 windows, more than 40"),
              std::string::npos);
    EXPECT_NE(runOnce({1, 2, 1, 20, 20}, test_support::stride1Windows(3, 3, 1, 1), kFlat, nullptr, ACL_FLOAT16).find("float16 values"),
              std::string::npos);
    reference::Pool3dParams stride2 = test_support::stride1Windows(3, 3, 1, 1);
    stride2.stride[2] = 2;
    EXPECT_NE(runOnce({1, 2, 1, 20, 20}, stride2, kFlat).find("width windows do not move by 1 without dilation"),
              std::string::npos);
    reference::Pool3dParams threeD = test_support::stride1Windows(3, 3, 1, 1);
    threeD.kernel[0] = 2;
    EXPECT_NE(runOnce({1, 2, 6, 20, 20}, threeD, kFlat).find("this search takes 2-D planes"), std::string::npos);
    EXPECT_NE(runOnce({1, 2, 1, 20, 20}, test_support::stride1Windows(1, 1, 0, 0), kFlat).find("1x1 windows"), std::string::npos);
    const std::string overlong = runOnce({1, 1, 1, 4, 10}, test_support::stride1Windows(3, 21, 1, 10), kFlat);
    EXPECT_NE(overlong.find("windows of 21 columns, longer than the 10 of a row and its padding of 10"),
              std::string::npos)
        << overlong;
}

}  // namespace
