// cpu_index_gather_backward_stride2 decides everything in phase 1: the plan text names the split of the
// planes' rows into blocks, the most output rows an input row reads, the W padding, the lanes of the
// dispatched instruction set, streaming or cached stores and the threads. It declines (phase one 561003
// when forced, naming the reason) what it does not take; the library then chooses another implementation.
// Rows narrower than 56 columns with vectors of fewer than 16 lanes, and with 16 lanes rows narrower than 28
// in a gradInput of 4 MiB or less, it can run but passes to the slab scatter, measured faster there: the
// dispatch takes the scatter, a forced run the gather.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "hwy/targets.h"
#include "poolgrad/poolgrad.h"
#include "support/highway_target_mock.h"
#include "support/host_vectors.h"
#include "support/index_backward_case.h"

namespace {

using test_support::IndexBackwardCase;
using test_support::IndexBackwardRun;
using test_support::ThreadSetting;

constexpr const char *kStride2Gather = "cpu_index_gather_backward_stride2";

IndexBackwardCase pooled(reference::Shape5 shape, std::array<int64_t, 3> kernel, std::array<int64_t, 3> stride,
                         std::array<int64_t, 3> padding, aclDataType type = ACL_FLOAT) {
    IndexBackwardCase problem;
    problem.inputShape = shape;
    problem.params.kernel = kernel;
    problem.params.stride = stride;
    problem.params.padding = padding;
    problem.type = type;
    problem.prepare();
    return problem;
}

// The plan text around the lane count, which is the dispatched instruction set's (16 with AVX-512, 8 with
// AVX2, 4 with SSE4).
void expectPlan(const IndexBackwardRun &run, const std::string &prefix, const std::string &suffix) {
    ASSERT_GT(run.plan.size(), prefix.size() + suffix.size()) << run.plan;
    EXPECT_EQ(run.plan.substr(0, prefix.size()), prefix) << run.plan;
    EXPECT_EQ(run.plan.substr(run.plan.size() - suffix.size()), suffix) << run.plan;
    const std::string lanes = run.plan.substr(prefix.size(), run.plan.size() - prefix.size() - suffix.size());
    EXPECT_TRUE(lanes == "4" || lanes == "8" || lanes == "16") << run.plan;
}

TEST(IndexGatherStride2Plans, PlanTextsNameTheDecisionsMadeInPhaseOne) {
    struct Expectation {
        const char *label;
        int threads;
        IndexBackwardCase problem;
        const char *prefix, *suffix;
    };
    // As large and with rows of whole lines, but gradInput starts 16 bytes past a line: every row's lines
    // are shifted, so the rows are stored plainly.
    IndexBackwardCase offsetBase = pooled({1, 1, 1, 1040, 1024}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1});
    offsetBase.gradInputOffset = 4;
    const Expectation expectations[] = {
        // 4 planes of 12 rows for 2 threads: whole planes; an odd input row reads two output rows.
        {"2-D, whole planes", 2, pooled({1, 4, 1, 12, 64}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}),
         "stride-2 gather blocks=4x1 of <=12 rows, <=2 output rows a row, padLeft=1, ", " lanes, cached threads=2"},
        // One plane of 7x9 rows for 3 threads: cut into 6 blocks; depth windows 3 at stride 3 do not overlap.
        {"3-D, one plane split", 3, pooled({1, 1, 7, 9, 35}, {3, 3, 3}, {3, 2, 2}, {1, 1, 1}),
         "stride-2 gather blocks=1x6 of <=11 rows, <=2 output rows a row, padLeft=1, ", " lanes, cached threads=3"},
        // No padding; float16 goes through a row of float32 sums all the same.
        {"2-D, no padding, float16", 1, pooled({1, 2, 1, 9, 41}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, ACL_FLOAT16),
         "stride-2 gather blocks=2x1 of <=9 rows, <=2 output rows a row, padLeft=0, ", " lanes, cached threads=1"},
        // bfloat16 as float16: sums rounded once in registers.
        {"2-D, bfloat16", 2, pooled({1, 2, 1, 9, 40}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, ACL_BF16),
         "stride-2 gather blocks=2x2 of <=5 rows, <=2 output rows a row, padLeft=1, ", " lanes, cached threads=2"},
        // 4.2 MB of float32 gradInput: streaming stores; one plane, one thread: two blocks.
        {"streaming", 1, pooled({1, 1, 1, 1040, 1024}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}),
         "stride-2 gather blocks=1x2 of <=520 rows, <=2 output rows a row, padLeft=1, ", " lanes, streaming threads=1"},
        // As large, but rows of 4080 bytes: every other row would share a cache line between a plain and a
        // streaming store, so the rows are stored plainly.
        {"rows that are not whole cache lines", 1, pooled({1, 1, 1, 1040, 1020}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}),
         "stride-2 gather blocks=1x2 of <=520 rows, <=2 output rows a row, padLeft=1, ", " lanes, cached threads=1"},
        // bfloat16 rows of 4064 bytes: half lines, each of which the 16-bit rows stream, so they stream.
        {"bfloat16 rows of half lines", 1, pooled({1, 1, 1, 1040, 2032}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, ACL_BF16),
         "stride-2 gather blocks=1x2 of <=520 rows, <=2 output rows a row, padLeft=1, ", " lanes, streaming threads=1"},
        // float32 rows of 4064 bytes (63.5 lines), pairs of rows 127 lines: rows 2k and 2k + 1 are made together
        // (3x3 stride 2 padding 1) and streamed from a staging row as whole lines.
        {"rows of part lines, pairs of whole lines", 1, pooled({1, 1, 1, 1040, 1016}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}),
         "stride-2 gather blocks=1x2 of <=520 rows, <=2 output rows a row, padLeft=1, ",
         " lanes, streaming row pairs threads=1"},
        // The same rows without padding: row 0 pairs with 1, but row 2 reads two output rows and is made alone,
        // so the later pairs start on odd rows, mid-line: stored plainly.
        {"row pairs off the lines", 1, pooled({1, 1, 1, 1040, 1016}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}),
         "stride-2 gather blocks=1x2 of <=520 rows, <=2 output rows a row, padLeft=0, ", " lanes, cached threads=1"},
        // Three threads cut the plane in six blocks of 173-174 rows; the second starts on row 173 (odd): plainly.
        {"a block starting on an odd row", 3, pooled({1, 1, 1, 1040, 1016}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}),
         "stride-2 gather blocks=1x6 of <=174 rows, <=2 output rows a row, padLeft=1, ", " lanes, cached threads=3"},
        {"gradInput off the line alignment", 1, offsetBase,
         "stride-2 gather blocks=1x2 of <=520 rows, <=2 output rows a row, padLeft=1, ", " lanes, cached threads=1"},
    };
    for (const Expectation &expectation : expectations) {
        SCOPED_TRACE(expectation.label);
        ThreadSetting setting(expectation.threads, 1);
        const IndexBackwardRun run = test_support::runIndexBackward(expectation.problem, kStride2Gather);
        ASSERT_EQ(run.status.phaseOne, 0) << run.message;
        ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
        EXPECT_EQ(run.implementation, kStride2Gather);
        EXPECT_EQ(run.fallback, "");
        expectPlan(run, expectation.prefix, expectation.suffix);
        test_support::expectGradInputBits(expectation.problem.expectedBits(), run, expectation.problem.type, false);
    }
}

TEST(IndexGatherStride2Plans, DeclinesWhatItDoesNotTake) {
    ThreadSetting setting(1, 0);
    struct Declined {
        const char *label;
        IndexBackwardCase problem;
        const char *reason;
    };
    IndexBackwardCase dilated = pooled({1, 1, 1, 9, 40}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1});
    dilated.params.dilation = {1, 1, 2};
    dilated.prepare();
    IndexBackwardCase channelsLast = pooled({1, 4, 1, 9, 40}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1});
    channelsLast.layout = test_support::IndexLayout::ChannelsLast;
    const Declined cases[] = {
        {"2x2 at stride 2", pooled({1, 1, 2, 4, 64}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}),
         "windows along W are not three wide at stride 2 with padding 0 or 1"},
        {"3 wide at stride 1", pooled({1, 1, 1, 4, 64}, {1, 3, 3}, {1, 2, 1}, {0, 1, 1}),
         "windows along W are not three wide at stride 2 with padding 0 or 1"},
        {"dilated along W", dilated, "windows along W are not three wide at stride 2 with padding 0 or 1"},
        {"height windows at stride 1", pooled({1, 1, 1, 6, 64}, {1, 3, 3}, {1, 1, 2}, {0, 1, 1}),
         "up to 1x3 depth x height windows contain one element (at most 2x2 here)"},
        {"depth 5 at stride 2", pooled({1, 1, 9, 4, 64}, {5, 3, 3}, {2, 2, 2}, {0, 1, 1}),
         "up to 3x2 depth x height windows contain one element (at most 2x2 here)"},
        {"channels-last", channelsLast, "gradOutput planes are not dense row-major"},
        {"3x3x3 at stride 2", pooled({1, 1, 5, 5, 64}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}),
         "up to 4 output rows reach one input row: the slab scatter measured faster"},
    };
    for (const Declined &declined : cases) {
        SCOPED_TRACE(declined.label);
        const IndexBackwardRun run = test_support::runIndexBackward(declined.problem, kStride2Gather);
        EXPECT_EQ(run.status.phaseOne, 561003);
        EXPECT_NE(run.message.find(declined.reason), std::string::npos) << run.message;
        const IndexBackwardRun chosen = test_support::runIndexBackward(declined.problem, "");
        EXPECT_NE(chosen.implementation, kStride2Gather);
        test_support::expectGradInputBits(declined.problem.expectedBits(), chosen, declined.problem.type, false);
    }
}

// With 8 lanes (AVX2; mocked on an AVX-512 CPU) rows of 54 columns go to the slab scatter unless the gather is
// forced, and rows of 56 to the gather; with 16 lanes rows of 54 go to the gather.
TEST(IndexGatherStride2Plans, NarrowRowsWithEightLanesGoToTheScatterUnlessForced) {
    ThreadSetting setting(1, 0);
    const IndexBackwardCase narrow = pooled({1, 3, 1, 12, 54}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1});
    const IndexBackwardCase wide = pooled({1, 3, 1, 12, 56}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1});
    if (test_support::hostFloatLanes() == 16) {
        const IndexBackwardRun chosen = test_support::runIndexBackward(narrow, "");
        EXPECT_EQ(chosen.implementation, kStride2Gather);
        test_support::expectGradInputBits(narrow.expectedBits(), chosen, narrow.type, false);
    }
    if (!test_support::targetDispatchable(HWY_AVX2)) GTEST_SKIP() << "no AVX2 on this CPU";
    test_support::HighwayTargetMock mock(HWY_AVX2);
    const IndexBackwardRun chosen = test_support::runIndexBackward(narrow, "");
    EXPECT_EQ(chosen.implementation, "cpu_index_scatter_backward_dense");
    test_support::expectGradInputBits(narrow.expectedBits(), chosen, narrow.type, false);
    const IndexBackwardRun forced = test_support::runIndexBackward(narrow, kStride2Gather);
    ASSERT_EQ(forced.status.phaseOne, 0) << forced.message;
    EXPECT_EQ(forced.implementation, kStride2Gather);
    EXPECT_NE(forced.plan.find(" 8 lanes"), std::string::npos) << forced.plan;
    test_support::expectGradInputBits(narrow.expectedBits(), forced, narrow.type, false);
    const IndexBackwardRun wideChosen = test_support::runIndexBackward(wide, "");
    EXPECT_EQ(wideChosen.implementation, kStride2Gather);
    test_support::expectGradInputBits(wide.expectedBits(), wideChosen, wide.type, false);
}

// With 16 lanes, float32 and bfloat16 rows narrower than 28 columns go to the slab scatter while gradInput is
// 4 MiB or less (cache resident, where the scatter measured faster) and to the gather beyond (from memory,
// where its single streamed write measured faster); a forced run takes the gather either way, with the same
// bits.
TEST(IndexGatherStride2Plans, NarrowRowsInTheCachesGoToTheScatterUnlessForced) {
    if (test_support::hostFloatLanes() != 16) GTEST_SKIP() << "the rule is for 16 lanes";
    ThreadSetting setting(2, 1);
    // Runs the problem as dispatched (forced: "" none) and expects the implementation and the reference bits.
    const auto expectRunBy = [](const IndexBackwardCase &problem, const char *forced, const std::string &expected) {
        const IndexBackwardRun run = test_support::runIndexBackward(problem, forced);
        ASSERT_EQ(run.status.phaseOne, 0) << run.message;
        EXPECT_EQ(run.implementation, expected);
        test_support::expectGradInputBits(problem.expectedBits(), run, problem.type, false);
    };
    const auto narrow = [](aclDataType type) {
        return pooled({2, 8, 1, 14, 14}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, type);
    };
    expectRunBy(narrow(ACL_FLOAT), "", "cpu_index_scatter_backward_dense");
    expectRunBy(narrow(ACL_FLOAT), kStride2Gather, kStride2Gather);
    // bfloat16 likewise; float16 stays with the gather (the scatter's float16 conversions measured slower).
    expectRunBy(narrow(ACL_BF16), "", "cpu_index_scatter_backward_dense");
    expectRunBy(narrow(ACL_FLOAT16), "", kStride2Gather);
    // A row of 28 columns, the first the gather takes in the caches.
    const IndexBackwardCase wider = pooled({2, 8, 1, 28, 28}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1});
    EXPECT_EQ(test_support::runIndexBackward(wider, "").implementation, kStride2Gather);
    // 5400 planes of 14x14: 4.2 MB of float32 gradInput, past the 4 MiB share.
    expectRunBy(pooled({1, 5400, 1, 14, 14}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}), "", kStride2Gather);
}

}  // namespace
