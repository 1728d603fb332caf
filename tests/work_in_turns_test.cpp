// Problems that move more than 32 MiB take their work items in turns from a shared counter (itemsPerTurnFor,
// src/core/threading.h) in the kernels measured to gain from it: the dense row search and channels-last
// forwards, the stride-2 and plane-chunk index gathers, and MaxPoolV3Grad's 3x3 stride-2 kernels in both layouts. Which thread
// takes which rows then changes from call to call, so each kernel runs such a problem (3x3 stride 2 padding 1,
// tie-heavy values with NaN, -0 and infinities) on 2 and 3 threads into poisoned outputs, says so in its plan,
// and must give the reference implementation's bits, nothing outside the outputs touched.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "poolgrad/poolgrad.h"
#include "support/max_pool3d_run.h"
#include "support/max_pool_v3_run.h"
#include "support/pool_differential_helpers.h"
#include "support/test_tensor.h"

namespace {

using test_support::TestTensor;

// 24 planes of 512 x 480: 5.9 million float32 inputs, so every operator below moves more than 32 MiB.
constexpr int64_t kChannels = 24, kHeight = 512, kWidth = 480;
constexpr int64_t kOutHeight = kHeight / 2, kOutWidth = kWidth / 2;  // k3 s2 p1
const std::vector<int> kChannelsLast{0, 2, 3, 4, 1};

double tieHeavyValue(std::mt19937 &rng) {
    const int roll = std::uniform_int_distribution<int>(0, 39)(rng);
    if (roll == 0) return std::numeric_limits<double>::quiet_NaN();
    if (roll == 1) return -std::numeric_limits<double>::infinity();
    if (roll == 2) return std::numeric_limits<double>::infinity();
    if (roll == 3) return -0.0;
    return static_cast<double>(roll % 5 - 2);
}

std::vector<double> tieHeavyValues(int64_t count, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<double> values(static_cast<size_t>(count));
    for (double &value : values) value = tieHeavyValue(rng);
    return values;
}

// Gradients exact in every type, none zero, so that each one that arrives shows.
std::vector<double> gradientValues(int64_t count, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<double> values(static_cast<size_t>(count));
    for (double &value : values) value = static_cast<double>(std::uniform_int_distribution<int>(1, 64)(rng)) / 8.0;
    return values;
}

test_support::MaxPool3dLists threeByThreeStrideTwo() {
    test_support::MaxPool3dLists lists;
    lists.kernel = {1, 3, 3};
    lists.stride = {1, 2, 2};
    lists.padding = {0, 1, 1};
    return lists;
}

TestTensor tensorOf(const std::vector<int64_t> &shape, aclDataType type, bool channelsLast) {
    return channelsLast ? TestTensor::permuted(shape, kChannelsLast, type) : TestTensor(shape, type);
}

std::string lastPlan() {
    poolgradRunReport report{};
    EXPECT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
    return report.plan != nullptr ? report.plan : "";
}

// The first run's gradient bits become `expected`, with more than `leastNonZero` nonzero elements (the
// gradients arrived); every later run must give them.
void expectTheFirstRunsBits(std::vector<uint64_t> &expected, const TestTensor &gradient, int64_t leastNonZero) {
    if (!expected.empty()) {
        EXPECT_EQ(pool_diff::snapshot(gradient), expected);
        return;
    }
    expected = pool_diff::snapshot(gradient);
    int64_t nonZero = 0;
    for (const uint64_t bits : expected) nonZero += bits != 0;
    EXPECT_GT(nonZero, leastNonZero);
}

void useThreads(int threads) {
    ASSERT_EQ(poolgradSetNumThreads(threads), ACL_SUCCESS);
    ASSERT_EQ(poolgradSetParallelThreshold(1), ACL_SUCCESS);
}

TEST(WorkInTurns, LargeForwardsMatchTheReference) {
    pool_diff::LibraryControlsGuard reset;
    const std::vector<int64_t> inShape{1, kChannels, 1, kHeight, kWidth},
        outShape{1, kChannels, 1, kOutHeight, kOutWidth};
    for (const bool channelsLast : {false, true}) {
        SCOPED_TRACE(channelsLast ? "channels-last" : "NCDHW");
        TestTensor self = tensorOf(inShape, ACL_FLOAT, channelsLast);
        self.setValues(tieHeavyValues(self.elementCount(), channelsLast ? 11 : 12));
        std::vector<uint64_t> expectedOut, expectedIndices;
        const char *kernel = channelsLast ? "cpu_argmax_forward_channels_last" : "cpu_argmax_forward_dense_rows";
        for (const auto &[name, threads] :
             std::vector<std::pair<const char *, int>>{{"cpu_argmax_forward_reference", 1}, {kernel, 2}, {kernel, 3}}) {
            SCOPED_TRACE(std::string(name) + ", threads " + std::to_string(threads));
            useThreads(threads);
            ASSERT_EQ(poolgradForceImplementation(name), ACL_SUCCESS);
            TestTensor out = tensorOf(outShape, ACL_FLOAT, channelsLast);
            TestTensor indices = tensorOf(outShape, ACL_INT32, channelsLast);
            out.poison();
            indices.poison();
            const auto status = test_support::runMaxPool3dWithArgmax(self, threeByThreeStrideTwo(), out, indices);
            ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
            EXPECT_EQ(out.bytesOutsideViewChanged(), 0);
            EXPECT_EQ(indices.bytesOutsideViewChanged(), 0);
            if (threads > 1) EXPECT_NE(lastPlan().find(" in turns of "), std::string::npos) << lastPlan();
            if (expectedOut.empty()) {
                expectedOut = pool_diff::snapshot(out);
                expectedIndices = pool_diff::snapshot(indices);
            } else {
                EXPECT_EQ(pool_diff::snapshot(out), expectedOut);
                EXPECT_EQ(pool_diff::snapshot(indices), expectedIndices);
            }
        }
    }
}

TEST(WorkInTurns, LargeStride2GatherMatchesTheReference) {
    pool_diff::LibraryControlsGuard reset;
    const std::vector<int64_t> inShape{1, kChannels, 1, kHeight, kWidth},
        outShape{1, kChannels, 1, kOutHeight, kOutWidth};
    TestTensor self(inShape, ACL_FLOAT);
    self.setValues(tieHeavyValues(self.elementCount(), 13));
    TestTensor out(outShape, ACL_FLOAT), indices(outShape, ACL_INT32);
    ASSERT_EQ(test_support::runMaxPool3dWithArgmax(self, threeByThreeStrideTwo(), out, indices).phaseTwo, 0);
    {  // float32: a bfloat16 gradInput and gradOutput make this problem 21 MB, below the turns
        const aclDataType type = ACL_FLOAT;
        TestTensor gradOutput(outShape, type);
        gradOutput.setValues(gradientValues(gradOutput.elementCount(), 14));
        TestTensor selfOfType(inShape, type);  // the backward reads only its shape and type
        std::vector<uint64_t> expected;
        for (const auto &[name, threads] :
             std::vector<std::pair<const char *, int>>{{"cpu_index_scatter_backward_reference", 1},
                                                       {"cpu_index_gather_backward_stride2", 2},
                                                       {"cpu_index_gather_backward_stride2", 3}}) {
            SCOPED_TRACE(std::string(name) + ", threads " + std::to_string(threads));
            useThreads(threads);
            ASSERT_EQ(poolgradForceImplementation(name), ACL_SUCCESS);
            TestTensor gradInput(inShape, type);
            gradInput.poison();
            const auto status = test_support::runMaxPool3dWithArgmaxBackward(gradOutput, selfOfType, indices,
                                                                             threeByThreeStrideTwo(), gradInput);
            ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
            EXPECT_EQ(gradInput.bytesOutsideViewChanged(), 0);
            if (threads > 1) EXPECT_NE(lastPlan().find(" in turns of "), std::string::npos) << lastPlan();
            expectTheFirstRunsBits(expected, gradInput, gradOutput.elementCount() / 2);
        }
    }
}

// Case E's planes (4 x 14 x 14, 2x2x2 windows), 9600 of them: 37.6 MB moved, past the turns' 32 MiB. Below it
// the plane chunks keep fixed shares (the plan test checks that).
TEST(WorkInTurns, LargePlaneChunkGatherMatchesTheReference) {
    pool_diff::LibraryControlsGuard reset;
    const std::vector<int64_t> inShape{2, 4800, 4, 14, 14}, outShape{2, 4800, 2, 7, 7};
    test_support::MaxPool3dLists lists;
    lists.kernel = {2, 2, 2};
    lists.stride = {2, 2, 2};
    lists.padding = {0, 0, 0};
    TestTensor self(inShape, ACL_FLOAT);
    self.setValues(tieHeavyValues(self.elementCount(), 18));
    TestTensor out(outShape, ACL_FLOAT), indices(outShape, ACL_INT32);
    ASSERT_EQ(test_support::runMaxPool3dWithArgmax(self, lists, out, indices).phaseTwo, 0);
    TestTensor gradOutput(outShape, ACL_FLOAT);
    gradOutput.setValues(gradientValues(gradOutput.elementCount(), 19));
    std::vector<uint64_t> expected;
    for (const auto &[name, threads] :
         std::vector<std::pair<const char *, int>>{{"cpu_index_scatter_backward_reference", 1},
                                                   {"cpu_index_gather_backward_plane_chunks", 2},
                                                   {"cpu_index_gather_backward_plane_chunks", 3}}) {
        SCOPED_TRACE(std::string(name) + ", threads " + std::to_string(threads));
        useThreads(threads);
        ASSERT_EQ(poolgradForceImplementation(name), ACL_SUCCESS);
        TestTensor gradInput(inShape, ACL_FLOAT);
        gradInput.poison();
        const auto status =
            test_support::runMaxPool3dWithArgmaxBackward(gradOutput, self, indices, lists, gradInput);
        ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
        EXPECT_EQ(gradInput.bytesOutsideViewChanged(), 0);
        if (threads > 1) EXPECT_NE(lastPlan().find(" in turns of "), std::string::npos) << lastPlan();
        expectTheFirstRunsBits(expected, gradInput, gradOutput.elementCount() / 2);
    }
}

TEST(WorkInTurns, LargeMaxPoolV3GradMatchesTheReference) {
    pool_diff::LibraryControlsGuard reset;
    for (const bool nhwc : {false, true}) {
        SCOPED_TRACE(nhwc ? "NHWC" : "NCHW");
        max_pool_v3_test::V3Attributes attributes;
        attributes.ksize = nhwc ? std::vector<int64_t>{1, 3, 3, 1} : std::vector<int64_t>{1, 1, 3, 3};
        attributes.strides = nhwc ? std::vector<int64_t>{1, 2, 2, 1} : std::vector<int64_t>{1, 1, 2, 2};
        attributes.paddingMode = "CALCULATED";
        attributes.pads = std::vector<int64_t>{1, 1, 1, 1};
        attributes.dataFormat = nhwc ? "NHWC" : "NCHW";
        const std::vector<int64_t> inShape = nhwc ? std::vector<int64_t>{1, kHeight, kWidth, kChannels}
                                                  : std::vector<int64_t>{1, kChannels, kHeight, kWidth};
        const std::vector<int64_t> outShape = nhwc ? std::vector<int64_t>{1, kOutHeight, kOutWidth, kChannels}
                                                   : std::vector<int64_t>{1, kChannels, kOutHeight, kOutWidth};
        const aclFormat format = nhwc ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW;
        TestTensor x(inShape, ACL_FLOAT, format);
        x.setValues(tieHeavyValues(x.elementCount(), nhwc ? 15 : 16));
        TestTensor y(outShape, ACL_FLOAT, format);
        ASSERT_EQ(max_pool_v3_test::runMaxPoolV3WithAttrs(x, attributes, y).phaseTwo, 0);
        TestTensor grad(outShape, ACL_FLOAT, format);
        grad.setValues(gradientValues(grad.elementCount(), 17));
        const char *kernel = nhwc ? "cpu_recompute_argmax_backward_channels_last_3x3_stride2"
                                  : "cpu_recompute_argmax_backward_3x3_stride2";
        std::vector<uint64_t> expected;
        for (const auto &[name, threads] : std::vector<std::pair<const char *, int>>{
                 {"cpu_recompute_argmax_backward_reference", 1}, {kernel, 2}, {kernel, 3}}) {
            SCOPED_TRACE(std::string(name) + ", threads " + std::to_string(threads));
            useThreads(threads);
            ASSERT_EQ(poolgradForceImplementation(name), ACL_SUCCESS);
            TestTensor outGrad(inShape, ACL_FLOAT, format);
            outGrad.poison();
            const auto status = max_pool_v3_test::runMaxPoolV3Grad(x, y, grad, attributes, outGrad);
            ASSERT_EQ(status.phaseTwo, 0) << status.message;
            EXPECT_EQ(outGrad.bytesOutsideViewChanged(), 0);
            if (threads > 1) EXPECT_NE(lastPlan().find(" in turns of "), std::string::npos) << lastPlan();
            expectTheFirstRunsBits(expected, outGrad, grad.elementCount() / 2);
        }
    }
}

}  // namespace
