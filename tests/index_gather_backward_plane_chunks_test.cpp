// cpu_index_gather_backward_plane_chunks, forced: small problems with windows that do not overlap, mostly on rows
// narrower than two vectors (case E's 14 columns, 7, 9, 11, 13, 3), where chunks of lanes cross rows and depths and
// some read two vectors of outputs far apart (a window spanning two depths); also wide rows, padding, ceil mode, gaps
// between windows, dilation, evenly divided adaptive pooling, planes that are not whole chunks, pair units (positions
// 2j, 2j+1 in one window: every target but the scalar one, each on every instruction set the CPU has) with pairs in no
// window; NaN with payloads, -0, Inf and -1 indices; 1, 2 and 3 threads with the planes split, or whole planes in fixed
// shares (in turns only past 32 MiB moved: work_in_turns_test); gradInput at every 4-byte offset of a cache line.
// float32 gradients only: the plan leaves float16/bfloat16 to the slab scatter; INT64 indices are converted a plane at
// a time. Each against the naive reference bit for bit and against the scatter reference bit for bit including NaN
// payloads, the run the kernel's own (no fallback), gradInput poisoned before and nothing outside it touched. Indices
// outside their own window hand the problem to the scatter reference; a bad index gives 161002 and a zero gradInput.
// Plan texts: index_gather_plane_chunks_plans_test.
#include <gtest/gtest.h>

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
using test_support::ThreadSetting;
using Geometry = test_support::IndexGeometry;

constexpr const char *kPlaneChunks = "cpu_index_gather_backward_plane_chunks";

const Geometry geometries[] = {
    {"2x2x2, rows of 14 (case E's planes)", {2, 3, 4, 14, 14}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}},
    {"2-D 2x2, rows of 7, the last column in no window", {2, 3, 1, 10, 7}, {1, 2, 2}, {1, 2, 2}, {0, 0, 0}, {1, 1, 1}},
    {"padded, ceil mode, rows of 9", {2, 2, 5, 7, 9}, {2, 2, 2}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, true},
    {"gaps between windows, rows of 11", {1, 2, 2, 7, 11}, {1, 2, 2}, {1, 3, 3}, {0, 0, 0}, {1, 1, 1}},
    {"dilated, stride past the span, rows of 13", {1, 2, 3, 9, 13}, {1, 2, 2}, {1, 4, 4}, {0, 1, 1}, {1, 2, 2}},
    {"tall windows, rows of 3", {1, 2, 4, 12, 3}, {2, 4, 1}, {2, 4, 1}, {0, 0, 0}, {1, 1, 1}},
    {"1x1x1 windows", {1, 2, 3, 5, 6}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}},
    {"one plane of 6 depths", {1, 1, 6, 14, 14}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}},
    {"pairs, rows in no window, rows of 8", {2, 2, 2, 8, 8}, {1, 3, 2}, {1, 3, 2}, {0, 0, 0}, {1, 1, 1}},
    {"pairs, rows of 16", {1, 3, 2, 6, 16}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}},
    // Two and a half vectors (40 columns with AVX-512, 20 with AVX2): the plan takes rows of fewer than 4.
    {"wide rows", {2, 3, 4, 6, 5 * test_support::hostFloatLanes() / 2}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}},
    {"adaptive, evenly divided, rows of 12", {1, 3, 4, 8, 12}, {}, {}, {}, {}, false, true, {2, 4, 6}},
    // Whole planes in fixed shares of 41-42 (3 threads) or 62-63 (2 threads).
    {"125 planes of case E's, whole planes per thread", {5, 25, 4, 14, 14}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}},
};
constexpr size_t kManyPlanes = 12;  // geometries[kManyPlanes]

IndexBackwardCase makeCase(const Geometry &geometry, aclDataType type, aclDataType indexType, uint64_t seed) {
    return test_support::indexCaseOf(geometry, type, indexType, test_support::IndexLayout::Contiguous, seed);
}

TEST(IndexGatherBackwardPlaneChunks, AgreesOnEveryInstructionSet) {
    // The lanes, and with them the chunks, the pair units and the tables, change with the instruction set: 16
    // with AVX-512, 8 with AVX2 (pair units interleaved by unpacks and block permutes), 4 with SSE4, 1 without
    // vectors (no pair units).
    uint64_t seed = 900;
    test_support::forEachInstructionSet([&](int64_t target) {
        int taken = 0;  // narrow vectors make some rows four vectors wide or more: left to the row gather
        for (const Geometry &geometry : geometries)
            for (const int threads : {1, 2}) {
                const IndexBackwardCase problem = makeCase(geometry, ACL_FLOAT, ACL_INT32, ++seed);
                // Every other problem with every full vector streamed (where the plan finds pieces on lines).
                const bool streamed = seed % 2 == 0;
                SCOPED_TRACE(std::string(hwy::TargetName(target)) + ", " + geometry.label + ", " + problem.describe() +
                             ", threads " + std::to_string(threads) + (streamed ? ", streaming always" : ""));
                ThreadSetting setting(threads, 1);
                test_support::StreamingStoresSetting stores(streamed ? POOLGRAD_STREAMING_STORES_ALWAYS
                                                                     : POOLGRAD_STREAMING_STORES_DEFAULT);
                taken += test_support::expectOwnRunMatchesReferencesIfTaken(problem, kPlaneChunks);
                if (HasFailure()) return false;
            }
        // One lane: only the rows of 3 and the 1x1 windows are narrower than four vectors.
        EXPECT_GE(taken, target == HWY_SCALAR ? 2 : 8) << hwy::TargetName(target);
        return true;
    });
}

TEST(IndexGatherBackwardPlaneChunks, MatchesTheReferencesBitForBitWithoutFallback) {
    // With 8 lanes or more the plan takes every float32 problem here; SSE4's 4 lanes make the rows of 16 four
    // vectors wide (left to the row gather), and those runs only have to decline.
    const int64_t lanes = test_support::hostFloatLanes();
    int64_t float32Runs = 0, taken = 0;
    uint64_t seed = 1;
    for (const Geometry &geometry : geometries)
        for (const aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
            for (const aclDataType indexType : {ACL_INT32, ACL_INT64})
                for (const int threads : {1, 2, 3}) {
                    const IndexBackwardCase problem = makeCase(geometry, type, indexType, ++seed);
                    SCOPED_TRACE(std::string(geometry.label) + ", " + problem.describe() + ", threads " +
                                 std::to_string(threads));
                    ThreadSetting setting(threads, 1);
                    const IndexBackwardRun run = test_support::runIndexBackward(problem, kPlaneChunks);
                    if (type != ACL_FLOAT) {  // left to the slab scatter (measured)
                        EXPECT_EQ(run.status.phaseOne, 561003);
                        EXPECT_NE(run.message.find("gradients: the slab scatter measured faster"), std::string::npos)
                            << run.message;
                        continue;
                    }
                    ++float32Runs;
                    if (lanes >= 8) {
                        test_support::expectOwnRunMatchesReferences(problem, kPlaneChunks);
                        ++taken;
                    } else {
                        taken += test_support::expectOwnRunMatchesReferencesIfTaken(problem, kPlaneChunks);
                    }
                }
    if (lanes == 4) EXPECT_EQ(taken, float32Runs - 2 * 3);  // all but the rows of 16 (2 index types x 3 thread counts)
}

TEST(IndexGatherBackwardPlaneChunks, AnyAlignmentOfGradInput) {
    // The plan streams only where the pieces start on cache lines, and the tensors of the other tests all start
    // on a line: gradInput here starts 0-15 floats into one (every 4-byte offset of a 64-byte line), so the
    // chunks and the thread shares straddle lines and the plans change with the address, never the result.
    uint64_t seed = 1300;
    int taken = 0;
    for (const size_t index : {size_t{0}, size_t{2}, size_t{9}, kManyPlanes})
        for (int64_t offset = 0; offset < 16; ++offset)
            for (const bool streamed : {false, true}) {
                IndexBackwardCase problem = makeCase(geometries[index], ACL_FLOAT, ACL_INT32, ++seed);
                problem.gradInputOffset = offset;
                SCOPED_TRACE(std::string(geometries[index].label) + ", " + problem.describe() + ", gradInput " +
                             std::to_string(offset) + " floats into a line" + (streamed ? ", streaming always" : ""));
                ThreadSetting setting(2, 1);
                test_support::StreamingStoresSetting stores(streamed ? POOLGRAD_STREAMING_STORES_ALWAYS
                                                                     : POOLGRAD_STREAMING_STORES_DEFAULT);
                taken += test_support::expectOwnRunMatchesReferencesIfTaken(problem, kPlaneChunks);
                if (HasFailure()) return;
            }
    // Rows of 16 are four vectors wide with SSE4's 4 lanes, left to the row gather; with one lane no row is narrow.
    const int64_t lanes = test_support::hostFloatLanes();
    if (lanes >= 8)
        EXPECT_EQ(taken, 4 * 16 * 2);
    else if (lanes == 4)
        EXPECT_EQ(taken, 3 * 16 * 2);
}

TEST(IndexGatherBackwardPlaneChunks, ExactSmallSumsAcrossRowsAndDepths) {
    // One 2x3x5 plane, 2x1x5 windows (one per row of a depth pair): outputs 0, 1, 2 each send a chosen
    // gradient to an element of rows (0,h) or (1,h), the chunks running across rows and depths; a -0 gradient
    // arrives as +0 (sums start from +0), a signalling NaN quiet with its payload, every other element is +0.
    ThreadSetting setting(1, 0);
    IndexBackwardCase problem;
    problem.inputShape = {1, 1, 2, 3, 5};
    problem.params.kernel = {2, 1, 5};
    problem.params.stride = {2, 1, 5};
    problem.prepare();
    ASSERT_EQ(problem.gradOutput.size(), 3u);
    problem.indices = {15 + 4, 5 + 0, 15 + 10 + 2};  // (1,0,4), (0,1,0), (1,2,2)
    const uint32_t signallingNaN = 0x7f800005u;
    float nan;
    std::memcpy(&nan, &signallingNaN, sizeof nan);
    problem.gradOutput = {-0.0f, 0.75f, nan};
    const IndexBackwardRun run = test_support::runIndexBackward(problem, kPlaneChunks);
    ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
    EXPECT_EQ(run.fallback, "");
    std::vector<uint64_t> expected(30, 0);
    expected[5] = 0x3f400000u;   // 0.75
    expected[27] = 0x7fc00005u;  // the NaN, quiet
    EXPECT_EQ(run.gradInputBits, expected);
}

TEST(IndexGatherBackwardPlaneChunks, AnIndexOutsideItsWindowHandsOverToTheScatter) {
    for (const int threads : {1, 2}) {
        ThreadSetting setting(threads, 1);
        for (const aclDataType indexType : {ACL_INT32, ACL_INT64}) {
            IndexBackwardCase problem = makeCase(geometries[0], ACL_FLOAT, indexType, 7);
            problem.indices[0] = 3 * 14 * 14 - 1;  // inside the plane, outside output 0's window
            test_support::expectStrayIndexHandover(problem, test_support::runIndexBackward(problem, kPlaneChunks),
                                                   kPlaneChunks);
        }
    }
    // Whole planes per thread: a stray index in the last plane, the last thread's.
    for (const int threads : {2, 3}) {
        ThreadSetting setting(threads, 1);
        IndexBackwardCase problem = makeCase(geometries[kManyPlanes], ACL_FLOAT, ACL_INT32, 8);
        problem.indices[problem.indices.size() - 1] = 0;  // the plane's first position, outside the last window
        test_support::expectStrayIndexHandover(problem, test_support::runIndexBackward(problem, kPlaneChunks),
                                               kPlaneChunks);
    }
}

TEST(IndexGatherBackwardPlaneChunks, ABadIndexIs161002WithAZeroGradInput) {
    ThreadSetting setting(2, 1);
    // -2, the plane size (what lanes in no window compare with), far beyond the plane, the most negative.
    for (const int64_t bad : {int64_t{-2}, int64_t{4 * 14 * 14}, int64_t{INT32_MAX}, int64_t{INT32_MIN}}) {
        IndexBackwardCase problem = makeCase(geometries[0], ACL_FLOAT, ACL_INT32, 9);
        problem.indices[17] = bad;
        test_support::expectBadIndexZeroes(test_support::runIndexBackward(problem, kPlaneChunks), bad);
    }
    // INT64: beyond int32 both ways (saturated by the conversion: outside every plane), and inside it.
    for (const int64_t bad : {int64_t{1} << 32, -(int64_t{1} << 40), int64_t{-2}, int64_t{4 * 14 * 14}}) {
        IndexBackwardCase problem = makeCase(geometries[0], ACL_FLOAT, ACL_INT64, 11);
        problem.indices[17] = bad;
        test_support::expectBadIndexZeroes(test_support::runIndexBackward(problem, kPlaneChunks), bad);
    }
    // Whole planes per thread: a bad index in a plane of the second thread's share.
    for (const int threads : {2, 3}) {
        ThreadSetting turns(threads, 1);
        IndexBackwardCase problem = makeCase(geometries[kManyPlanes], ACL_FLOAT, ACL_INT32, 10);
        problem.indices[77 * 2 * 7 * 7 + 5] = -7;
        test_support::expectBadIndexZeroes(test_support::runIndexBackward(problem, kPlaneChunks), -7);
    }
    // The plane size and the next where pairs in no window read them (rows 6 and 7 of 8, 1x3x2 windows): they
    // match, and the counts hand the problem over.
    for (const int64_t bad : {int64_t{2 * 8 * 8}, int64_t{2 * 8 * 8 + 1}}) {
        IndexBackwardCase pairs = makeCase(geometries[8], ACL_FLOAT, ACL_INT32, 9);
        pairs.indices[4] = bad;
        test_support::expectBadIndexZeroes(test_support::runIndexBackward(pairs, kPlaneChunks), bad);
    }
    // The plane size where a lane in no window reads it: rows of 9, 1x2 windows, column 8 in none. With 16
    // lanes, lane 8 of chunk 0 (column 8 of row 0) is the one lane that reads output 0; it compares with the
    // plane size and matches, so the match counts agree, and only the count of indices beyond the plane hands
    // the problem over.
    IndexBackwardCase problem;
    problem.inputShape = {1, 1, 1, 4, 9};
    problem.params.kernel = {1, 1, 2};
    problem.params.stride = {1, 1, 2};
    problem.prepare();
    problem.indices[0] = 4 * 9;
    test_support::expectBadIndexZeroes(test_support::runIndexBackward(problem, kPlaneChunks), 4 * 9);
}

TEST(IndexGatherBackwardPlaneChunks, IsTheDefaultForNarrowRowsOnly) {
    ThreadSetting setting(2, 1);
    // Rows of 14: this kernel comes first, before the row gather (which declines them) and the slab scatter.
    const IndexBackwardCase narrow = makeCase(geometries[0], ACL_FLOAT, ACL_INT32, 4);
    const IndexBackwardRun narrowRun = test_support::runIndexBackward(narrow, "");
    EXPECT_EQ(narrowRun.implementation, kPlaneChunks);
    test_support::expectGradInputBits(narrow.expectedBits(), narrowRun, ACL_FLOAT, false);
    // Rows of two and a half vectors (40 floats with AVX-512, 20 with AVX2): this kernel.
    const IndexBackwardCase middle = makeCase(geometries[10], ACL_FLOAT, ACL_INT32, 4);
    const IndexBackwardRun middleRun = test_support::runIndexBackward(middle, "");
    EXPECT_EQ(middleRun.implementation, kPlaneChunks) << middleRun.plan;
    // Rows of 64 floats: the row gather, which the plan says when forced.
    const test_support::IndexGeometry wideRows{"rows of 64", {2, 3, 2, 4, 64}, {2, 2, 2},
                                               {2, 2, 2},    {0, 0, 0},        {1, 1, 1}};
    const IndexBackwardCase wide = makeCase(wideRows, ACL_FLOAT, ACL_INT32, 4);
    EXPECT_EQ(test_support::runIndexBackward(wide, "").implementation, "cpu_index_gather_backward_dense");
    const IndexBackwardRun forced = test_support::runIndexBackward(wide, kPlaneChunks);
    EXPECT_EQ(forced.status.phaseOne, 561003);
    EXPECT_NE(forced.message.find("rows of 64 elements (4 vectors or more): the row gather measured faster"),
              std::string::npos)
        << forced.message;
}

}  // namespace
