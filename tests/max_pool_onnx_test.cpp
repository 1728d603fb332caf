// aclnnMaxPool (ONNX MaxPool, SPEC §7.3) and aclnnMaxPoolV3 (§7.5) through the public C API: exact values
// for small cases (the ONNX pad order, ceilMode, rank 3, every integer dtype at values float32 cannot hold),
// one test per validation rule in CANN's order, and randomized differential tests against the naive
// reference (tests/reference/naive_max_pool_v3.*: ONNX MaxPool is its CALCULATED padding with the pads
// reordered) on strided, permuted and offset views. Outputs are poisoned before every run.
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
#include "aclnnop/aclnn_max_pool.h"
#include "aclnnop/aclnn_max_pool_v3.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_max_pool_v3.h"
#include "support/differential_driver.h"
#include "support/max_pool_v3_run.h"
#include "support/test_tensor.h"

namespace {

using max_pool_v3_test::Storage;
using test_support::IntArray;
using test_support::TestTensor;

constexpr aclnnStatus kNullptr = 161001;
constexpr aclnnStatus kInvalid = 161002;
// Every non-reference implementation accepts at least this share of the random cases (measured:
// channels-last 4-5% (it needs both operands stored channels-last in a floating
// dtype), dense 38-41%; a third of the lowest as margin).
constexpr double kMinimumShare = 0.015;

struct OnnxAttributes {
    std::vector<int64_t> kernelShape{2, 2};
    std::vector<int64_t> strides{};
    int64_t autoPad = 0;
    std::vector<int64_t> pads{};
    std::vector<int64_t> dilations{};
    int64_t ceilMode = 0;
};

struct RunStatus {
    aclnnStatus phaseOne = -1, phaseTwo = -1;
    std::string message;
};

RunStatus runMaxPool(const aclTensor *self, const OnnxAttributes &a, aclTensor *out) {
    IntArray kernelShape(a.kernelShape), strides(a.strides), pads(a.pads), dilations(a.dilations);
    RunStatus status;
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    status.phaseOne = aclnnMaxPoolGetWorkspaceSize(self, kernelShape, strides, a.autoPad, pads, dilations, a.ceilMode,
                                                   out, &workspaceSize, &executor);
    status.message = aclGetRecentErrMsg();
    if (status.phaseOne != 0) {
        EXPECT_EQ(executor, nullptr);
        return status;
    }
    EXPECT_EQ(workspaceSize, 0u);
    status.phaseTwo = aclnnMaxPool(nullptr, 0, executor, nullptr);
    status.message = aclGetRecentErrMsg();
    return status;
}

RunStatus runMaxPoolV3(const aclTensor *x, const std::vector<int64_t> &ksize, const std::vector<int64_t> &strides,
                       const std::optional<std::vector<int64_t>> &pads, const aclScalar *ceilMode, aclTensor *out) {
    IntArray ksizeArray(ksize), stridesArray(strides);
    std::optional<IntArray> padsArray;
    if (pads) padsArray.emplace(*pads);
    RunStatus status;
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    status.phaseOne = aclnnMaxPoolV3GetWorkspaceSize(x, ksizeArray, stridesArray,
                                                     padsArray ? static_cast<aclIntArray *>(*padsArray) : nullptr,
                                                     ceilMode, out, &workspaceSize, &executor);
    status.message = aclGetRecentErrMsg();
    if (status.phaseOne != 0) return status;
    status.phaseTwo = aclnnMaxPoolV3(nullptr, 0, executor, nullptr);
    status.message = aclGetRecentErrMsg();
    return status;
}

std::vector<double> iota(int64_t count, double first = 1) {
    std::vector<double> values(static_cast<size_t>(count));
    for (size_t i = 0; i < values.size(); ++i) values[i] = first + static_cast<double>(i);
    return values;
}

// --- exact values ------------------------------------------------------------------------------------------

// self (2,2,3,3) = 1..36, kernel 2, strides 2, ceilMode 1, one column of left padding: ONNX pads
// {top, left, bottom, right} = {0,1,0,0}. Windows: rows {0,1},{2} x columns {0},{1,2}.
const std::vector<double> kLeftPaddedExpected{4, 6, 7, 9, 13, 15, 16, 18, 22, 24, 25, 27, 31, 33, 34, 36};

class MaxPoolOnnxFloatTypes : public testing::TestWithParam<aclDataType> {};

TEST_P(MaxPoolOnnxFloatTypes, PadsAreInOnnxOrder) {
    TestTensor self = max_pool_v3_test::filled({2, 2, 3, 3}, GetParam(), iota(36));
    TestTensor out({2, 2, 2, 2}, GetParam());
    const RunStatus status = runMaxPool(self, {{2, 2}, {2, 2}, 0, {0, 1, 0, 0}, {1, 1}, 1}, out);
    ASSERT_EQ(status.phaseOne, 0) << status.message;
    ASSERT_EQ(status.phaseTwo, 0) << status.message;
    max_pool_v3_test::expectBits(out, kLeftPaddedExpected, "out");
}

TEST_P(MaxPoolOnnxFloatTypes, NanPropagatesAndDefaultStrideIsOne) {
    // (1,3,3) CHW: kernel 2 with strides {} (ONNX default 1, not the kernel): 2x2 outputs.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    TestTensor self = max_pool_v3_test::filled({1, 3, 3}, GetParam(), {1, 2, 3, 4, nan, 6, 7, 8, 9});
    TestTensor out({1, 2, 2}, GetParam());
    const RunStatus status = runMaxPool(self, {{2}, {}, 0, {}, {}, 0}, out);
    ASSERT_EQ(status.phaseOne, 0) << status.message;
    ASSERT_EQ(status.phaseTwo, 0) << status.message;
    max_pool_v3_test::expectBits(out, {nan, nan, nan, nan}, "out");
}

INSTANTIATE_TEST_SUITE_P(Types, MaxPoolOnnxFloatTypes, testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16));

TEST(MaxPoolOnnx, PadsOfLengthTwoAreHeightThenWidth) {
    // pads {1, 0}: one row on top and bottom, no columns; kernel 3x1, strides 1: out (1,1,3,3) from (1,1,3,3).
    TestTensor self = max_pool_v3_test::filled({1, 1, 3, 3}, ACL_FLOAT, {5, 1, 9, 2, 8, 3, 7, 4, 6});
    TestTensor out({1, 1, 3, 3}, ACL_FLOAT);
    const RunStatus status = runMaxPool(self, {{3, 1}, {1}, 0, {1, 0}, {1}, 0}, out);
    ASSERT_EQ(status.phaseOne, 0) << status.message;
    max_pool_v3_test::expectBits(out, {5, 8, 9, 7, 8, 9, 7, 8, 6}, "out");
}

// Integers are compared as themselves: neighbours float32 would merge must stay apart.
struct IntegerCase {
    aclDataType type;
    int64_t low, high;  // three values low, low + 1, high placed so that the answer is exact
};

class MaxPoolOnnxIntegers : public testing::TestWithParam<IntegerCase> {};

TEST_P(MaxPoolOnnxIntegers, ExactValues) {
    const IntegerCase c = GetParam();
    // (1,1,2,2) -> kernel 2: one output = the maximum; and kernel 1: a copy.
    const std::vector<int64_t> values{c.low, c.high - 1, c.high, c.low + 1};
    TestTensor self({1, 1, 2, 2}, c.type);
    for (int i = 0; i < 4; ++i) self.setBits(i, static_cast<uint64_t>(values[i]));
    TestTensor out({1, 1, 1, 1}, c.type);
    RunStatus status = runMaxPool(self, {{2, 2}, {}, 0, {}, {}, 0}, out);
    ASSERT_EQ(status.phaseOne, 0) << status.message;
    ASSERT_EQ(status.phaseTwo, 0) << status.message;
    const uint64_t mask = test_support::dataTypeBytes(c.type) == 8
                              ? ~uint64_t{0}
                              : (uint64_t{1} << (8 * test_support::dataTypeBytes(c.type))) - 1;
    EXPECT_EQ(out.bitsAt(0), static_cast<uint64_t>(c.high) & mask);
    // Kernel 1x2: one output per row, max(low, high - 1) and max(high, low + 1).
    TestTensor rows({1, 1, 2, 1}, c.type);
    status = runMaxPool(self, {{1, 2}, {1, 1}, 0, {}, {}, 0}, rows);
    ASSERT_EQ(status.phaseOne, 0) << status.message;
    EXPECT_EQ(rows.bitsAt(0), static_cast<uint64_t>(c.high - 1) & mask);
    EXPECT_EQ(rows.bitsAt(1), static_cast<uint64_t>(c.high) & mask);
}

INSTANTIATE_TEST_SUITE_P(Types, MaxPoolOnnxIntegers,
                         testing::Values(IntegerCase{ACL_INT8, -128, 127}, IntegerCase{ACL_UINT8, 0, 255},
                                         IntegerCase{ACL_INT16, -32768, 32767}, IntegerCase{ACL_UINT16, 0, 65535},
                                         IntegerCase{ACL_INT32, -2147483647 - 1, 2147483647},
                                         IntegerCase{ACL_INT64, std::numeric_limits<int64_t>::min(),
                                                     (int64_t{1} << 62) + 1}));

TEST(MaxPoolOnnx, EmptyBatchIsANoOp) {
    TestTensor self({0, 2, 3, 3}, ACL_FLOAT);
    TestTensor out({0, 2, 2, 2}, ACL_FLOAT);
    const RunStatus status = runMaxPool(self, {{2, 2}, {2, 2}, 0, {}, {}, 1}, out);
    EXPECT_EQ(status.phaseOne, 0) << status.message;
    EXPECT_EQ(status.phaseTwo, 0) << status.message;
}

void expectRefused(aclnnStatus expected, const RunStatus &status, const char *fragment) {
    EXPECT_EQ(status.phaseOne, expected) << status.message;
    EXPECT_NE(status.message.find(fragment), std::string::npos) << status.message;
}

// --- memory overlap (poolgrad's rule for every operator: docs/decisions.md) ----------------------------------

TEST(MaxPoolOnnxAndV3Overlap, OutputOverSelfOrOverItselfIsRefusedAndLeftUntouched) {
    TestTensor self = max_pool_v3_test::filled({1, 2, 4, 4}, ACL_FLOAT, iota(32));
    const std::vector<int64_t> outShape{1, 2, 2, 2};
    // out written over self's first 8 elements: the run would read values it had already overwritten.
    aclTensor *outOverSelf =
        aclCreateTensor(outShape.data(), 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, outShape.data(), 4, self.data());
    // out whose W stride is 0: two windows would write one element.
    const std::vector<int64_t> collidingStrides{8, 4, 2, 0};
    TestTensor spare({1, 2, 2, 2}, ACL_FLOAT);
    aclTensor *outOverItself = aclCreateTensor(outShape.data(), 4, ACL_FLOAT, collidingStrides.data(), 0, ACL_FORMAT_ND,
                                               outShape.data(), 4, spare.data());
    ASSERT_NE(outOverSelf, nullptr);
    ASSERT_NE(outOverItself, nullptr);
    const std::vector<float> selfBefore(static_cast<const float *>(self.data()),
                                        static_cast<const float *>(self.data()) + 32);

    expectRefused(kInvalid, runMaxPool(self, {{2, 2}, {2, 2}, 0, {}, {}, 0}, outOverSelf), "share memory");
    expectRefused(kInvalid, runMaxPool(self, {{2, 2}, {2, 2}, 0, {}, {}, 0}, outOverItself), "overlaps itself");
    expectRefused(kInvalid, runMaxPoolV3(self, {1, 1, 2, 2}, {1, 1, 2, 2}, std::nullopt, nullptr, outOverSelf),
                  "share memory");
    expectRefused(kInvalid, runMaxPoolV3(self, {1, 1, 2, 2}, {1, 1, 2, 2}, std::nullopt, nullptr, outOverItself),
                  "overlaps itself");
    EXPECT_TRUE(std::equal(selfBefore.begin(), selfBefore.end(), static_cast<const float *>(self.data())));
    aclDestroyTensor(outOverSelf);
    aclDestroyTensor(outOverItself);
}

// --- validation, in CANN's order -------------------------------------------------------------------------------

TEST(MaxPoolOnnxValidation, EveryRuleInOrder) {
    TestTensor self({1, 2, 4, 4}, ACL_FLOAT), out({1, 2, 2, 2}, ACL_FLOAT);
    const OnnxAttributes good{{2, 2}, {2, 2}, 0, {0, 0, 0, 0}, {1, 1}, 0};
    {
        IntArray k(good.kernelShape), s(good.strides), p(good.pads), d(good.dilations);
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        EXPECT_EQ(aclnnMaxPoolGetWorkspaceSize(nullptr, k, s, 0, p, d, 0, out, &ws, &ex), kNullptr);
        EXPECT_EQ(aclnnMaxPoolGetWorkspaceSize(self, k, s, 0, nullptr, d, 0, out, &ws, &ex), kNullptr);
        EXPECT_EQ(aclnnMaxPoolGetWorkspaceSize(self, k, s, 0, p, nullptr, 0, out, &ws, &ex), kNullptr);
        EXPECT_EQ(aclnnMaxPoolGetWorkspaceSize(self, k, s, 0, p, d, 0, out, nullptr, &ex), kNullptr);
        // null self beats every later rule, even with a wrong dtype and autoPad.
        EXPECT_EQ(aclnnMaxPoolGetWorkspaceSize(nullptr, k, s, 5, p, d, 0, out, &ws, &ex), kNullptr);
    }
    TestTensor doubles({1, 2, 4, 4}, ACL_DOUBLE);
    expectRefused(kInvalid, runMaxPool(doubles, good, out), "self");
    TestTensor halfOut({1, 2, 2, 2}, ACL_FLOAT16);
    expectRefused(kInvalid, runMaxPool(self, good, halfOut), "out");
    TestTensor nhwc({1, 2, 4, 4}, ACL_FLOAT, ACL_FORMAT_NHWC), nhwcOut({1, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NHWC);
    expectRefused(kInvalid, runMaxPool(nhwc, good, nhwcOut), "format");
    TestTensor ncl({1, 2, 4, 4}, ACL_FLOAT, ACL_FORMAT_NCHW);
    expectRefused(kInvalid, runMaxPool(ncl, good, out), "format");  // out ND != self NCHW
    TestTensor rank5({1, 1, 2, 4, 4}, ACL_FLOAT), rank5Out({1, 1, 2, 2, 2}, ACL_FLOAT);
    expectRefused(kInvalid, runMaxPool(rank5, good, rank5Out), "rank");
    // Wrong dtype beats a wrong kernel length: dtype is checked first.
    expectRefused(kInvalid, runMaxPool(doubles, {{2, 2, 2}, {}, 0, {}, {}, 0}, out), "dtype");

    expectRefused(kInvalid, runMaxPool(self, {{2, 2, 2}, {}, 0, {}, {}, 0}, out), "kernelShape must have length");
    expectRefused(kInvalid, runMaxPool(self, {{2, 2}, {2, 2, 2}, 0, {}, {}, 0}, out), "strides must have length");
    expectRefused(kInvalid, runMaxPool(self, {{2, 2}, {2, 2}, 0, {0, 0, 0}, {}, 0}, out), "pads must have length");
    expectRefused(kInvalid, runMaxPool(self, {{2, 2}, {2, 2}, 0, {}, {1, 1, 1}, 0}, out), "dilations must have length");
    expectRefused(kInvalid, runMaxPool(self, {{2, 2}, {2, 2}, 1, {}, {}, 0}, out), "autoPad");
    expectRefused(kInvalid, runMaxPool(self, {{2, 2}, {2, 2}, 0, {}, {1, 2, 1, 1}, 0}, out), "dilation must be 1");
    expectRefused(kInvalid, runMaxPool(self, {{0, 2}, {2, 2}, 0, {}, {}, 0}, out), "kernelShape values");
    expectRefused(kInvalid, runMaxPool(self, {{2, 2}, {2, 0}, 0, {}, {}, 0}, out), "strides values");
    expectRefused(kInvalid, runMaxPool(self, {{2, 2}, {2, 2}, 0, {-1, 0, 0, 0}, {}, 0}, out), "0 <= pad < kernel");
    expectRefused(kInvalid, runMaxPool(self, {{2, 2}, {2, 2}, 0, {0, 2, 0, 0}, {}, 0}, out), "0 <= pad < kernel");
    expectRefused(kInvalid, runMaxPool(self, {{3, 3}, {2, 2}, 0, {2, 0, 2, 0}, {}, 0}, out), "sum to at most");
    TestTensor noChannels({1, 0, 4, 4}, ACL_FLOAT), noChannelsOut({1, 0, 2, 2}, ACL_FLOAT);
    expectRefused(kInvalid, runMaxPool(noChannels, good, noChannelsOut), "only the batch");
    TestTensor tiny({1, 2, 1, 4}, ACL_FLOAT), tinyOut({1, 2, 0, 2}, ACL_FLOAT);
    expectRefused(kInvalid, runMaxPool(tiny, good, tinyOut), "Ho and Wo must be >= 1");
    TestTensor wrongOut({1, 2, 2, 3}, ACL_FLOAT);
    expectRefused(kInvalid, runMaxPool(self, good, wrongOut), "pooled shape");
    TestTensor emptySelf({0, 2, 4, 4}, ACL_FLOAT), wrongEmptyOut({0, 2, 3, 3}, ACL_FLOAT);
    expectRefused(kInvalid, runMaxPool(emptySelf, good, wrongEmptyOut), "pooled shape");
}

// --- differential ---------------------------------------------------------------------------------------------

int64_t uniform(std::mt19937 &rng, int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(rng);
}

// One random aclnnMaxPool case of dtype `type`: operands in random layouts, self filled, the expected bits.
struct OnnxCase {
    aclDataType type = ACL_FLOAT;
    std::string trace;
    TestTensor self, out;
    OnnxAttributes attributes;
    std::vector<uint64_t> expectedBits;  // for a floating NaN: any NaN
    std::vector<bool> expectedNan;
};

// wideStride2: rows of 34 to 60 columns under windows three wide at stride 2 along W, left padding 0 or 1
// (what the stride-2 forward takes).
// wideStride2: rows of 34-60 columns with windows 3 wide at stride 2 (the stride-2 forward's); contiguous: every
// operand dense and in order (the dense-plane forwards take only those); threeByThree (with wideStride2): windows
// 3 high at stride 2 too (the 3x3 stride-2 forward's); stride1: windows moving by 1 with paddings up to half the
// kernel and rows of 20-40 columns (the stride-1 forward's).
OnnxCase randomOnnxCase(std::mt19937 &rng, aclDataType type, bool wideStride2 = false, bool contiguous = false,
                        bool threeByThree = false, bool stride1 = false) {
    const Storage storages[] = {Storage::Contiguous, Storage::Permuted, Storage::Gapped, Storage::PermutedGapped};
    reference::MaxPoolV3Windows windows;
    reference::MaxPoolV3Params params;
    int64_t n = 1, c = 1, h = 1, w = 1, top = 0, left = 0, bottom = 0, right = 0;
    const bool batched = uniform(rng, 0, 3) != 0;
    do {
        n = batched ? uniform(rng, 1, 2) : 1;
        c = uniform(rng, 1, 3);
        h = uniform(rng, 1, 9);
        w = uniform(rng, 1, 9);
        params.kernelH = uniform(rng, 1, 4);
        params.kernelW = uniform(rng, 1, 4);
        params.strideH = uniform(rng, 1, 3);
        params.strideW = uniform(rng, 1, 3);
        top = uniform(rng, 0, params.kernelH - 1);
        left = uniform(rng, 0, params.kernelW - 1);
        bottom = uniform(rng, 0, std::min(params.kernelH - 1, params.kernelH - top));
        right = uniform(rng, 0, std::min(params.kernelW - 1, params.kernelW - left));
        params.pads = {top, bottom, left, right};
        if (wideStride2) {
            w = uniform(rng, 34, 60);
            params.kernelW = 3;
            params.strideW = 2;
            left = uniform(rng, 0, 1);
            right = uniform(rng, 0, 1);
        }
        if (threeByThree) {
            params.kernelH = 3;
            params.strideH = 2;
            top = uniform(rng, 0, 1);
            bottom = uniform(rng, 0, 1);
        }
        if (stride1) {
            w = uniform(rng, 20, 40);
            params.strideH = params.strideW = 1;
            if (params.kernelH * params.kernelW == 1) params.kernelW = 2;
            top = bottom = uniform(rng, 0, params.kernelH / 2);
            left = right = uniform(rng, 0, params.kernelW / 2);
        }
        params.pads = {top, bottom, left, right};
        params.ceilMode = uniform(rng, 0, 1) == 1;
        windows = reference::maxPoolV3Windows(h, w, params);
    } while (windows.outH < 1 || windows.outW < 1);
    std::vector<int64_t> inShape{n, c, h, w}, outShape{n, c, windows.outH, windows.outW};
    if (!batched) {
        inShape.erase(inShape.begin());
        outShape.erase(outShape.begin());
    }
    OnnxCase oc{type,
                "type " + std::to_string(type) + " (" + std::to_string(n) + "," + std::to_string(c) + "," +
                    std::to_string(h) + "," + std::to_string(w) + ") k " + std::to_string(params.kernelH) + "x" +
                    std::to_string(params.kernelW) + " s " + std::to_string(params.strideH) + "x" +
                    std::to_string(params.strideW) + " pads t" + std::to_string(top) + " b" + std::to_string(bottom) +
                    " l" + std::to_string(left) + " r" + std::to_string(right) + " ceil " +
                    std::to_string(params.ceilMode) + (batched ? "" : " rank 3"),
                batched ? max_pool_v3_test::makeOperand(
                              inShape, type, contiguous ? Storage::Contiguous : storages[uniform(rng, 0, 3)], rng)
                        : TestTensor(inShape, type),
                batched ? max_pool_v3_test::makeOperand(
                              outShape, type, contiguous ? Storage::Contiguous : storages[uniform(rng, 0, 3)], rng)
                        : TestTensor(outShape, type),
                {{params.kernelH, params.kernelW},
                 {params.strideH, params.strideW},
                 0,
                 {top, left, bottom, right},
                 {},
                 params.ceilMode ? int64_t{7} : int64_t{0}},
                {},
                {}};
    const int64_t count = n * c * h * w;
    const bool integer = type != ACL_FLOAT && type != ACL_FLOAT16 && type != ACL_BF16;
    const int bytes = static_cast<int>(test_support::dataTypeBytes(type));
    const uint64_t mask = bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
    const bool isSigned = type != ACL_UINT8 && type != ACL_UINT16;
    // Integers: raw random bits of the element width (the full range, extremes included), or, half the time,
    // a few neighbouring values (ties, and neighbours a float32 comparison would merge).
    const bool fewValues = uniform(rng, 0, 1) == 1;
    const uint64_t base = static_cast<uint64_t>(rng()) << 32 | rng();
    std::vector<int64_t> integers(static_cast<size_t>(count));
    for (int64_t e = 0; e < count; ++e) {
        if (integer) {
            const uint64_t bits = (fewValues ? base + static_cast<uint64_t>(uniform(rng, 0, 3))
                                             : (static_cast<uint64_t>(rng()) << 32 | rng())) &
                                  mask;
            int64_t value = static_cast<int64_t>(bits);
            if (isSigned && bytes < 8 && (bits >> (8 * bytes - 1)) != 0) value -= int64_t{1} << (8 * bytes);
            integers[e] = value;
            oc.self.setBits(e, bits);
        } else {
            oc.self.set(e, uniform(rng, 0, 15) == 0 ? std::numeric_limits<double>::quiet_NaN()
                                                    : static_cast<double>(uniform(rng, -40, 40)) / 8.0);
        }
    }
    if (integer) {
        for (int64_t value : reference::maxPoolV3ForwardIntegers(integers, n, c, h, w, params)) {
            oc.expectedBits.push_back(static_cast<uint64_t>(value) & mask);
            oc.expectedNan.push_back(false);
        }
    } else {
        std::vector<float> stored(static_cast<size_t>(count));
        for (int64_t e = 0; e < count; ++e) stored[e] = static_cast<float>(oc.self.at(e));
        for (float value : reference::maxPoolV3Forward(stored, n, c, h, w, params)) {
            oc.expectedBits.push_back(std::isnan(value) ? 0 : max_pool_v3_test::bitsIn(type, value));
            oc.expectedNan.push_back(std::isnan(value));
        }
    }
    return oc;
}

// The case as one call of the differential driver.
pool_diff::OperatorCall onnxCall(OnnxCase &oc) {
    pool_diff::OperatorCall call;
    call.task = pool_diff::kForwardTask;
    call.trace = oc.trace;
    call.outputs = {{&oc.out, "out"}};
    call.inputs = {{&oc.self, "self"}};
    call.run = [&oc] {
        const RunStatus status = runMaxPool(oc.self, oc.attributes, oc.out);
        pool_diff::TwoPhase result;
        result.phaseOne = status.phaseOne;
        result.phaseTwo = status.phaseTwo;
        result.message = status.message;
        return result;
    };
    call.check = [&oc](const pool_diff::TwoPhase &) {
        for (size_t q = 0; q < oc.expectedBits.size(); ++q) {
            const uint64_t bits = oc.out.bitsAt(static_cast<int64_t>(q));
            if (oc.expectedNan[q])
                EXPECT_TRUE(max_pool_v3_test::bitsAreNan(oc.type, bits)) << "out " << q;
            else
                EXPECT_EQ(bits, oc.expectedBits[q]) << "out " << q;
        }
    };
    return call;
}

const aclDataType kOnnxTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,  ACL_INT8, ACL_UINT8,
                                  ACL_INT16, ACL_UINT16,  ACL_INT32, ACL_INT64};

TEST(MaxPoolOnnxDifferential, MatchesTheNaiveReference) {
    for (uint64_t seed : max_pool_v3_test::seedsWith({20261201, 3})) {
        SCOPED_TRACE(max_pool_v3_test::seedTrace(seed));
        std::mt19937 rng(static_cast<uint32_t>(seed * 2654435761u));
        for (int i = 0; i < 300; ++i) {
            SCOPED_TRACE("case " + std::to_string(i));
            OnnxCase oc = randomOnnxCase(rng, kOnnxTypes[i % 9]);
            pool_diff::OperatorCall call = onnxCall(oc);
            SCOPED_TRACE(call.trace);
            pool_diff::runChoice(call, "");
            if (testing::Test::HasFailure()) return;
        }
    }
}

TEST(MaxPoolOnnxImplementations, EveryForwardImplementationMatchesTheReference) {
    pool_diff::DifferentialDriver driver("aclnnMaxPool");
    for (uint64_t seed : max_pool_v3_test::seedsWith({5, 6})) {
        SCOPED_TRACE(max_pool_v3_test::seedTrace(seed));
        std::mt19937 rng(static_cast<uint32_t>(seed));
        for (int i = 0; i < 180; ++i) {
            SCOPED_TRACE("case " + std::to_string(i));
            // Of the float32 cases, one in three has the stride-2 forward's wide rows with contiguous operands, one in
            // three windows moving by 1 with contiguous operands (mostly rows of at most 40 windows: the flat stride-1
            // forward's) and one in three narrow rows with contiguous operands (the narrow-rows forward's), so that
            // each dense-plane forward sees enough cases whatever the seed; every other wide one has 3x3 windows at
            // stride 2 (the 3x3 stride-2 forward's). Every other float16 and bfloat16 case has contiguous operands
            // and windows moving by 1 (the stride-1 forward's).
            const bool float32 = i % 9 == 0, stride1Float32 = float32 && i / 9 % 3 == 1;
            const bool wide = float32 && i / 9 % 3 == 0;
            const bool stride1 = ((i % 9 == 1 || i % 9 == 2) && i / 9 % 2 == 0) || stride1Float32;
            OnnxCase oc = randomOnnxCase(rng, kOnnxTypes[i % 9], wide, (float32 && i / 9 % 3 != 1) || stride1,
                                         float32 && i / 9 % 6 == 0, stride1);
            pool_diff::OperatorCall call = onnxCall(oc);
            if (!driver.run(call)) return;
        }
    }
    driver.expectAcceptance(kMinimumShare);
}

// --- aclnnMaxPoolV3 ---------------------------------------------------------------------------------------------

TEST(MaxPoolV3, PadsAreTopBottomLeftRightAndCeilModeIsAScalar) {
    TestTensor x = max_pool_v3_test::filled({2, 2, 3, 3}, ACL_FLOAT, iota(36));
    TestTensor out({2, 2, 2, 2}, ACL_FLOAT);
    int64_t one = 1;
    aclScalar *ceil = aclCreateScalar(&one, ACL_INT64);
    const RunStatus status = runMaxPoolV3(x, {1, 1, 2, 2}, {1, 1, 2, 2}, std::vector<int64_t>{0, 0, 1, 0}, ceil, out);
    aclDestroyScalar(ceil);
    ASSERT_EQ(status.phaseOne, 0) << status.message;
    ASSERT_EQ(status.phaseTwo, 0) << status.message;
    max_pool_v3_test::expectBits(out, kLeftPaddedExpected, "out");
}

TEST(MaxPoolV3, CeilModeNullIsFalseAndAnyNonZeroScalarIsTrue) {
    // (1,1,5,5), kernel 2, strides 2: floor -> 2x2, ceil -> 3x3.
    TestTensor x = max_pool_v3_test::filled({1, 1, 5, 5}, ACL_FLOAT, iota(25));
    TestTensor floorOut({1, 1, 2, 2}, ACL_FLOAT), ceilOut({1, 1, 3, 3}, ACL_FLOAT);
    RunStatus status = runMaxPoolV3(x, {1, 1, 2, 2}, {1, 1, 2, 2}, std::nullopt, nullptr, floorOut);
    ASSERT_EQ(status.phaseOne, 0) << status.message;
    max_pool_v3_test::expectBits(floorOut, {7, 9, 17, 19}, "out");
    bool yes = true;
    float half = 2.5f, nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity(),
          minusInf = -inf, beyondInt64 = 1e30f;
    double hugeDouble = -2.97e222;
    // A floating scalar counts as its integer part; NaN, +-Inf and values beyond int64 are non-zero (and are
    // decided without an undefined conversion to int64: the fuzzer's finding).
    for (aclScalar *ceil :
         {aclCreateScalar(&yes, ACL_BOOL), aclCreateScalar(&half, ACL_FLOAT), aclCreateScalar(&nan, ACL_FLOAT),
          aclCreateScalar(&inf, ACL_FLOAT), aclCreateScalar(&minusInf, ACL_FLOAT),
          aclCreateScalar(&beyondInt64, ACL_FLOAT), aclCreateScalar(&hugeDouble, ACL_DOUBLE)}) {
        ceilOut.poison();
        status = runMaxPoolV3(x, {1, 1, 2, 2}, {1, 1, 2, 2}, std::nullopt, ceil, ceilOut);
        aclDestroyScalar(ceil);
        ASSERT_EQ(status.phaseOne, 0) << status.message;
        max_pool_v3_test::expectBits(ceilOut, {7, 9, 10, 17, 19, 20, 22, 24, 25}, "out");
    }
    float belowOne = -0.75f;  // integer part 0: floor mode
    aclScalar *floorScalar = aclCreateScalar(&belowOne, ACL_FLOAT);
    floorOut.poison();
    status = runMaxPoolV3(x, {1, 1, 2, 2}, {1, 1, 2, 2}, std::nullopt, floorScalar, floorOut);
    aclDestroyScalar(floorScalar);
    ASSERT_EQ(status.phaseOne, 0) << status.message;
    max_pool_v3_test::expectBits(floorOut, {7, 9, 17, 19}, "out");
}

TEST(MaxPoolV3Validation, EveryRuleInOrder) {
    TestTensor x({1, 1, 4, 4}, ACL_FLOAT), out({1, 1, 2, 2}, ACL_FLOAT);
    const std::vector<int64_t> k{1, 1, 2, 2};
    {
        IntArray ksize(k), strides(k);
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        EXPECT_EQ(aclnnMaxPoolV3GetWorkspaceSize(x, ksize, strides, nullptr, nullptr, out, nullptr, &ex), kNullptr);
        EXPECT_EQ(aclnnMaxPoolV3GetWorkspaceSize(nullptr, ksize, strides, nullptr, nullptr, out, &ws, &ex), kNullptr);
        EXPECT_EQ(aclnnMaxPoolV3GetWorkspaceSize(x, nullptr, strides, nullptr, nullptr, out, &ws, &ex), kNullptr);
        EXPECT_EQ(aclnnMaxPoolV3GetWorkspaceSize(x, ksize, nullptr, nullptr, nullptr, out, &ws, &ex), kNullptr);
        EXPECT_EQ(aclnnMaxPoolV3GetWorkspaceSize(x, ksize, strides, nullptr, nullptr, nullptr, &ws, &ex), kNullptr);
    }
    TestTensor ints({1, 1, 4, 4}, ACL_INT32), intsOut({1, 1, 2, 2}, ACL_INT32);
    expectRefused(kInvalid, runMaxPoolV3(ints, k, k, std::nullopt, nullptr, intsOut), "x");
    TestTensor halfOut({1, 1, 2, 2}, ACL_FLOAT16);
    expectRefused(kInvalid, runMaxPoolV3(x, k, k, std::nullopt, nullptr, halfOut), "out");
    TestTensor rank3({1, 4, 4}, ACL_FLOAT), rank3Out({1, 2, 2}, ACL_FLOAT);
    expectRefused(kInvalid, runMaxPoolV3(rank3, k, k, std::nullopt, nullptr, rank3Out), "rank");
    expectRefused(kInvalid, runMaxPoolV3(x, {1, 2, 2}, k, std::nullopt, nullptr, out), "ksize");
    expectRefused(kInvalid, runMaxPoolV3(x, k, k, std::vector<int64_t>{0, 0, 0}, nullptr, out), "pads");
    expectRefused(kInvalid, runMaxPoolV3(x, {1, 2, 2, 2}, k, std::nullopt, nullptr, out), "ksize");
    expectRefused(kInvalid, runMaxPoolV3(x, k, {1, 1, 0, 2}, std::nullopt, nullptr, out), "strides");
    expectRefused(kInvalid, runMaxPoolV3(x, k, k, std::vector<int64_t>{0, -1, 0, 0}, nullptr, out), "pads");
    TestTensor wrong({1, 1, 3, 2}, ACL_FLOAT);
    expectRefused(kInvalid, runMaxPoolV3(x, k, k, std::nullopt, nullptr, wrong), "pooled shape");
    // ops-nn's empty case: x (1,1,0,2), out (1,1,0,1) succeeds without touching anything.
    TestTensor emptyX({1, 1, 0, 2}, ACL_FLOAT), emptyOut({1, 1, 0, 1}, ACL_FLOAT);
    const RunStatus empty = runMaxPoolV3(emptyX, k, k, std::vector<int64_t>{0, 0, 0, 0}, nullptr, emptyOut);
    EXPECT_EQ(empty.phaseOne, 0) << empty.message;
    EXPECT_EQ(empty.phaseTwo, 0) << empty.message;
}

TEST(MaxPoolV3Differential, MatchesTheNaiveReference) {
    const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    const Storage storages[] = {Storage::Contiguous, Storage::Permuted, Storage::Gapped, Storage::PermutedGapped};
    std::mt19937 rng(1412u);
    for (int i = 0; i < 200; ++i) {
        const aclDataType type = types[i % 3];
        const int64_t n = uniform(rng, 1, 2), c = uniform(rng, 1, 3), h = uniform(rng, 1, 8), w = uniform(rng, 1, 8);
        reference::MaxPoolV3Params params;
        params.kernelH = uniform(rng, 1, 4);
        params.kernelW = uniform(rng, 1, 4);
        params.strideH = uniform(rng, 1, 3);
        params.strideW = uniform(rng, 1, 3);
        params.pads = {uniform(rng, 0, 4), uniform(rng, 0, 4), uniform(rng, 0, 4), uniform(rng, 0, 4)};
        params.ceilMode = uniform(rng, 0, 1) == 1;
        const reference::MaxPoolV3Windows windows = reference::maxPoolV3Windows(h, w, params);
        if (windows.outH < 1 || windows.outW < 1) continue;
        SCOPED_TRACE("case " + std::to_string(i));
        TestTensor x = max_pool_v3_test::makeOperand({n, c, h, w}, type, storages[uniform(rng, 0, 3)], rng);
        TestTensor out =
            max_pool_v3_test::makeOperand({n, c, windows.outH, windows.outW}, type, storages[uniform(rng, 0, 3)], rng);
        for (int64_t e = 0; e < n * c * h * w; ++e) x.set(e, static_cast<double>(uniform(rng, -40, 40)) / 8.0);
        int64_t ceilValue = params.ceilMode ? 1 : 0;
        aclScalar *ceil = aclCreateScalar(&ceilValue, ACL_INT64);
        const RunStatus status =
            runMaxPoolV3(x, {1, 1, params.kernelH, params.kernelW}, {1, 1, params.strideH, params.strideW},
                         std::vector<int64_t>(params.pads.begin(), params.pads.end()), ceil, out);
        aclDestroyScalar(ceil);
        ASSERT_EQ(status.phaseOne, 0) << status.message;
        ASSERT_EQ(status.phaseTwo, 0) << status.message;
        std::vector<float> stored(static_cast<size_t>(n * c * h * w));
        for (size_t e = 0; e < stored.size(); ++e) stored[e] = static_cast<float>(x.at(static_cast<int64_t>(e)));
        const std::vector<float> expected = reference::maxPoolV3Forward(stored, n, c, h, w, params);
        for (size_t q = 0; q < expected.size(); ++q)
            ASSERT_EQ(out.bitsAt(static_cast<int64_t>(q)), max_pool_v3_test::bitsIn(type, expected[q])) << "out " << q;
        EXPECT_EQ(out.bytesOutsideViewChanged(), 0);
    }
}

}  // namespace
