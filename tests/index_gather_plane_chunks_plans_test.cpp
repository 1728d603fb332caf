// cpu_index_gather_backward_plane_chunks decides everything in phase 1: the plan text names the split of the
// planes into blocks of chunks, the lanes of a chunk, how many chunks read two vectors of outputs (those
// crossing from the last row of a depth into the first of the next inside one depth window), streaming or
// cached stores, the thread count and, for whole planes, the turn: how many planes a thread takes at a time, and the
// pair units (every target but the scalar one); and it declines, with a reason, overlapping windows, operands that are
// not dense planes, and the types it measured slower at (16-bit gradients).
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "poolgrad/poolgrad.h"
#include "support/index_backward_case.h"

namespace {

using test_support::IndexBackwardCase;
using test_support::IndexBackwardRun;
using test_support::IndexLayout;
using test_support::ThreadSetting;

constexpr const char *kPlaneChunks = "cpu_index_gather_backward_plane_chunks";

IndexBackwardCase pooled(reference::Shape5 shape, std::array<int64_t, 3> kernel, aclDataType type = ACL_FLOAT) {
    IndexBackwardCase problem;
    problem.inputShape = shape;
    problem.params.kernel = kernel;
    problem.params.stride = kernel;
    problem.type = type;
    problem.prepare();
    return problem;
}

// The lanes the plan took (the dispatched instruction set's: 16 with AVX-512, 8 with AVX2, 4 with SSE4).
int64_t lanesOf(const std::string &plan) {
    const std::string marker = " chunks of ";
    const size_t at = plan.find(marker);
    return at == std::string::npos ? 0 : std::stoll(plan.substr(at + marker.size()));
}

// The pair units a plan text names.
int64_t pairUnitsOf(const std::string &plan) {
    const std::string marker = " pair units";
    const size_t at = plan.find(marker);
    if (at == std::string::npos) return -1;
    const size_t start = plan.rfind(' ', at - 1) + 1;
    return std::stoll(plan.substr(start, at - start));
}

TEST(IndexGatherPlaneChunksPlans, PlanTextsNameTheDecisionsMadeInPhaseOne) {
    struct Expectation {
        const char *label;
        int threads;
        int64_t threshold;
        IndexBackwardCase problem;
        const char *plan;  // with 16 lanes
    };
    const Expectation expectations[] = {
        // 6 planes of 4x14x14 = 49 chunks of 16; within 2x2x2 windows the chunks from depth 0 into 1 (positions
        // 192..207: outputs 47, 48 and 0..5) and from depth 2 into 3 read two vectors. Positions 2j, 2j+1 share
        // their window: of the 25 units of two chunks, 22 are pair units; not the two crossing from depth 0
        // into 1 and 2 into 3 (outputs in two vectors), nor the last (one chunk).
        {"case E's planes, every thread", 2, 1, pooled({2, 3, 4, 14, 14}, {2, 2, 2}),
         "plane chunks blocks=6x1 of <=49 chunks of 16 lanes, 22 pair units, 2 reading two vectors, cached threads=2"},
        {"tiny, default threshold", 2, 0, pooled({2, 3, 4, 14, 14}, {2, 2, 2}),
         "plane chunks blocks=6x1 of <=49 chunks of 16 lanes, 22 pair units, 2 reading two vectors, cached threads=1"},
        // One plane, three threads: its chunks cut in 6 blocks so that every thread has two.
        {"one plane split across threads", 3, 1, pooled({1, 1, 4, 14, 14}, {2, 2, 2}),
         "plane chunks blocks=1x6 of <=9 chunks of 16 lanes, 22 pair units, 2 reading two vectors, cached threads=3"},
        // 2-D planes of 10x7 (5 chunks, the last partial): no window spans two depths; rows of odd width make
        // no pairs.
        {"2-D rows of 7", 2, 1, pooled({1, 8, 1, 10, 7}, {1, 2, 2}),
         "plane chunks blocks=8x1 of <=5 chunks of 16 lanes, 0 pair units, 0 reading two vectors, cached threads=2"},
        // 1400 planes of 784 float32: 4.4 MB of gradInput, written with streaming stores.
        {"streaming", 1, 0, pooled({2, 700, 4, 14, 14}, {2, 2, 2}),
         "plane chunks blocks=1400x1 of <=49 chunks of 16 lanes, 22 pair units, 2 reading two vectors, streaming "
         "threads=1"},
        // Whole planes in turns only past 32 MiB moved (itemsPerTurnFor): 100 planes (0.4 MB) keep fixed shares;
        // 9600 planes (37.6 MB) on 3 threads are taken in turns of 9600 / 48 = 200.
        {"fixed shares below 32 MiB", 3, 1, pooled({4, 25, 4, 14, 14}, {2, 2, 2}),
         "plane chunks blocks=100x1 of <=49 chunks of 16 lanes, 22 pair units, 2 reading two vectors, cached threads=3"},
        {"turns past 32 MiB", 3, 1, pooled({2, 4800, 4, 14, 14}, {2, 2, 2}),
         "plane chunks blocks=9600x1 of <=49 chunks of 16 lanes, 22 pair units, 2 reading two vectors, streaming "
         "threads=3 in turns of 200"},
    };
    for (const Expectation &expectation : expectations) {
        SCOPED_TRACE(expectation.label);
        ThreadSetting setting(expectation.threads, expectation.threshold);
        const IndexBackwardRun run = test_support::runIndexBackward(expectation.problem, kPlaneChunks);
        ASSERT_EQ(run.status.phaseOne, 0) << run.message;
        ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
        EXPECT_EQ(run.implementation, kPlaneChunks);
        EXPECT_EQ(run.fallback, "");
        test_support::expectGradInputBits(expectation.problem.expectedBits(), run, ACL_FLOAT, false);
        const int64_t lanes = lanesOf(run.plan);
        EXPECT_TRUE(lanes == 4 || lanes == 8 || lanes == 16) << run.plan;
        if (lanes == 16) {
            EXPECT_EQ(run.plan, expectation.plan);
        } else {  // other chunk counts; the rest of the text alike, and pair units wherever 16 lanes make them
            const std::string expected = expectation.plan;
            EXPECT_EQ(run.plan.substr(0, 20), expected.substr(0, 20)) << run.plan;
            EXPECT_EQ(run.plan.substr(run.plan.rfind(',')), expected.substr(expected.rfind(','))) << run.plan;
            EXPECT_EQ(pairUnitsOf(run.plan) > 0, pairUnitsOf(expected) > 0) << run.plan;
        }
    }
}

TEST(IndexGatherPlaneChunksPlans, DeclinesOverlappingWindowsOtherLayoutsAndTypes) {
    ThreadSetting setting(1, 0);
    for (const aclDataType type : {ACL_FLOAT16, ACL_BF16}) {
        const IndexBackwardRun run =
            test_support::runIndexBackward(pooled({1, 2, 4, 14, 14}, {2, 2, 2}, type), kPlaneChunks);
        EXPECT_EQ(run.status.phaseOne, 561003);
        EXPECT_NE(run.message.find(std::string(type == ACL_FLOAT16 ? "float16" : "bfloat16") +
                                   " gradients: the slab scatter measured faster"),
                  std::string::npos)
            << run.message;
    }
    {
        // INT64 indices are taken (converted a plane at a time), and are the default for E's planes.
        IndexBackwardCase problem;
        problem.inputShape = {1, 2, 4, 14, 14};
        problem.params.kernel = {2, 2, 2};
        problem.params.stride = {2, 2, 2};
        problem.indexType = ACL_INT64;
        problem.prepare();
        const IndexBackwardRun run = test_support::runIndexBackward(problem, "");
        EXPECT_EQ(run.status.phaseOne, 0) << run.message;
        EXPECT_EQ(run.implementation, kPlaneChunks);
    }
    {
        const IndexBackwardCase overlapping = pooled({1, 1, 5, 5, 14}, {3, 3, 3});
        IndexBackwardCase problem = overlapping;
        problem.params.stride = {2, 2, 2};
        problem.prepare();
        const IndexBackwardRun run = test_support::runIndexBackward(problem, kPlaneChunks);
        EXPECT_EQ(run.status.phaseOne, 561003);
        EXPECT_NE(run.message.find("windows overlap along D: the scatter adds each output once"), std::string::npos)
            << run.message;
    }
    {
        IndexBackwardCase problem;
        problem.inputShape = {1, 1, 2, 6, 6};
        problem.params.kernel = {2, 2, 3};
        problem.params.stride = {2, 2, 2};
        problem.prepare();
        const IndexBackwardRun run = test_support::runIndexBackward(problem, kPlaneChunks);
        EXPECT_EQ(run.status.phaseOne, 561003);
        EXPECT_NE(run.message.find("windows overlap along W"), std::string::npos) << run.message;
    }
    {
        IndexBackwardCase problem;
        problem.inputShape = {2, 8, 2, 6, 6};
        problem.params.kernel = {2, 2, 2};
        problem.params.stride = {2, 2, 2};
        problem.layout = IndexLayout::ChannelsLast;
        problem.prepare();
        const IndexBackwardRun run = test_support::runIndexBackward(problem, kPlaneChunks);
        EXPECT_EQ(run.status.phaseOne, 561003);
        EXPECT_NE(run.message.find("planes are not dense row-major"), std::string::npos) << run.message;
    }
}

}  // namespace
