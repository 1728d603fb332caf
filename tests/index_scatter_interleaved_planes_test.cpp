// cpu_index_scatter_backward_dense with whole planes of at most 16K elements and at least four planes a thread:
// the adds of four planes run interleaved (each plane's outputs still in increasing order). Forced and
// dispatched: stride-1 windows (3x3 from padding 1, 5x5 from padding 2, where neighbouring windows share their
// winners), disjoint and adaptive windows, plane counts that leave groups of 1-3 planes, 1-3 threads, float32,
// float16 and bfloat16 gradients (16-bit ones widened a plane at a time and summed in float32, rounded once),
// INT32 and INT64, sums in gradInput and buffered with streaming stores, NaN/-0/Inf gradients and -1 indices. Every run
// is the kernel's own (no fallback) and bit for bit the naive reference's; sums whose value depends on their order,
// indices inside the plane but outside their windows (a whole plane is one slab, so they land where they point),
// and an index outside its plane in any plane of a group (161002, gradInput all +0).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "poolgrad/poolgrad.h"
#include "support/index_backward_case.h"
#include "support/streaming_stores_setting.h"

namespace {

using test_support::IndexBackwardCase;
using test_support::IndexBackwardRun;
using test_support::ThreadSetting;
using Geometry = test_support::IndexGeometry;

constexpr const char *kDenseScatter = "cpu_index_scatter_backward_dense";
constexpr const char *kInterleaved = ", 4 planes interleaved";

bool planInterleaves(const IndexBackwardRun &run) { return run.plan.find(kInterleaved) != std::string::npos; }

IndexBackwardCase makeCase(const Geometry &geometry, aclDataType indexType, uint64_t seed,
                           aclDataType type = ACL_FLOAT) {
    return test_support::indexCaseOf(geometry, type, indexType, test_support::IndexLayout::Contiguous, seed);
}

TEST(IndexScatterInterleavedPlanes, MatchesTheReferencesBitForBitWithoutFallback) {
    // 14, 18 and 22 planes: on 1-3 threads groups of four and what is left of each thread's planes.
    const Geometry geometries[] = {
        {"3x3 stride 1 pad 1", {2, 7, 1, 11, 19}, {1, 3, 3}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}},
        {"5x5 stride 1 pad 2", {2, 9, 1, 9, 12}, {1, 5, 5}, {1, 1, 1}, {0, 2, 2}, {1, 1, 1}},
        {"3x3x3 stride 1 pad 1", {2, 7, 4, 6, 7}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
        {"2x2 stride 2", {2, 11, 1, 8, 10}, {1, 2, 2}, {1, 2, 2}, {0, 0, 0}, {1, 1, 1}},
        {"adaptive", {2, 7, 3, 10, 9}, {}, {}, {}, {}, false, true, {2, 4, 4}},
    };
    uint64_t seed = 40;
    for (const Geometry &geometry : geometries)
        for (const aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
            for (const aclDataType indexType : {ACL_INT32, ACL_INT64})
                for (const int32_t streaming : {POOLGRAD_STREAMING_STORES_NEVER, POOLGRAD_STREAMING_STORES_ALWAYS})
                    for (const int threads : {1, 2, 3}) {
                        const IndexBackwardCase problem = makeCase(geometry, indexType, ++seed, type);
                        SCOPED_TRACE(std::string(geometry.label) + ", " + problem.describe() + ", threads " +
                                     std::to_string(threads) +
                                     (streaming == POOLGRAD_STREAMING_STORES_ALWAYS ? ", streaming" : ", in place"));
                        ThreadSetting setting(threads, 1);
                        test_support::StreamingStoresSetting choice(streaming);
                        const IndexBackwardRun run = test_support::runIndexBackward(problem, kDenseScatter);
                        EXPECT_TRUE(planInterleaves(run)) << run.plan;
                        test_support::expectOwnRunMatchesReferences(problem, kDenseScatter);
                    }
}

// The plan interleaves whole planes only: four planes a thread at least, one slab a plane, planes of 16K elements
// at most (and output planes too for 16-bit gradients, widened a plane at a time), and not where gradInput is
// zero-filled once (sparse outputs).
TEST(IndexScatterInterleavedPlanes, PlanTextsSayWhenPlanesAreInterleaved) {
    struct Expectation {
        const char *label;
        int threads;
        Geometry geometry;
        aclDataType type;
        const char *plan;
    };
    const Expectation expectations[] = {
        {"8 planes, 2 threads",
         2,
         {"", {2, 4, 1, 10, 10}, {1, 3, 3}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}},
         ACL_FLOAT,
         "slabs=8x1 of <=10 rows (100 sums) in place threads=2 prefetch, 4 planes interleaved"},
        {"7 planes, 2 threads: fewer than four a thread",
         2,
         {"", {1, 7, 1, 10, 10}, {1, 3, 3}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}},
         ACL_FLOAT,
         "slabs=7x1 of <=10 rows (100 sums) in place threads=2 prefetch"},
        {"float16 gradients: summed in a buffer",
         1,
         {"", {1, 4, 1, 10, 10}, {1, 3, 3}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}},
         ACL_FLOAT16,
         "slabs=4x1 of <=10 rows (100 sums) buffered threads=1 prefetch, 4 planes interleaved"},
        {"bfloat16, input planes under 16K elements, output planes over (2x2 windows at stride 1 from padding 1)",
         1,
         {"", {1, 4, 1, 128, 127}, {1, 2, 2}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}},
         ACL_BF16,
         "slabs=4x1 of <=128 rows (16256 sums) buffered threads=1"},
        {"bfloat16, both under 16K elements",
         1,
         {"", {1, 4, 1, 126, 127}, {1, 2, 2}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}},
         ACL_BF16,
         "slabs=4x1 of <=126 rows (16002 sums) buffered threads=1, 4 planes interleaved"},
        {"planes of 16K elements",
         1,
         {"", {1, 4, 1, 128, 128}, {1, 3, 3}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}},
         ACL_FLOAT,
         "slabs=4x1 of <=128 rows (16384 sums) in place threads=1, 4 planes interleaved"},
        {"planes of 16K elements and one row",
         1,
         {"", {1, 4, 1, 129, 128}, {1, 3, 3}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}},
         ACL_FLOAT,
         "slabs=4x1 of <=129 rows (16512 sums) in place threads=1"},
    };
    for (const Expectation &expectation : expectations) {
        SCOPED_TRACE(expectation.label);
        ThreadSetting setting(expectation.threads, 1);
        const IndexBackwardCase problem = test_support::indexCaseOf(expectation.geometry, expectation.type, ACL_INT32,
                                                                    test_support::IndexLayout::Contiguous, 3);
        const IndexBackwardRun run = test_support::runIndexBackward(problem, "");
        ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
        EXPECT_EQ(run.implementation, kDenseScatter);
        EXPECT_EQ(run.plan, expectation.plan);
        EXPECT_EQ(run.fallback, "");
        test_support::expectGradInputBits(problem.expectedBits(), run, expectation.type, false);
    }
}

// Every output of every plane points at element 0 of its plane (inside the plane, outside most windows), with
// gradients 2^24, 1, -2^24, 1, ... per plane shifted by the plane: in increasing output order the float32 sum
// is (((0 + 2^24) + 1) - 2^24) + 1 ... = 1 per pair after the first, which any other order changes (the 1s
// meeting first give 2). Five planes on one thread: a group of four, then one alone; float32 and bfloat16 (whose
// gradients 2^24 and 1 are exact, summed in float32 and rounded once).
TEST(IndexScatterInterleavedPlanes, SumsEveryPlaneInIncreasingOutputOrder) {
    ThreadSetting setting(1, 0);
    for (const aclDataType type : {ACL_FLOAT, ACL_BF16})
        for (const int32_t streaming : {POOLGRAD_STREAMING_STORES_NEVER, POOLGRAD_STREAMING_STORES_ALWAYS}) {
            test_support::StreamingStoresSetting choice(streaming);
            const Geometry geometry{"", {1, 5, 1, 12, 16}, {1, 3, 3}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}};
            IndexBackwardCase problem = makeCase(geometry, ACL_INT32, 11, type);
            const size_t outputs = problem.gradOutput.size() / 5;
            for (size_t plane = 0; plane < 5; ++plane)
                for (size_t q = 0; q < outputs; ++q) {
                    const size_t at = plane * outputs + q;
                    problem.indices[at] = 0;
                    const size_t phase = (q + plane) % 4;
                    problem.gradOutput[at] = phase == 0 ? 16777216.0f : phase == 2 ? -16777216.0f : 1.0f;
                }
            const IndexBackwardRun run = test_support::runIndexBackward(problem, "");
            ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
            EXPECT_EQ(run.implementation, kDenseScatter);
            EXPECT_TRUE(planInterleaves(run)) << run.plan;
            EXPECT_EQ(run.fallback, "");
            test_support::expectGradInputBits(problem.expectedBits(), run, type, true);
        }
}

TEST(IndexScatterInterleavedPlanes, ABadIndexInAnyPlaneOfAGroupIs161002WithAZeroGradInput) {
    const Geometry geometry{"", {2, 5, 1, 10, 13}, {1, 3, 3}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}};
    for (const int threads : {1, 2})
        for (const size_t plane : {size_t{0}, size_t{2}, size_t{3}, size_t{9}})
            for (const int64_t bad : {int64_t{-2}, int64_t{10 * 13}, int64_t{1} << 33}) {
                SCOPED_TRACE("threads " + std::to_string(threads) + ", plane " + std::to_string(plane) + ", index " +
                             std::to_string(bad));
                ThreadSetting setting(threads, 1);
                IndexBackwardCase problem = makeCase(geometry, ACL_INT64, 12);
                const size_t outputs = problem.indices.size() / 10;
                problem.indices[plane * outputs + outputs / 2] = bad;
                test_support::expectBadIndexZeroes(test_support::runIndexBackward(problem, kDenseScatter), bad);
            }
}

}  // namespace
