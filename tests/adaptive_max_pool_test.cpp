// Tests of aclnnAdaptiveMaxPool3d, aclnnAdaptiveMaxPool2d and their backwards (SPEC §5, §7.2, §8):
//  * the worked examples WE-7, WE-8, WE-9 and WE-12 with the exact values SPEC §9 lists;
//  * randomized differential tests against tests/reference/naive_adaptive_pooling (written from SPEC only):
//    non-divisible axes, O > I, 1-sized axes, ranks 4/5 (3-D op) and 3/4 (2-D op), FLOAT/FLOAT16/BF16,
//    INT32/INT64 indices, tie-heavy and NaN/Inf/-0 data, outputSize of length 0, 1 and full, and for EVERY
//    operand a random storage layout (contiguous, channels-last, padded strides + offset). Outputs are
//    poisoned and must not change outside their view, inputs must not change at all; comparisons are bit
//    for bit (forward values keep the input's bits, NaN payload included; a backward NaN may be any NaN);
//  * every implementation forced with poolgradForceImplementation (a forced one that declines answers
//    561003 and is skipped; an implementation named *reference* must accept every problem);
//  * 1, 2 and 3 threads give bit-identical results (on problems big enough for the library to use 3 threads);
//  * SPEC §10 "no 2^24 limit": a backward on planes of more than 2^24 elements whose indices point beyond
//    2^24, and a forward on an axis so long that windows computed in 32-bit integers or in float are wrong.
//    They use at most ~140 MB at a time and take about 2-3 s in Release, ~5 s under ASan+UBSan; set
//    POOLGRAD_SKIP_BIG_TESTS=1 to skip them.
//
// Seeds: a fixed list plus one fresh seed per run (POOLGRAD_TEST_SEED reproduces it), shown in every failure.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_adaptive_pooling.h"
#include "support/differential_driver.h"
#include "support/phase_one_check.h"
#include "support/test_tensor.h"

namespace {

using namespace pool_diff;

// Every non-reference implementation accepts at least this share of the random cases (measured, adaptive: channels-last
// 21-23%, dense 50%, the narrow-row and stride-1 forwards 7-11% of the cases; about a third of the lowest as margin).
constexpr double kMinimumShareAdaptive = 0.05;
namespace ref = reference::adaptive;
using test_support::IntArray;
using test_support::TestTensor;

// ================================================================================================ calls

aclnnStatus forwardPhaseOne(bool twoD, const aclTensor *self, const aclIntArray *outputSize, aclTensor *out,
                            aclTensor *indices, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return twoD ? aclnnAdaptiveMaxPool2dGetWorkspaceSize(self, outputSize, out, indices, workspaceSize, executor)
                : aclnnAdaptiveMaxPool3dGetWorkspaceSize(self, outputSize, out, indices, workspaceSize, executor);
}

aclnnStatus backwardPhaseOne(bool twoD, const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
                             aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return twoD ? aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(gradOutput, self, indices, gradInput, workspaceSize,
                                                                 executor)
                : aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gradOutput, self, indices, gradInput, workspaceSize,
                                                                 executor);
}

TwoPhase runForward(bool twoD, const aclTensor *self, const std::vector<int64_t> &outputSize, aclTensor *out,
                    aclTensor *indices) {
    IntArray sizes(outputSize);
    return runTwoPhase(
        [&](uint64_t *workspaceSize, aclOpExecutor **executor) {
            return forwardPhaseOne(twoD, self, sizes, out, indices, workspaceSize, executor);
        },
        twoD ? aclnnAdaptiveMaxPool2d : aclnnAdaptiveMaxPool3d);
}

TwoPhase runBackward(bool twoD, const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
                     aclTensor *gradInput) {
    return runTwoPhase(
        [&](uint64_t *workspaceSize, aclOpExecutor **executor) {
            return backwardPhaseOne(twoD, gradOutput, self, indices, gradInput, workspaceSize, executor);
        },
        twoD ? aclnnAdaptiveMaxPool2dBackward : aclnnAdaptiveMaxPool3dBackward);
}

// ================================================================================================ worked examples

class AdaptiveWorkedExample : public ::testing::TestWithParam<aclDataType> {};  // the indices dtype

TEST_P(AdaptiveWorkedExample, We7OverlappingDepthWindows) {
    // self (1,1,3,1,1) = [1,9,2], outputSize (2,1,1): D windows [0,2), [1,3) overlap on element 1.
    TestTensor self({1, 1, 3, 1, 1}, ACL_FLOAT), out({1, 1, 2, 1, 1}, ACL_FLOAT), indices({1, 1, 2, 1, 1}, GetParam());
    self.setValues({1, 9, 2});
    EXPECT_RAN(runForward(false, self, {2, 1, 1}, out, indices));
    EXPECT_EQ(floatsOf(out), (std::vector<float>{9, 9}));
    EXPECT_EQ(intsOf(indices), (std::vector<int64_t>{1, 1}));

    TestTensor gradOutput({1, 1, 2, 1, 1}, ACL_FLOAT), gradInput({1, 1, 3, 1, 1}, ACL_FLOAT);
    gradOutput.setValues({0.5, 0.25});
    EXPECT_RAN(runBackward(false, gradOutput, self, indices, gradInput));
    EXPECT_EQ(floatsOf(gradInput), (std::vector<float>{0, 0.75f, 0}));
}

TEST_P(AdaptiveWorkedExample, We8NonDivisibleWidthWindows) {
    // self (1,1,1,1,5) = [3,1,4,1,5], outputSize (1,1,3): W windows [0,2), [1,4), [3,5).
    TestTensor self({1, 1, 1, 1, 5}, ACL_FLOAT), out({1, 1, 1, 1, 3}, ACL_FLOAT), indices({1, 1, 1, 1, 3}, GetParam());
    self.setValues({3, 1, 4, 1, 5});
    EXPECT_RAN(runForward(false, self, {1, 1, 3}, out, indices));
    EXPECT_EQ(floatsOf(out), (std::vector<float>{3, 4, 5}));
    EXPECT_EQ(intsOf(indices), (std::vector<int64_t>{0, 2, 4}));

    TestTensor gradOutput({1, 1, 1, 1, 3}, ACL_FLOAT), gradInput({1, 1, 1, 1, 5}, ACL_FLOAT);
    gradOutput.setValues({1, 10, 100});
    EXPECT_RAN(runBackward(false, gradOutput, self, indices, gradInput));
    EXPECT_EQ(floatsOf(gradInput), (std::vector<float>{1, 0, 10, 0, 100}));
}

TEST_P(AdaptiveWorkedExample, We8WindowsAreHalfOpenNotTheSeedTypo) {
    // Data that tells the windows apart: W = 5, Wo = 3. SPEC windows [0,2), [1,4), [3,5). The seed typo
    // (right edge ceil(o*W/Wo)) would make window 0 = [0,0] and pick index 0; closed [left,right] brackets
    // with the ops-nn edge would add element 2 to window 0 and element 4 to window 1.
    TestTensor self({1, 1, 1, 1, 5}, ACL_FLOAT), out({1, 1, 1, 1, 3}, ACL_FLOAT), indices({1, 1, 1, 1, 3}, GetParam());
    self.setValues({1, 2, 8, 3, 9});
    EXPECT_RAN(runForward(false, self, {1, 1, 3}, out, indices));
    EXPECT_EQ(floatsOf(out), (std::vector<float>{2, 8, 9}));
    EXPECT_EQ(intsOf(indices), (std::vector<int64_t>{1, 2, 4}));
}

TEST_P(AdaptiveWorkedExample, We9OpsNnBackwardExample) {
    // SPEC WE-9: self (1,1,3,2,2), gradOutput (1,1,2,1,1) = [0.4757, 0.3232], indices [6, 10].
    const std::vector<double> selfValues{0.0850, -0.5147, -0.0212, -0.5654, -0.3222, 0.5847,
                                         1.7510, 0.9954,  0.1234,  -0.6789, 2.3456,  -1.2345};
    TestTensor self({1, 1, 3, 2, 2}, ACL_FLOAT), gradOutput({1, 1, 2, 1, 1}, ACL_FLOAT),
        indices({1, 1, 2, 1, 1}, GetParam()), gradInput({1, 1, 3, 2, 2}, ACL_FLOAT);
    self.setValues(selfValues);
    gradOutput.setValues({0.4757, 0.3232});
    indices.setValues({6, 10});
    EXPECT_RAN(runBackward(false, gradOutput, self, indices, gradInput));
    std::vector<float> expected(12, 0.0f);
    expected[6] = 0.4757f;
    expected[10] = 0.3232f;
    EXPECT_EQ(floatsOf(gradInput), expected);
    for (int64_t i = 0; i < 12; ++i) {
        if (i != 6 && i != 10) {
            EXPECT_EQ(gradInput.bitsAt(i), 0u) << "element " << i << " must be +0.0";
        }
    }

    // The forward of WE-9 (outputSize (2,1,1)) gives out [1.7510, 2.3456], idx [6, 10].
    TestTensor out({1, 1, 2, 1, 1}, ACL_FLOAT), forwardIndices({1, 1, 2, 1, 1}, GetParam());
    EXPECT_RAN(runForward(false, self, {2, 1, 1}, out, forwardIndices));
    EXPECT_EQ(floatsOf(out), (std::vector<float>{1.7510f, 2.3456f}));
    EXPECT_EQ(intsOf(forwardIndices), (std::vector<int64_t>{6, 10}));
}

std::vector<double> we12Input() {
    std::vector<double> values(24);
    for (int k = 0; k < 24; ++k) values[static_cast<size_t>(k)] = k;
    values[4] = 4.1;
    return values;
}

TEST_P(AdaptiveWorkedExample, We12OpsNnForwardExample) {
    // SPEC WE-12: self (1,2,1,3,4) NCDHW, element k = k except element 4 = 4.1, outputSize (1,2,2).
    TestTensor self({1, 2, 1, 3, 4}, ACL_FLOAT, ACL_FORMAT_NCDHW), out({1, 2, 1, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW),
        indices({1, 2, 1, 2, 2}, GetParam(), ACL_FORMAT_NCDHW);
    self.setValues(we12Input());
    EXPECT_RAN(runForward(false, self, {1, 2, 2}, out, indices));
    EXPECT_EQ(floatsOf(out), (std::vector<float>{5, 7, 9, 11, 17, 19, 21, 23}));
    EXPECT_EQ(intsOf(indices), (std::vector<int64_t>{5, 7, 9, 11, 5, 7, 9, 11}));
}

TEST_P(AdaptiveWorkedExample, We12OnTheTwoDimensionalOperator) {
    // SPEC §8: AdaptiveMaxPool2d is the 3-D op with D = 1; WE-12 as (C,H,W) = (2,3,4), outputSize (2,2).
    TestTensor self({2, 3, 4}, ACL_FLOAT, ACL_FORMAT_NCHW), out({2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCHW),
        indices({2, 2, 2}, GetParam(), ACL_FORMAT_NCHW);
    self.setValues(we12Input());
    EXPECT_RAN(runForward(true, self, {2, 2}, out, indices));
    EXPECT_EQ(floatsOf(out), (std::vector<float>{5, 7, 9, 11, 17, 19, 21, 23}));
    EXPECT_EQ(intsOf(indices), (std::vector<int64_t>{5, 7, 9, 11, 5, 7, 9, 11}));

    // Backward of the 2-D op with those indices: each plane gets its gradients at 5, 7, 9, 11.
    TestTensor gradOutput({2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCHW), gradInput({2, 3, 4}, ACL_FLOAT, ACL_FORMAT_NCHW);
    gradOutput.setValues({1, 2, 3, 4, 10, 20, 30, 40});
    EXPECT_RAN(runBackward(true, gradOutput, self, indices, gradInput));
    std::vector<float> expected(24, 0.0f);
    expected[5] = 1, expected[7] = 2, expected[9] = 3, expected[11] = 4;
    expected[12 + 5] = 10, expected[12 + 7] = 20, expected[12 + 9] = 30, expected[12 + 11] = 40;
    EXPECT_EQ(floatsOf(gradInput), expected);
}

TEST_P(AdaptiveWorkedExample, We7OnTheTwoDimensionalOperator) {
    // WE-7 along H of the 2-D op: self (1,3,1) = [1,9,2], outputSize (2,1) -> out [9,9], idx [1,1].
    TestTensor self({1, 3, 1}, ACL_FLOAT), out({1, 2, 1}, ACL_FLOAT), indices({1, 2, 1}, GetParam());
    self.setValues({1, 9, 2});
    EXPECT_RAN(runForward(true, self, {2, 1}, out, indices));
    EXPECT_EQ(floatsOf(out), (std::vector<float>{9, 9}));
    EXPECT_EQ(intsOf(indices), (std::vector<int64_t>{1, 1}));
    TestTensor gradOutput({1, 2, 1}, ACL_FLOAT), gradInput({1, 3, 1}, ACL_FLOAT);
    gradOutput.setValues({0.5, 0.25});
    EXPECT_RAN(runBackward(true, gradOutput, self, indices, gradInput));
    EXPECT_EQ(floatsOf(gradInput), (std::vector<float>{0, 0.75f, 0}));
}

TEST_P(AdaptiveWorkedExample, OutputSizeLengthZeroIsTheIdentityAndLengthOneRepeats) {
    // SPEC §7.2: outputSize of length 0 = input size (every window one element), length 1 = all axes.
    TestTensor self({1, 2, 2, 3}, ACL_FLOAT), out({1, 2, 2, 3}, ACL_FLOAT), indices({1, 2, 2, 3}, GetParam());
    self.setValues({5, -1, 3, 2, 8, 0, 7, 7, -3, 1, 4, 6});
    EXPECT_RAN(runForward(false, self, {}, out, indices));
    EXPECT_EQ(floatsOf(out), floatsOf(self));
    EXPECT_EQ(intsOf(indices), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));  // one (C=1) plane

    // Length 1 on the 2-D op: self (1,2,2,3) as (N,C,H,W), outputSize {2} -> (Ho,Wo) = (2,2);
    // W windows [0,2), [1,3).
    TestTensor out2({1, 2, 2, 2}, ACL_FLOAT), indices2({1, 2, 2, 2}, GetParam());
    EXPECT_RAN(runForward(true, self, {2}, out2, indices2));
    EXPECT_EQ(floatsOf(out2), (std::vector<float>{5, 3, 8, 8, 7, 7, 4, 6}));
    EXPECT_EQ(intsOf(indices2), (std::vector<int64_t>{0, 2, 4, 4, 0, 1, 4, 5}));
}

TEST_P(AdaptiveWorkedExample, ForwardTieNanAndInfinityRules) {
    // SPEC §3.7 / WE-11 on one adaptive window (outputSize 1 over a 2x2 plane).
    struct Row {
        std::vector<double> input;
        bool nan;
        double value;
        int64_t index;
    };
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    const std::vector<Row> rows{{{3, 3, 1, 3}, false, 3, 0},
                                {{1, nan, 5, nan}, true, 0, 3},
                                {{1, nan, 5, 2}, true, 0, 1},
                                {{-inf, -inf, -inf, -inf}, false, -inf, 0},
                                {{-0.0, 0.0, -1, 0.0}, false, -0.0, 0},
                                {{-1, inf, inf, 2}, false, inf, 1}};
    for (const Row &row : rows) {
        TestTensor self({1, 1, 1, 2, 2}, ACL_FLOAT), out({1, 1, 1, 1, 1}, ACL_FLOAT),
            indices({1, 1, 1, 1, 1}, GetParam());
        self.setValues(row.input);
        EXPECT_RAN(runForward(false, self, {1}, out, indices));
        if (row.nan)
            EXPECT_TRUE(std::isnan(out.at(0)));
        else
            EXPECT_EQ(out.bitsAt(0), self.bitsAt(row.index)) << "value must be the selected input, bit for bit";
        EXPECT_EQ(indices.at(0), row.index) << "input " << ::testing::PrintToString(row.input);
    }
}

INSTANTIATE_TEST_SUITE_P(IndexTypes, AdaptiveWorkedExample, ::testing::Values(ACL_INT32, ACL_INT64),
                         [](const ::testing::TestParamInfo<aclDataType> &info) {
                             return std::string(typeName(info.param));
                         });

// ================================================================================================ problems

struct Problem {
    bool twoD = false;    // aclnnAdaptiveMaxPool2d(+Backward): D = 1 and not part of the view
    bool batched = true;  // N is part of the view (rank 5 for 3-D, 4 for 2-D)
    aclDataType type = ACL_FLOAT;
    aclDataType indexType = ACL_INT32;
    ref::Shape5 in{};
    std::array<int64_t, 3> out{};
    std::vector<int64_t> outputSizeList;  // exactly as passed
    bool allChannelsLast = false;         // every operand stored channels-last (ProblemLimits::wideChannelsLast)
    bool mostlyDense = false;             // operands contiguous three times in four (ProblemLimits::stride1Planes)
    bool allDense = false;                // operands always contiguous (ProblemLimits::stride1Float32)

    ref::Shape5 outShape() const { return {in[0], in[1], out[0], out[1], out[2]}; }
    std::vector<int64_t> view(const ref::Shape5 &shape) const {
        std::vector<int64_t> v;
        if (batched) v.push_back(shape[0]);
        v.push_back(shape[1]);
        if (!twoD) v.push_back(shape[2]);
        v.push_back(shape[3]);
        v.push_back(shape[4]);
        return v;
    }
    int channelAxis() const { return batched ? 1 : 0; }
    int64_t planes() const { return in[0] * in[1]; }
    int64_t planeIn() const { return in[2] * in[3] * in[4]; }
    int64_t planeOut() const { return out[0] * out[1] * out[2]; }
    std::string describe() const {
        return std::string(twoD ? "AdaptiveMaxPool2d " : "AdaptiveMaxPool3d ") + typeName(type) + "/" +
               typeName(indexType) + " self " + listText(view(in)) + " outputSize " + listText(outputSizeList) +
               " -> " + listText(view(outShape()));
    }
};

struct ProblemLimits {
    int64_t maxBatch = 2, minChannels = 1, maxChannels = 3;
    int64_t minAxis = 1, maxAxis = 9;      // spatial axes of the 3-D operators
    int64_t minAxis2d = 1, maxAxis2d = 9;  // H and W of the 2-D operators
    // Every input size a multiple of its output size (windows that do not overlap) and 32 to 64 input
    // columns: what the write-once gather backward takes.
    bool divisibleWideRows = false;
    // 16 to 40 channels (multiples of 8), outputs at least as large as inputs (windows of 1-2 per axis) and
    // every operand channels-last: what the channel-vector scatter takes (taps x vectors of 8 or 16 lanes <= C).
    bool wideChannelsLast = false;
    // With wideChannelsLast: 16 or 32 channels, float32 gradients, INT32 indices, up to three windows per coordinate
    // along W and one along the other axes: what the overlapping channels-last gather takes.
    bool overlappingFloat32 = false;
    // float32 gradients and INT32 indices: what the plane-chunk gather takes.
    bool float32Int32 = false;
    // Windows three wide at stride 2 along W (input 2 * output + 1), at most two per coordinate along H
    // (output <= input) and one along D (input a multiple of the output): what the stride-2 gather backward
    // takes.
    bool threeWideRows = false;
    // With threeWideRows: float32 values and 16 to 40 windows along W: what the stride-2 forward takes.
    bool threeWideFloat32 = false;
    // With both: windows three wide at stride 2 along H too, one plane deep: what the 3x3 stride-2 forward takes.
    bool threeByThreePlanes = false;
    // One plane deep, each of H and W one longer than its output (16 to 40 along W): windows two wide at stride 1,
    // what the stride-1 forward takes.
    bool stride1Planes = false;
    // With stride1Planes: float32 values, operands always contiguous: what the flat stride-1 forward takes too.
    bool stride1Float32 = false;
};

// An (input, output) size pair for one axis; `nonDivisible` forces I % O != 0.
std::pair<int64_t, int64_t> randomAxis(Rng &rng, bool nonDivisible, int64_t minAxis, int64_t maxAxis) {
    if (!nonDivisible) {
        const int64_t I = minAxis == 1 && chance(rng, 0.15) ? 1 : uniform(rng, minAxis, maxAxis);
        return {I, chance(rng, 0.15) ? 1 : uniform(rng, 1, maxAxis + 3)};
    }
    for (;;) {
        const int64_t I = minAxis == 1 && chance(rng, 0.1) ? 1 : uniform(rng, std::max<int64_t>(minAxis, 2), maxAxis);
        const int64_t O = chance(rng, 0.3) ? I + uniform(rng, 1, 4) : uniform(rng, 2, I + 4);
        if (I % O != 0) return {I, O};
    }
}

Problem randomProblem(Rng &rng, const ProblemLimits &limits = {}) {
    Problem p;
    p.twoD = chance(rng, 0.4);
    p.batched = chance(rng, 0.6);
    const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    p.type = types[uniform(rng, 0, 2)];
    p.indexType = chance(rng, 0.5) ? ACL_INT32 : ACL_INT64;
    if (limits.float32Int32) {
        p.type = ACL_FLOAT;
        p.indexType = ACL_INT32;
    }
    p.in[0] = p.batched ? uniform(rng, 1, limits.maxBatch) : 1;
    p.in[1] = uniform(rng, limits.minChannels, limits.maxChannels);
    // The channels-last gather takes 16-bit gradients from 16 channels on.
    if (limits.divisibleWideRows && p.type != ACL_FLOAT) p.in[1] = uniform(rng, 16, 17);
    const int firstAxis = p.twoD ? 1 : 0;  // spatial axes in use (0 = D, 1 = H, 2 = W)
    const int spatialDims = 3 - firstAxis;
    const bool allNonDivisible = chance(rng, 0.4);
    for (int a = 0; a < 3; ++a) {
        if (a < firstAxis) {
            p.in[2 + a] = p.out[a] = 1;
            continue;
        }
        const auto [I, O] = p.twoD ? randomAxis(rng, allNonDivisible, limits.minAxis2d, limits.maxAxis2d)
                                   : randomAxis(rng, allNonDivisible, limits.minAxis, limits.maxAxis);
        p.in[2 + a] = I;
        p.out[a] = O;
        if (limits.divisibleWideRows) {
            p.out[a] = a == 2 ? uniform(rng, 16, 32) : uniform(rng, 1, 4);
            p.in[2 + a] = p.out[a] * (a == 2 ? uniform(rng, 1, 2) : uniform(rng, 1, 3));
        }
    }
    // A fifth of the disjoint draws store every operand channels-last: what the channels-last gather takes.
    if (limits.divisibleWideRows && chance(rng, 0.2)) p.allChannelsLast = true;
    if (limits.wideChannelsLast) {
        p.allChannelsLast = true;
        p.in[1] = limits.overlappingFloat32 ? 16 * uniform(rng, 1, 2) : 8 * uniform(rng, 2, 5);
        for (int a = firstAxis; a < 3; ++a) {
            p.in[2 + a] = uniform(rng, 2, 6);
            p.out[a] = uniform(rng, p.in[2 + a], 2 * p.in[2 + a]);
            if (limits.overlappingFloat32) p.out[a] = a == 2 ? uniform(rng, p.in[4] + 1, 2 * p.in[4]) : p.in[2 + a];
        }
        if (limits.overlappingFloat32) {
            p.type = ACL_FLOAT;
            p.indexType = ACL_INT32;
        }
    }
    if (limits.threeWideFloat32) p.type = ACL_FLOAT;
    if (limits.threeWideRows) p.indexType = ACL_INT32;  // the stride-2 gather declines INT64 indices
    if (limits.threeWideRows)
        for (int a = firstAxis; a < 3; ++a) {
            p.out[a] = a == 2 ? uniform(rng, limits.threeWideFloat32 ? 16 : 4, limits.threeWideFloat32 ? 40 : 24)
                              : uniform(rng, 1, p.in[2 + a]);
            if (a == 0) p.in[2] = p.out[0] * uniform(rng, 1, 2);
            if (a == 2) p.in[4] = 2 * p.out[2] + 1;
        }
    if (limits.threeByThreePlanes) {
        p.in[2] = p.out[0] = 1;
        p.in[3] = 2 * p.out[1] + 1;
    }
    if (limits.stride1Planes) {
        p.mostlyDense = true;
        if (limits.stride1Float32) {
            p.type = ACL_FLOAT;
            p.allDense = true;
        }
        p.in[2] = p.out[0] = 1;
        p.out[1] = uniform(rng, 1, 12);
        p.in[3] = p.out[1] + 1;
        p.out[2] = uniform(rng, 16, 40);
        p.in[4] = p.out[2] + 1;
    }
    switch (limits.divisibleWideRows || limits.wideChannelsLast || limits.threeWideRows || limits.stride1Planes
                ? 3
                : uniform(rng, 0, 3)) {
        case 0:  // length 0: output = input size
            for (int a = firstAxis; a < 3; ++a) p.out[a] = p.in[2 + a];
            p.outputSizeList = {};
            break;
        case 1: {  // length 1: one size for every spatial axis
            const int64_t v = p.out[2];
            for (int a = firstAxis; a < 3; ++a) p.out[a] = v;
            p.outputSizeList = {v};
            break;
        }
        default:  // full length
            p.outputSizeList.assign(p.out.begin() + firstAxis, p.out.end());
            EXPECT_EQ(p.outputSizeList.size(), static_cast<size_t>(spatialDims));
    }
    return p;
}

aclFormat randomForwardFormat(Rng &rng, bool twoD) {
    if (twoD) return chance(rng, 0.5) ? ACL_FORMAT_ND : ACL_FORMAT_NCHW;
    const aclFormat formats[] = {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW};
    return formats[uniform(rng, 0, 2)];
}

// ================================================================================================ forward

struct ForwardCase {
    Problem problem;
    DataMode mode = DataMode::Plain;
    std::vector<uint32_t> inputBits;
    std::vector<uint32_t> expectedBits;  // the selected input element's own bits
    std::vector<int64_t> expectedIndices;
};

ForwardCase randomForwardCase(Rng &rng, const ProblemLimits &limits = {}) {
    ForwardCase c;
    c.problem = randomProblem(rng, limits);
    c.mode = static_cast<DataMode>(uniform(rng, 0, 2));
    c.inputBits = randomElements(rng, c.problem.planes() * c.problem.planeIn(), c.problem.type, c.mode);
    const ref::ForwardResult result = ref::forward(widen(c.inputBits, c.problem.type), c.problem.in, c.problem.out);
    c.expectedIndices = result.indices;
    for (int64_t flat : result.selected) c.expectedBits.push_back(c.inputBits[static_cast<size_t>(flat)]);
    return c;
}

struct ForwardOperands {
    aclFormat format = ACL_FORMAT_ND;
    Operand self, out, indices;
};

ForwardOperands makeForwardOperands(Rng &rng, const ForwardCase &c) {
    const Problem &p = c.problem;
    const aclFormat format = randomForwardFormat(rng, p.twoD);
    const bool dense = p.allDense || chance(rng, p.mostlyDense ? 0.75 : 0.3);  // every operand contiguous
    ForwardOperands operands{format, makeOperand(rng, p.view(p.in), p.channelAxis(), p.type, format, dense),
                             makeOperand(rng, p.view(p.outShape()), p.channelAxis(), p.type, format, dense),
                             makeOperand(rng, p.view(p.outShape()), p.channelAxis(), p.indexType, format, dense)};
    storeBits(operands.self.tensor, c.inputBits);
    return operands;
}

OperatorCall forwardCall(const ForwardCase &c, ForwardOperands &o) {
    return argmaxForwardCall(
        c.problem.describe() + ", " + dataModeName(c.mode) + ", format " + formatName(o.format), o.self, o.out,
        o.indices, c.problem.type, c.expectedBits,
        [&c, &o] { return indicesMatch(o.indices.tensor, c.expectedIndices); },
        [&c, &o] {
            return runForward(c.problem.twoD, o.self.tensor, c.problem.outputSizeList, o.out.tensor, o.indices.tensor);
        });
}

TEST(AdaptiveMaxPoolDifferential, ForwardMatchesReferenceOnEveryImplementation) {
    int nonDivisible = 0, outputLarger = 0;
    // Every fourth (from the second) has float32 windows three wide at stride 2 along W, 16 or more: the
    // stride-2 forward's problems.
    // Every other one of those, and one in sixteen more, has windows three wide at stride 2 along H too, one
    // plane deep: the 3x3 stride-2 forward's.
    // One in eight (from the third) has windows two wide at stride 1, one plane deep, its operands mostly dense:
    // the stride-1 forward's; every other one of those float32 with dense operands, the flat stride-1 forward's too.
    ProblemLimits threeWide, threeByThree, stride1, stride1Float32;
    threeWide.threeWideRows = threeWide.threeWideFloat32 = true;
    threeByThree.threeWideRows = threeByThree.threeWideFloat32 = threeByThree.threeByThreePlanes = true;
    stride1.stride1Planes = true;
    stride1Float32.stride1Planes = stride1Float32.stride1Float32 = true;
    const auto draw = [&](Rng &rng, int n) {
        ForwardCase c = randomForwardCase(rng, n % 8 == 1                  ? threeWide
                                               : n % 8 == 5 || n % 16 == 3 ? threeByThree
                                               : n % 16 == 2               ? stride1
                                               : n % 16 == 10              ? stride1Float32
                                                                           : ProblemLimits{});
        for (int a = 0; a < 3; ++a) {
            nonDivisible += c.problem.in[2 + a] % c.problem.out[a] != 0;
            outputLarger += c.problem.out[a] > c.problem.in[2 + a];
        }
        return c;
    };
    if (!runRandomSuite("adaptive forward", {101, 102, 103}, 80, kMinimumShareAdaptive, draw, makeForwardOperands,
                        forwardCall))
        return;
    EXPECT_GT(nonDivisible, 100) << "the generator must produce many non-divisible axes";
    EXPECT_GT(outputLarger, 30) << "the generator must produce many O > I axes";
}

// ================================================================================================ backward

struct BackwardCase : BackwardInputs {
    Problem problem;
    std::vector<uint32_t> expectedBits;
};

void computeBackward(BackwardCase &c) {
    const ref::BackwardResult result =
        ref::backward(widen(c.gradOutputBits, c.problem.type), c.indices, c.problem.outShape(), c.problem.in);
    ASSERT_TRUE(result.ok) << "test bug: generated an invalid index";
    c.expectedBits = roundAll(result.accumulators, c.problem.type);
}

BackwardCase randomBackwardCase(Rng &rng, const ProblemLimits &limits = {}) {
    BackwardCase c;
    c.problem = randomProblem(rng, limits);
    const Problem &p = c.problem;
    static_cast<BackwardInputs &>(c) = randomBackwardInputs(
        rng, p.type, p.planes() * p.planeIn(), p.planes() * p.planeOut(), p.planeIn(),
        [&p](const std::vector<uint32_t> &input) { return ref::forward(widen(input, p.type), p.in, p.out).indices; });
    computeBackward(c);
    return c;
}

struct BackwardOperands {
    aclFormat format = ACL_FORMAT_ND;
    Operand gradOutput, self, indices, gradInput;
};

BackwardOperands makeBackwardOperands(Rng &rng, const BackwardCase &c) {
    // SPEC §5 row 6: all four formats identical and public; they are tags only (layout is channels-first).
    const aclFormat formats[] = {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NCDHW, ACL_FORMAT_NHWC, ACL_FORMAT_NDHWC};
    const aclFormat format = formats[uniform(rng, 0, 4)];
    const Problem &p = c.problem;
    const bool dense = chance(rng, 0.3);  // every operand contiguous
    const auto backwardOperand = [&](const std::vector<int64_t> &shape, aclDataType type) {
        return p.allChannelsLast ? makeOperand(rng, shape, p.channelAxis(), type, format, Layout::ChannelsLast)
                                 : makeOperand(rng, shape, p.channelAxis(), type, format, dense);
    };
    BackwardOperands o{format, backwardOperand(p.view(p.outShape()), p.type), backwardOperand(p.view(p.in), p.type),
                       backwardOperand(p.view(p.outShape()), p.indexType), backwardOperand(p.view(p.in), p.type)};
    storeBits(o.gradOutput.tensor, c.gradOutputBits);
    storeIndices(o.indices.tensor, c.indices);
    // self stays poisoned: its data is never read (SPEC §3.6).
    return o;
}

OperatorCall backwardCall(const BackwardCase &c, BackwardOperands &o) {
    return indexBackwardCall(c.problem.describe() + ", " + c.describe() + ", format " + formatName(o.format),
                             o.gradOutput, o.self, o.indices, o.gradInput, c.problem.type, c.expectedBits, [&c, &o] {
                                 return runBackward(c.problem.twoD, o.gradOutput.tensor, o.self.tensor,
                                                    o.indices.tensor, o.gradInput.tensor);
                             });
}

TEST(AdaptiveMaxPoolDifferential, BackwardMatchesReferenceOnEveryImplementation) {
    // Half the cases have windows that do not overlap and wide rows (half of those float32 with INT32
    // indices, for the plane-chunk gather), a quarter three-wide windows at stride 2 along W: the write-once
    // gathers take those (about half of each draw gets dense planes). Three sixteenths are channels-last with 16-40
    // channels and small windows: the channel-vector scatter takes those, and two thirds of them
    // (float32, INT32, overlapping along W) the overlapping channels-last gather.
    runRandomSuite(
        "adaptive backward", {201, 202, 203}, 80, kMinimumShareAdaptive,
        [](Rng &rng, int n) {
            ProblemLimits limits;
            limits.divisibleWideRows = n % 2 == 1;
            limits.float32Int32 = n % 4 == 1;
            limits.threeWideRows = n % 8 == 2 || n % 8 == 6;
            limits.wideChannelsLast = n % 8 == 4 || n % 16 == 0;
            limits.overlappingFloat32 = n % 16 == 12 || n % 16 == 0;
            return randomBackwardCase(rng, limits);
        },
        makeBackwardOperands, backwardCall);
}

TEST(AdaptiveMaxPoolDifferential, BackwardOfTheLibraryForwardMatchesReference) {
    // The realistic chain: the library's own forward (random layouts) produces the indices that its backward
    // consumes through the very same indices tensor.
    const uint64_t seed = freshSeed() ^ 0xada9ULL;
    SCOPED_TRACE(seedTrace(freshSeed()));
    Rng rng(seed);
    for (int n = 0; n < 50; ++n) {
        SCOPED_TRACE("case " + std::to_string(n));
        const ForwardCase forward = randomForwardCase(rng);
        ForwardOperands fo = makeForwardOperands(rng, forward);
        OperatorCall forwardRun = forwardCall(forward, fo);
        ASSERT_TRUE(runChoice(forwardRun, ""));
        if (testing::Test::HasFailure()) return;
        BackwardCase c;
        c.problem = forward.problem;
        c.indices = forward.expectedIndices;
        c.gradOutputBits.resize(c.indices.size());
        for (auto &bits : c.gradOutputBits) bits = randomGradient(rng, c.problem.type, GradMode::Plain);
        computeBackward(c);
        const Problem &p = c.problem;
        Operand gradOutput = makeOperand(rng, p.view(p.outShape()), p.channelAxis(), p.type, fo.format);
        Operand gradInput = makeOperand(rng, p.view(p.in), p.channelAxis(), p.type, fo.format);
        storeBits(gradOutput.tensor, c.gradOutputBits);
        const TwoPhase status =
            runBackward(p.twoD, gradOutput.tensor, fo.self.tensor, fo.indices.tensor, gradInput.tensor);
        ASSERT_EQ(status.phaseOne, ACLNN_SUCCESS) << status.message;
        ASSERT_EQ(status.phaseTwo, ACLNN_SUCCESS) << status.message;
        EXPECT_TRUE(bitsMatch(gradInput.tensor, c.expectedBits, p.type, true, "gradInput"));
        EXPECT_EQ(gradInput.tensor.bytesOutsideViewChanged(), 0);
        if (testing::Test::HasFailure()) return;
    }
}

TEST(AdaptiveMaxPoolDifferential, BackwardFp16AccumulatesInFloat32AndRoundsOnce) {
    // SPEC §3.6 / WE-10 through the adaptive op: three outputs select element 4; fp16 gradients 2048, 1, 1
    // sum to 2050 in float32 (fp16 step at 2048 is 2, so naive fp16 summation would give 2048).
    for (bool twoD : {false, true}) {
        SCOPED_TRACE(twoD ? "2-D" : "3-D");
        const std::vector<int64_t> self5{1, 1, 1, 3, 3}, out5{1, 1, 1, 2, 2};
        const std::vector<int64_t> selfShape = twoD ? std::vector<int64_t>{1, 1, 3, 3} : self5;
        const std::vector<int64_t> outShape = twoD ? std::vector<int64_t>{1, 1, 2, 2} : out5;
        TestTensor self(selfShape, ACL_FLOAT16), gradOutput(outShape, ACL_FLOAT16), indices(outShape, ACL_INT32),
            gradInput(selfShape, ACL_FLOAT16);
        gradOutput.setValues({2048, 1, 1, 0});
        indices.setValues({4, 4, 4, 4});
        EXPECT_RAN(runBackward(twoD, gradOutput, self, indices, gradInput));
        for (int64_t i = 0; i < 9; ++i) EXPECT_EQ(gradInput.at(i), i == 4 ? 2050.0 : 0.0) << "element " << i;
    }
}

TEST(AdaptiveMaxPoolDifferential, BackwardOutOfRangeIndexFailsInPhaseTwoAndZeroesGradInput) {
    // SPEC §3.6: an index < -1 or >= D*H*W -> phase 2 returns 161002 and gradInput is all +0.0.
    for (bool twoD : {false, true})
        for (int64_t bad : {int64_t{12}, int64_t{-2}}) {
            SCOPED_TRACE(std::string(twoD ? "2-D" : "3-D") + ", bad index " + std::to_string(bad));
            const std::vector<int64_t> selfShape =
                twoD ? std::vector<int64_t>{1, 3, 4} : std::vector<int64_t>{1, 1, 3, 4};
            const std::vector<int64_t> outShape =
                twoD ? std::vector<int64_t>{1, 2, 2} : std::vector<int64_t>{1, 1, 2, 2};
            TestTensor self(selfShape, ACL_FLOAT), gradOutput(outShape, ACL_FLOAT), indices(outShape, ACL_INT64),
                gradInput(selfShape, ACL_FLOAT);
            gradOutput.setValues({1, 2, 3, 4});
            indices.setValues({0, 5, static_cast<double>(bad), 11});
            const TwoPhase status = runBackward(twoD, gradOutput, self, indices, gradInput);
            EXPECT_EQ(status.phaseOne, ACLNN_SUCCESS) << status.message;
            EXPECT_EQ(status.phaseTwo, ACLNN_ERR_PARAM_INVALID);
            EXPECT_NE(status.message.find("indices"), std::string::npos) << status.message;
            EXPECT_NE(status.message.find(std::to_string(bad)), std::string::npos) << status.message;
            for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(gradInput.bitsAt(i), 0u) << "element " << i;
        }
}

// ================================================================================================ threads

TEST(AdaptiveMaxPoolDifferential, OneTwoAndThreeThreadsAreBitIdentical) {
    DifferentialDriver driver("adaptive threads");
    // Problems large enough to be split between threads even at the library's default threshold:
    // 3..8 planes of about 32K..64K elements.
    ProblemLimits limits;
    limits.maxBatch = 2;
    limits.minChannels = 3;
    limits.maxChannels = 4;
    limits.minAxis = 32;
    limits.maxAxis = 40;
    limits.minAxis2d = 180;
    limits.maxAxis2d = 250;
    int largeForward = 0, largeBackward = 0, cases = 0;
    const bool passed = forEachRandomCase({301, 302}, 3, [&](Rng &rng, int) {
        const ForwardCase f = randomForwardCase(rng, limits);
        ForwardOperands fo = makeForwardOperands(rng, f);
        const BackwardCase b = randomBackwardCase(rng, limits);
        BackwardOperands bo = makeBackwardOperands(rng, b);
        ++cases;
        largeForward += f.problem.planes() * f.problem.planeIn() >= 3 * 32 * 1024;
        largeBackward += b.problem.planes() * b.problem.planeIn() >= 3 * 32 * 1024;
        OperatorCall forwardRun = forwardCall(f, fo), backwardRun = backwardCall(b, bo);
        driver.run(forwardRun, {1, 2, 3}) && driver.run(backwardRun, {1, 2, 3});
    });
    if (!passed) return;
    // The test only means something if most problems are big enough for three threads.
    EXPECT_GE(largeForward * 2, cases) << "too few forward problems large enough to be split between threads";
    EXPECT_GE(largeBackward * 2, cases) << "too few backward problems large enough to be split between threads";
}

// ================================================================================================ beyond 2^24

bool bigTestsSkipped() { return std::getenv("POOLGRAD_SKIP_BIG_TESTS") != nullptr; }

// A contiguous tensor over one aclrtMalloc block, with direct host access to its bytes (the CPU backend's
// device memory is host memory), for tensors too large for element-by-element TestTensor access.
class BigTensor {
public:
    BigTensor(std::vector<int64_t> shape, aclDataType type) : shape_(std::move(shape)) {
        elements_ = 1;
        for (int64_t d : shape_) elements_ *= d;
        bytes_ = static_cast<size_t>(elements_) * test_support::dataTypeBytes(type);
        if (aclrtMalloc(&data_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) data_ = nullptr;
        const int64_t storage[1] = {elements_};
        if (data_ != nullptr)
            tensor_ = aclCreateTensor(shape_.data(), shape_.size(), type, nullptr, 0, ACL_FORMAT_ND, storage, 1, data_);
    }
    ~BigTensor() {
        if (tensor_) aclDestroyTensor(tensor_);
        if (data_) aclrtFree(data_);
    }
    BigTensor(const BigTensor &) = delete;
    BigTensor &operator=(const BigTensor &) = delete;
    bool ok() const { return tensor_ != nullptr; }
    aclTensor *get() const { return tensor_; }
    operator aclTensor *() const { return tensor_; }
    template <typename T>
    T *data() const {
        return static_cast<T *>(data_);
    }
    int64_t elements() const { return elements_; }
    void fill(unsigned char byte) { std::memset(data_, byte, bytes_); }

private:
    std::vector<int64_t> shape_;
    int64_t elements_ = 0;
    size_t bytes_ = 0;
    void *data_ = nullptr;
    aclTensor *tensor_ = nullptr;
};

struct BigBackwardCase {
    bool twoD;
    std::vector<int64_t> selfShape, outShape;
    int64_t plane;
    std::vector<int64_t> indices;  // one plane
};

TEST(AdaptiveMaxPoolBeyond2To24, BackwardIsExactOnPlanesLargerThan2To24) {
    if (bigTestsSkipped()) GTEST_SKIP() << "POOLGRAD_SKIP_BIG_TESTS is set";
    LibraryControlsGuard guard;
    // SPEC §5 / §10: the A2/A3 "shape <= 2^24 in the non-divisible case" is an fp32-index artifact; the library
    // must scatter exactly. Most targets are odd numbers above 2^24, which float32 cannot represent.
    const int64_t W2 = 4097;  // 2-D: 4097 x 4097 = 16785409 > 2^24
    const std::vector<BigBackwardCase> cases{
        {false,
         {1, 1, 1, 1, 16777225},
         {1, 1, 1, 1, 8},
         16777225,
         {16777217, 16777219, 16777217, 16777224, 16777223, 1, -1, 16777221}},
        {true,
         {1, 4097, 4097},
         {1, 2, 4},
         W2 * W2,
         {4096 * W2 + 4095, 4096 * W2 + 1, 4096 * W2 + 4095, 4095 * W2 + 4096, 16777217, 3, -1, 4096 * W2 + 4093}},
    };
    const std::vector<float> grads{1, 2, 4, 8, 16, 32, 64, 128};
    for (const BigBackwardCase &c : cases) {
        // Expected: exact float sums at the (distinct) targets.
        std::vector<std::pair<int64_t, float>> expected;
        for (size_t q = 0; q < c.indices.size(); ++q) {
            if (c.indices[q] < 0) continue;
            bool merged = false;
            for (auto &[position, sum] : expected)
                if (position == c.indices[q]) sum += grads[q], merged = true;
            if (!merged) expected.emplace_back(c.indices[q], grads[q]);
        }
        BigTensor self(c.selfShape, ACL_FLOAT), gradInput(c.selfShape, ACL_FLOAT);
        ASSERT_TRUE(self.ok() && gradInput.ok()) << "allocation failed";
        for (aclDataType indexType : {ACL_INT32, ACL_INT64}) {
            TestTensor gradOutput(c.outShape, ACL_FLOAT), indices(c.outShape, indexType);
            for (size_t q = 0; q < grads.size(); ++q) {
                gradOutput.set(static_cast<int64_t>(q), grads[q]);
                indices.set(static_cast<int64_t>(q), static_cast<double>(c.indices[q]));
            }
            for (const std::string &name : implementationChoices(kBackwardTask)) {
                SCOPED_TRACE(std::string(c.twoD ? "2-D" : "3-D") + " " + typeName(indexType) + " " +
                             implementationTrace(name));
                ASSERT_EQ(poolgradForceImplementation(name.empty() ? nullptr : name.c_str()), ACL_SUCCESS);
                gradInput.fill(0xA5);
                const TwoPhase status = runBackward(c.twoD, gradOutput, self, indices, gradInput);
                poolgradForceImplementation(nullptr);
                if (!name.empty() && status.phaseOne == kFindKernelError) continue;
                ASSERT_EQ(status.phaseOne, ACLNN_SUCCESS) << status.message;
                ASSERT_EQ(status.phaseTwo, ACLNN_SUCCESS) << status.message;
                const uint32_t *bits = gradInput.data<uint32_t>();
                int64_t nonZero = 0;
                for (int64_t i = 0; i < gradInput.elements(); ++i) nonZero += bits[i] != 0;
                EXPECT_EQ(nonZero, static_cast<int64_t>(expected.size())) << "elements other than the targets written";
                for (const auto &[position, sum] : expected)
                    EXPECT_EQ(test_support::floatFromBits(bits[position]), sum) << "gradInput[" << position << "]";
            }
        }
    }
}

// The window bounds a 32-bit or float implementation would compute (to show the test can tell).
int64_t int32Begin(int64_t o, int64_t I, int64_t O) {
    const int32_t product = static_cast<int32_t>(static_cast<uint32_t>(o) * static_cast<uint32_t>(I));  // wraps
    return product / static_cast<int32_t>(O);
}
int64_t floatBegin(int64_t o, int64_t I, int64_t O) {
    return static_cast<int64_t>(std::floor(static_cast<float>(o) * static_cast<float>(I) / static_cast<float>(O)));
}
int64_t floatEnd(int64_t o, int64_t I, int64_t O) {
    return static_cast<int64_t>(std::ceil(static_cast<float>(o + 1) * static_cast<float>(I) / static_cast<float>(O)));
}

TEST(AdaptiveMaxPoolBeyond2To24, ForwardWindowsAreExactOnAVeryLongAxis) {
    if (bigTestsSkipped()) GTEST_SKIP() << "POOLGRAD_SKIP_BIG_TESTS is set";
    LibraryControlsGuard guard;
    const int64_t I = 16777259, O = 997;  // I odd and > 2^24 (not a float), o*I overflows int32 for o >= 128
    int floatWrong = 0, int32Wrong = 0;
    std::vector<ref::Window> windows;
    for (int64_t o = 0; o < O; ++o) {
        const ref::Window w = ref::window(o, I, O);
        windows.push_back(w);
        floatWrong += floatBegin(o, I, O) != w.begin || floatEnd(o, I, O) != w.end;
        int32Wrong += int32Begin(o, I, O) != w.begin;
    }
    ASSERT_GT(floatWrong, 0) << "test design: float windows must differ somewhere";
    ASSERT_GT(int32Wrong, 0) << "test design: 32-bit windows must differ somewhere";

    // Strictly increasing values select each window's LAST element (its end edge), strictly decreasing ones
    // its FIRST (its start edge). 3-D op along D with INT64 indices, 2-D op along W with INT32 indices.
    struct Run {
        bool twoD, increasing;
        std::vector<int64_t> selfShape, outShape, outputSize;
        aclDataType indexType;
    };
    const std::vector<Run> runs{{false, true, {1, 1, I, 1, 1}, {1, 1, O, 1, 1}, {O, 1, 1}, ACL_INT64},
                                {false, false, {1, 1, I, 1, 1}, {1, 1, O, 1, 1}, {O, 1, 1}, ACL_INT32},
                                {true, false, {1, 1, 1, I}, {1, 1, 1, O}, {1, O}, ACL_INT32},
                                {true, true, {1, 1, 1, I}, {1, 1, 1, O}, {1, O}, ACL_INT64}};
    for (const Run &run : runs) {
        SCOPED_TRACE(std::string(run.twoD ? "2-D along W" : "3-D along D") +
                     (run.increasing ? ", increasing" : ", decreasing"));
        BigTensor input(run.selfShape, ACL_FLOAT);
        ASSERT_TRUE(input.ok());
        uint32_t *bits = input.data<uint32_t>();
        for (int64_t i = 0; i < I; ++i)  // positive floats ordered like their bits
            bits[i] = 0x3F800000u + static_cast<uint32_t>(run.increasing ? i : I - 1 - i);
        TestTensor out(run.outShape, ACL_FLOAT), indices(run.outShape, run.indexType);
        const TwoPhase status = runForward(run.twoD, input, run.outputSize, out, indices);
        ASSERT_EQ(status.phaseOne, ACLNN_SUCCESS) << status.message;
        ASSERT_EQ(status.phaseTwo, ACLNN_SUCCESS) << status.message;
        int mismatches = 0;
        for (int64_t o = 0; o < O; ++o) {
            const int64_t want = run.increasing ? windows[o].end - 1 : windows[o].begin;
            const bool same = indices.at(o) == static_cast<double>(want) && out.bitsAt(o) == bits[want];
            if (!same && mismatches++ < 5)
                ADD_FAILURE() << "output " << o << ": window [" << windows[o].begin << ", " << windows[o].end
                              << "), expected index " << want << ", got " << indices.at(o);
        }
        EXPECT_EQ(mismatches, 0);
    }
}

}  // namespace
