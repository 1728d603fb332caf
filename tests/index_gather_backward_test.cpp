// cpu_index_gather_backward_dense, forced: small problems with windows that do not overlap (regular,
// padded, with gaps between windows, dilated, ceil mode, whole-row, evenly divided adaptive; rows of whole
// and partial vectors; NaN with payloads, -0, Inf and gradients of far-apart magnitudes; -1 indices;
// INT32/INT64; float32/float16/bfloat16 (16-bit special patterns: index_gather_backward_sixteen_bit_test.cpp);
// 1, 2 and 3 threads with every problem split; float32 rows on every instruction set the CPU has) against the naive
// reference bit for bit, and against the scatter reference bit for bit including NaN payloads. Each run must
// be the gather's own (no fallback), with gradInput poisoned before and nothing outside it touched. Indices
// outside their own window hand the problem to the scatter reference, which the run report names; a bad
// index gives 161002 and a zero gradInput. The plan declines overlapping windows and narrow rows (the
// scatter takes them), and 16-bit gradients unless every window along W is {2ow, 2ow+1}; it is the default
// choice for the others on dense planes.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "hwy/targets.h"
#include "poolgrad/poolgrad.h"
#include "support/highway_target_mock.h"
#include "support/host_vectors.h"
#include "support/index_backward_case.h"
#include "support/streaming_stores_setting.h"

namespace {

using test_support::IndexBackwardCase;
using test_support::IndexBackwardRun;

constexpr const char *kGather = "cpu_index_gather_backward_dense";

using test_support::ThreadSetting;

using Geometry = test_support::IndexGeometry;

// Every row at least 32 wide: the plan declines narrower rows on machines with 16-lane vectors.
const Geometry geometries[] = {
    {"disjoint 2x2x2", {2, 3, 4, 6, 32}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}},
    {"disjoint, a partial vector per row", {1, 2, 2, 4, 70}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}},
    {"disjoint, padded, ceil mode", {2, 2, 5, 7, 37}, {2, 2, 2}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, true},
    {"2-D 3x3 at stride 3, padded", {2, 3, 1, 9, 35}, {1, 3, 3}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}},
    {"gaps between windows", {1, 2, 2, 7, 41}, {1, 2, 2}, {1, 3, 3}, {0, 0, 0}, {1, 1, 1}},
    {"dilated, stride past the span", {1, 2, 3, 9, 47}, {1, 2, 2}, {1, 4, 4}, {0, 1, 1}, {1, 2, 2}},
    {"whole-row windows", {2, 2, 2, 3, 40}, {1, 1, 40}, {1, 1, 40}, {0, 0, 0}, {1, 1, 1}},
    {"adaptive, evenly divided", {1, 3, 4, 8, 64}, {}, {}, {}, {}, false, true, {2, 4, 32}},
};

// Windows {2ow, 2ow+1} along W, the only ones the plan takes 16-bit gradients for.
bool pairGeometry(const Geometry &geometry) {
    const std::string label = geometry.label;
    return label == "disjoint 2x2x2" || label == "disjoint, a partial vector per row" ||
           label == "adaptive, evenly divided";
}

IndexBackwardCase makeCase(const Geometry &geometry, aclDataType type, aclDataType indexType, uint64_t seed) {
    return test_support::indexCaseOf(geometry, type, indexType, test_support::IndexLayout::Contiguous, seed);
}

TEST(IndexGatherBackward, MatchesTheReferencesBitForBitWithoutFallback) {
    uint64_t seed = 1;
    for (const Geometry &geometry : geometries)
        for (const aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
            for (const aclDataType indexType : {ACL_INT32, ACL_INT64})
                for (const int threads : {1, 2, 3}) {
                    const IndexBackwardCase problem = makeCase(geometry, type, indexType, ++seed);
                    SCOPED_TRACE(std::string(geometry.label) + ", " + problem.describe() + ", threads " +
                                 std::to_string(threads));
                    ThreadSetting setting(threads, 1);
                    const IndexBackwardRun run = test_support::runIndexBackward(problem, kGather);
                    if (type != ACL_FLOAT && !pairGeometry(geometry)) {  // the slab scatter measured faster
                        EXPECT_EQ(run.status.phaseOne, 561003);
                        EXPECT_NE(run.message.find("gradients need windows {2ow, 2ow+1} along W"), std::string::npos)
                            << run.message;
                        continue;
                    }
                    test_support::expectOwnRunMatchesReferences(problem, kGather);
                }
}

TEST(IndexGatherBackward, Float32RowsAgreeOnEveryInstructionSet) {
    // Consecutive input rows of one window height are made two at a time (sharing their output row's loads and lane
    // permutations), the others one at a time: both, in pairs chunks, masked tails and permuted blocks, on every
    // instruction set this CPU has (the lanes, and so the tables, change with it).
    uint64_t seed = 500;
    test_support::forEachInstructionSet([&](int64_t target) {
        int taken = 0;  // narrow vectors make some rows too many vectors wide for this kernel
        for (const Geometry &geometry : geometries)
            for (const aclDataType indexType : {ACL_INT32, ACL_INT64})
                for (const int threads : {1, 2}) {
                    const IndexBackwardCase problem = makeCase(geometry, ACL_FLOAT, indexType, ++seed);
                    // Every other problem with every full vector streamed (where the plan finds rows on lines).
                    const bool streamed = seed % 2 == 0;
                    SCOPED_TRACE(std::string(hwy::TargetName(target)) + ", " + geometry.label + ", " +
                                 problem.describe() + ", threads " + std::to_string(threads) +
                                 (streamed ? ", streaming always" : ""));
                    ThreadSetting setting(threads, 1);
                    test_support::StreamingStoresSetting stores(streamed ? POOLGRAD_STREAMING_STORES_ALWAYS
                                                                         : POOLGRAD_STREAMING_STORES_DEFAULT);
                    taken += test_support::expectOwnRunMatchesReferencesIfTaken(problem, kGather);
                    if (HasFailure()) return false;
                }
        EXPECT_GE(taken, 8) << hwy::TargetName(target);
        return true;
    });
}

TEST(IndexGatherBackward, SignallingNaNsArriveQuietWithTheirPayloads) {
    // As +0 + NaN gives them in the scatter's sum from +0.
    ThreadSetting setting(1, 0);
    IndexBackwardCase problem;
    problem.inputShape = {1, 1, 1, 1, 64};
    problem.params.kernel = {1, 1, 32};
    problem.params.stride = {1, 1, 32};
    problem.prepare();
    ASSERT_EQ(problem.gradOutput.size(), 2u);
    problem.indices = {2, 40};
    const auto nanWithPayload = [](uint32_t payload) {
        const uint32_t bits = 0x7f800000u | payload;
        float value;
        std::memcpy(&value, &bits, sizeof value);
        return value;
    };
    problem.gradOutput = {nanWithPayload(1), nanWithPayload(2)};
    const IndexBackwardRun run = test_support::runIndexBackward(problem, kGather);
    ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
    EXPECT_EQ(run.fallback, "");
    std::vector<uint64_t> expected(64, 0);
    expected[2] = 0x7fc00001u;
    expected[40] = 0x7fc00002u;
    EXPECT_EQ(run.gradInputBits, expected);
}

TEST(IndexGatherBackward, ExactSmallSums) {
    // One 4x32 plane, windows 1x2x16 at their own stride: four outputs, each sending its float32 gradient to a
    // chosen element of its window; a -0 gradient arrives as +0 (sums start from +0), every other element is +0.
    ThreadSetting setting(2, 1);
    IndexBackwardCase problem;
    problem.inputShape = {1, 1, 1, 4, 32};
    problem.params.kernel = {1, 2, 16};
    problem.params.stride = {1, 2, 16};
    problem.params.padding = {0, 0, 0};
    problem.params.dilation = {1, 1, 1};
    problem.type = ACL_FLOAT;
    problem.prepare();
    ASSERT_EQ(problem.gradOutput.size(), 4u);  // outputs (oh, ow) = (0,0) (0,1) (1,0) (1,1)
    problem.indices = {32 + 1, 16 + 4, 64 + 0, 96 + 31};
    problem.gradOutput = {2048.0f, -0.0f, 1.0f, 0.5f};
    const IndexBackwardRun run = test_support::runIndexBackward(problem, kGather);
    ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
    EXPECT_EQ(run.fallback, "");
    std::vector<uint64_t> expected(128, 0);
    expected[33] = 0x45000000;               // 2048
    expected[64] = 0x3f800000;               // 1
    expected[127] = 0x3f000000;              // 0.5
    EXPECT_EQ(run.gradInputBits, expected);  // element 20: -0 arrives as +0
}

TEST(IndexGatherBackward, AnIndexOutsideItsWindowHandsOverToTheScatter) {
    for (const aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
        for (const int threads : {1, 2}) {
            ThreadSetting setting(threads, 1);
            IndexBackwardCase problem = makeCase(geometries[0], type, ACL_INT32, 7);
            problem.indices[0] = 2 * 6 * 32 + 5;  // inside the plane, outside output 0's window
            test_support::expectStrayIndexHandover(problem, test_support::runIndexBackward(problem, kGather), kGather);
            // Rows of 56: output 20 (of 28 per row) lies in the masked chunk after the whole ones with 16 lanes.
            const Geometry rowsOf56{"rows of 56", {1, 2, 1, 4, 56}, {1, 2, 2}, {1, 2, 2}, {0, 0, 0}, {1, 1, 1}};
            IndexBackwardCase tail = makeCase(rowsOf56, type, ACL_INT32, 8);
            tail.indices[20] = 3 * 56 + 5;  // its window is rows 0-1, columns 40-41
            test_support::expectStrayIndexHandover(tail, test_support::runIndexBackward(tail, kGather), kGather);
        }
}

TEST(IndexGatherBackward, ABadIndexIs161002WithAZeroGradInput) {
    ThreadSetting setting(2, 1);
    for (const aclDataType type : {ACL_FLOAT, ACL_BF16})
        for (const aclDataType indexType : {ACL_INT32, ACL_INT64})
            for (const int64_t bad : {int64_t{-2}, int64_t{4 * 6 * 32}, int64_t{1} << 32}) {
                if (indexType == ACL_INT32 && bad > INT32_MAX) continue;
                IndexBackwardCase problem = makeCase(geometries[0], type, indexType, 9);
                problem.indices[17] = bad;
                test_support::expectBadIndexZeroes(test_support::runIndexBackward(problem, kGather), bad);
            }
}

TEST(IndexGatherBackward, IsTheDefaultForDensePlanesAndSaysWhatItPlanned) {
    ThreadSetting setting(2, 1);
    for (const aclDataType type : {ACL_FLOAT16, ACL_BF16}) {  // 16-bit too: on the bit patterns, faster than slabs
        const IndexBackwardCase problem = makeCase(geometries[0], type, ACL_INT32, 4);
        const IndexBackwardRun run = test_support::runIndexBackward(problem, "");
        EXPECT_EQ(run.implementation, kGather) << run.plan;
        test_support::expectGradInputBits(problem.expectedBits(), run, type, false);
    }
    // Float32 rows of 64 and more (with AVX-512; 32 with AVX2) too; narrower ones go to the plane-chunk gather.
    const Geometry wideRows{"rows of 64", {2, 3, 2, 4, 64}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}};
    const IndexBackwardCase wide = makeCase(wideRows, ACL_FLOAT, ACL_INT32, 4);
    const IndexBackwardRun wideRun = test_support::runIndexBackward(wide, "");
    EXPECT_EQ(wideRun.implementation, kGather) << wideRun.plan;
    test_support::expectGradInputBits(wide.expectedBits(), wideRun, ACL_FLOAT, false);
    const IndexBackwardCase problem = makeCase(geometries[0], ACL_FLOAT, ACL_INT32, 4);
    const IndexBackwardRun run = test_support::runIndexBackward(problem, kGather);
    EXPECT_EQ(run.implementation, kGather);
    // 6 planes of 4x6 rows; 2x2x2 windows do not overlap; a float32 gradInput of 18 KiB stays cached. The
    // lane count is the dispatched instruction set's (16 with AVX-512, 8 with AVX2); windows {2ow, 2ow+1}
    // are made in pairs.
    const std::string prefix = "gather blocks=6x1 of <=24 rows, ";
    const std::string suffix = " lanes, pairs, cached threads=2";
    ASSERT_GT(run.plan.size(), prefix.size() + suffix.size()) << run.plan;
    EXPECT_EQ(run.plan.substr(0, prefix.size()), prefix) << run.plan;
    EXPECT_EQ(run.plan.substr(run.plan.size() - suffix.size()), suffix) << run.plan;
    test_support::expectGradInputBits(problem.expectedBits(), run, ACL_FLOAT, false);
}

TEST(IndexGatherBackward, DeclinesWhatTheScatterDoesBetter) {
    ThreadSetting setting(1, 0);
    const int64_t narrowWidth = test_support::hostFloatLanes() >= 8 ? 14 : 2 * test_support::hostFloatLanes() - 2;
    const std::string narrowReason = "rows of " + std::to_string(narrowWidth) + " elements";
    struct Declined {
        const char *label;
        reference::Shape5 input;
        std::array<int64_t, 3> kernel, stride;
        const char *reason;
    };
    const Declined cases[] = {
        {"overlapping 3x3x3 at stride 2",
         {1, 1, 5, 5, 64},
         {3, 3, 3},
         {2, 2, 2},
         "up to 8 windows contain one element"},
        {"overlapping 3x3x3 at stride 1",
         {1, 1, 5, 5, 64},
         {3, 3, 3},
         {1, 1, 1},
         "up to 27 windows contain one element"},
        // Rows narrower than two vectors: 14 columns with AVX2 or AVX-512, 6 with SSE4.
        {"rows narrower than two vectors", {1, 2, 4, 14, narrowWidth}, {2, 2, 2}, {2, 2, 2}, narrowReason.c_str()},
        {"bfloat16, 3x3 at stride 3",
         {1, 2, 1, 9, 96},
         {1, 3, 3},
         {1, 3, 3},
         "bfloat16 gradients need windows {2ow, 2ow+1} along W"},
    };
    for (const Declined &declined : cases) {
        SCOPED_TRACE(declined.label);
        IndexBackwardCase problem;
        problem.inputShape = declined.input;
        problem.params.kernel = declined.kernel;
        problem.params.stride = declined.stride;
        if (std::string(declined.label).rfind("bfloat16", 0) == 0) problem.type = ACL_BF16;
        problem.prepare();
        const IndexBackwardRun run = test_support::runIndexBackward(problem, kGather);
        EXPECT_EQ(run.status.phaseOne, 561003);
        EXPECT_NE(run.message.find(declined.reason), std::string::npos) << run.message;
        const IndexBackwardRun chosen = test_support::runIndexBackward(problem, "");
        // Narrow rows of disjoint windows go to the plane-chunk gather, the rest to the slab scatter.
        EXPECT_EQ(chosen.implementation, std::string(declined.reason).starts_with("rows of")
                                             ? "cpu_index_gather_backward_plane_chunks"
                                             : "cpu_index_scatter_backward_dense");
    }
}

}  // namespace
