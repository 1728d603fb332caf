// SPEC §9 worked examples of aclnnMaxPool3dWithArgmax and aclnnMaxPool3dWithArgmaxBackward, run through the
// public C API. Every expected value below is copied from SPEC §9 (not computed by the test reference);
// outputs are poisoned before each run, so an element the operator forgets to write shows up.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "support/float_bits.h"
#include "support/max_pool3d_run.h"
#include "support/pool_differential_helpers.h"
#include "support/test_tensor.h"

namespace {

using test_support::MaxPool3dLists;
using test_support::TestTensor;
using test_support::TwoPhaseStatus;

constexpr aclnnStatus kInvalid = 161002;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// Bits of an exactly representable value in `type` (independent conversions of float_bits.h).
// Element bits of a value rounded once to the tensor's type (pool_differential_helpers.h).
uint64_t bitsOf(double value, aclDataType type) { return pool_diff::toBits(static_cast<float>(value), type); }

bool isNanBits(uint64_t bits, aclDataType type) { return pool_diff::isNanBits(static_cast<uint32_t>(bits), type); }

TestTensor filled(const std::vector<int64_t> &shape, aclDataType type, const std::vector<double> &values) {
    TestTensor tensor(shape, type);
    tensor.setValues(values);
    return tensor;
}

// Checks every element of a floating-point output bit for bit: a NaN expectation needs a NaN with the
// input's bits (`nanBits`), every other value (zeros included, so -0 != +0) its exact encoding.
void expectFloatBits(const TestTensor &tensor, const std::vector<double> &expected, const char *what,
                     uint64_t nanBits = 0) {
    ASSERT_EQ(tensor.elementCount(), static_cast<int64_t>(expected.size())) << what;
    for (int64_t i = 0; i < tensor.elementCount(); ++i) {
        const double value = expected[static_cast<size_t>(i)];
        if (std::isnan(value)) {
            EXPECT_TRUE(isNanBits(tensor.bitsAt(i), tensor.type())) << what << "[" << i << "] should be NaN";
            if (nanBits != 0) {
                EXPECT_EQ(tensor.bitsAt(i), nanBits) << what << "[" << i << "] NaN bits";
            }
        } else {
            EXPECT_EQ(tensor.bitsAt(i), bitsOf(value, tensor.type()))
                << what << "[" << i << "] = " << tensor.at(i) << ", expected " << value;
        }
    }
    EXPECT_EQ(tensor.bytesOutsideViewChanged(), 0) << what;
}

void expectIndices(const TestTensor &tensor, const std::vector<int64_t> &expected) {
    ASSERT_EQ(tensor.elementCount(), static_cast<int64_t>(expected.size()));
    for (int64_t i = 0; i < tensor.elementCount(); ++i)
        EXPECT_EQ(tensor.at(i), static_cast<double>(expected[static_cast<size_t>(i)])) << "indices[" << i << "]";
}

void expectSuccess(const TwoPhaseStatus &status) {
    EXPECT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
    EXPECT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
}

struct ForwardCase {
    std::vector<int64_t> selfShape;
    std::vector<double> self;
    MaxPool3dLists lists;
    std::vector<int64_t> outShape;
    std::vector<double> out;
    std::vector<int64_t> indices;
};

void checkForward(const ForwardCase &c, aclDataType type, aclDataType indexType) {
    TestTensor self = filled(c.selfShape, type, c.self);
    TestTensor out(c.outShape, type), indices(c.outShape, indexType);
    out.poison();
    indices.poison();
    expectSuccess(test_support::runMaxPool3dWithArgmax(self, c.lists, out, indices));
    expectFloatBits(out, c.out, "out");
    expectIndices(indices, c.indices);
    EXPECT_EQ(indices.bytesOutsideViewChanged(), 0);
}

struct BackwardCase {
    std::vector<int64_t> selfShape;
    MaxPool3dLists lists;
    std::vector<int64_t> gradOutputShape;
    std::vector<double> gradOutput;
    std::vector<int64_t> indices;
    std::vector<double> gradInput;
};

void checkBackward(const BackwardCase &c, aclDataType type, aclDataType indexType) {
    TestTensor self(c.selfShape, type);  // contents never read (SPEC §3.6): left poisoned
    TestTensor gradOutput = filled(c.gradOutputShape, type, c.gradOutput);
    TestTensor indices(c.gradOutputShape, indexType);
    for (size_t i = 0; i < c.indices.size(); ++i) indices.set(static_cast<int64_t>(i), double(c.indices[i]));
    TestTensor gradInput(c.selfShape, type);
    gradInput.poison();
    expectSuccess(test_support::runMaxPool3dWithArgmaxBackward(gradOutput, self, indices, c.lists, gradInput));
    expectFloatBits(gradInput, c.gradInput, "gradInput");
}

// ---------------------------------------------------------------------------------------------------------
// WE-1: the seed sample (fp32, INT32 indices, ND).

TEST(MaxPool3dWorkedExamples, WE1SeedSampleBackward) {
    BackwardCase c;
    c.selfShape = {1, 1, 2, 2, 2};
    c.lists = {{2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, false};
    c.gradOutputShape = {1, 1, 1, 1, 1};
    c.gradOutput = {0.4757};
    c.indices = {6};
    c.gradInput = {0, 0, 0, 0, 0, 0, 0.4757, 0};
    checkBackward(c, ACL_FLOAT, ACL_INT32);
}

TEST(MaxPool3dWorkedExamples, WE1SeedSampleBackwardSelfDataIsIgnored) {
    // Same as WE-1 but with the real self values loaded: the result must not change (self is shape-only).
    const std::vector<double> selfValues{0.0850, -0.5147, -0.0212, -0.5654, -0.3222, 0.5847, 1.7510, 0.9954};
    TestTensor self = filled({1, 1, 2, 2, 2}, ACL_FLOAT, selfValues);
    TestTensor gradOutput = filled({1, 1, 1, 1, 1}, ACL_FLOAT, {0.4757});
    TestTensor indices = filled({1, 1, 1, 1, 1}, ACL_INT32, {6});
    TestTensor gradInput({1, 1, 2, 2, 2}, ACL_FLOAT);
    expectSuccess(test_support::runMaxPool3dWithArgmaxBackward(
        gradOutput, self, indices, {{2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, false}, gradInput));
    expectFloatBits(gradInput, {0, 0, 0, 0, 0, 0, 0.4757, 0}, "gradInput");
    // The program of the seed prints result[6] as 0.475700.
    char printed[32];
    std::snprintf(printed, sizeof printed, "%f", gradInput.at(6));
    EXPECT_EQ(std::string(printed), "0.475700");
}

TEST(MaxPool3dWorkedExamples, WE1SeedSampleForward) {
    ForwardCase c;
    c.selfShape = {1, 1, 2, 2, 2};
    c.self = {0.0850, -0.5147, -0.0212, -0.5654, -0.3222, 0.5847, 1.7510, 0.9954};
    c.lists = {{2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, false};
    c.outShape = {1, 1, 1, 1, 1};
    c.out = {1.7510};
    c.indices = {6};
    checkForward(c, ACL_FLOAT, ACL_INT32);
    checkForward(c, ACL_FLOAT, ACL_INT64);
}

// ---------------------------------------------------------------------------------------------------------
// WE-2 … WE-6 and WE-11 hold only small integers, so they are exact in every dtype: run them for all.

struct DtypePair {
    aclDataType type;
    aclDataType indexType;
};

std::string dtypePairName(const testing::TestParamInfo<DtypePair> &info) {
    const char *type = info.param.type == ACL_FLOAT ? "Float" : info.param.type == ACL_FLOAT16 ? "Float16" : "Bf16";
    return std::string(type) + (info.param.indexType == ACL_INT32 ? "Int32" : "Int64");
}

class MaxPool3dWorkedExamplesAllDtypes : public testing::TestWithParam<DtypePair> {};

TEST_P(MaxPool3dWorkedExamplesAllDtypes, WE2OverlappingWindows) {
    const auto [type, indexType] = GetParam();
    const MaxPool3dLists lists{{1, 2, 2}, {1, 1, 1}, {0, 0, 0}, {1}, false};
    checkForward({{1, 1, 1, 3, 3}, {1, 2, 3, 4, 9, 5, 6, 7, 8}, lists, {1, 1, 1, 2, 2}, {9, 9, 9, 9}, {4, 4, 4, 4}},
                 type, indexType);
    checkBackward({{1, 1, 1, 3, 3}, lists, {1, 1, 1, 2, 2}, {1, 2, 3, 4}, {4, 4, 4, 4}, {0, 0, 0, 0, 10, 0, 0, 0, 0}},
                  type, indexType);
}

TEST_P(MaxPool3dWorkedExamplesAllDtypes, WE3CeilModeFalse) {
    const auto [type, indexType] = GetParam();
    const MaxPool3dLists lists{{1, 1, 2}, {1, 1, 2}, {0, 0, 0}, {1}, false};
    checkForward({{1, 1, 1, 1, 5}, {1, 5, 2, 3, 9}, lists, {1, 1, 1, 1, 2}, {5, 3}, {1, 3}}, type, indexType);
}

TEST_P(MaxPool3dWorkedExamplesAllDtypes, WE3CeilModeTrue) {
    const auto [type, indexType] = GetParam();
    const MaxPool3dLists lists{{1, 1, 2}, {1, 1, 2}, {0, 0, 0}, {1}, true};
    checkForward({{1, 1, 1, 1, 5}, {1, 5, 2, 3, 9}, lists, {1, 1, 1, 1, 3}, {5, 3, 9}, {1, 3, 4}}, type, indexType);
    checkBackward({{1, 1, 1, 1, 5}, lists, {1, 1, 1, 1, 3}, {1, 2, 3}, {1, 3, 4}, {0, 1, 0, 2, 3}}, type, indexType);
}

TEST_P(MaxPool3dWorkedExamplesAllDtypes, WE3CeilModeTrueRejectsTheFloorSizedGradOutput) {
    const auto [type, indexType] = GetParam();
    TestTensor self({1, 1, 1, 1, 5}, type);
    TestTensor gradOutput = filled({1, 1, 1, 1, 2}, type, {1, 2});
    TestTensor indices = filled({1, 1, 1, 1, 2}, indexType, {1, 3});
    TestTensor gradInput({1, 1, 1, 1, 5}, type);
    const TwoPhaseStatus status = test_support::runMaxPool3dWithArgmaxBackward(
        gradOutput, self, indices, {{1, 1, 2}, {1, 1, 2}, {0, 0, 0}, {1}, true}, gradInput);
    EXPECT_EQ(status.phaseOne, kInvalid);
    EXPECT_FALSE(status.executorReturned);
    // And the forward rejects an out sized with the floor rule as well (SPEC §7.1 row 7).
    TestTensor out({1, 1, 1, 1, 2}, type), forwardIndices({1, 1, 1, 1, 2}, indexType);
    EXPECT_EQ(
        test_support::runMaxPool3dWithArgmax(self, {{1, 1, 2}, {1, 1, 2}, {0, 0, 0}, {1}, true}, out, forwardIndices)
            .phaseOne,
        kInvalid);
}

TEST_P(MaxPool3dWorkedExamplesAllDtypes, WE4LastWindowMustStartInsideInputPlusLeftPad) {
    const auto [type, indexType] = GetParam();
    const MaxPool3dLists lists{{1, 1, 2}, {1, 1, 2}, {0, 0, 1}, {1}, true};
    checkForward({{1, 1, 1, 1, 5}, {1, 5, 2, 3, 9}, lists, {1, 1, 1, 1, 3}, {1, 5, 9}, {0, 1, 4}}, type, indexType);
    checkBackward({{1, 1, 1, 1, 5}, lists, {1, 1, 1, 1, 3}, {1, 2, 3}, {0, 1, 4}, {1, 2, 0, 0, 3}}, type, indexType);
    // The raw ceil formula's 4 must be rejected in both directions.
    TestTensor self({1, 1, 1, 1, 5}, type);
    TestTensor out({1, 1, 1, 1, 4}, type), indices({1, 1, 1, 1, 4}, indexType);
    EXPECT_EQ(test_support::runMaxPool3dWithArgmax(self, lists, out, indices).phaseOne, kInvalid);
    TestTensor gradOutput = filled({1, 1, 1, 1, 4}, type, {1, 2, 3, 4});
    TestTensor backwardIndices = filled({1, 1, 1, 1, 4}, indexType, {0, 1, 4, 4});
    TestTensor gradInput({1, 1, 1, 1, 5}, type);
    EXPECT_EQ(
        test_support::runMaxPool3dWithArgmaxBackward(gradOutput, self, backwardIndices, lists, gradInput).phaseOne,
        kInvalid);
}

TEST_P(MaxPool3dWorkedExamplesAllDtypes, WE5PaddingNeverWins) {
    const auto [type, indexType] = GetParam();
    const MaxPool3dLists lists{{1, 1, 3}, {1, 1, 2}, {0, 0, 1}, {1}, false};
    checkForward({{1, 1, 1, 1, 4}, {-5, -1, -7, -2}, lists, {1, 1, 1, 1, 2}, {-1, -1}, {1, 1}}, type, indexType);
    checkBackward({{1, 1, 1, 1, 4}, lists, {1, 1, 1, 1, 2}, {1, 2}, {1, 1}, {0, 3, 0, 0}}, type, indexType);
}

TEST_P(MaxPool3dWorkedExamplesAllDtypes, WE6FourDimensionalInputHasPlaneRelativeIndices) {
    const auto [type, indexType] = GetParam();
    std::vector<double> ramp(16);
    for (int i = 0; i < 16; ++i) ramp[static_cast<size_t>(i)] = i;
    const MaxPool3dLists lists{{2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1}, false};
    checkForward({{2, 2, 2, 2}, ramp, lists, {2, 1, 1, 1}, {7, 15}, {7, 7}}, type, indexType);
    std::vector<double> gradInput(16, 0.0);
    gradInput[7] = 1;
    gradInput[15] = 2;
    checkBackward({{2, 2, 2, 2}, lists, {2, 1, 1, 1}, {1, 2}, {7, 7}, gradInput}, type, indexType);
}

TEST_P(MaxPool3dWorkedExamplesAllDtypes, WE11AllFourForwardWindows) {
    const auto [type, indexType] = GetParam();
    const MaxPool3dLists lists{{1, 2, 2}, {1, 2, 2}, {0}, {1}, false};
    // One window per plane, as one call (C = 4) and as four separate calls.
    const std::vector<std::vector<double>> windows{
        {3, 3, 1, 3}, {1, kNaN, 5, kNaN}, {1, kNaN, 5, 2}, {-kInf, -kInf, -kInf, -kInf}};
    const std::vector<double> values{3, kNaN, kNaN, -kInf};
    const std::vector<int64_t> indices{0, 3, 1, 0};
    std::vector<double> all;
    for (const auto &window : windows) all.insert(all.end(), window.begin(), window.end());
    const uint64_t nanBits = bitsOf(kNaN, type);
    {
        SCOPED_TRACE("four planes in one call");
        TestTensor self = filled({1, 4, 1, 2, 2}, type, all);
        TestTensor out({1, 4, 1, 1, 1}, type), idx({1, 4, 1, 1, 1}, indexType);
        expectSuccess(test_support::runMaxPool3dWithArgmax(self, lists, out, idx));
        expectFloatBits(out, values, "out", nanBits);
        expectIndices(idx, indices);
    }
    for (size_t w = 0; w < windows.size(); ++w) {
        SCOPED_TRACE("window " + std::to_string(w));
        TestTensor self = filled({1, 1, 1, 2, 2}, type, windows[w]);
        TestTensor out({1, 1, 1, 1, 1}, type), idx({1, 1, 1, 1, 1}, indexType);
        expectSuccess(test_support::runMaxPool3dWithArgmax(self, lists, out, idx));
        expectFloatBits(out, {values[w]}, "out", nanBits);
        expectIndices(idx, {indices[w]});
    }
}

TEST_P(MaxPool3dWorkedExamplesAllDtypes, WE11SignedZerosTieKeepsTheFirst) {
    // SPEC §3.7: +0.0 == -0.0, so the first of them is kept with its own sign bit.
    const auto [type, indexType] = GetParam();
    const MaxPool3dLists lists{{1, 2, 2}, {1, 2, 2}, {0}, {1}, false};
    TestTensor self = filled({1, 2, 1, 2, 2}, type, {-0.0, 0.0, -1, 0.0, -3, 0.0, -0.0, -2});
    TestTensor out({1, 2, 1, 1, 1}, type), idx({1, 2, 1, 1, 1}, indexType);
    expectSuccess(test_support::runMaxPool3dWithArgmax(self, lists, out, idx));
    expectFloatBits(out, {-0.0, 0.0}, "out");
    expectIndices(idx, {0, 1});
}

INSTANTIATE_TEST_SUITE_P(Dtypes, MaxPool3dWorkedExamplesAllDtypes,
                         testing::Values(DtypePair{ACL_FLOAT, ACL_INT32}, DtypePair{ACL_FLOAT, ACL_INT64},
                                         DtypePair{ACL_FLOAT16, ACL_INT32}, DtypePair{ACL_FLOAT16, ACL_INT64},
                                         DtypePair{ACL_BF16, ACL_INT32}, DtypePair{ACL_BF16, ACL_INT64}),
                         dtypePairName);

// ---------------------------------------------------------------------------------------------------------
// WE-10: fp16 gradients are summed in float32 and rounded once.

TEST(MaxPool3dWorkedExamples, WE10Float16AccumulatesInFloat32) {
    for (aclDataType indexType : {ACL_INT32, ACL_INT64}) {
        SCOPED_TRACE(indexType == ACL_INT32 ? "INT32 indices" : "INT64 indices");
        TestTensor self({1, 1, 1, 3, 3}, ACL_FLOAT16);
        TestTensor gradOutput = filled({1, 1, 1, 2, 2}, ACL_FLOAT16, {2048, 1, 1, 0});
        TestTensor indices = filled({1, 1, 1, 2, 2}, indexType, {4, 4, 4, 4});
        TestTensor gradInput({1, 1, 1, 3, 3}, ACL_FLOAT16);
        expectSuccess(test_support::runMaxPool3dWithArgmaxBackward(
            gradOutput, self, indices, {{1, 2, 2}, {1, 1, 1}, {0, 0, 0}, {1}, false}, gradInput));
        EXPECT_EQ(gradInput.at(4), 2050.0) << "naive fp16 summation would give 2048";
        EXPECT_EQ(gradInput.bitsAt(4), 0x6801u);  // 2050 = (1 + 2^-10) * 2^11
        expectFloatBits(gradInput, {0, 0, 0, 0, 2050, 0, 0, 0, 0}, "gradInput");
    }
}

}  // namespace
