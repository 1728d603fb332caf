// The channels-last kernels vectorise across C, so they need many channels (full SIMD vectors of 4, 8 or 16
// lanes plus a remainder) in dense channels-last operands — a combination the general randomized suites
// reach only rarely. Here every case is built that way, run on the channels-last implementation forced and
// on the reference implementation forced, and the results must be bit-identical (the reference itself is
// checked against the naive SPEC reference by the differential suites), with 1 and 2 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "hwy/targets.h"
#include "poolgrad/poolgrad.h"
#include "support/highway_target_mock.h"
#include "support/host_vectors.h"
#include "support/max_pool3d_run.h"
#include "support/max_pool_v3_run.h"
#include "support/pool_differential_helpers.h"
#include "support/test_tensor.h"

namespace {

using test_support::TestTensor;

const int64_t kChannelChoices[] = {8, 9, 16, 17, 35};

int64_t pick(std::mt19937 &rng, int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(rng);
}

// Tie-heavy values with the special cases the selection rules treat separately.
double specialOrSmallInteger(std::mt19937 &rng) {
    switch (pick(rng, 0, 19)) {
        case 0:
            return std::numeric_limits<double>::quiet_NaN();
        case 1:
            return -std::numeric_limits<double>::infinity();
        case 2:
            return std::numeric_limits<double>::infinity();
        case 3:
            return -0.0;
        default:
            return static_cast<double>(pick(rng, -2, 2));
    }
}

// Runs the forward of channels-last `self` with the reference and with the channels-last kernel, each on 1
// and 2 threads into poisoned channels-last outputs, and expects every run's values and indices to be the
// first run's bit for bit. Returns the channels-last runs compared.
int runsMatchingTheReference(const TestTensor &self, const test_support::MaxPool3dLists &lists,
                             const std::vector<int64_t> &outShape, aclDataType type, aclDataType indexType) {
    const std::vector<int> channelsLast{0, 2, 3, 4, 1};
    std::vector<uint64_t> expectedOut, expectedIndices;
    int compared = 0;
    for (const char *name : {"cpu_argmax_forward_reference", "cpu_argmax_forward_channels_last"})
        for (int threads : {1, 2}) {
            SCOPED_TRACE(std::string(name) + ", threads " + std::to_string(threads));
            EXPECT_EQ(poolgradSetNumThreads(threads), ACL_SUCCESS);
            EXPECT_EQ(poolgradForceImplementation(name), ACL_SUCCESS);
            TestTensor outTensor = TestTensor::permuted(outShape, channelsLast, type);
            TestTensor indices = TestTensor::permuted(outShape, channelsLast, indexType);
            outTensor.poison();
            indices.poison();
            const auto status = test_support::runMaxPool3dWithArgmax(self, lists, outTensor, indices);
            EXPECT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
            EXPECT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
            if (status.phaseOne != 0 || status.phaseTwo != 0) return compared;
            if (expectedOut.empty()) {
                expectedOut = pool_diff::snapshot(outTensor);
                expectedIndices = pool_diff::snapshot(indices);
            } else {
                EXPECT_EQ(pool_diff::snapshot(outTensor), expectedOut);
                EXPECT_EQ(pool_diff::snapshot(indices), expectedIndices);
                compared += std::string(name).find("channels_last") != std::string::npos;
            }
        }
    return compared;
}

TEST(ChannelsLastKernels, ArgmaxForwardMatchesTheReferenceWithManyChannels) {
    pool_diff::LibraryControlsGuard reset;
    ASSERT_EQ(poolgradSetParallelThreshold(1), ACL_SUCCESS);
    std::mt19937 rng(20261130);
    int accepted = 0;
    for (int n = 0; n < 60; ++n) {
        const int64_t channels = kChannelChoices[n % 5];
        const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
        const aclDataType type = types[n % 3];
        const aclDataType indexType = n % 2 ? ACL_INT64 : ACL_INT32;
        test_support::MaxPool3dLists lists;
        int64_t in[3], out[3];
        for (int axis = 0; axis < 3; ++axis) {
            const int64_t kernel = pick(rng, 1, 3), stride = pick(rng, 1, 2), dilation = pick(rng, 1, 2);
            const int64_t padding = pick(rng, 0, kernel / 2);
            in[axis] = pick(rng, (kernel - 1) * dilation + 1, 7);
            out[axis] = (in[axis] + 2 * padding - (kernel - 1) * dilation - 1) / stride + 1;
            lists.kernel.push_back(kernel);
            lists.stride.push_back(stride);
            lists.padding.push_back(padding);
            if (axis == 0) lists.dilation.clear();
            lists.dilation.push_back(dilation);
        }
        const int64_t batch = pick(rng, 1, 2);
        const std::vector<int> channelsLast{0, 2, 3, 4, 1};
        TestTensor self = TestTensor::permuted({batch, channels, in[0], in[1], in[2]}, channelsLast, type);
        std::vector<double> values(static_cast<size_t>(self.elementCount()));
        for (double &value : values) value = specialOrSmallInteger(rng);
        self.setValues(values);
        const std::vector<int64_t> outShape{batch, channels, out[0], out[1], out[2]};
        SCOPED_TRACE("case " + std::to_string(n) + ": C=" + std::to_string(channels) + " type " + std::to_string(type) +
                     " kernel " + pool_diff::listText(lists.kernel) + " stride " + pool_diff::listText(lists.stride) +
                     " padding " + pool_diff::listText(lists.padding) + " dilation " +
                     pool_diff::listText(lists.dilation));
        accepted += runsMatchingTheReference(self, lists, outShape, type, indexType);
        if (testing::Test::HasFailure()) return;
    }
    EXPECT_EQ(accepted, 120);
}

// The float32 search takes blocks of 8 windows (outputs x channel vectors), the last block of a row moved
// back to end at the row's end, edge windows one at a time, and searches a block again with the NaN rule
// only when its detector saw a NaN: wide rows, with no NaN, rare NaNs or many, reach every one of those.
void expectWideRowsMatchTheReference() {
    pool_diff::LibraryControlsGuard reset;
    ASSERT_EQ(poolgradSetParallelThreshold(1), ACL_SUCCESS);
    std::mt19937 rng(20261201);
    // 64 and 136: several groups of 4 vectors (AVX2; 136 with AVX-512 too), searched output by output.
    const int64_t channelChoices[] = {3, 16, 17, 32, 40, 64, 136};
    int accepted = 0;
    for (int n = 0; n < 42; ++n) {
        const int64_t channels = channelChoices[n % 7];
        const aclDataType indexType = n % 2 ? ACL_INT64 : ACL_INT32;
        const int nanRate = (n / 2) % 3;  // none, about one a block, many
        test_support::MaxPool3dLists lists;
        lists.dilation.clear();
        int64_t in[3], out[3];
        const int64_t smallest[3] = {1, 2, 9}, largest[3] = {3, 5, 70};
        for (int axis = 0; axis < 3; ++axis) {
            const int64_t kernel = pick(rng, 1, 3), stride = pick(rng, 1, 3);
            const int64_t dilation = axis == 2 && n % 5 == 4 ? 2 : 1, padding = pick(rng, 0, kernel / 2);
            in[axis] = std::max(pick(rng, smallest[axis], largest[axis]), (kernel - 1) * dilation + 1);
            out[axis] = (in[axis] + 2 * padding - (kernel - 1) * dilation - 1) / stride + 1;
            lists.kernel.push_back(kernel);
            lists.stride.push_back(stride);
            lists.padding.push_back(padding);
            lists.dilation.push_back(dilation);
        }
        const std::vector<int> channelsLast{0, 2, 3, 4, 1};
        TestTensor self = TestTensor::permuted({1, channels, in[0], in[1], in[2]}, channelsLast, ACL_FLOAT);
        std::vector<double> values(static_cast<size_t>(self.elementCount()));
        for (double &value : values) {
            value = static_cast<double>(pick(rng, -3, 3));  // ties everywhere
            if (pick(rng, 0, 29) == 0) value = pick(rng, 0, 1) ? -0.0 : -std::numeric_limits<double>::infinity();
            if ((nanRate == 1 && pick(rng, 0, 999) == 0) || (nanRate == 2 && pick(rng, 0, 9) == 0))
                value = std::numeric_limits<double>::quiet_NaN();
        }
        self.setValues(values);
        const std::vector<int64_t> outShape{1, channels, out[0], out[1], out[2]};
        SCOPED_TRACE("case " + std::to_string(n) + ": C=" + std::to_string(channels) + " input " +
                     std::to_string(in[0]) + "x" + std::to_string(in[1]) + "x" + std::to_string(in[2]) + " kernel " +
                     pool_diff::listText(lists.kernel) + " stride " + pool_diff::listText(lists.stride) + " padding " +
                     pool_diff::listText(lists.padding) + " dilation " + pool_diff::listText(lists.dilation));
        accepted += runsMatchingTheReference(self, lists, outShape, ACL_FLOAT, indexType);
        if (testing::Test::HasFailure()) return;
    }
    EXPECT_EQ(accepted, 84);
}

// Exact results of one row of 9 windows (a block of 8, then the last block moved back), 16 channels (one
// AVX-512 vector; several vectors on narrower targets), each channel a rule: ties keep the first tap, the
// last NaN wins, +0 == -0 keeps the first, all -inf names the first tap.
void expectExactRow() {
    pool_diff::LibraryControlsGuard reset;
    const int64_t channels = 16, width = 18, outputs = 9;
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    const std::vector<int> channelsLast{0, 2, 3, 4, 1};
    TestTensor self = TestTensor::permuted({1, channels, 1, 1, width}, channelsLast, ACL_FLOAT);
    // Logical (NCDHW) order: element (c, w) at c * width + w.
    const auto input = [&](int64_t c, int64_t w) -> double {
        switch (c) {
            case 0:
                return 1.0;  // ties: the first tap
            case 1:
                return static_cast<double>(w);  // increasing: the second tap
            case 2:
                return -static_cast<double>(w);  // decreasing: the first tap
            case 3:
                return w == 5 ? nan : 7.0;  // one NaN, in window 2
            case 4:
                return w % 2 ? 0.0 : -0.0;  // -0 first, +0 second: -0 kept
            case 5:
                return -inf;  // nothing greater: the first tap
            case 6:
                return w % 2 ? nan : inf;  // a NaN after +inf: NaN, second tap
            case 7:
                return w == 16 || w == 17 ? nan : 2.0;  // two NaNs in the last window: the last
            default:
                return static_cast<double>((w * 5 + c) % 4);
        }
    };
    std::vector<double> values;
    for (int64_t c = 0; c < channels; ++c)
        for (int64_t w = 0; w < width; ++w) values.push_back(input(c, w));
    self.setValues(values);
    test_support::MaxPool3dLists lists;
    lists.kernel = {1, 1, 2};
    lists.stride = {1, 1, 2};
    lists.padding = {0, 0, 0};
    for (const aclDataType indexType : {ACL_INT32, ACL_INT64}) {
        SCOPED_TRACE("index type " + std::to_string(indexType));
        ASSERT_EQ(poolgradForceImplementation("cpu_argmax_forward_channels_last"), ACL_SUCCESS);
        TestTensor out = TestTensor::permuted({1, channels, 1, 1, outputs}, channelsLast, ACL_FLOAT);
        TestTensor indices = TestTensor::permuted({1, channels, 1, 1, outputs}, channelsLast, indexType);
        out.poison();
        indices.poison();
        const auto status = test_support::runMaxPool3dWithArgmax(self, lists, out, indices);
        ASSERT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
        ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
        for (int64_t c = 0; c < channels; ++c)
            for (int64_t ow = 0; ow < outputs; ++ow) {
                SCOPED_TRACE("channel " + std::to_string(c) + ", output " + std::to_string(ow));
                // Expected by the rules, window ow = columns 2ow and 2ow+1.
                const double first = input(c, 2 * ow), second = input(c, 2 * ow + 1);
                const bool takeSecond = std::isnan(second) || (!std::isnan(first) && second > first);
                const int64_t index = takeSecond ? 2 * ow + 1 : 2 * ow;
                const double value = takeSecond ? second : first;
                const int64_t at = c * outputs + ow;
                EXPECT_EQ(indices.at(at), static_cast<double>(index));
                if (std::isnan(value)) {
                    EXPECT_TRUE(std::isnan(out.at(at)));
                } else {
                    EXPECT_EQ(out.at(at), value);
                    EXPECT_EQ(std::signbit(out.at(at)), std::signbit(value));
                }
            }
        // Spot checks written out: channel 3's window 2 is (7, NaN) -> NaN at 5; channel 4 keeps -0 at 0;
        // channel 7's last window is (NaN, NaN) -> index 17.
        EXPECT_TRUE(std::isnan(out.at(3 * outputs + 2)));
        EXPECT_EQ(indices.at(3 * outputs + 2), 5.0);
        EXPECT_TRUE(std::signbit(out.at(4 * outputs + 0)));
        EXPECT_EQ(indices.at(4 * outputs + 0), 0.0);
        EXPECT_EQ(indices.at(7 * outputs + 8), 17.0);
        EXPECT_EQ(indices.at(5 * outputs + 4), 8.0);
    }
}

TEST(ChannelsLastKernels, ArgmaxForwardWideRowsMatchTheReference) { expectWideRowsMatchTheReference(); }

TEST(ChannelsLastKernels, ArgmaxForwardExactRow) { expectExactRow(); }

// The instruction sets below the best one search other vector widths (8, 4 or 1 lanes: other block and
// remainder splits of the same channels); each this CPU has runs the same checks through Highway's dispatch.
TEST(ChannelsLastKernels, ArgmaxForwardOnEveryInstructionSet) {
    struct TargetMock {
        explicit TargetMock(int64_t target) { hwy::SetSupportedTargetsForTest(target); }
        ~TargetMock() { hwy::SetSupportedTargetsForTest(0); }
    };
    for (const int64_t target : {int64_t{HWY_AVX2}, int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
        if (!test_support::targetDispatchable(target)) continue;
        TargetMock mock(target);
        SCOPED_TRACE(hwy::TargetName(target));
        expectWideRowsMatchTheReference();
        expectExactRow();
    }
}

// The operands of an NHWC MaxPoolV3Grad problem: origInput of ties, NaN, Inf and -0 (specialOrSmallInteger), the
// forward's origOutput (so most windows match) or, with randomOutput, one of the same kind of values, and
// gradients in eighths of [-8, 8].
struct NhwcV3Operands {
    TestTensor x, y, grad;
};

NhwcV3Operands nhwcV3Operands(std::mt19937 &rng, int64_t batch, int64_t height, int64_t width, int64_t channels,
                              int64_t outH, int64_t outW, aclDataType type,
                              const max_pool_v3_test::V3Attributes &attributes, bool randomOutput) {
    NhwcV3Operands operands{TestTensor({batch, height, width, channels}, type, ACL_FORMAT_NHWC),
                            TestTensor({batch, outH, outW, channels}, type, ACL_FORMAT_NHWC),
                            TestTensor({batch, outH, outW, channels}, type, ACL_FORMAT_NHWC)};
    std::vector<double> values(static_cast<size_t>(operands.x.elementCount()));
    for (double &value : values) value = specialOrSmallInteger(rng);
    operands.x.setValues(values);
    if (randomOutput) {
        std::vector<double> outputs(static_cast<size_t>(operands.y.elementCount()));
        for (double &value : outputs) value = specialOrSmallInteger(rng);
        operands.y.setValues(outputs);
    } else {
        const auto status = max_pool_v3_test::runMaxPoolV3WithAttrs(operands.x, attributes, operands.y);
        EXPECT_EQ(status.phaseTwo, 0) << status.message;
    }
    std::vector<double> gradients(static_cast<size_t>(operands.grad.elementCount()));
    for (double &value : gradients) value = static_cast<double>(pick(rng, -64, 64)) / 8.0;
    operands.grad.setValues(gradients);
    return operands;
}

TEST(ChannelsLastKernels, MaxPoolV3GradNhwcMatchesTheReferenceWithManyChannels) {
    pool_diff::LibraryControlsGuard reset;
    ASSERT_EQ(poolgradSetParallelThreshold(1), ACL_SUCCESS);
    std::mt19937 rng(1130);
    int accepted = 0;
    const char *modes[] = {"CALCULATED", "SAME", "VALID"};
    for (int n = 0; n < 60; ++n) {
        const int64_t channels = kChannelChoices[n % 5];
        const aclDataType type = n % 2 ? ACL_FLOAT16 : ACL_FLOAT;
        const int64_t batch = pick(rng, 1, 3), height = pick(rng, 3, 9), width = pick(rng, 3, 9);
        const int64_t kh = pick(rng, 1, 3), kw = pick(rng, 1, 3);
        max_pool_v3_test::V3Attributes attributes;
        attributes.ksize = {1, kh, kw, 1};
        attributes.strides = {1, pick(rng, 1, 2), pick(rng, 1, 2), 1};
        attributes.paddingMode = modes[n % 3];
        attributes.pads = std::vector<int64_t>{pick(rng, 0, 1), pick(rng, 0, 1), pick(rng, 0, 1), pick(rng, 0, 1)};
        attributes.dataFormat = "NHWC";
        const int64_t outH =
            std::string(attributes.paddingMode) == "VALID" ? (height - kh) / attributes.strides[1] + 1
            : std::string(attributes.paddingMode) == "SAME"
                ? (height + attributes.strides[1] - 1) / attributes.strides[1]
                : (height + (*attributes.pads)[0] + (*attributes.pads)[1] - kh) / attributes.strides[1] + 1;
        const int64_t outW =
            std::string(attributes.paddingMode) == "VALID" ? (width - kw) / attributes.strides[2] + 1
            : std::string(attributes.paddingMode) == "SAME"
                ? (width + attributes.strides[2] - 1) / attributes.strides[2]
                : (width + (*attributes.pads)[2] + (*attributes.pads)[3] - kw) / attributes.strides[2] + 1;
        // The forward's output, except every third case: a random origOutput.
        NhwcV3Operands operands =
            nhwcV3Operands(rng, batch, height, width, channels, outH, outW, type, attributes, n % 3 == 2);
        if (testing::Test::HasFailure()) return;
        const TestTensor &x = operands.x, &y = operands.y, &grad = operands.grad;
        SCOPED_TRACE("case " + std::to_string(n) + ": C=" + std::to_string(channels) + " " + attributes.paddingMode +
                     " ksize " + pool_diff::listText(attributes.ksize) + " strides " +
                     pool_diff::listText(attributes.strides) + " pads " + pool_diff::listText(*attributes.pads));
        std::vector<uint64_t> expected;
        for (const char *name :
             {"cpu_recompute_argmax_backward_reference", "cpu_recompute_argmax_backward_channels_last"}) {
            for (int threads : {1, 2}) {
                SCOPED_TRACE(std::string(name) + ", threads " + std::to_string(threads));
                ASSERT_EQ(poolgradSetNumThreads(threads), ACL_SUCCESS);
                ASSERT_EQ(poolgradForceImplementation(name), ACL_SUCCESS);
                TestTensor outGrad({batch, height, width, channels}, type, ACL_FORMAT_NHWC);
                outGrad.poison();
                const auto status = max_pool_v3_test::runMaxPoolV3Grad(x, y, grad, attributes, outGrad);
                ASSERT_EQ(status.phaseOne, 0) << status.message;
                ASSERT_EQ(status.phaseTwo, 0) << status.message;
                if (expected.empty()) {
                    expected = pool_diff::snapshot(outGrad);
                } else {
                    EXPECT_EQ(pool_diff::snapshot(outGrad), expected);
                    accepted += std::string(name).find("channels_last") != std::string::npos;
                }
            }
        }
        if (testing::Test::HasFailure()) return;
    }
    EXPECT_EQ(accepted, 120);
}

// float32 windows of 3 or 5 rows by 3 or 5 columns at stride 1: the windows of a row that hold all their rows and
// no padding slide their sums in registers, the clipped ones go one by one; rows split between bands (batch 1 on
// 2 threads) and channels after the last whole vector go one by one too. Ties (small integers), NaN, Inf and -0
// in the input, the forward's output or a random one, padding up to half the window on each side; bit for bit
// against the reference on every instruction set of the CPU (AVX-512: the masked compare; windows of 5 slide
// with 16 lanes only).
TEST(ChannelsLastKernels, MaxPoolV3GradNhwcStride1SlidesSumsAlongRows) {
    pool_diff::LibraryControlsGuard reset;
    ASSERT_EQ(poolgradSetParallelThreshold(1), ACL_SUCCESS);
    std::mt19937 rng(1205);
    int sliding = 0;
    for (int n = 0; n < 24; ++n) {
        const int64_t channels = std::vector<int64_t>{16, 20, 64, 3, 32, 1}[static_cast<size_t>(n % 6)];
        const int64_t kh = n % 4 < 2 ? 3 : 5, kw = n % 2 == 0 ? 3 : 5;
        const int64_t batch = pick(rng, 1, 2), height = pick(rng, kh, kh + 5), width = pick(rng, kw, kw + 18);
        max_pool_v3_test::V3Attributes attributes;
        attributes.ksize = {1, kh, kw, 1};
        attributes.strides = {1, 1, 1, 1};
        attributes.paddingMode = "CALCULATED";
        attributes.pads = std::vector<int64_t>{pick(rng, 0, kh / 2), pick(rng, 0, kh / 2), pick(rng, 0, kw / 2),
                                               pick(rng, 0, kw / 2)};
        attributes.dataFormat = "NHWC";
        const std::vector<int64_t> &pads = *attributes.pads;
        const int64_t outH = height + pads[0] + pads[1] - kh + 1, outW = width + pads[2] + pads[3] - kw + 1;
        // The forward's output, except every fourth case: a random origOutput.
        NhwcV3Operands operands =
            nhwcV3Operands(rng, batch, height, width, channels, outH, outW, ACL_FLOAT, attributes, n % 4 == 3);
        if (testing::Test::HasFailure()) return;
        const TestTensor &x = operands.x, &y = operands.y, &grad = operands.grad;
        SCOPED_TRACE("case " + std::to_string(n) + ": " + std::to_string(kh) + "x" + std::to_string(kw) + " on " +
                     std::to_string(batch) + "x" + std::to_string(height) + "x" + std::to_string(width) + "x" +
                     std::to_string(channels) + " pads " + pool_diff::listText(pads));
        ASSERT_EQ(poolgradForceImplementation("cpu_recompute_argmax_backward_reference"), ACL_SUCCESS);
        TestTensor expectedGrad({batch, height, width, channels}, ACL_FLOAT, ACL_FORMAT_NHWC);
        ASSERT_EQ(max_pool_v3_test::runMaxPoolV3Grad(x, y, grad, attributes, expectedGrad).phaseTwo, 0);
        const std::vector<uint64_t> expected = pool_diff::snapshot(expectedGrad);
        // 0: the CPU's own instruction set; then the narrower ones it has.
        for (const int64_t target : {int64_t{0}, int64_t{HWY_AVX2}, int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
            if (target != 0 && !test_support::targetDispatchable(target)) continue;
            const test_support::HighwayTargetMock mock(target);
            for (int threads : {1, 2}) {
                SCOPED_TRACE(std::string(target == 0 ? "own target" : hwy::TargetName(target)) + ", threads " + std::to_string(threads));
                ASSERT_EQ(poolgradSetNumThreads(threads), ACL_SUCCESS);
                ASSERT_EQ(poolgradForceImplementation("cpu_recompute_argmax_backward_channels_last"), ACL_SUCCESS);
                TestTensor outGrad({batch, height, width, channels}, ACL_FLOAT, ACL_FORMAT_NHWC);
                outGrad.poison();
                const auto status = max_pool_v3_test::runMaxPoolV3Grad(x, y, grad, attributes, outGrad);
                ASSERT_EQ(status.phaseTwo, 0) << status.message;
                EXPECT_EQ(pool_diff::snapshot(outGrad), expected);
                EXPECT_EQ(outGrad.bytesOutsideViewChanged(), 0);
                poolgradRunReport report;
                ASSERT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
                if (target == 0)
                    sliding += std::string(report.plan).find("sliding in registers") != std::string::npos;
            }
        }
        if (testing::Test::HasFailure()) return;
    }
    // Every case slides on the CPU's own target where it has 16 lanes, only the 3x3 ones where it has 8.
    EXPECT_GE(sliding, test_support::hostFloatLanes() >= 16 ? 40 : 10);
}

}  // namespace

namespace {

// Outputs over 4 MiB are written with streaming stores, which need vector alignment: a gradInput that
// starts one element past an aligned address makes the kernels peel the first elements of every row. Checked
// against the reference implementation, for the index backward and MaxPoolV3Grad in both layouts.
std::vector<int64_t> denseStrides(const std::vector<int64_t> &shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * shape[i];
    return strides;
}

TEST(StreamingStores, LargeMisalignedGradInputMatchesTheReference) {
    pool_diff::LibraryControlsGuard reset;
    std::mt19937 rng(44);
    // gradInput 4.5 MiB in every type (16-bit ones with twice the channels), one element past alignment.
    for (const aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        SCOPED_TRACE("type " + std::to_string(type));
        const int64_t channels = type == ACL_FLOAT ? 4 : 8;
        const std::vector<int64_t> inShape{1, channels, 8, 192, 193}, outShape{1, channels, 4, 96, 96};
        TestTensor self(inShape, type);
        TestTensor gradOutput(outShape, type);
        TestTensor indices(outShape, ACL_INT32);
        std::vector<double> gradients(static_cast<size_t>(gradOutput.elementCount()));
        for (double &value : gradients) value = static_cast<double>(pick(rng, -64, 64)) / 8.0;  // exact in 16 bits
        gradOutput.setValues(gradients);
        // Each output's index: a random element of its own 2x2x2 window (the windows do not overlap).
        std::vector<double> chosen(static_cast<size_t>(indices.elementCount()));
        for (int64_t i = 0; i < indices.elementCount(); ++i) {
            const int64_t ow = i % 96, oh = i / 96 % 96, od = i / (96 * 96) % 4;
            chosen[static_cast<size_t>(i)] = static_cast<double>(
                ((2 * od + pick(rng, 0, 1)) * 192 + 2 * oh + pick(rng, 0, 1)) * 193 + 2 * ow + pick(rng, 0, 1));
        }
        indices.setValues(chosen);
        test_support::MaxPool3dLists lists;
        lists.kernel = {2};
        lists.stride = {2};
        lists.padding = {0};
        ASSERT_GT(self.elementCount() * static_cast<int64_t>(test_support::dataTypeBytes(type)), int64_t{4} << 20);
        std::vector<uint64_t> expected;
        for (const char *name : {"cpu_index_scatter_backward_reference", "cpu_index_scatter_backward_dense"}) {
            SCOPED_TRACE(name);
            ASSERT_EQ(poolgradForceImplementation(name), ACL_SUCCESS);
            TestTensor gradInput(inShape, denseStrides(inShape), 1, type);  // one element past aligned storage
            gradInput.poison();
            const auto status =
                test_support::runMaxPool3dWithArgmaxBackward(gradOutput, self, indices, lists, gradInput);
            ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
            EXPECT_EQ(gradInput.bytesOutsideViewChanged(), 0);
            if (expected.empty()) {
                expected = pool_diff::snapshot(gradInput);
                int64_t nonZero = 0;
                for (uint64_t bits : expected) nonZero += (bits & 0x7fffffffu) != 0;
                EXPECT_GT(nonZero, gradOutput.elementCount() / 2);  // the gradients arrived
            } else {
                EXPECT_EQ(pool_diff::snapshot(gradInput), expected);
            }
        }
    }
}

TEST(StreamingStores, LargeMisalignedMaxPoolV3GradMatchesTheReference) {
    pool_diff::LibraryControlsGuard reset;
    std::mt19937 rng(45);
    for (const bool nhwc : {false, true}) {
        SCOPED_TRACE(nhwc ? "NHWC" : "NCHW");
        const int64_t n = 1, c = nhwc ? 48 : 8, h = nhwc ? 160 : 400, w = nhwc ? 161 : 401;  // outGrad > 4 MiB
        max_pool_v3_test::V3Attributes attributes;
        attributes.ksize = nhwc ? std::vector<int64_t>{1, 3, 3, 1} : std::vector<int64_t>{1, 1, 3, 3};
        attributes.strides = nhwc ? std::vector<int64_t>{1, 2, 2, 1} : std::vector<int64_t>{1, 1, 2, 2};
        attributes.paddingMode = "CALCULATED";
        attributes.pads = std::vector<int64_t>{1, 1, 1, 1};
        attributes.dataFormat = nhwc ? "NHWC" : "NCHW";
        const std::vector<int64_t> inShape = nhwc ? std::vector<int64_t>{n, h, w, c} : std::vector<int64_t>{n, c, h, w};
        const int64_t oh = (h + 2 - 3) / 2 + 1, ow = (w + 2 - 3) / 2 + 1;
        const std::vector<int64_t> outShape =
            nhwc ? std::vector<int64_t>{n, oh, ow, c} : std::vector<int64_t>{n, c, oh, ow};
        const aclFormat format = nhwc ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW;
        TestTensor x(inShape, ACL_FLOAT, format);
        ASSERT_GT(x.elementCount() * 4, int64_t{4} << 20);
        std::vector<double> values(static_cast<size_t>(x.elementCount()));
        for (double &value : values) value = specialOrSmallInteger(rng);
        x.setValues(values);
        TestTensor y(outShape, ACL_FLOAT, format);
        ASSERT_EQ(max_pool_v3_test::runMaxPoolV3WithAttrs(x, attributes, y).phaseTwo, 0);
        TestTensor grad(outShape, ACL_FLOAT, format);
        std::vector<double> gradients(static_cast<size_t>(grad.elementCount()));
        for (double &value : gradients) value = static_cast<double>(pick(rng, -64, 64)) / 8.0;
        grad.setValues(gradients);
        std::vector<uint64_t> expected;
        for (const char *name :
             {"cpu_recompute_argmax_backward_reference",
              nhwc ? "cpu_recompute_argmax_backward_channels_last" : "cpu_recompute_argmax_backward_dense"}) {
            SCOPED_TRACE(name);
            ASSERT_EQ(poolgradForceImplementation(name), ACL_SUCCESS);
            TestTensor outGrad(inShape, denseStrides(inShape), 1, ACL_FLOAT, format);
            outGrad.poison();
            const auto status = max_pool_v3_test::runMaxPoolV3Grad(x, y, grad, attributes, outGrad);
            ASSERT_EQ(status.phaseTwo, 0) << status.message;
            EXPECT_EQ(outGrad.bytesOutsideViewChanged(), 0);
            if (expected.empty())
                expected = pool_diff::snapshot(outGrad);
            else
                EXPECT_EQ(pool_diff::snapshot(outGrad), expected);
        }
    }
}

}  // namespace

namespace {

// Channels-last forward outputs over 4 MiB are written with streaming stores where a vector is aligned:
// aligned outputs stream every vector, outputs one element past alignment none. Both must match the
// reference implementation bit for bit.
TEST(StreamingStores, LargeChannelsLastForwardMatchesTheReference) {
    pool_diff::LibraryControlsGuard reset;
    std::mt19937 rng(47);
    const int64_t channels = 64, height = 260, width = 258;  // output 64 x 129 x 128 floats: 4 MiB + 32 KiB
    const std::vector<int> channelsLast{0, 2, 3, 4, 1};
    TestTensor self = TestTensor::permuted({1, channels, 1, height, width}, channelsLast, ACL_FLOAT);
    std::vector<double> values(static_cast<size_t>(self.elementCount()));
    for (double &value : values) value = specialOrSmallInteger(rng);
    self.setValues(values);
    test_support::MaxPool3dLists lists;
    lists.kernel = {1, 3, 3};
    lists.stride = {1, 2, 2};
    lists.padding = {0, 0, 0};
    const std::vector<int64_t> outShape{1, channels, 1, 129, 128};
    // NDHWC strides of the output shape, element offset 0 (aligned storage) or 1 (one element past it).
    const std::vector<int64_t> strides{129 * 128 * channels, 1, 129 * 128 * channels, 128 * channels, channels};
    for (const int64_t offset : {int64_t{0}, int64_t{1}}) {
        SCOPED_TRACE("output offset " + std::to_string(offset));
        std::vector<uint64_t> expectedOut, expectedIndices;
        for (const char *name : {"cpu_argmax_forward_reference", "cpu_argmax_forward_channels_last"}) {
            SCOPED_TRACE(name);
            ASSERT_EQ(poolgradForceImplementation(name), ACL_SUCCESS);
            TestTensor out(outShape, strides, offset, ACL_FLOAT);
            TestTensor indices(outShape, strides, offset, ACL_INT32);
            ASSERT_GT(out.elementCount() * 4, int64_t{4} << 20);
            out.poison();
            indices.poison();
            const auto status = test_support::runMaxPool3dWithArgmax(self, lists, out, indices);
            ASSERT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
            ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
            EXPECT_EQ(out.bytesOutsideViewChanged(), 0);
            EXPECT_EQ(indices.bytesOutsideViewChanged(), 0);
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

}  // namespace
