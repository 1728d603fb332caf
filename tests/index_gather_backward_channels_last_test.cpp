// cpu_index_gather_backward_channels_last, forced on NDHWC / NHWC views: windows that do not overlap
// (regular, padded, ceil mode, gaps between windows, 2-D and 3-D, evenly divided adaptive), channel counts
// of whole and partial vectors (1, 7, 16, 17, 40), NaN with payloads, -0 and Inf gradients, -1 indices,
// INT32/INT64, float32/float16/bfloat16, 1, 2 and 3 threads with every problem split, and a gradInput
// larger than 4 MiB (streaming stores), against the naive reference bit for bit and the scatter reference
// bit for bit including NaN payloads. Each run must be the gather's own (no fallback), with gradInput
// poisoned before and nothing outside it touched. Indices outside their own window hand the problem to the
// scatter reference, which the run report names; a bad index gives 161002 and a zero gradInput. The plan
// declines overlapping windows (with 32 channels and more the overlapping channels-last gather's), planar
// storage and 16-bit gradients of fewer than 16 channels, and is the default choice on channels-last storage.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "poolgrad/poolgrad.h"
#include "support/index_backward_case.h"

namespace {

using test_support::IndexBackwardCase;
using test_support::IndexBackwardRun;
using test_support::IndexLayout;

constexpr const char *kGather = "cpu_index_gather_backward_channels_last";

using test_support::ThreadSetting;

using Geometry = test_support::IndexGeometry;

const Geometry geometries[] = {
    {"3-D 2x2x2, 1 channel", {2, 1, 4, 4, 6}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}},
    {"3-D 2x2x2, 7 channels", {1, 7, 4, 6, 6}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}},
    {"3-D 2x2x2, 16 channels", {2, 16, 2, 4, 4}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}},
    {"3-D padded, ceil mode, 17 channels", {1, 17, 5, 5, 7}, {2, 2, 2}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, true},
    {"2-D 3x3 at stride 3, padded, 40 channels", {2, 40, 1, 9, 8}, {1, 3, 3}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}},
    {"gaps between windows, 17 channels", {1, 17, 2, 7, 8}, {1, 2, 2}, {1, 3, 3}, {0, 0, 0}, {1, 1, 1}},
    {"dilated, stride past the span, 7 channels", {1, 7, 3, 9, 9}, {1, 2, 2}, {1, 4, 4}, {0, 1, 1}, {1, 2, 2}},
    {"adaptive, evenly divided, 40 channels", {1, 40, 4, 4, 8}, {}, {}, {}, {}, false, true, {2, 2, 4}},
};

IndexBackwardCase makeCase(const Geometry &geometry, aclDataType type, aclDataType indexType, uint64_t seed) {
    return test_support::indexCaseOf(geometry, type, indexType, IndexLayout::ChannelsLast, seed);
}

TEST(IndexGatherBackwardChannelsLast, MatchesTheReferencesBitForBitWithoutFallback) {
    uint64_t seed = 1;
    for (const Geometry &geometry : geometries)
        for (const aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
            for (const aclDataType indexType : {ACL_INT32, ACL_INT64})
                for (const int threads : {1, 2, 3}) {
                    const IndexBackwardCase problem = makeCase(geometry, type, indexType, ++seed);
                    SCOPED_TRACE(std::string(geometry.label) + ", " + problem.describe() + ", threads " +
                                 std::to_string(threads));
                    ThreadSetting setting(threads, 1);
                    if (type != ACL_FLOAT && geometry.input[1] < 16) {  // the scatter measured faster
                        const IndexBackwardRun run = test_support::runIndexBackward(problem, kGather);
                        EXPECT_EQ(run.status.phaseOne, 561003);
                        EXPECT_NE(run.message.find("channels (fewer than 16): the channels-last scatter measured"),
                                  std::string::npos)
                            << run.message;
                        continue;
                    }
                    test_support::expectOwnRunMatchesReferences(problem, kGather);
                }
}

TEST(IndexGatherBackwardChannelsLast, StreamsAGradInputLargerThan4MiB) {
    // 16 channels of 18x64x64 float32 positions: 4.5 MiB.
    const Geometry large{"large", {1, 16, 18, 64, 64}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}};
    for (const int threads : {1, 3}) {
        ThreadSetting setting(threads, 1);
        const IndexBackwardCase problem = makeCase(large, ACL_FLOAT, ACL_INT32, 4);
        SCOPED_TRACE("threads " + std::to_string(threads));
        const IndexBackwardRun run = test_support::runIndexBackward(problem, kGather);
        EXPECT_NE(run.plan.find("streaming"), std::string::npos) << run.plan;
        test_support::expectOwnRunMatchesReferences(problem, kGather);
    }
}

TEST(IndexGatherBackwardChannelsLast, ExactSmallSums) {
    // One 2x4 NHWC plane of 3 channels, 2x2 windows at stride 2: two outputs per channel, each sending its
    // gradient to a chosen position of its window; a -0 gradient arrives as +0, a signalling NaN quiet with
    // its payload, every other element is +0.
    ThreadSetting setting(2, 1);
    IndexBackwardCase problem;
    problem.inputShape = {1, 3, 1, 2, 4};
    problem.params.kernel = {1, 2, 2};
    problem.params.stride = {1, 2, 2};
    problem.layout = IndexLayout::ChannelsLast;
    problem.prepare();
    ASSERT_EQ(problem.gradOutput.size(), 6u);  // row-major (c, ow)
    problem.indices = {5, 2, 0, 7, 1, 3};
    const uint32_t signallingNaNBits = 0x7f800001u;
    float signallingNaN;
    std::memcpy(&signallingNaN, &signallingNaNBits, sizeof signallingNaN);
    problem.gradOutput = {2.0f, -0.0f, signallingNaN, 0.5f, -3.0f, 1.0f};
    const IndexBackwardRun run = test_support::runIndexBackward(problem, kGather);
    ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
    EXPECT_EQ(run.fallback, "");
    std::vector<uint64_t> expected(24, 0);   // logical (c, h, w) order
    expected[0 * 8 + 5] = 0x40000000u;       // 2
    expected[1 * 8 + 0] = 0x7fc00001u;       // quiet NaN, payload kept
    expected[1 * 8 + 7] = 0x3f000000u;       // 0.5
    expected[2 * 8 + 1] = 0xc0400000u;       // -3
    expected[2 * 8 + 3] = 0x3f800000u;       // 1
    EXPECT_EQ(run.gradInputBits, expected);  // element 2 of channel 0: -0 arrives as +0
}

TEST(IndexGatherBackwardChannelsLast, AnIndexOutsideItsWindowHandsOverToTheScatter) {
    for (const int threads : {1, 2}) {
        ThreadSetting setting(threads, 1);
        IndexBackwardCase problem = makeCase(geometries[1], ACL_FLOAT, ACL_INT64, 7);
        problem.indices[0] = 2 * 6 * 6 + 5;  // inside the plane, outside output 0's window
        test_support::expectStrayIndexHandover(problem, test_support::runIndexBackward(problem, kGather), kGather);
    }
}

TEST(IndexGatherBackwardChannelsLast, ABadIndexIs161002WithAZeroGradInput) {
    ThreadSetting setting(2, 1);
    for (const aclDataType type : {ACL_FLOAT, ACL_BF16})
        for (const aclDataType indexType : {ACL_INT32, ACL_INT64})
            for (const int64_t bad : {int64_t{-2}, int64_t{2 * 4 * 4}, int64_t{1} << 32}) {
                if (indexType == ACL_INT32 && bad > INT32_MAX) continue;
                IndexBackwardCase problem = makeCase(geometries[2], type, indexType, 9);
                problem.indices[17] = bad;
                test_support::expectBadIndexZeroes(test_support::runIndexBackward(problem, kGather), bad);
            }
}

TEST(IndexGatherBackwardChannelsLast, IsTheDefaultForChannelsLastAndSaysWhatItPlanned) {
    ThreadSetting setting(2, 1);
    const IndexBackwardCase problem = makeCase(geometries[2], ACL_FLOAT, ACL_INT32, 4);
    const IndexBackwardRun run = test_support::runIndexBackward(problem, "");
    EXPECT_EQ(run.implementation, kGather);
    // 2 batches of 2x4 input rows, each of 4 positions of 16 channels; a float32 gradInput of 4 KiB stays cached.
    EXPECT_EQ(run.plan, "gather channels-last rows=2x8 of 4x16 split over threads=2, cached");
    test_support::expectGradInputBits(problem.expectedBits(), run, ACL_FLOAT, false);
}

TEST(IndexGatherBackwardChannelsLast, DeclinesOverlappingWindowsAndPlanarStorage) {
    ThreadSetting setting(1, 0);
    {
        IndexBackwardCase problem;
        problem.inputShape = {1, 16, 5, 5, 5};
        problem.params.kernel = {3, 3, 3};
        problem.params.stride = {2, 2, 2};
        problem.layout = IndexLayout::ChannelsLast;
        problem.prepare();
        const IndexBackwardRun run = test_support::runIndexBackward(problem, kGather);
        EXPECT_EQ(run.status.phaseOne, 561003);
        EXPECT_NE(run.message.find("up to 8 windows contain one element"), std::string::npos) << run.message;
        EXPECT_EQ(test_support::runIndexBackward(problem, "").implementation,
                  "cpu_index_scatter_backward_channels_last");
    }
    {
        IndexBackwardCase problem = makeCase(geometries[2], ACL_FLOAT, ACL_INT32, 3);
        problem.layout = IndexLayout::Contiguous;
        const IndexBackwardRun run = test_support::runIndexBackward(problem, kGather);
        EXPECT_EQ(run.status.phaseOne, 561003);
        EXPECT_NE(run.message.find("gradOutput is not dense channels-last"), std::string::npos) << run.message;
    }
}

}  // namespace
