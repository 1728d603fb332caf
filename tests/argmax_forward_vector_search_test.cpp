// The vector searches of the argmax forwards (cpu_argmax_forward_dense_rows, cpu_argmax_forward_narrow_rows,
// cpu_argmax_forward_channels_last),
// each forced and checked through poolgradGetLastRunReport that it ran, against the naive reference of
// tests/reference: exact small cases, and random problems whose data puts ties, NaNs (in every lane position
// and at vector edges), -inf, -0/+0 where the fast search (one compare, one blend, NaN detected afterwards)
// and its NaN-rule search must agree with the selection rule. Outputs are poisoned; values are compared bit
// for bit with the input element the index names.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool_v3_with_attrs.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_adaptive_pooling.h"
#include "reference/naive_pooling.h"
#include "support/argmax_forward_case.h"
#include "support/highway_target_mock.h"
#include "support/host_vectors.h"
#include "support/max_pool3d_run.h"
#include "support/max_pool_v3_run.h"
#include "support/test_tensor.h"
#include "support/two_phase_run.h"

namespace {

using reference::ElementType;
using reference::Shape5;
using test_support::MaxPool3dLists;
using test_support::TestTensor;

constexpr const char *kDenseRows = "cpu_argmax_forward_dense_rows";
constexpr const char *kChannelsLast = "cpu_argmax_forward_channels_last";
constexpr const char *kNarrowRows = "cpu_argmax_forward_narrow_rows";
// The narrow-rows search takes rows and output rows that fit in one vector: 16 columns with AVX-512, 8 with AVX2,
// 4 with SSE4 (the ThreadSanitizer build's kernels).
int64_t narrowRowLanes() { return test_support::hostFloatLanes(); }
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

ElementType elementType(aclDataType type) {
    return type == ACL_FLOAT     ? ElementType::Float32
           : type == ACL_FLOAT16 ? ElementType::Float16
                                 : ElementType::BFloat16;
}

struct ThreadSetting {
    explicit ThreadSetting(int threads) {
        poolgradSetNumThreads(threads);
        poolgradSetParallelThreshold(1);
    }
    ~ThreadSetting() {
        poolgradSetNumThreads(0);
        poolgradSetParallelThreshold(0);
        poolgradForceImplementation(nullptr);
    }
};

struct Case {
    Shape5 input{};  // N, C, D, H, W
    reference::Pool3dParams params;
    aclDataType type = ACL_FLOAT;
    aclDataType indexType = ACL_INT32;
    bool channelsLast = false;
    std::vector<double> values;  // row-major over `input`, before rounding to `type`

    std::string describe() const {
        std::ostringstream text;
        text << (type == ACL_FLOAT     ? "f32"
                 : type == ACL_FLOAT16 ? "f16"
                                       : "bf16")
             << "/" << (indexType == ACL_INT32 ? "i32" : "i64") << (channelsLast ? " channels-last" : "") << " input "
             << input[0] << "x" << input[1] << "x" << input[2] << "x" << input[3] << "x" << input[4] << " k"
             << params.kernel[0] << params.kernel[1] << params.kernel[2] << " s" << params.stride[0] << params.stride[1]
             << params.stride[2] << " p" << params.padding[0] << params.padding[1] << params.padding[2] << " d"
             << params.dilation[0] << params.dilation[1] << params.dilation[2] << (params.ceilMode ? " ceil" : "");
        return text.str();
    }
};

TestTensor makeTensor(const Shape5 &shape, aclDataType type, bool channelsLast) {
    const std::vector<int64_t> view(shape.begin(), shape.end());
    return channelsLast ? TestTensor::permuted(view, {0, 2, 3, 4, 1}, type) : TestTensor(view, type);
}

// Runs the case through aclnnMaxPool3dWithArgmax with `implementation` forced and compares with the reference.
void checkCase(const Case &c, const char *implementation, int threads) {
    SCOPED_TRACE(c.describe() + " on " + implementation + ", " + std::to_string(threads) + " threads");
    const ThreadSetting setting(threads);
    TestTensor self = makeTensor(c.input, c.type, c.channelsLast);
    for (int64_t i = 0; i < self.elementCount(); ++i) self.set(i, c.values[static_cast<size_t>(i)]);
    // The input as the operator sees it (rounded once to its type), for the reference.
    std::vector<float> rounded(c.values.size());
    for (size_t i = 0; i < rounded.size(); ++i)
        rounded[i] =
            reference::elementValue(static_cast<uint32_t>(self.bitsAt(static_cast<int64_t>(i))), elementType(c.type));
    const reference::ForwardResult expected = reference::maxPool3dWithArgmax(rounded, c.input, c.params);
    TestTensor out = makeTensor(expected.outputShape, c.type, c.channelsLast);
    TestTensor indices = makeTensor(expected.outputShape, c.indexType, c.channelsLast);
    out.poison();
    indices.poison();
    MaxPool3dLists lists{{c.params.kernel.begin(), c.params.kernel.end()},
                         {c.params.stride.begin(), c.params.stride.end()},
                         {c.params.padding.begin(), c.params.padding.end()},
                         {c.params.dilation.begin(), c.params.dilation.end()},
                         c.params.ceilMode};
    ASSERT_EQ(poolgradForceImplementation(implementation), ACL_SUCCESS);
    const test_support::TwoPhaseStatus status = test_support::runMaxPool3dWithArgmax(self, lists, out, indices);
    ASSERT_EQ(status.phaseOne, 0) << aclGetRecentErrMsg();
    ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
    poolgradRunReport report{};
    ASSERT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
    ASSERT_STREQ(report.implementation, implementation);
    EXPECT_STREQ(report.fallback, "");

    const int64_t planeIn = c.input[2] * c.input[3] * c.input[4];
    const Shape5 &o = expected.outputShape;
    const int64_t planeOut = o[2] * o[3] * o[4];
    int failures = 0;
    for (int64_t q = 0; q < out.elementCount() && failures < 5; ++q) {
        const int64_t plane = q / planeOut;
        const int64_t expectedIndex = expected.indices[static_cast<size_t>(q)];
        const int64_t index = static_cast<int64_t>(indices.at(q));
        const uint64_t expectedBits =
            expectedIndex >= 0 ? self.bitsAt(plane * planeIn + expectedIndex)
                               : reference::elementBits(-std::numeric_limits<float>::infinity(), elementType(c.type));
        if (index != expectedIndex || out.bitsAt(q) != expectedBits) {
            ++failures;
            ADD_FAILURE() << "output " << q << ": index " << index << " (expected " << expectedIndex << "), bits 0x"
                          << std::hex << out.bitsAt(q) << " (expected 0x" << expectedBits << ")" << std::dec;
        }
    }
}

std::vector<const char *> implementationsFor(const Case &c) {
    if (c.channelsLast) return {kChannelsLast};
    if (c.type != ACL_FLOAT) return {kDenseRows, "cpu_argmax_forward_dense"};
    const reference::Pool3dParams &p = c.params;
    const int64_t outputWidth =
        reference::pooledSize(c.input[4], p.kernel[2], p.stride[2], p.padding[2], p.dilation[2], p.ceilMode);
    if (c.input[4] <= narrowRowLanes() && outputWidth <= narrowRowLanes())
        return {kNarrowRows, kDenseRows, "cpu_argmax_forward_dense"};
    return {kDenseRows, "cpu_argmax_forward_dense"};
}

// Data drawn from a few values (ties everywhere), with NaN, +-inf and -0 sprinkled.
std::vector<double> tieHeavyData(std::mt19937_64 &rng, int64_t count, double nanChance) {
    const double pool[] = {-kInf, -2, -1, -0.0, 0.0, 1, 2, 3, kInf};
    std::uniform_int_distribution<int> pick(0, 8);
    std::uniform_real_distribution<double> unit(0, 1);
    std::vector<double> values(static_cast<size_t>(count));
    for (double &value : values) value = unit(rng) < nanChance ? kNaN : pool[pick(rng)];
    return values;
}

// ------------------------------------------------------------------------------------------------ exact cases

TEST(ArgmaxForwardVectorSearch, ExactRowWithTiesNaNAndClippedEdges) {
    // One row of 19 columns (not a multiple of any vector length), k3 s2 p1: 10 windows, the first and the
    // last clipped. Window ow covers columns 2*ow-1 .. 2*ow+1.
    Case c;
    c.input = {1, 1, 1, 1, 19};
    c.params.kernel = {1, 1, 3};
    c.params.stride = {1, 1, 2};
    c.params.padding = {0, 0, 1};
    c.values = {5, 5, 1, 2, 2, 7, kNaN, 0, kNaN, -kInf, -kInf, -kInf, -0.0, 0.0, 3, 3, 9, 1, 4};
    for (const char *implementation : {kDenseRows, "cpu_argmax_forward_dense"}) {
        const ThreadSetting setting(1);
        TestTensor self({1, 1, 1, 1, 19}, ACL_FLOAT);
        self.setValues(c.values);
        TestTensor out({1, 1, 1, 1, 10}, ACL_FLOAT), indices({1, 1, 1, 1, 10}, ACL_INT64);
        out.poison();
        indices.poison();
        ASSERT_EQ(poolgradForceImplementation(implementation), ACL_SUCCESS);
        const auto status = test_support::runMaxPool3dWithArgmax(self, {{1, 1, 3}, {1, 1, 2}, {0, 0, 1}}, out, indices);
        ASSERT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
        poolgradRunReport report{};
        ASSERT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
        ASSERT_STREQ(report.implementation, implementation);
        // ow0 {0,1}: tie 5,5 -> first (0). ow1 {1,2,3}: 5 at 1. ow2 {3,4,5}: 7 at 5. ow3 {5,6,7}: NaN at 6.
        // ow4 {7,8,9}: NaN at 8. ow5 {9,10,11}: all -inf -> first (9). ow6 {11,12,13}: -0 at 12 (then +0 is
        // not greater). ow7 {13,14,15}: 3 at 14 (tie with 15). ow8 {15,16,17}: 9 at 16. ow9 {17,18}: 4 at 18.
        const std::vector<int64_t> expectedIndices = {0, 1, 5, 6, 8, 9, 12, 14, 16, 18};
        for (int64_t q = 0; q < 10; ++q) {
            EXPECT_EQ(indices.at(q), expectedIndices[q]) << implementation << " output " << q;
            EXPECT_EQ(out.bitsAt(q), self.bitsAt(expectedIndices[q])) << implementation << " output " << q;
        }
    }
    poolgradForceImplementation(nullptr);
}

TEST(ArgmaxForwardVectorSearch, LastNaNWinsAcrossRows) {
    // 2x2 windows over two rows: NaNs in both rows; the last in scan order (row 1) wins.
    const ThreadSetting setting(1);
    TestTensor self({1, 1, 1, 2, 4}, ACL_FLOAT);
    self.setValues({kNaN, 1, 2, kNaN, 8, kNaN, kNaN, 0});
    TestTensor out({1, 1, 1, 1, 2}, ACL_FLOAT), indices({1, 1, 1, 1, 2}, ACL_INT32);
    out.poison();
    indices.poison();
    ASSERT_EQ(poolgradForceImplementation(kDenseRows), ACL_SUCCESS);
    ASSERT_EQ(test_support::runMaxPool3dWithArgmax(self, {{1, 2, 2}, {1, 2, 2}, {0}}, out, indices).phaseTwo, 0);
    EXPECT_EQ(indices.at(0), 5);  // NaN at 0 and 5: the later one
    EXPECT_EQ(indices.at(1), 6);  // NaN at 3 and 6
    EXPECT_TRUE(std::isnan(out.at(0)) && std::isnan(out.at(1)));
}

TEST(ArgmaxForwardVectorSearch, NarrowRowsExactWindowsAcrossRowsAndColumns) {
    // Two rows of 8 columns, windows 2 rows high and 3 wide at stride 2, padding 1 along W: 4 windows, columns
    // {0,1}, {1,2,3}, {3,4,5}, {5,6,7}. Row 0 is at positions 0-7, row 1 at 8-15. The rows' pass keeps each
    // column's first maximum (last NaN); the taps then pick the larger value, the smaller position among ties.
    if (narrowRowLanes() < 8) GTEST_SKIP() << "rows of 8 do not fit in one vector of " << narrowRowLanes() << " lanes";
    const ThreadSetting setting(1);
    TestTensor self({1, 1, 1, 2, 8}, ACL_FLOAT);
    self.setValues({4, 2, 5, 1, -0.0, 0.0, -kInf, kNaN,  //
                    4, 4, 5, 6, 0.0, -0.0, -kInf, 3});
    TestTensor out({1, 1, 1, 1, 4}, ACL_FLOAT), indices({1, 1, 1, 1, 4}, ACL_INT64);
    out.poison();
    indices.poison();
    ASSERT_EQ(poolgradForceImplementation(kNarrowRows), ACL_SUCCESS);
    ASSERT_EQ(test_support::runMaxPool3dWithArgmax(self, {{1, 2, 3}, {1, 1, 2}, {0, 0, 1}}, out, indices).phaseTwo, 0)
        << aclGetRecentErrMsg();
    poolgradRunReport report{};
    ASSERT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
    ASSERT_STREQ(report.implementation, kNarrowRows);
    // ow0 {0,1} x 2 rows: 4 at 0, 8 and 9 -> first (0). ow1 {1,2,3}: 5 at 2 and 10 -> 2 (6 at 11 is larger:
    // 11). ow2 {3,4,5}: 6 at 11. ow3 {5,6,7}: the NaN at 7 wins over 3 at 15.
    const std::vector<int64_t> expectedIndices = {0, 11, 11, 7};
    for (int64_t q = 0; q < 4; ++q) {
        EXPECT_EQ(indices.at(q), expectedIndices[static_cast<size_t>(q)]) << "output " << q;
        EXPECT_EQ(out.bitsAt(q), self.bitsAt(expectedIndices[static_cast<size_t>(q)])) << "output " << q;
    }
    // Signed zeros and -inf: windows {4,5} over both rows hold -0 (4), +0 (5), +0 (12), -0 (13): equal, so the
    // first, -0 at 4; {6} is -inf in both rows: the first (6).
    TestTensor zeros({1, 1, 1, 2, 8}, ACL_FLOAT);
    zeros.setValues({1, 1, 1, 1, -0.0, 0.0, -kInf, 1,  //
                     1, 1, 1, 1, 0.0, -0.0, -kInf, 1});
    TestTensor zeroOut({1, 1, 1, 1, 4}, ACL_FLOAT), zeroIndices({1, 1, 1, 1, 4}, ACL_INT32);
    zeroOut.poison();
    zeroIndices.poison();
    // k(2,2) s(2,2): windows {0,1}, {2,3}, {4,5}, {6,7}.
    ASSERT_EQ(test_support::runMaxPool3dWithArgmax(zeros, {{1, 2, 2}, {1, 2, 2}, {0}}, zeroOut, zeroIndices).phaseTwo,
              0);
    EXPECT_EQ(zeroIndices.at(2), 4);
    EXPECT_EQ(zeroOut.bitsAt(2), zeros.bitsAt(4));
    EXPECT_EQ(zeroIndices.at(3), 7);  // 1 at 7 beats -inf at 6
    zeros.set(7, -kInf);
    zeros.set(15, -kInf);
    ASSERT_EQ(test_support::runMaxPool3dWithArgmax(zeros, {{1, 2, 2}, {1, 2, 2}, {0}}, zeroOut, zeroIndices).phaseTwo,
              0);
    EXPECT_EQ(zeroIndices.at(3), 6);  // all -inf: the first element
    EXPECT_EQ(zeroOut.bitsAt(3), zeros.bitsAt(6));
    poolgradForceImplementation(nullptr);
}

TEST(ArgmaxForwardVectorSearch, NarrowRowsNaNInEveryColumnAndRow) {
    // Planes of 5 rows of 7 columns (a partial vector with AVX2 and AVX-512; 4, a whole one, with SSE4), windows
    // 3x3 at stride 2 with padding 1 (clipped at every edge) and 2x3 at stride 1 with dilation 2 along W (rows of
    // 5 or more): one NaN, then two, moved over every position, on tie-heavy data; and +inf next to -inf, which
    // the rows' NaN detector also flags.
    std::mt19937_64 rng(13);
    const int64_t width = std::min<int64_t>(7, narrowRowLanes()), elements = 5 * width;
    ASSERT_GE(width, 4);
    Case c;
    c.input = {1, 1, 1, 5, width};
    for (int shape = 0; shape < (width >= 5 ? 2 : 1); ++shape) {
        c.params = reference::Pool3dParams{};
        if (shape == 0) {
            c.params.kernel = {1, 3, 3};
            c.params.stride = {1, 2, 2};
            c.params.padding = {0, 1, 1};
        } else {
            c.params.kernel = {1, 2, 3};
            c.params.stride = {1, 1, 1};
            c.params.dilation = {1, 1, 2};
        }
        const std::vector<double> base = tieHeavyData(rng, elements, 0);
        for (int64_t position = 0; position < elements; ++position) {
            c.values = base;
            c.values[static_cast<size_t>(position)] = kNaN;
            if (position % 3 == 0) c.values[static_cast<size_t>((position * 11 + 4) % elements)] = kNaN;
            checkCase(c, kNarrowRows, 1);
            c.values = base;
            c.values[static_cast<size_t>(position)] = kInf;
            c.values[static_cast<size_t>((position + 7) % elements)] = -kInf;
            checkCase(c, kNarrowRows, 1);
            if (HasFailure()) return;
        }
    }
}

// ------------------------------------------------------------------------------------------------ NaN placement

TEST(ArgmaxForwardVectorSearch, NaNInEveryLanePositionAndVectorEdge) {
    // One NaN (then two) moved over every column of rows wider than any vector (every lane position, both
    // vector edges, the clipped edge windows), for the stride-1 (contiguous), stride-2 (pairs) and stride-3
    // (gathered) loads, on planes whose other values tie.
    // Padding 1 makes the search copy the rows into padded rows (NaNs found while copying); stride 1 without
    // padding reads them in place (NaNs found by the search's own detector).
    std::mt19937_64 rng(7);
    for (const auto &[stride, padding] : {std::pair<int64_t, int64_t>{1, 1}, {2, 1}, {3, 1}, {1, 0}}) {
        Case c;
        c.input = {1, 1, 1, 2, 67};
        c.params.kernel = {1, 2, 3};
        c.params.stride = {1, 1, stride};
        c.params.padding = {0, 0, padding};
        const std::vector<double> base = tieHeavyData(rng, 134, 0);
        for (int64_t position = 0; position < 134; ++position) {
            c.values = base;
            c.values[static_cast<size_t>(position)] = kNaN;
            if (position % 3 == 0) c.values[static_cast<size_t>((position * 7 + 5) % 134)] = kNaN;
            checkCase(c, kDenseRows, 1);
            if (HasFailure()) return;
        }
    }
}

TEST(ArgmaxForwardVectorSearch, ChannelsLastNaNInEveryChannel) {
    // Channels 37 (two vectors, one vector and a scalar rest on every target): a NaN in each channel in turn.
    std::mt19937_64 rng(11);
    Case c;
    c.input = {1, 37, 1, 4, 5};
    c.params.kernel = {1, 3, 3};
    c.params.stride = {1, 2, 2};
    c.params.padding = {0, 1, 1};
    c.channelsLast = true;
    const std::vector<double> base = tieHeavyData(rng, 37 * 20, 0);
    for (int64_t channel = 0; channel < 37; ++channel) {
        c.values = base;
        c.values[static_cast<size_t>(channel * 20 + (channel % 20))] = kNaN;
        checkCase(c, kChannelsLast, 1);
        if (HasFailure()) return;
    }
}

TEST(ArgmaxForwardVectorSearch, NegativeInfinityEverywhere) {
    for (const bool channelsLast : {false, true}) {
        Case c;
        c.input = {1, 19, 1, 5, 23};
        c.params.kernel = {1, 3, 3};
        c.params.stride = {1, 2, 2};
        c.params.padding = {0, 1, 1};
        c.channelsLast = channelsLast;
        c.values.assign(19 * 5 * 23, -kInf);
        checkCase(c, channelsLast ? kChannelsLast : kDenseRows, 2);
    }
    // Narrow rows (6 columns, 4 with SSE4's vectors), with windows clipped at both edges of both axes.
    const int64_t width = std::min<int64_t>(6, narrowRowLanes());
    Case narrow;
    narrow.input = {1, 3, 1, 4, width};
    narrow.params.kernel = {1, 3, 3};
    narrow.params.stride = {1, 2, 2};
    narrow.params.padding = {0, 1, 1};
    narrow.params.ceilMode = true;
    narrow.values.assign(static_cast<size_t>(3 * 4 * width), -kInf);
    checkCase(narrow, kNarrowRows, 2);
}

// ------------------------------------------------------------------------------------------------ random problems

// Random windows for the row searches: 1-2 deep and 1-4 high and wide, strides 1-3 (every load kind),
// padding up to half a window, dilation 2 in a quarter of the axes, ceil mode in half the draws.
void drawWindows(std::mt19937_64 &rng, reference::Pool3dParams &p) {
    auto draw = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
    for (int a = 0; a < 3; ++a) {
        p.kernel[a] = a == 0 ? draw(1, 2) : draw(1, 4);
        p.stride[a] = draw(1, 3);
        p.padding[a] = draw(0, p.kernel[a] / 2);
        p.dilation[a] = draw(0, 3) == 0 ? 2 : 1;
    }
    p.ceilMode = draw(0, 1) == 1;
}

TEST(ArgmaxForwardVectorSearch, RandomProblemsAgreeWithTheReference) {
    std::mt19937_64 rng(20261201);
    const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    for (int trial = 0; trial < 160; ++trial) {
        Case c;
        c.type = types[trial % 3];
        c.indexType = trial % 2 ? ACL_INT64 : ACL_INT32;
        c.channelsLast = trial % 5 == 4;
        auto draw = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
        drawWindows(rng, c.params);
        c.input = {draw(1, 2), c.channelsLast ? draw(1, 40) : draw(1, 3), draw(1, 3), draw(1, 9), draw(1, 75)};
        if (!test_support::hasOutputs(c.input, c.params)) continue;
        const int64_t count = c.input[0] * c.input[1] * c.input[2] * c.input[3] * c.input[4];
        c.values = tieHeavyData(rng, count, trial % 4 == 0 ? 0.0 : 0.03);
        for (const char *implementation : implementationsFor(c)) {
            checkCase(c, implementation, 1 + trial % 3);
            if (HasFailure()) return;
        }
    }
}

// ------------------------------------------------------------------------------------------------ values only

// aclnnMaxPoolV3WithAttrs (NCHW, 3x3 windows at stride 2, padding `pad` on every side) on `values`, forced
// onto the dense rows, against the reference: each value bit for bit (a NaN only as NaN). With
// planContains, the plan must name it.
void expectValueOnlyK3S2MatchesReference(const std::vector<double> &values, int64_t n, int64_t ch, int64_t h, int64_t w,
                                         int64_t pad, bool ceil, const char *planContains,
                                         aclDataType type = ACL_FLOAT) {
    TestTensor x({n, ch, h, w}, type);
    x.setValues(values);
    std::vector<float> rounded(values.size());  // the input as the operator sees it
    for (size_t i = 0; i < rounded.size(); ++i)
        rounded[i] = reference::elementValue(static_cast<uint32_t>(x.bitsAt(static_cast<int64_t>(i))), elementType(type));
    reference::Pool3dParams params;
    params.kernel = {1, 3, 3};
    params.stride = {1, 2, 2};
    params.padding = {0, pad, pad};
    params.ceilMode = ceil;
    const reference::ForwardResult expected = reference::maxPool3dWithArgmax(rounded, {n, ch, 1, h, w}, params);
    TestTensor y({n, ch, expected.outputShape[3], expected.outputShape[4]}, type);
    y.poison();
    ASSERT_EQ(poolgradForceImplementation(kDenseRows), ACL_SUCCESS);
    const max_pool_v3_test::V3Attributes attributes{
        {1, 1, 3, 3}, {1, 1, 2, 2}, "CALCULATED", std::vector<int64_t>{pad, pad, pad, pad}, "NCHW", false, ceil};
    const max_pool_v3_test::V3Status status = max_pool_v3_test::runMaxPoolV3WithAttrs(x, attributes, y);
    ASSERT_EQ(status.phaseTwo, 0) << status.message;
    poolgradRunReport report{};
    ASSERT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
    ASSERT_STREQ(report.implementation, kDenseRows);
    if (planContains) EXPECT_NE(std::string(report.plan).find(planContains), std::string::npos) << report.plan;
    for (int64_t q = 0; q < y.elementCount(); ++q) {
        const float want = expected.values[static_cast<size_t>(q)];
        if (std::isnan(want))
            EXPECT_TRUE(std::isnan(static_cast<float>(y.at(q)))) << "output " << q;
        else
            EXPECT_EQ(y.bitsAt(q), reference::elementBits(want, elementType(type))) << "output " << q;
    }
}

TEST(ArgmaxForwardVectorSearch, ValueOnlyForwardMatchesTheReference) {
    // aclnnMaxPoolV3WithAttrs writes no indices: the dense rows search without its index blends.
    std::mt19937_64 rng(5);
    for (const int threads : {1, 2, 3}) {
        const ThreadSetting setting(threads);
        const int64_t n = 2, ch = 3, h = 9, w = 41;
        const std::vector<double> values = tieHeavyData(rng, n * ch * h * w, 0.02);
        expectValueOnlyK3S2MatchesReference(values, n, ch, h, w, 1, false, nullptr);
        // 16-bit rows: widened copies, the winners' indices kept in scratch only to name the values.
        for (const aclDataType type : {ACL_FLOAT16, ACL_BF16})
            expectValueOnlyK3S2MatchesReference(values, n, ch, h, w, threads % 2, threads == 3, "widened", type);
    }
}

// Values only with windows 3 wide at stride 2: the column maxima, which take rows without NaN, -0 or both
// infinities and leave the others to the search. Each plane is one kind of data: ties among +0 and
// integers (-inf included), random floats, zeros of both signs, or ties or floats with one -0, NaN or +inf
// planted in a random row, so that both paths run in one thread's work. Every instruction set this CPU
// has; rows from one vector wide up.
TEST(ArgmaxForwardVectorSearch, ValueOnlyColumnMaximaMatchTheReference) {
    std::mt19937_64 rng(20261202);
    const int64_t targets[] = {HWY_STATIC_TARGET, HWY_AVX3, HWY_AVX2, HWY_SSE4, HWY_SCALAR};
    const auto draw = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
    for (const int64_t target : targets) {
        if (!test_support::targetDispatchable(target)) continue;
        const test_support::HighwayTargetMock mock(target);
        for (int trial = 0; trial < 12; ++trial) {
            const ThreadSetting setting(1 + trial % 2);
            const int64_t n = 1, ch = 6, h = draw(3, 9), w = draw(16, 120), pad = draw(0, 1);
            const bool ceil = draw(0, 1) == 1;
            std::vector<double> values(static_cast<size_t>(n * ch * h * w));
            // Planes: clean ties, clean floats, ties with one +inf, only -1, -0 and +0 (zero maxima whose
            // first zero decides the sign), floats with one NaN, ties with one -0.
            const double ties[] = {-kInf, -2, -1, 0.0, 1, 2, 3}, zeros[] = {-1, -0.0, 0.0};
            for (int64_t plane = 0; plane < ch; ++plane) {
                double *at = values.data() + plane * h * w;
                for (int64_t i = 0; i < h * w; ++i)
                    at[i] = plane == 3       ? zeros[draw(0, 2)]
                            : plane % 3 == 1 ? std::uniform_real_distribution<double>(-4, 4)(rng)
                                             : ties[draw(0, 6)];
                const double planted[] = {0, 0, kInf, 0, kNaN, -0.0};
                if (planted[plane] != 0 || std::signbit(planted[plane])) at[draw(0, h * w - 1)] = planted[plane];
            }
            SCOPED_TRACE(std::string(hwy::TargetName(target)) + ": " + std::to_string(h) + "x" + std::to_string(w) +
                         " p" + std::to_string(pad) + (ceil ? " ceil" : ""));
            expectValueOnlyK3S2MatchesReference(values, n, ch, h, w, pad, ceil, "column maxima");
            if (HasFailure()) return;
        }
    }
}

// ------------------------------------------------------------------------------------------------ 16-bit rows

// Random float16 and bfloat16 problems forced onto `implementation`: `trials` of each type on the CPU's vectors
// and `mockedTrials` on each of the mocked AVX2, SSE4 and scalar targets (float16 widened on the bits there, and
// narrowed back by copies). Windows of every stride kind, padding, dilation and ceil mode, NaN payloads
// (signalling ones included); every value must be the bits of the element its index names.
void checkSixteenBitRandomProblems(uint64_t seed, const char *implementation, bool channelsLast, int64_t mostChannels,
                                   int64_t mostWidth, int trials, int mockedTrials) {
    std::mt19937_64 rng(seed);
    const auto draw = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
    const auto checkRandom = [&](aclDataType type, int count) {
        for (int trial = 0; trial < count; ++trial) {
            test_support::ArgmaxForwardCase c;
            c.valueType = type;
            c.channelsLast = channelsLast;
            c.indexType = trial % 2 ? ACL_INT64 : ACL_INT32;
            drawWindows(rng, c.params);
            c.input = {draw(1, 2), draw(1, mostChannels), draw(1, 3), draw(1, channelsLast ? 7 : 9),
                       draw(1, mostWidth)};
            if (!test_support::hasOutputs(c.input, c.params)) continue;
            const int64_t elements = c.input[0] * c.input[1] * c.input[2] * c.input[3] * c.input[4];
            c.bits = test_support::sixteenBitPatterns(
                test_support::tieHeavyBits(rng, elements, trial % 4 == 0 ? 0.0 : 0.03), type);
            test_support::checkArgmaxForward(c, implementation, 1 + trial % 3);
            if (testing::Test::HasFailure()) return false;
        }
        return true;
    };
    for (const aclDataType type : {ACL_FLOAT16, ACL_BF16}) {
        SCOPED_TRACE(type == ACL_FLOAT16 ? "float16" : "bfloat16");
        if (!checkRandom(type, trials)) return;
        for (const int64_t target : {int64_t{HWY_AVX2}, int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
            if (!test_support::targetDispatchable(target)) continue;
            SCOPED_TRACE("target " + std::string(hwy::TargetName(target)));
            const test_support::HighwayTargetMock mock(target);
            if (!checkRandom(type, mockedTrials)) return;
        }
    }
}

// Float16 and bfloat16 rows are widened into float32 copies and searched there: 1-D to 3-D problems of up to 3
// planes and 75 columns.
TEST(ArgmaxForwardVectorSearch, SixteenBitRowsAgreeWithTheReferenceOnEveryTarget) {
    checkSixteenBitRandomProblems(20261205, kDenseRows, false, 3, 75, 80, 16);
}

TEST(ArgmaxForwardVectorSearch, SixteenBitSignallingNaNInEveryColumn) {
    // A signalling NaN (then a second, quiet and negative) moved over every column of two rows wider than any
    // vector, for each stride kind, with and without padding: the vector that holds it is copied by index, and
    // the output keeps its bits.
    std::mt19937_64 rng(23);
    for (const aclDataType type : {ACL_FLOAT16, ACL_BF16})
        for (const auto &[stride, padding] : {std::pair<int64_t, int64_t>{1, 1}, {2, 1}, {3, 0}, {2, 0}}) {
            test_support::ArgmaxForwardCase c;
            c.valueType = type;
            c.input = {1, 1, 1, 2, 67};
            c.params.kernel = {1, 2, 3};
            c.params.stride = {1, 1, stride};
            c.params.padding = {0, 0, padding};
            const std::vector<uint32_t> base =
                test_support::sixteenBitPatterns(test_support::tieHeavyBits(rng, 134, 0), type);
            const uint32_t signalling = type == ACL_FLOAT16 ? 0x7d23u : 0x7f91u;
            const uint32_t negativeQuiet = type == ACL_FLOAT16 ? 0xfe01u : 0xffc1u;
            for (int64_t position = 0; position < 134; ++position) {
                c.bits = base;
                c.bits[static_cast<size_t>(position)] = signalling;
                if (position % 3 == 0) c.bits[static_cast<size_t>((position * 7 + 5) % 134)] = negativeQuiet;
                test_support::checkArgmaxForward(c, kDenseRows, 1);
                if (HasFailure()) return;
            }
        }
}

TEST(ArgmaxForwardVectorSearch, BFloat16RowsInPlaceNaNInEveryColumnOnEveryTarget) {
    // Bfloat16 rows without padding are read in place: stride 1 widened per vector, stride 2 split into even
    // and odd columns by a shift and a mask of one load (dilation 2: the even columns only), the scalar target
    // lane by lane. A signalling NaN (then a second, quiet and negative) moved over every column of two rows
    // wider than any vector; the plan must say the rows were read in place.
    struct Geometry {
        int64_t width, kernel, stride, dilation;
    };
    const Geometry geometries[] = {{67, 3, 1, 1}, {66, 2, 2, 1}, {68, 3, 2, 1}, {68, 2, 2, 2}};
    const int64_t targets[] = {HWY_STATIC_TARGET, HWY_AVX3, HWY_AVX2, HWY_SSE4, HWY_SCALAR};
    std::mt19937_64 rng(29);
    for (const int64_t target : targets) {
        if (!test_support::targetDispatchable(target)) continue;
        const test_support::HighwayTargetMock mock(target);
        for (const Geometry &g : geometries) {
            SCOPED_TRACE(std::string(hwy::TargetName(target)) + ": width " + std::to_string(g.width) + " k" +
                         std::to_string(g.kernel) + " s" + std::to_string(g.stride) + " d" +
                         std::to_string(g.dilation));
            test_support::ArgmaxForwardCase c;
            c.valueType = ACL_BF16;
            c.input = {1, 1, 1, 2, g.width};
            c.params.kernel = {1, 2, g.kernel};
            c.params.stride = {1, 1, g.stride};
            c.params.dilation = {1, 1, g.dilation};
            const int64_t elements = 2 * g.width;
            const std::vector<uint32_t> base =
                test_support::sixteenBitPatterns(test_support::tieHeavyBits(rng, elements, 0), ACL_BF16);
            for (int64_t position = 0; position < elements; ++position) {
                c.bits = base;
                c.bits[static_cast<size_t>(position)] = 0x7f91u;
                if (position % 3 == 0) c.bits[static_cast<size_t>((position * 7 + 5) % elements)] = 0xffc1u;
                c.indexType = position % 2 ? ACL_INT64 : ACL_INT32;
                test_support::checkArgmaxForward(c, kDenseRows, 1);
                if (HasFailure()) return;
            }
            poolgradRunReport report{};
            ASSERT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
            EXPECT_NE(std::string(report.plan).find("bfloat16 rows in place"), std::string::npos) << report.plan;
        }
    }
}

TEST(ArgmaxForwardVectorSearch, RunsOfOutputRowsFollowAdaptiveHeightWindows) {
    // Rows read in place are searched a run of output rows at a time, each run's rows moved by one fixed step.
    // Adaptive heights break the runs: 10 -> 4 has windows of 3 rows starting at 0, 2, 5, 7 (steps 2, 3, 2),
    // 11 -> 4 windows of 3, 4, 4, 3 rows, 9 -> 4 one run of step 2; depth 3 -> 2 overlaps. Widths 64 -> 32
    // (2 wide, stride 2) and 48 -> 48 (1 wide) are read in place; float32 and bfloat16, 1 to 3 threads, every
    // output against the naive adaptive reference, bit for bit.
    std::mt19937_64 rng(31);
    for (const aclDataType type : {ACL_FLOAT, ACL_BF16})
        for (const auto &[inH, inW, outW] : {std::array<int64_t, 3>{10, 64, 32}, {11, 64, 32}, {9, 48, 48}})
            for (const int threads : {1, 2, 3}) {
                SCOPED_TRACE(std::string(type == ACL_FLOAT ? "f32" : "bf16") + " H " + std::to_string(inH) + " W " +
                             std::to_string(inW) + ", " + std::to_string(threads) + " threads");
                const ThreadSetting setting(threads);
                const reference::adaptive::Shape5 shape{1, 3, 3, inH, inW};
                const int64_t count = 3 * 3 * inH * inW;
                TestTensor self({1, 3, 3, inH, inW}, type);
                self.setValues(tieHeavyData(rng, count, 0.01));
                std::vector<float> rounded(static_cast<size_t>(count));
                for (int64_t i = 0; i < count; ++i)
                    rounded[static_cast<size_t>(i)] =
                        reference::elementValue(static_cast<uint32_t>(self.bitsAt(i)), elementType(type));
                const reference::adaptive::ForwardResult expected =
                    reference::adaptive::forward(rounded, shape, {2, 4, outW});
                TestTensor out({1, 3, 2, 4, outW}, type), indices({1, 3, 2, 4, outW}, ACL_INT64);
                out.poison();
                indices.poison();
                const std::vector<int64_t> sizes{2, 4, outW};
                aclIntArray *outputSize = aclCreateIntArray(sizes.data(), 3);
                ASSERT_EQ(poolgradForceImplementation(kDenseRows), ACL_SUCCESS);
                const test_support::TwoPhaseStatus status = test_support::runTwoPhase(
                    [&](uint64_t *workspaceSize, aclOpExecutor **executor) {
                        return aclnnAdaptiveMaxPool3dGetWorkspaceSize(self, outputSize, out, indices, workspaceSize,
                                                                      executor);
                    },
                    aclnnAdaptiveMaxPool3d);
                aclDestroyIntArray(outputSize);
                ASSERT_EQ(status.phaseTwo, 0) << status.message;
                poolgradRunReport report{};
                ASSERT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
                ASSERT_STREQ(report.implementation, kDenseRows);
                EXPECT_NE(std::string(report.plan).find("in place"), std::string::npos) << report.plan;
                for (int64_t q = 0; q < out.elementCount(); ++q) {
                    const int64_t selected = expected.selected[static_cast<size_t>(q)];
                    ASSERT_EQ(indices.at(q), expected.indices[static_cast<size_t>(q)]) << "output " << q;
                    ASSERT_EQ(out.bitsAt(q), self.bitsAt(selected)) << "output " << q;
                }
            }
}

TEST(ArgmaxForwardVectorSearch, ChannelsLastSixteenBitRowsAgreeWithTheReferenceOnEveryTarget) {
    // Channels-last 16-bit rows are searched as float32 ones, each load widened in the register: 1 to 70
    // channels, which leave every kind of remainder.
    checkSixteenBitRandomProblems(20261207, kChannelsLast, true, 70, 20, 60, 12);
}

// 16-bit patterns at the edges of the integer order the channels-last search compares: both zeros, the smallest
// subnormals (keys +-1), the largest finite values and the infinities, a few ties; NaNs of either sign
// (a positive NaN outranks every key, a negative one falls below -inf's) where nanChance says.
std::vector<uint32_t> keyEdgeBits(std::mt19937_64 &rng, int64_t count, aclDataType type, double nanChance) {
    const bool half = type == ACL_FLOAT16;
    const std::vector<uint32_t> pool =
        half ? std::vector<uint32_t>{0x0000, 0x8000, 0x0001, 0x8001, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x3c00, 0xbc00}
             : std::vector<uint32_t>{0x0000, 0x8000, 0x0001, 0x8001, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x3f80, 0xbf80};
    const uint32_t nans[] = {half ? 0x7e00u : 0x7fc0u, half ? 0xfe01u : 0xffc1u, half ? 0x7d23u : 0x7f91u,
                             half ? 0xffffu : 0xffffu};
    std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
    std::uniform_int_distribution<int> pickNaN(0, 3);
    std::uniform_real_distribution<double> unit(0, 1);
    std::vector<uint32_t> bits(static_cast<size_t>(count));
    for (uint32_t &b : bits) b = unit(rng) < nanChance ? nans[pickNaN(rng)] : pool[pick(rng)];
    return bits;
}

TEST(ArgmaxForwardVectorSearch, ChannelsLastSixteenBitIntegerOrderOnEveryTarget) {
    // Channels-last float16 and bfloat16 rows of two or more float32 vectors of channels compare the values as
    // integers (sign and magnitude turned into two's complement: -0 and +0 both 0) by vectors of twice the
    // channels; windows holding a NaN are searched again on float32 with the NaN rule. 64 and 48 channels
    // (a pair of vectors and a rest on AVX-512), 3x3 stride-2 windows with padding and 2x2 stride 2, data at the
    // edges of the order (+-0 ties, +-smallest subnormals, +-largest finite, +-inf), without NaNs and with NaNs
    // of both signs; every value the bits of the element its index names.
    std::mt19937_64 rng(37);
    const int64_t targets[] = {HWY_STATIC_TARGET, HWY_AVX3, HWY_AVX2, HWY_SSE4};
    for (const int64_t target : targets) {
        if (!test_support::targetDispatchable(target)) continue;
        const test_support::HighwayTargetMock mock(target);
        for (const aclDataType type : {ACL_FLOAT16, ACL_BF16})
            for (const int64_t channels : {64, 48})
                for (const bool threeByThree : {true, false})
                    for (const double nanChance : {0.0, 0.02}) {
                        SCOPED_TRACE(std::string(hwy::TargetName(target)) + (type == ACL_BF16 ? " bf16 " : " f16 ") +
                                     std::to_string(channels) + " channels" + (threeByThree ? " 3x3 s2" : " 2x2 s2") +
                                     (nanChance > 0 ? " with NaNs" : ""));
                        test_support::ArgmaxForwardCase c;
                        c.valueType = type;
                        c.channelsLast = true;
                        c.indexType = nanChance > 0 ? ACL_INT64 : ACL_INT32;
                        c.input = {2, channels, 1, 6, 9};
                        c.params.kernel = {1, threeByThree ? 3 : 2, threeByThree ? 3 : 2};
                        c.params.stride = {1, 2, 2};
                        c.params.padding = {0, threeByThree ? 1 : 0, threeByThree ? 1 : 0};
                        c.bits = keyEdgeBits(rng, 2 * channels * 6 * 9, type, nanChance);
                        for (const int threads : {1, 2}) test_support::checkArgmaxForward(c, kChannelsLast, threads);
                        if (HasFailure()) return;
                        poolgradRunReport report{};
                        ASSERT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
                        EXPECT_NE(std::string(report.plan).find("compared as integers"), std::string::npos)
                            << report.plan;
                    }
    }
}

TEST(ArgmaxForwardVectorSearch, ChannelsLastSixteenBitTapsAFullLabelApart) {
    // A window's taps are labelled by their offset from its first position in 16 bits: width windows of 2 taps
    // dilated 32767 apart fit (the integer search), 32768 apart do not (the float32 search takes the window);
    // ties between the two taps and +-0 decide which one wins. 32 channels, one row, bfloat16 and float16.
    std::mt19937_64 rng(41);
    for (const aclDataType type : {ACL_FLOAT16, ACL_BF16})
        for (const int64_t dilation : {32767, 32768}) {
            SCOPED_TRACE(std::string(type == ACL_BF16 ? "bf16" : "f16") + " dilation " + std::to_string(dilation));
            test_support::ArgmaxForwardCase c;
            c.valueType = type;
            c.channelsLast = true;
            c.input = {1, 32, 1, 1, dilation + 3};
            c.params.kernel = {1, 1, 2};
            c.params.dilation = {1, 1, dilation};
            c.bits = keyEdgeBits(rng, 32 * (dilation + 3), type, 0.0);
            test_support::checkArgmaxForward(c, kChannelsLast, 1);
            if (HasFailure()) return;
        }
}

TEST(ArgmaxForwardVectorSearch, ChannelsLastSixteenBitSignallingNaNInEveryChannel) {
    // A signalling NaN moved over every element of 3x5 positions of 37 channels (two vectors and a rest on every
    // target): the vector that holds it is copied from the input, and the output keeps its bits.
    std::mt19937_64 rng(29);
    for (const aclDataType type : {ACL_FLOAT16, ACL_BF16}) {
        test_support::ArgmaxForwardCase c;
        c.valueType = type;
        c.channelsLast = true;
        c.input = {1, 37, 1, 3, 5};
        c.params.kernel = {1, 2, 3};
        c.params.stride = {1, 1, 2};
        c.params.padding = {0, 0, 1};
        const std::vector<uint32_t> base =
            test_support::sixteenBitPatterns(test_support::tieHeavyBits(rng, 37 * 15, 0), type);
        const uint32_t signalling = type == ACL_FLOAT16 ? 0x7d23u : 0x7f91u;
        for (int64_t position = 0; position < 37 * 15; ++position) {
            c.bits = base;
            c.bits[static_cast<size_t>(position)] = signalling;
            test_support::checkArgmaxForward(c, kChannelsLast, 1);
            if (HasFailure()) return;
        }
    }
}

TEST(ArgmaxForwardVectorSearch, ChannelsLastSixteenBitNaNOnAxesOfOneWithAnyStride) {
    // A size-1 axis may carry any stride (0 here, as adapters pass it): an element copied by its flat index
    // must be found through the real strides. Planes of 7x1 and 1x7 positions of 3 channels, a signalling NaN
    // moved over every element.
    std::mt19937_64 rng(31);
    for (const aclDataType type : {ACL_FLOAT16, ACL_BF16})
        for (const bool tall : {true, false}) {
            test_support::ArgmaxForwardCase c;
            c.valueType = type;
            c.channelsLast = true;
            c.input = {1, 3, 1, tall ? 7 : 1, tall ? 1 : 7};
            c.inputStrides = tall ? std::vector<int64_t>{21, 1, 0, 3, 0} : std::vector<int64_t>{21, 1, 0, 0, 3};
            c.params.kernel = {1, tall ? 3 : 1, tall ? 1 : 3};
            c.params.stride = {1, tall ? 2 : 1, tall ? 1 : 2};
            const std::vector<uint32_t> base =
                test_support::sixteenBitPatterns(test_support::tieHeavyBits(rng, 21, 0), type);
            const uint32_t signalling = type == ACL_FLOAT16 ? 0x7d23u : 0x7f91u;
            for (int64_t position = 0; position < 21; ++position) {
                c.bits = base;
                c.bits[static_cast<size_t>(position)] = signalling;
                test_support::checkArgmaxForward(c, kChannelsLast, 1);
                if (HasFailure()) return;
            }
        }
}

}  // namespace
