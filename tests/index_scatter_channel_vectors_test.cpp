// cpu_index_scatter_backward_channels_last_vectors, forced on NDHWC / NHWC views: overlapping windows
// (3x3x3 and 3x3 at stride 2 padded, dilated, ceil mode, overlapping adaptive windows, and disjoint ones),
// channel counts of whole and partial vectors (16, 17, 40, 64 and the declined small ones run by the
// scalar scatter), tie-heavy inputs (integers -8..8, so overlapping windows often share their maximum and
// one element receives several contributions), NaN with payloads, -0 and Inf gradients, -1 indices,
// INT32/INT64, float32/float16/bfloat16, 1, 2 and 3 threads, several slabs per sample and a gradInput
// larger than 4 MiB (streaming stores), against the naive reference bit for bit and the scatter reference
// bit for bit including NaN payloads. Each run must be the kernel's own (no fallback), gradInput poisoned
// before and nothing outside it touched. Contributions arrive in increasing output order (checked with
// sums whose rounding depends on the order). An index outside its own window, or outside the plane,
// hands the problem to the scatter reference, which the run report names.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "poolgrad/poolgrad.h"
#include "support/host_vectors.h"
#include "support/index_backward_case.h"

namespace {

using test_support::IndexBackwardCase;
using test_support::IndexBackwardRun;
using test_support::IndexLayout;
using test_support::ThreadSetting;
using Geometry = test_support::IndexGeometry;

constexpr const char *kVectors = "cpu_index_scatter_backward_channels_last_vectors";

// The plan takes windows whose taps times vectors of channels stay within C (channelVectorsDecline): the
// geometries with at most 4 taps are taken wherever vectors have at least 8 lanes (AVX2 and up), the 3x3
// ones with AVX-512's 16 lanes; a geometry declined on the running CPU must say so (and is skipped).
const Geometry geometries[] = {
    {"2-D 3x3 at stride 2, padded, 16 channels", {2, 16, 1, 9, 8}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}},
    {"2-D 3x3 at stride 2, padded, 64 channels", {1, 64, 1, 7, 9}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}},
    {"2-D 3x3 at stride 1, 48 channels", {1, 48, 1, 6, 7}, {1, 3, 3}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}},
    {"2x2 at stride 1, 17 channels", {1, 17, 3, 4, 5}, {1, 2, 2}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}},
    {"2x2x1 at stride 1 across depth, 40 channels", {2, 40, 4, 3, 2}, {2, 2, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}},
    {"padded 2x2 at stride 1, ceil mode, 24 channels",
     {1, 24, 2, 5, 5},
     {1, 2, 2},
     {1, 1, 1},
     {0, 1, 1},
     {1, 1, 1},
     true},
    {"dilated 2x2 at stride 1, 20 channels", {1, 20, 2, 6, 6}, {1, 2, 2}, {1, 1, 1}, {0, 0, 0}, {1, 2, 2}},
    {"disjoint 2x2x2, 16 channels", {1, 16, 4, 4, 6}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}},
    {"adaptive, overlapping, 20 channels", {1, 20, 1, 7, 7}, {}, {}, {}, {}, false, true, {1, 3, 4}},
};

// Whether the plan takes the problem on this CPU; a decline must be the cost rule's.
bool takenHere(const IndexBackwardCase &problem) {
    const IndexBackwardRun run = test_support::runIndexBackward(problem, kVectors);
    if (run.status.phaseOne == 0) return true;
    EXPECT_NE(run.message.find("compares per position"), std::string::npos) << run.message;
    return false;
}

IndexBackwardCase makeCase(const Geometry &geometry, aclDataType type, aclDataType indexType, uint64_t seed) {
    return test_support::indexCaseOf(geometry, type, indexType, IndexLayout::ChannelsLast, seed);
}

TEST(IndexScatterChannelVectors, MatchesTheReferencesBitForBitWithoutFallback) {
    uint64_t seed = 100;
    int taken = 0;
    for (const Geometry &geometry : geometries) {
        if (!takenHere(makeCase(geometry, ACL_FLOAT, ACL_INT32, seed))) continue;
        ++taken;
        for (const aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
            for (const aclDataType indexType : {ACL_INT32, ACL_INT64})
                for (const int threads : {1, 2, 3}) {
                    const IndexBackwardCase problem = makeCase(geometry, type, indexType, ++seed);
                    SCOPED_TRACE(std::string(geometry.label) + ", " + problem.describe() + ", threads " +
                                 std::to_string(threads));
                    ThreadSetting setting(threads, 1);
                    test_support::expectOwnRunMatchesReferences(problem, kVectors);
                }
    }
    // Six geometries with AVX-512's 16 lanes; five with AVX2's 8 (measured on an AVX2 host, 2026-12-02).
    const int64_t lanes = test_support::hostFloatLanes();
    EXPECT_GE(taken, lanes >= 16  ? 6
                     : lanes >= 8 ? 5
                                  : 0)
        << "the geometries of at most 4 taps are taken with vectors of 8 lanes or more (here " << lanes << ")";
}

TEST(IndexScatterChannelVectors, StreamsAGradInputLargerThan4MiBInSeveralSlabs) {
    // 2 samples of 64 channels of 96x96 float32 positions (4.7 MiB): buffered slabs written with streaming
    // stores, windows straddling the slab borders (3 slabs per sample with 3 threads); bfloat16 takes the
    // same slabs. 2x2 windows at stride 1, so that vectors of 8 lanes take it too.
    const Geometry large{"large", {2, 64, 1, 96, 96}, {1, 2, 2}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}};
    ASSERT_TRUE(takenHere(makeCase(large, ACL_FLOAT, ACL_INT32, 4)));
    for (const aclDataType type : {ACL_FLOAT, ACL_BF16})
        for (const int threads : {1, 3}) {
            ThreadSetting setting(threads, 1);
            const IndexBackwardCase problem = makeCase(large, type, ACL_INT32, 4);
            SCOPED_TRACE("type " + std::to_string(type) + ", threads " + std::to_string(threads));
            const IndexBackwardRun run = test_support::runIndexBackward(problem, kVectors);
            EXPECT_NE(run.plan.find(type == ACL_FLOAT ? "buffered streaming" : "buffered"), std::string::npos)
                << run.plan;
            test_support::expectOwnRunMatchesReferences(problem, kVectors);
        }
}

float floatOfBits(uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

TEST(IndexScatterChannelVectors, ExactSumsInIncreasingOutputOrder) {
    // One 1x5 NHWC row of 17 channels (a whole vector and one lane more with AVX-512), 1x3 windows at
    // stride 1: outputs 0, 1, 2 all contain input column 2. Channel 0 and channel 16 (the partial vector)
    // send all three to column 2 with 2^24, 1, -2^24: in output order (2^24 + 1) rounds to 2^24 and the sum
    // is +0; any other order would give 1 or -1. Channel 1: a lone -0 arrives as +0. Channel 2: a
    // signalling NaN arrives quiet with its payload. Every other channel sends its outputs to column
    // ow + 1 (the window's middle) with gradient c + ow.
    ThreadSetting setting(2, 1);
    IndexBackwardCase problem;
    problem.inputShape = {1, 17, 1, 1, 5};
    problem.params.kernel = {1, 1, 3};
    problem.params.stride = {1, 1, 1};
    problem.layout = IndexLayout::ChannelsLast;
    problem.prepare();
    ASSERT_EQ(problem.gradOutput.size(), 17u * 3u);  // row-major (c, ow)
    for (int64_t c = 0; c < 17; ++c)
        for (int64_t ow = 0; ow < 3; ++ow) {
            problem.indices[static_cast<size_t>(c * 3 + ow)] = ow + 1;
            problem.gradOutput[static_cast<size_t>(c * 3 + ow)] = static_cast<float>(c + ow);
        }
    for (const int64_t c : {0, 16}) {
        for (int64_t ow = 0; ow < 3; ++ow) problem.indices[static_cast<size_t>(c * 3 + ow)] = 2;
        problem.gradOutput[static_cast<size_t>(c * 3 + 0)] = 16777216.0f;
        problem.gradOutput[static_cast<size_t>(c * 3 + 1)] = 1.0f;
        problem.gradOutput[static_cast<size_t>(c * 3 + 2)] = -16777216.0f;
    }
    problem.indices[1 * 3 + 0] = 0;
    problem.gradOutput[1 * 3 + 0] = -0.0f;
    problem.indices[2 * 3 + 2] = 4;
    problem.gradOutput[2 * 3 + 2] = floatOfBits(0x7f800001u);
    const IndexBackwardRun run = test_support::runIndexBackward(problem, kVectors);
    ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
    EXPECT_EQ(run.implementation, kVectors);
    EXPECT_EQ(run.fallback, "");
    std::vector<uint64_t> expected(17 * 5, 0);  // logical (c, w) order
    const auto at = [&](int64_t c, int64_t w) -> uint64_t & { return expected[static_cast<size_t>(c * 5 + w)]; };
    for (int64_t c = 1; c < 16; ++c)
        for (int64_t ow = 0; ow < 3; ++ow) {
            const float gradient = static_cast<float>(c + ow);
            uint32_t bits;
            std::memcpy(&bits, &gradient, sizeof bits);
            at(c, ow + 1) = bits;
        }
    at(1, 0) = 0;            // -0 alone: +0
    at(1, 1) = 0;            // output 0 went to column 0
    at(2, 3) = 0;            // output 2 went to column 4
    at(2, 4) = 0x7fc00001u;  // quiet NaN, payload kept
    EXPECT_EQ(run.gradInputBits, expected);
    EXPECT_EQ(run.gradInputBits, problem.expectedBits());
}

// The slab scatters name the counts that differed (the shared expectStrayIndexHandover expects the gathers'
// text without them).
void expectStrayHandover(const IndexBackwardCase &problem) {
    const IndexBackwardRun run = test_support::runIndexBackward(problem, kVectors);
    ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
    EXPECT_EQ(run.implementation, kVectors);
    const std::string expectedStart = "cpu_index_scatter_backward_reference: indices leave their own windows (";
    EXPECT_EQ(run.fallback.substr(0, expectedStart.size()), expectedStart) << run.fallback;
    test_support::expectGradInputBits(problem.expectedBits(), run, problem.type, false);
}

// geometries[3] (2x2 windows at stride 1, input 3x4x5), with 32 channels instead of 17 below 8 lanes: with SSE4's
// 4 lanes, 17 channels are 5 vectors, and 4 taps x 5 vectors = 20 compares a position, more than the cost rule
// allows for 17 channels.
Geometry strayIndexGeometry() {
    Geometry geometry = geometries[3];
    if (test_support::hostFloatLanes() < 8) geometry.input[1] = 32;
    return geometry;
}

TEST(IndexScatterChannelVectors, AnIndexOutsideItsWindowHandsOverToTheScatter) {
    for (const int threads : {1, 2})
        for (const aclDataType indexType : {ACL_INT32, ACL_INT64}) {
            ThreadSetting setting(threads, 1);
            IndexBackwardCase problem = makeCase(strayIndexGeometry(), ACL_FLOAT, indexType, 7);
            ASSERT_TRUE(takenHere(problem));
            // Output (0,0,0) of channel 0 (input 3x4x5, 2x2 windows at stride 1 in h and w): its window is
            // d=0, h and w in 0..1; position (2,3,4) is inside the plane, far outside that window.
            problem.indices[0] = (2 * 4 + 3) * 5 + 4;
            expectStrayHandover(problem);
            // A stray index next to the window, in a row the same output row's windows reach: still handed over.
            problem.indices[0] = 2;  // (0,0,2): the window of output (0,0,0) reaches columns 0..1 only
            expectStrayHandover(problem);
        }
}

TEST(IndexScatterChannelVectors, ABadIndexIs161002WithAZeroGradInput) {
    ThreadSetting setting(2, 1);
    for (const aclDataType type : {ACL_FLOAT, ACL_BF16})
        for (const aclDataType indexType : {ACL_INT32, ACL_INT64})
            for (const int64_t bad : {int64_t{-2}, int64_t{3 * 4 * 5}, int64_t{1} << 32, (int64_t{1} << 32) - 1}) {
                if (indexType == ACL_INT32 && bad > INT32_MAX) continue;
                IndexBackwardCase problem = makeCase(strayIndexGeometry(), type, indexType, 9);
                ASSERT_TRUE(takenHere(problem));
                problem.indices[17] = bad;
                SCOPED_TRACE("index " + std::to_string(bad));
                test_support::expectBadIndexZeroes(test_support::runIndexBackward(problem, kVectors), bad);
            }
}

}  // namespace
