// cpu_argmax_forward_stride2 (windows three wide at stride 2 along W; row winners found once per input row, then
// combined across the window's rows), forced and checked through poolgradGetLastRunReport that it ran: exact small
// cases (ties across rows and columns, -0/+0, the last NaN across rows, all -inf, clipped edges), a NaN moved over
// every column of every row (both passes' NaN detectors), random 2-D and 3-D problems on tie-heavy data with NaN
// payloads (quiet, signalling, negative) and huge values (the detectors' overflow false alarms), INT32 and INT64
// indices, 1-3 threads, and the values-only aclnnMaxPoolV3WithAttrs (forced, and unforced: passed by as a 2-D problem,
// to the 3x3 search; the row search forced), all against the naive reference of tests/reference. Outputs are poisoned;
// values are compared bit for bit with the input element the reference names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool_v3_with_attrs.h"
#include "poolgrad/poolgrad.h"
#include "reference/naive_pooling.h"
#include "support/argmax_forward_case.h"
#include "support/max_pool_v3_run.h"
#include "support/test_tensor.h"

namespace {

using reference::Shape5;
using test_support::ArgmaxForwardCase;
using test_support::TestTensor;
using test_support::tieHeavyBits;
using Case = ArgmaxForwardCase;

constexpr const char *kStride2 = "cpu_argmax_forward_stride2";
constexpr float kInf = std::numeric_limits<float>::infinity();

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

uint32_t bitsOf(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

float floatOf(uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

std::vector<int64_t> checkCase(const Case &c, int threads) {
    return test_support::checkArgmaxForward(c, kStride2, threads);
}

reference::Pool3dParams params2d(int64_t padH, int64_t padW) { return test_support::threeByThreeStride2(padH, padW); }

// ------------------------------------------------------------------------------------------------ exact cases

TEST(ArgmaxForwardStride2, ExactWindowsAcrossRows) {
    // 3 rows of 35 columns, k3 s2 p1: 2x18 outputs (16 whole windows per row, the first and the last
    // clipped). Output row 0 covers rows 0-1, output row 1 rows 1-2 (row 1 is searched once for both).
    // Without the NaNs and -infs every vector stays with the fast search (one compare); with them the
    // vectors holding them are searched again with the NaN rule.
    for (const bool special : {false, true}) {
        SCOPED_TRACE(special ? "with NaN and -inf" : "finite");
        Case c;
        c.input = {1, 1, 1, 3, 35};
        c.params = params2d(1, 1);
        c.bits.assign(3 * 35, bitsOf(0.0f));
        const auto at = [&](int64_t h, int64_t w) -> uint32_t & { return c.bits[static_cast<size_t>(h * 35 + w)]; };
        // Window (0, 3) = rows 0-1, columns 5-7: 4 at (0,7) and (1,5): the first in scan order, row 0.
        at(0, 7) = bitsOf(4);
        at(1, 5) = bitsOf(4);
        // Window (0, 4) = rows 0-1, columns 7-9: 4 at (0,7) again, 4 at (0,9) and 4 at (1,8): (0,7).
        at(0, 9) = at(1, 8) = bitsOf(4);
        // Window (1, 5) = rows 1-2, columns 9-11: -0 at (1,9) before +0 elsewhere: -0 kept (not greater).
        at(1, 9) = bitsOf(-0.0f);
        // Window (1, 6) = rows 1-2, columns 11-13: -1 everywhere but 2 at (2,12) and (2,13): (2,12).
        for (int64_t h = 1; h <= 2; ++h)
            for (int64_t w = 11; w <= 13; ++w) at(h, w) = bitsOf(-1);
        at(2, 12) = at(2, 13) = bitsOf(2);
        // Window (0, 8) = rows 0-1, columns 15-17: NaNs at (0,15) and (1,16): the last in scan order, (1,16);
        // finite: 5 at both, the first.
        at(0, 15) = special ? 0x7fc00001u : bitsOf(5);
        at(1, 16) = special ? 0xff800002u : bitsOf(5);  // signalling, negative: its own bits
        // Window (1, 11) = rows 1-2, columns 21-23: all -inf (finite: all -3): the first element (1,21).
        for (int64_t h = 1; h <= 2; ++h)
            for (int64_t w = 21; w <= 23; ++w) at(h, w) = bitsOf(special ? -kInf : -3.0f);
        // Window (0, 0) = rows 0-1, columns 0-1 (clipped): 7 at (1,0) and (1,1): the first, 35.
        at(1, 0) = at(1, 1) = bitsOf(7);
        // Window (1, 17) = rows 1-2, columns 33-34 (clipped: column 35 is padding): 9 at (2,34).
        at(2, 34) = bitsOf(9);
        for (const int threads : {1, 2}) {
            const std::vector<int64_t> indices = checkCase(c, threads);
            ASSERT_EQ(indices.size(), 36u);
            EXPECT_EQ(indices[3], 7);
            EXPECT_EQ(indices[4], 7);
            EXPECT_EQ(indices[18 + 5], 35 + 9);
            EXPECT_EQ(indices[18 + 6], 70 + 12);
            EXPECT_EQ(indices[8], special ? 35 + 16 : 15);
            EXPECT_EQ(indices[18 + 11], 35 + 21);
            EXPECT_EQ(indices[0], 35);
            EXPECT_EQ(indices[18 + 17], 70 + 34);
        }
    }
}

TEST(ArgmaxForwardStride2, ExactRowWithoutPaddingAndAClippedLastWindow) {
    // One row of 36 columns, k3 s2 p0 with ceil mode: 18 windows, the last (columns 34-35) clipped at the
    // row's end. Rising values: each window's last column; the clipped window's NaN at 34 before 35's 5.
    Case c;
    c.input = {1, 1, 1, 1, 36};
    c.params.kernel = {1, 1, 3};
    c.params.stride = {1, 1, 2};
    c.params.ceilMode = true;
    for (int64_t w = 0; w < 36; ++w) c.bits.push_back(bitsOf(static_cast<float>(w)));
    c.bits[34] = 0x7fc0abcdu;
    c.bits[35] = bitsOf(5);
    c.indexType = ACL_INT64;
    const std::vector<int64_t> indices = checkCase(c, 1);
    ASSERT_EQ(indices.size(), 18u);
    for (int64_t ow = 0; ow < 16; ++ow) EXPECT_EQ(indices[static_cast<size_t>(ow)], 2 * ow + 2) << ow;
    EXPECT_EQ(indices[16], 34);  // columns 32-34: the NaN
    EXPECT_EQ(indices[17], 34);  // columns 34-35: the NaN, not the later 5
}

// ------------------------------------------------------------------------------------------------ NaN placement

TEST(ArgmaxForwardStride2, NaNInEveryColumnOfEveryRow) {
    // One NaN (every third time two) moved over all columns of 5 rows of 41 columns (every lane position of
    // every vector length, both vector edges, the clipped edges), 2-D k3 s2 on tie-heavy planes: the row
    // pass's and the combine pass's detectors must each send their NaN to the NaN rule.
    std::mt19937_64 rng(12);
    for (const int64_t padding : {1, 0}) {
        Case c;
        c.input = {1, 1, 1, 5, 41};
        c.params = params2d(padding, padding);
        const std::vector<uint32_t> base = tieHeavyBits(rng, 5 * 41, 0);
        for (int64_t position = 0; position < 5 * 41; ++position) {
            c.bits = base;
            c.bits[static_cast<size_t>(position)] = 0x7fc00000u + static_cast<uint32_t>(position);
            if (position % 3 == 0) c.bits[static_cast<size_t>((position * 7 + 5) % (5 * 41))] = 0xffc00001u;
            checkCase(c, 1);
            if (HasFailure()) return;
        }
    }
}

// ------------------------------------------------------------------------------------------------ random problems

TEST(ArgmaxForwardStride2, RandomProblemsAgreeWithTheReference) {
    std::mt19937_64 rng(20261202);
    int ran = 0;
    for (int trial = 0; trial < 120; ++trial) {
        auto draw = [&](int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng); };
        Case c;
        c.indexType = trial % 2 ? ACL_INT64 : ACL_INT32;
        reference::Pool3dParams &p = c.params;
        const bool threeD = trial % 3 == 0;
        for (int a = 0; a < 2; ++a) {
            p.kernel[a] = a == 0 && !threeD ? 1 : draw(1, 4);
            p.stride[a] = draw(1, 3);
            p.padding[a] = draw(0, p.kernel[a] / 2);
            p.dilation[a] = draw(0, 3) == 0 ? 2 : 1;
        }
        if (trial % 4 == 1) {  // the benchmarks' windows: 3 at stride 2 along H (and D)
            p.kernel = {threeD ? 3 : 1, 3, 3};
            p.stride = {threeD ? 2 : 1, 2, 2};
            p.padding = {threeD ? 1 : 0, 1, 1};
            p.dilation = {1, 1, 1};
        }
        p.kernel[2] = 3;
        p.stride[2] = 2;
        p.padding[2] = draw(0, 1);
        p.ceilMode = draw(0, 1) == 1;
        c.input = {draw(1, 2), draw(1, 3), threeD ? draw(1, 5) : 1, draw(1, 9), draw(34, 120)};
        if (!test_support::hasOutputs(c.input, c.params)) continue;
        const int64_t count = c.input[0] * c.input[1] * c.input[2] * c.input[3] * c.input[4];
        // A quarter without NaN, and of those half without infinities: the fast search's results stand.
        c.bits = tieHeavyBits(rng, count, trial % 4 == 0 ? 0.0 : 0.02, trial % 5 == 0 ? 0.1 : 0.0, trial % 8 == 0);
        checkCase(c, 1 + trial % 3);
        if (HasFailure()) return;
        ++ran;
    }
    EXPECT_GE(ran, 100);
}

// ------------------------------------------------------------------------------------------------ values only

// The values-only forward of a 3x3 stride 2 problem, forced to `implementation` (nullptr: the dispatch's
// choice), compared bit for bit with the element the reference names; returns the implementation that ran.
std::string checkValueOnlyForward(std::mt19937_64 &rng, int threads, const char *implementation) {
    const ThreadSetting setting(threads);
    const int64_t n = 2, ch = 3, h = 9, w = 47;
    const std::vector<uint32_t> bits = tieHeavyBits(rng, n * ch * h * w, 0.02, 0.05);
    TestTensor x({n, ch, h, w}, ACL_FLOAT);
    std::vector<float> values(bits.size());
    for (size_t i = 0; i < bits.size(); ++i) {
        x.setBits(static_cast<int64_t>(i), bits[i]);
        values[i] = floatOf(bits[i]);
    }
    const reference::ForwardResult expected = reference::maxPool3dWithArgmax(values, {n, ch, 1, h, w}, params2d(1, 1));
    TestTensor y({n, ch, expected.outputShape[3], expected.outputShape[4]}, ACL_FLOAT);
    y.poison();
    EXPECT_EQ(poolgradForceImplementation(implementation), ACL_SUCCESS);
    const max_pool_v3_test::V3Attributes attributes{
        {1, 1, 3, 3}, {1, 1, 2, 2}, "CALCULATED", std::vector<int64_t>{1, 1, 1, 1}, "NCHW", false, false};
    const max_pool_v3_test::V3Status status = max_pool_v3_test::runMaxPoolV3WithAttrs(x, attributes, y);
    EXPECT_EQ(status.phaseTwo, 0) << status.message;
    poolgradRunReport report{};
    EXPECT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
    const int64_t planeIn = h * w, planeOut = expected.outputShape[3] * expected.outputShape[4];
    int failures = 0;
    for (int64_t q = 0; q < y.elementCount() && failures < 5; ++q) {
        // The selected element's own bits (a NaN's payload included).
        const int64_t index = expected.indices[static_cast<size_t>(q)];
        EXPECT_GE(index, 0) << "output " << q;
        if (index < 0) continue;
        const uint32_t wanted = bits[static_cast<size_t>(q / planeOut * planeIn + index)];
        failures += y.bitsAt(q) != wanted;
        EXPECT_EQ(y.bitsAt(q), wanted) << "output " << q << ", " << threads << " threads";
    }
    return report.implementation != nullptr ? report.implementation : "";
}

TEST(ArgmaxForwardStride2, ValueOnlyForwardMatchesTheReference) {
    // aclnnMaxPoolV3WithAttrs writes no indices: both passes without their index blends.
    std::mt19937_64 rng(6);
    for (const int threads : {1, 2, 3}) EXPECT_EQ(checkValueOnlyForward(rng, threads, kStride2), kStride2);
}

TEST(ArgmaxForwardStride2, ValueOnlyForwardIsPassedToThe3x3SearchAndTheRowSearchGivesTheSameBits) {
    // 2-D problems (every values-only forward is one) pass this entry by even for a small input: 3x3 windows at
    // stride 2 go to the 3x3 search (measured fastest since 2026-12-05), and the row search, with its column
    // maxima, forced, gives the same bits.
    std::mt19937_64 rng(7);
    for (const int threads : {1, 2}) {
        EXPECT_EQ(checkValueOnlyForward(rng, threads, nullptr), "cpu_argmax_forward_3x3_stride2");
        EXPECT_EQ(checkValueOnlyForward(rng, threads, "cpu_argmax_forward_dense_rows"),
                  "cpu_argmax_forward_dense_rows");
    }
}

}  // namespace
