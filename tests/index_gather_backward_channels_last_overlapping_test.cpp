// cpu_index_gather_backward_channels_last_overlapping, forced on NDHWC / NHWC views: overlapping windows (3x3x3 and 3x3
// at stride 2 padded, 3x3, 3x3x3 and 5x5 at stride 1 padded, 2 wide at stride 1, dilated, ceil mode, adaptive with more
// outputs than inputs along W), 16, 32, 48 and 64 channels, NaN with payloads, -0 and Inf gradients, -1 indices, 1, 2
// and 3 threads, AVX-512 and AVX2 where the CPU has them (2 to 8 vectors of channels per position), and a gradInput
// larger than 4 MiB (streaming stores), against the naive reference bit for bit and the scatter reference bit for bit
// including NaN payloads. Each run must be the gather's own (no fallback), with gradInput poisoned before and nothing
// outside it touched. Where four windows pick one element, their gradients are added in increasing output order (1 +
// 2^24 + 1 - 2^24 is 0 only in that order). Indices outside their own windows hand the problem to the scatter
// reference; a bad index gives 161002 and a zero gradInput. INT64 indices (converted an output row at a time) too. The
// plan declines 16-bit gradients, other channel counts, 16 channels with more than 4 windows per element, windows that
// do not overlap, more than 27 windows per element (7x7 at stride 1), planar storage and vectors of fewer than 8 lanes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hwy/targets.h"
#include "poolgrad/poolgrad.h"
#include "support/highway_target_mock.h"
#include "support/host_vectors.h"
#include "support/index_backward_case.h"

namespace {

using test_support::IndexBackwardCase;
using test_support::IndexBackwardRun;
using test_support::IndexLayout;
using test_support::ThreadSetting;
using Geometry = test_support::IndexGeometry;

constexpr const char *kGather = "cpu_index_gather_backward_channels_last_overlapping";

const Geometry geometries[] = {
    {"3-D 3x3x3 stride 2 padded, 32 channels", {2, 32, 5, 7, 9}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {"3-D 3x3x3 stride 2 padded, 64 channels", {1, 64, 4, 6, 5}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {"2-D 3x3 stride 2 padded, 64 channels", {2, 64, 1, 9, 8}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}},
    {"2-D 3x3 stride 2, ceil mode, 48 channels", {1, 48, 1, 8, 10}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, {1, 1, 1}, true},
    {"2-D 3x3 stride 1 padded, 64 channels", {2, 64, 1, 7, 9}, {1, 3, 3}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}},
    {"3-D 3x3x3 stride 1 padded, 32 channels", {1, 32, 4, 5, 6}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"2-D 5x5 stride 1 padded, 64 channels", {1, 64, 1, 6, 7}, {1, 5, 5}, {1, 1, 1}, {0, 2, 2}, {1, 1, 1}},
    {"2 wide at stride 1, 48 channels", {2, 48, 3, 4, 6}, {2, 2, 2}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}},
    {"2-D 2 wide at stride 1, 16 channels", {2, 16, 1, 4, 6}, {1, 2, 2}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}},
    {"dilated 2 wide at stride 1 along W, 32 channels", {1, 32, 2, 5, 9}, {1, 1, 2}, {1, 1, 1}, {0, 0, 1}, {1, 1, 2}},
    {"adaptive, 3 inputs to 5 outputs along W, 16 channels", {1, 16, 2, 3, 3}, {}, {}, {}, {}, false, true, {2, 3, 5}},
};

IndexBackwardCase makeCase(const Geometry &geometry, uint64_t seed, aclDataType indexType = ACL_INT32) {
    return test_support::indexCaseOf(geometry, ACL_FLOAT, indexType, IndexLayout::ChannelsLast, seed);
}

// Below AVX2 the plan declines every problem (DeclinesVectorsNarrowerThanEightLanes checks why, on every
// narrower instruction set this CPU has); the other tests need the entry to run.
#define SKIP_BELOW_EIGHT_LANES()                                    \
    if (test_support::hostFloatLanes() < 8)                         \
    GTEST_SKIP() << "vectors of " << test_support::hostFloatLanes() \
                 << " float32 lanes here: the overlapping gather takes problems with 8 or 16 lanes only"

void expectEveryGeometryMatchesTheReferences() {
    uint64_t seed = 1;
    for (const Geometry &geometry : geometries)
        for (const aclDataType indexType : {ACL_INT32, ACL_INT64})
            for (const int threads : {1, 2, 3}) {
                const IndexBackwardCase problem = makeCase(geometry, ++seed, indexType);
                SCOPED_TRACE(std::string(geometry.label) + ", " + problem.describe() + ", threads " +
                             std::to_string(threads));
                ThreadSetting setting(threads, 1);
                test_support::expectOwnRunMatchesReferences(problem, kGather);
            }
}

TEST(IndexGatherBackwardChannelsLastOverlapping, MatchesTheReferencesBitForBitWithoutFallback) {
    SKIP_BELOW_EIGHT_LANES();
    expectEveryGeometryMatchesTheReferences();
}

// On an AVX-512 CPU the AVX2 code too: 8 lanes make 2 to 8 vectors of the same channels (48 and 64 channels:
// the whole-vector cases of 6 and 8 vectors, which 16 lanes never take).
TEST(IndexGatherBackwardChannelsLastOverlapping, MatchesTheReferencesWithAvx2Vectors) {
    if (!test_support::targetDispatchable(HWY_AVX2) || test_support::hostFloatLanes() == 8)
        GTEST_SKIP() << "AVX2 is the CPU's own target (the test above) or missing";
    test_support::HighwayTargetMock mock(HWY_AVX2);
    expectEveryGeometryMatchesTheReferences();
}

std::string declineOf(const IndexBackwardCase &problem);

// Below AVX2 (4 or 1 float32 lanes) the plan declines: the entry is measured on 8- and 16-lane vectors only.
TEST(IndexGatherBackwardChannelsLastOverlapping, DeclinesVectorsNarrowerThanEightLanes) {
    ThreadSetting setting(1, 0);
    for (const int64_t target : {int64_t{HWY_SSE4}, int64_t{HWY_SSSE3}, int64_t{HWY_SCALAR}}) {
        if (!test_support::targetDispatchable(target)) continue;
        test_support::HighwayTargetMock mock(target);
        SCOPED_TRACE(hwy::TargetName(target));
        const std::string message = declineOf(makeCase(geometries[0], 41));
        EXPECT_NE(message.find("float32 lanes: the overlapping gather is measured on 8- and 16-lane (AVX2, AVX-512) "
                               "vectors only"),
                  std::string::npos)
            << message;
    }
}

TEST(IndexGatherBackwardChannelsLastOverlapping, StreamsAGradInputLargerThan4MiB) {
    SKIP_BELOW_EIGHT_LANES();
    // 32 channels of 9x64x64 float32 positions: 4.5 MiB.
    const Geometry large{"large", {1, 32, 9, 64, 64}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}};
    for (const int threads : {1, 3}) {
        ThreadSetting setting(threads, 1);
        const IndexBackwardCase problem = makeCase(large, 4);
        SCOPED_TRACE("threads " + std::to_string(threads));
        const IndexBackwardRun run = test_support::runIndexBackward(problem, kGather);
        EXPECT_NE(run.plan.find("streaming"), std::string::npos) << run.plan;
        test_support::expectOwnRunMatchesReferences(problem, kGather);
    }
}

TEST(IndexGatherBackwardChannelsLastOverlapping, AddsTheWindowsOfOneElementInIncreasingOutputOrder) {
    SKIP_BELOW_EIGHT_LANES();
    // 3x3 windows at stride 2, padded by 1: element (h, w) = (1, 1) lies in the windows of outputs (0, 0), (0, 1),
    // (1, 0) and (1, 1). In channel 3 all four pick it, with gradients 1, 2^24, 1, -2^24: from +0 in that
    // order the sum is 0 (each 1 is lost to rounding next to 2^24); in any order adding the two 1s before
    // 2^24 it is 2.
    for (const int threads : {1, 2, 3}) {
        ThreadSetting setting(threads, 1);
        IndexBackwardCase problem = makeCase(geometries[2], 6);
        const int64_t outputHeight = problem.outputShape[3], outputWidth = problem.outputShape[4];
        const int64_t inputWidth = problem.inputShape[4], channel = 3;
        const float gradients[] = {1.0f, 16777216.0f, 1.0f, -16777216.0f};
        int64_t picked = 0;
        for (int64_t oh = 0; oh < 2; ++oh)
            for (int64_t ow = 0; ow < 2; ++ow, ++picked) {
                const size_t at = static_cast<size_t>((channel * outputHeight + oh) * outputWidth + ow);
                problem.indices[at] = 1 * inputWidth + 1;
                problem.gradOutput[at] = gradients[picked];
            }
        SCOPED_TRACE("threads " + std::to_string(threads));
        const std::vector<uint64_t> expected = problem.expectedBits();
        const size_t element = static_cast<size_t>((channel * problem.inputShape[3] + 1) * inputWidth + 1);
        ASSERT_EQ(expected[element], 0u);  // +0: the naive reference adds in output order too
        test_support::expectOwnRunMatchesReferences(problem, kGather);
    }
}

TEST(IndexGatherBackwardChannelsLastOverlapping, AnIndexOutsideItsWindowsHandsOverToTheScatter) {
    SKIP_BELOW_EIGHT_LANES();
    for (const int threads : {1, 2}) {
        ThreadSetting setting(threads, 1);
        for (const aclDataType indexType : {ACL_INT32, ACL_INT64}) {
            IndexBackwardCase problem = makeCase(geometries[0], 7, indexType);
            problem.indices[0] = 4 * 7 * 9 + 8;  // inside the plane, outside output 0's window
            test_support::expectStrayIndexHandover(problem, test_support::runIndexBackward(problem, kGather), kGather);
        }
    }
}

TEST(IndexGatherBackwardChannelsLastOverlapping, ABadIndexIs161002WithAZeroGradInput) {
    SKIP_BELOW_EIGHT_LANES();
    ThreadSetting setting(2, 1);
    for (const int64_t bad : {int64_t{-2}, int64_t{9 * 8}, int64_t{INT32_MAX}}) {
        IndexBackwardCase problem = makeCase(geometries[2], 9);
        problem.indices[17] = bad;
        test_support::expectBadIndexZeroes(test_support::runIndexBackward(problem, kGather), bad);
    }
    // INT64: beyond int32 both ways (saturated by the conversion, so they match nothing), and inside it.
    for (const int64_t bad : {int64_t{1} << 32, -(int64_t{1} << 40), int64_t{-2}, int64_t{9 * 8}}) {
        IndexBackwardCase problem = makeCase(geometries[2], 10, ACL_INT64);
        problem.indices[17] = bad;
        test_support::expectBadIndexZeroes(test_support::runIndexBackward(problem, kGather), bad);
    }
}

TEST(IndexGatherBackwardChannelsLastOverlapping, SaysWhatItPlanned) {
    SKIP_BELOW_EIGHT_LANES();
    ThreadSetting setting(2, 1);
    const IndexBackwardCase problem = makeCase(geometries[0], 4);
    const IndexBackwardRun run = test_support::runIndexBackward(problem, kGather);
    // 2 batches of 5x7 input rows, each of 9 positions of 32 channels; a float32 gradInput of 80 KiB stays cached.
    EXPECT_EQ(run.plan,
              "gather channels-last overlapping rows=2x35 of 9x32, <=8 windows per element, split over threads=2, "
              "cached");
}

std::string declineOf(const IndexBackwardCase &problem) {
    const IndexBackwardRun run = test_support::runIndexBackward(problem, kGather);
    EXPECT_EQ(run.status.phaseOne, 561003);
    return run.message;
}

TEST(IndexGatherBackwardChannelsLastOverlapping, DeclinesWhatItDoesNotTake) {
    SKIP_BELOW_EIGHT_LANES();
    ThreadSetting setting(1, 0);
    const auto expectDecline = [](const IndexBackwardCase &problem, const std::string &reason) {
        const std::string message = declineOf(problem);
        EXPECT_NE(message.find(reason), std::string::npos) << message;
    };
    expectDecline(test_support::indexCaseOf(geometries[0], ACL_BF16, ACL_INT32, IndexLayout::ChannelsLast, 1),
                  "bfloat16 gradients: the overlapping gather takes float32 only");
    expectDecline(test_support::indexCaseOf(geometries[0], ACL_FLOAT, ACL_INT32, IndexLayout::Contiguous, 1),
                  "gradOutput is not dense channels-last");
    const Geometry narrow{"24 channels", {1, 24, 4, 4, 4}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}};
    expectDecline(makeCase(narrow, 1),
                  "24 channels, not 16, 32, 48 or 64: the channel-vector and slab scatters measured faster on "
                  "partial vectors");
    const Geometry oneVector{"3-D, 16 channels", {1, 16, 4, 4, 4}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}};
    expectDecline(makeCase(oneVector, 1),
                  "up to 8 windows contain one element of 16 channels: the slab scatter measured faster");
    const Geometry disjoint{"2x2x2", {1, 16, 4, 4, 4}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}};
    expectDecline(makeCase(disjoint, 1), "windows do not overlap: cpu_index_gather_backward_channels_last takes them");
    const Geometry sevenWide{"7x7 at stride 1", {1, 32, 1, 8, 8}, {1, 7, 7}, {1, 1, 1}, {0, 3, 3}, {1, 1, 1}};
    expectDecline(makeCase(sevenWide, 1),
                  "up to 49 windows contain one element (more than 27): the scatter adds each output once");
}

}  // namespace
