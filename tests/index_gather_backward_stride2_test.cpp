// cpu_index_gather_backward_stride2, forced: windows three wide at stride 2 along W (padding 0 and 1, ceil
// mode, adaptive W = 2*Wo + 1) with depth or height windows that overlap pairwise, touch or are 1 wide;
// tie-heavy inputs (small integers, so neighbouring windows pick the same element and up to four
// gradients meet in one sum), NaN with payloads, -0, Inf and far-apart magnitudes (the sums depend on their
// order), -1 indices, float32/float16/bfloat16, rows of partial and whole vectors, 1, 2 and 3
// threads with the planes split (so that a block may start on a row of either parity). Each run is the kernel's own (no
// fallback), bit for bit equal to the naive reference and to the scatter reference including NaN payloads, with
// gradInput poisoned before and nothing outside it touched. Indices outside their own window hand the problem to the
// scatter reference; a bad index gives 161002 and a zero gradInput.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hwy/targets.h"
#include "poolgrad/poolgrad.h"
#include "support/highway_target_mock.h"
#include "support/index_backward_case.h"
#include "support/host_vectors.h"

namespace {

using test_support::IndexBackwardCase;
using test_support::IndexBackwardRun;
using test_support::ThreadSetting;
using Geometry = test_support::IndexGeometry;

constexpr const char *kStride2Gather = "cpu_index_gather_backward_stride2";

const Geometry geometries[] = {
    {"2-D 3x3 stride 2 pad 1", {2, 3, 1, 13, 70}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}},
    {"2-D 3x3 stride 2 pad 1, width 32 (whole vectors)", {1, 2, 1, 8, 32}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}},
    {"2-D 3x3 stride 2, no padding, ceil mode", {1, 3, 1, 10, 41}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, {1, 1, 1}, true},
    {"3-D 3x3x3, depth stride 3, pad 1", {2, 2, 7, 9, 35}, {3, 3, 3}, {3, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {"3-D 3x3x3, depth stride 3, ceil mode, narrow rows",
     {1, 2, 6, 6, 6},
     {3, 3, 3},
     {3, 2, 2},
     {0, 1, 1},
     {1, 1, 1},
     true},
    {"3-D, overlapping depth, disjoint height", {1, 2, 7, 6, 40}, {3, 2, 3}, {2, 2, 2}, {1, 0, 1}, {1, 1, 1}},
    {"2x2 at stride 2 over depth and height", {1, 3, 4, 6, 67}, {2, 2, 3}, {2, 2, 2}, {0, 0, 1}, {1, 1, 1}},
    {"height 4 at stride 2, width 3 at stride 2", {1, 2, 1, 11, 50}, {1, 4, 3}, {1, 2, 2}, {0, 2, 1}, {1, 1, 1}},
    {"adaptive, W = 2*Wo + 1", {1, 2, 3, 10, 33}, {}, {}, {}, {}, false, true, {2, 5, 16}},
};

IndexBackwardCase makeCase(const Geometry &geometry, aclDataType type, aclDataType indexType, uint64_t seed) {
    return test_support::indexCaseOf(geometry, type, indexType, test_support::IndexLayout::Contiguous, seed);
}

TEST(IndexGatherBackwardStride2, MatchesTheReferencesBitForBitWithoutFallback) {
    uint64_t seed = 100;
    for (const Geometry &geometry : geometries)
        for (const aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
            for (const aclDataType indexType : {ACL_INT32, ACL_INT64})
                for (const int threads : {1, 2, 3}) {
                    const IndexBackwardCase problem = makeCase(geometry, type, indexType, ++seed);
                    SCOPED_TRACE(std::string(geometry.label) + ", " + problem.describe() + ", threads " +
                                 std::to_string(threads));
                    ThreadSetting setting(threads, 1);
                    test_support::expectOwnRunMatchesReferences(problem, kStride2Gather);
                }
}

// The instruction sets below the best one take other paths (8 or 4 lanes, copies instead of masked loads at
// a row's ends, float16 rounded through a row of sums where the hardware cannot, one lane); each this CPU
// has makes the same bits, chosen through Highway's dispatch, with rows made in pairs and alone.
TEST(IndexGatherBackwardStride2, EveryInstructionSetGivesTheSameBits) {
    const std::pair<int64_t, const char *> targets[] = {
        {HWY_AVX2, " 8 lanes"}, {HWY_SSE4, " 4 lanes"}, {HWY_SCALAR, " 1 lanes"}};
    uint64_t seed = 300;
    for (const auto &[target, lanes] : targets) {
        if (!test_support::targetDispatchable(target)) continue;
        test_support::HighwayTargetMock mock(target);
        for (const Geometry &geometry : {geometries[0], geometries[2], geometries[3]})
            for (const aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
                for (const int threads : {1, 2, 3}) {
                    const IndexBackwardCase problem = makeCase(geometry, type, ACL_INT32, ++seed);
                    SCOPED_TRACE(std::string(hwy::TargetName(target)) + ", " + geometry.label + ", " +
                                 problem.describe() + ", threads " + std::to_string(threads));
                    ThreadSetting setting(threads, 1);
                    const IndexBackwardRun run = test_support::runIndexBackward(problem, kStride2Gather);
                    ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
                    EXPECT_EQ(run.implementation, kStride2Gather);
                    EXPECT_NE(run.plan.find(lanes), std::string::npos) << run.plan;
                    EXPECT_EQ(run.fallback, "");
                    test_support::expectGradInputBits(problem.expectedBits(), run, type, false);
                }
    }
}

// 3x5 planes, 3x3 windows at stride 2 with padding 1: outputs (oh, ow) in 2x3, and element (1, 1) lies
// in the four windows (0,0) (0,1) (1,0) (1,1). All four pick it; in increasing output order
// ((0 + 1) + 2^24) + 1 rounds twice to 2^24, minus 2^24 gives 0 (in any other order the two 1s meet, or meet
// 2^24 at another moment: 2 or 1). One plane is cut in two blocks for the one thread (row 1 made alone,
// from two output rows), two planes are whole (rows 0 and 1 made as a pair); float32 and bfloat16 (whose
// sums round the same way here: 0.5 and the exact 0 are bfloat16 values).
TEST(IndexGatherBackwardStride2, SumsFourContributionsInIncreasingOutputOrder) {
    ThreadSetting setting(1, 0);
    for (const int64_t planes : {1, 2})
        for (const aclDataType type : {ACL_FLOAT, ACL_BF16}) {
            SCOPED_TRACE(std::to_string(planes) + " planes, type " + std::to_string(type));
            IndexBackwardCase problem;
            problem.inputShape = {1, planes, 1, 3, 5};
            problem.params.kernel = {1, 3, 3};
            problem.params.stride = {1, 2, 2};
            problem.params.padding = {0, 1, 1};
            problem.type = type;
            problem.prepare();
            ASSERT_EQ(problem.gradOutput.size(), static_cast<size_t>(6 * planes));  // (0,0) (0,1) (0,2) (1,0) ...
            const int64_t shared = 1 * 5 + 1;
            const float big = std::ldexp(1.0f, 24);
            for (int64_t plane = 0; plane < planes; ++plane)
                for (size_t q = 0; q < 6; ++q) {
                    problem.indices[static_cast<size_t>(plane) * 6 + q] =
                        std::array<int64_t, 6>{shared, shared, 4, shared, shared, 2 * 5 + 4}[q];
                    problem.gradOutput[static_cast<size_t>(plane) * 6 + q] =
                        std::array<float, 6>{1.0f, big, -0.0f, 1.0f, -big, 0.5f}[q];
                }
            const IndexBackwardRun run = test_support::runIndexBackward(problem, kStride2Gather);
            ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
            EXPECT_EQ(run.implementation, kStride2Gather);
            EXPECT_EQ(run.fallback, "");
            EXPECT_NE(run.plan.find(planes == 1 ? "blocks=1x2" : "blocks=2x1"), std::string::npos) << run.plan;
            // 0.5 at element 14 of each plane; element 4 gets -0 as +0; element 6 gets exactly +0.
            std::vector<uint64_t> expected(static_cast<size_t>(15 * planes), 0);
            for (int64_t plane = 0; plane < planes; ++plane)
                expected[static_cast<size_t>(plane * 15 + 2 * 5 + 4)] = type == ACL_FLOAT ? 0x3f000000 : 0x3f00;
            EXPECT_EQ(run.gradInputBits, expected);
        }
}

// bfloat16 sums that are subnormal come out exact. AVX512_BF16's rounding instruction, which the kernel uses
// where the CPU has it, reads and writes subnormals as zero, so a vector holding one must take the integer
// rounding. Planes with many subnormal gradients (and the smallest normals of either sign, whose sums land
// among the subnormals), with a few, and with none (rounding, NaN payloads, Inf, large values), so that
// vectors take both roundings; each run bit for bit equal to both references. Planes with no subnormal
// gradient skip the look for subnormal sums when every gradient is zero or has an exponent field of 8 or
// more (bfloat16SumsStayNormal): planes of exponent field 7 only (near-equal values of either sign, whose
// sums are multiples of 2^-127, many of them subnormal) must still take the look, planes of exponent field 8
// (sums zero or at least 2^-126) may skip it. The look comes after a block is made (it is made again where
// a sum may be subnormal), so each run is also made with streaming stores, whose second writes of a row must
// land over the first.
// float32 rows that are not whole cache lines but pairs of rows are (40, 56 and 24 columns: 160, 224 and 96
// bytes), 3x3 stride 2 padding 1 along H and W (rows 2k and 2k + 1 made together), with every output made to
// stream: with 16 lanes the pairs' lines are formed in registers, with fewer (the mocked targets) in a staging
// row, and streamed. The split on 3 threads may start a block on an odd row, where the plan stores plainly; at
// least the others stream the pairs.
TEST(IndexGatherBackwardStride2, StreamedRowPairsGiveTheSameBits) {
    const Geometry pairGeometries[] = {
        {"rows of 40", {1, 3, 1, 12, 40}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}},
        {"rows of 56", {2, 2, 1, 14, 56}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}},
        {"3-D, depth windows of 1, rows of 24", {1, 2, 3, 8, 24}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}},
    };
    ASSERT_EQ(poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_ALWAYS), ACL_SUCCESS);
    uint64_t seed = 700;
    int64_t pairRuns = 0;
    for (const Geometry &geometry : pairGeometries)
        for (const aclDataType indexType : {ACL_INT32, ACL_INT64})
            for (const int threads : {1, 2, 3}) {
                const IndexBackwardCase problem = makeCase(geometry, ACL_FLOAT, indexType, ++seed);
                SCOPED_TRACE(std::string(geometry.label) + ", " + problem.describe() + ", threads " +
                             std::to_string(threads));
                ThreadSetting setting(threads, 1);
                test_support::expectOwnRunMatchesReferences(problem, kStride2Gather);
                pairRuns += test_support::runIndexBackward(problem, kStride2Gather).plan.find("streaming row pairs") !=
                            std::string::npos;
            }
    // The instruction sets below AVX-512 make the pairs in a staging row and stream them from there.
    for (const int64_t target : {int64_t{HWY_AVX2}, int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
        if (!test_support::targetDispatchable(target)) continue;
        test_support::HighwayTargetMock mock(target);
        for (const int threads : {1, 2}) {
            const IndexBackwardCase problem = makeCase(pairGeometries[1], ACL_FLOAT, ACL_INT32, ++seed);
            SCOPED_TRACE(std::string(hwy::TargetName(target)) + ", threads " + std::to_string(threads));
            ThreadSetting setting(threads, 1);
            const IndexBackwardRun run = test_support::runIndexBackward(problem, kStride2Gather);
            ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
            EXPECT_NE(run.plan.find("streaming row pairs"), std::string::npos) << run.plan;
            EXPECT_EQ(run.fallback, "");
            test_support::expectGradInputBits(problem.expectedBits(), run, ACL_FLOAT, false);
        }
    }
    EXPECT_EQ(poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT), ACL_SUCCESS);
    EXPECT_GE(pairRuns, 12);
}

TEST(IndexGatherBackwardStride2, BFloat16SubnormalSumsAreExact) {
    uint64_t seed = 500;
    int64_t subnormalResults = 0, otherResults = 0, subnormalFromExponentSeven = 0, streamedRuns = 0;
    for (const int32_t streaming : {POOLGRAD_STREAMING_STORES_DEFAULT, POOLGRAD_STREAMING_STORES_ALWAYS})
    for (const Geometry &geometry : {geometries[0], geometries[1], geometries[3]})
        for (const int threads : {1, 2}) {
            ASSERT_EQ(poolgradSetStreamingStores(streaming), ACL_SUCCESS);
            IndexBackwardCase problem = makeCase(geometry, ACL_BF16, ACL_INT32, ++seed);
            std::mt19937_64 rng(seed);
            const auto outputPlane =
                static_cast<size_t>(problem.outputShape[2] * problem.outputShape[3] * problem.outputShape[4]);
            const auto bfloat16 = [](uint32_t bits) {
                float value;
                const uint32_t wide = bits << 16;
                std::memcpy(&value, &wide, sizeof value);
                return value;
            };
            for (size_t q = 0; q < problem.gradOutput.size(); ++q) {
                const size_t kind = q / outputPlane % 5;
                const double roll = std::uniform_real_distribution<double>(0, 1)(rng);
                const uint32_t sign = (rng() & 1) << 15, low = static_cast<uint32_t>(rng() & 0x7f);
                float &value = problem.gradOutput[q];
                if (kind >= 3) {  // exponent field 7 or 8, mantissas 0..3: near-equal values of either sign
                    value = bfloat16(sign | (kind == 3 ? 7u : 8u) << 7 | (low & 3));
                    continue;
                }
                const double tinyShare = std::array<double, 3>{0.6, 0.03, 0.0}[kind];
                if (roll < tinyShare * 0.6)
                    value = bfloat16(sign | std::max<uint32_t>(low, 1));  // subnormal
                else if (roll < tinyShare)
                    value = bfloat16(sign | 0x0080 | low);  // the smallest normals
                else if (roll < tinyShare + 0.05)
                    value = bfloat16(sign | 0x7f80 | std::max<uint32_t>(low, 1));  // NaN, signalling or quiet
                else if (roll < tinyShare + 0.1)
                    value = bfloat16(sign | (rng() % 2 == 0 ? 0x7f80 : 0x7f00 | low));  // Inf, 2^127 and up
            }
            SCOPED_TRACE(std::string(geometry.label) + ", threads " + std::to_string(threads) +
                         (streaming == POOLGRAD_STREAMING_STORES_ALWAYS ? ", streaming" : ""));
            ThreadSetting setting(threads, 1);
            test_support::expectOwnRunMatchesReferences(problem, kStride2Gather);
            const IndexBackwardRun run = test_support::runIndexBackward(problem, kStride2Gather);
            streamedRuns += run.plan.find("streaming") != std::string::npos;
            const std::vector<uint64_t> expected = problem.expectedBits();
            const auto inputPlane =
                static_cast<size_t>(problem.inputShape[2] * problem.inputShape[3] * problem.inputShape[4]);
            for (size_t i = 0; i < expected.size(); ++i) {
                const bool subnormal = (expected[i] & 0x7f80) == 0 && (expected[i] & 0x7f) != 0;
                ++(subnormal ? subnormalResults : otherResults);
                subnormalFromExponentSeven += subnormal && i / inputPlane % 5 == 3;
            }
        }
    EXPECT_GT(subnormalResults, 100);
    EXPECT_GT(otherResults, 100);
    EXPECT_GT(subnormalFromExponentSeven, 20);
    EXPECT_EQ(poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT), ACL_SUCCESS);
    EXPECT_GE(streamedRuns, 2);  // width 32: whole lines of bfloat16
}

TEST(IndexGatherBackwardStride2, AnIndexOutsideItsWindowHandsOverToTheScatter) {
    for (const int threads : {1, 2, 3}) {
        ThreadSetting setting(threads, 1);
        for (const size_t output : {size_t{0}, size_t{1}}) {
            // INT64 indices take the same gather after their conversion.
            IndexBackwardCase problem = makeCase(geometries[0], ACL_FLOAT, output == 0 ? ACL_INT32 : ACL_INT64, 7);
            // Output 0's window covers columns 0..1 and output 1's columns 1..3 of rows 0..1: row 5, column 69
            // and row 0, column 69 are inside the plane but outside those windows.
            problem.indices[output] = output == 0 ? 5 * 70 + 69 : 70 - 1;
            test_support::expectStrayIndexHandover(problem, test_support::runIndexBackward(problem, kStride2Gather),
                                                   kStride2Gather);
        }
    }
}

TEST(IndexGatherBackwardStride2, AnIndexOnAColumnPastTheRowIsStrayToo) {
    // Ceil mode clips the last window at the row's end; the partial last block still compares it with the
    // column after the end, whose position is the next row's first element (row 1 lies in that window's
    // rows, column 0 does not). Matching there would lose the contribution and pass the count.
    const Geometry clipped[] = {
        {"no padding, width 40", {1, 1, 1, 6, 40}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, {1, 1, 1}, true},
        {"padding 1, width 39", {1, 1, 1, 6, 39}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}, true},
    };
    ThreadSetting setting(1, 0);
    for (const Geometry &geometry : clipped) {
        SCOPED_TRACE(geometry.label);
        IndexBackwardCase problem = makeCase(geometry, ACL_FLOAT, ACL_INT32, 8);
        const int64_t width = geometry.input[4], outputWidth = problem.outputShape[4];
        problem.indices[static_cast<size_t>(outputWidth - 1)] = width;  // row 1, column 0
        test_support::expectStrayIndexHandover(problem, test_support::runIndexBackward(problem, kStride2Gather),
                                               kStride2Gather);
    }
}

// A row's first and last blocks read the windows past the row's ends from the neighbouring output rows
// (where the plane holds them) and must match nothing there. Padding 1, width 32: the window after row q's
// last is row q + 1's first, whose index is made to point at row 2q + 1's last column (inside the rows the
// block makes, outside that window). No padding, width 33 (pairs of rows 2q + 1, 2q + 2): the window before
// row q's first is row q - 1's last, made to point at row 2q + 1's first column (q = 1 and 2: where the
// thread's blocks split the plane, rows 3 and 4 are made apart). Matched there, the contribution would be
// lost and the count would pass. On every instruction set this CPU has (8, 4 and 1 lanes below
// the best).
TEST(IndexGatherBackwardStride2, WindowsPastARowsEndsMatchNothing) {
    struct StrayCase {
        Geometry geometry;
        size_t output;
        int64_t index;
    };
    const StrayCase cases[] = {
        {{"padding 1, width 32", {1, 1, 1, 8, 32}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}}, 16, 1 * 32 + 31},
        {{"no padding, width 33", {1, 1, 1, 8, 33}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, {1, 1, 1}}, 15, 3 * 33},
        {{"no padding, width 33", {1, 1, 1, 8, 33}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, {1, 1, 1}}, 31, 5 * 33},
    };
    ThreadSetting setting(1, 0);
    for (const int64_t target : {int64_t{0}, int64_t{HWY_AVX2}, int64_t{HWY_SSE4}, int64_t{HWY_SCALAR}}) {
        if (target != 0 && !test_support::targetDispatchable(target)) continue;
        std::optional<test_support::HighwayTargetMock> mock;
        if (target != 0) mock.emplace(target);
        for (const StrayCase &stray : cases) {
            SCOPED_TRACE(std::string(target == 0 ? "best target" : hwy::TargetName(target)) + ", " +
                         stray.geometry.label);
            IndexBackwardCase problem = makeCase(stray.geometry, ACL_FLOAT, ACL_INT32, 12);
            // Unchanged, the case is the gather's own.
            const IndexBackwardRun own = test_support::runIndexBackward(problem, kStride2Gather);
            ASSERT_EQ(own.status.phaseTwo, 0) << own.message;
            EXPECT_EQ(own.fallback, "");
            problem.indices[stray.output] = stray.index;
            test_support::expectStrayIndexHandover(problem, test_support::runIndexBackward(problem, kStride2Gather),
                                                   kStride2Gather);
        }
    }
}

TEST(IndexGatherBackwardStride2, ABadIndexIs161002WithAZeroGradInput) {
    ThreadSetting setting(2, 1);
    for (const int64_t bad : {int64_t{-2}, int64_t{13 * 70}, int64_t{INT32_MAX}}) {
        IndexBackwardCase problem = makeCase(geometries[0], ACL_FLOAT, ACL_INT32, 9);
        problem.indices[17] = bad;
        test_support::expectBadIndexZeroes(test_support::runIndexBackward(problem, kStride2Gather), bad);
    }
    // INT64: beyond int32 both ways (saturated by the conversion, so they match nothing), and inside it.
    for (const int64_t bad : {int64_t{1} << 32, -(int64_t{1} << 40), int64_t{-2}, int64_t{13 * 70}}) {
        IndexBackwardCase problem = makeCase(geometries[0], ACL_FLOAT, ACL_INT64, 10);
        problem.indices[17] = bad;
        test_support::expectBadIndexZeroes(test_support::runIndexBackward(problem, kStride2Gather), bad);
    }
}

}  // namespace
