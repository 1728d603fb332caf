// The index-scatter kernels decide everything in phase 1: the plan text (poolgradGetLastRunReport().plan)
// names the slab split, sums in place or buffered with streaming stores, the thread count and the prefetch
// of small planes, for a fixed thread count. In phase 2 only the data can change the course: indices
// inside their own windows run the plan as made; an index outside its own window (inside the plane) that
// lands in a slab which never visited its output hands the problem to the reference, which the report
// names, and the result is still the scatter's.
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

IndexBackwardCase pooled(reference::Shape5 shape, std::array<int64_t, 3> kernel, aclDataType type = ACL_FLOAT) {
    IndexBackwardCase problem;
    problem.inputShape = shape;
    problem.params.kernel = kernel;
    problem.params.stride = kernel;
    problem.type = type;
    problem.prepare();
    return problem;
}

std::string sparsePlanText(int threads) {
    return "planes=6 zero-filled then scattered in place threads=" + std::to_string(threads);
}

void expectMatchesReference(const IndexBackwardCase &problem, const IndexBackwardRun &run) {
    ASSERT_EQ(run.status.phaseOne, 0) << run.message;
    ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
    const std::vector<uint64_t> expected = problem.expectedBits();
    ASSERT_EQ(run.gradInputBits.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
        ASSERT_TRUE(test_support::sameGradInput(expected[i], run.gradInputBits[i], problem.type))
            << "gradInput element " << i << ": expected bits " << expected[i] << ", got " << run.gradInputBits[i];
}

TEST(IndexScatterPlans, PlanTextsNameTheDecisionsMadeInPhaseOne) {
    struct Expectation {
        const char *label;
        int threads;
        int64_t threshold;
        IndexBackwardCase problem;
        const char *implementation;
        const char *plan;
    };
    const Expectation expectations[] = {
        // 6 planes of 2x4 rows of 4: one slab per plane; tiny, so one thread at the default threshold.
        {"small planes, default threshold", 2, 0, pooled({2, 3, 2, 4, 4}, {2, 2, 2}),
         "cpu_index_scatter_backward_dense",
         "slabs=6x1 of <=8 rows (32 sums) in place threads=1 prefetch, 4 planes interleaved"},
        {"small planes, every thread", 2, 1, pooled({2, 3, 2, 4, 4}, {2, 2, 2}), "cpu_index_scatter_backward_dense",
         "slabs=6x1 of <=8 rows (32 sums) in place threads=2 prefetch"},
        // One plane, three threads: cut into 2x3 slabs so that every thread has work.
        {"one plane split across threads", 3, 1, pooled({1, 1, 4, 8, 8}, {2, 2, 2}), "cpu_index_scatter_backward_dense",
         "slabs=1x6 of <=6 rows (48 sums) in place threads=3 prefetch"},
        // 64 rows of 1024 are exactly one 64K-sum slab; 65 rows need two.
        {"slab budget exactly", 1, 0, pooled({2, 1, 1, 64, 1024}, {1, 2, 2}), "cpu_index_scatter_backward_dense",
         "slabs=2x1 of <=64 rows (65536 sums) in place threads=1"},
        {"slab budget plus one row", 1, 0, pooled({2, 1, 1, 65, 1024}, {1, 2, 2}), "cpu_index_scatter_backward_dense",
         "slabs=2x2 of <=33 rows (33792 sums) in place threads=1"},
        // A single plane still gets two slabs, one for each of twice the threads.
        {"one plane, one thread", 1, 0, pooled({1, 1, 1, 64, 1024}, {1, 2, 2}), "cpu_index_scatter_backward_dense",
         "slabs=1x2 of <=32 rows (32768 sums) in place threads=1"},
        // 4.2 MB of float32 gradInput: buffered slabs written with streaming stores.
        {"streaming", 1, 0, pooled({1, 1, 1, 1040, 1024}, {1, 2, 2}), "cpu_index_scatter_backward_dense",
         "slabs=1x17 of <=62 rows (63488 sums) buffered streaming threads=1"},
        // 16-bit gradients are always summed in a buffer.
        {"float16, buffered", 1, 0, pooled({2, 3, 2, 4, 4}, {2, 2, 2}, ACL_FLOAT16), "cpu_index_scatter_backward_dense",
         "slabs=6x1 of <=8 rows (32 sums) buffered threads=1 prefetch, 4 planes interleaved"},
        {"reference, float32", 2, 1, pooled({2, 3, 2, 4, 4}, {2, 2, 2}), "cpu_index_scatter_backward_reference",
         "planes=6 sums in gradInput"},
        {"reference, bfloat16", 2, 1, pooled({2, 3, 2, 4, 4}, {2, 2, 2}, ACL_BF16),
         "cpu_index_scatter_backward_reference", "planes=6 tiles of 32 sums"},
    };
    for (const Expectation &expectation : expectations) {
        SCOPED_TRACE(expectation.label);
        ThreadSetting setting(expectation.threads, expectation.threshold);
        const IndexBackwardRun run = test_support::runIndexBackward(expectation.problem, expectation.implementation);
        expectMatchesReference(expectation.problem, run);
        EXPECT_EQ(run.implementation, expectation.implementation);
        EXPECT_EQ(run.plan, expectation.plan);
        EXPECT_EQ(run.fallback, "");
    }
}

TEST(IndexScatterPlans, ChannelsLastPlan) {
    ThreadSetting setting(2, 1);
    IndexBackwardCase problem;
    problem.inputShape = {2, 8, 2, 6, 6};
    problem.params.kernel = {2, 2, 2};
    problem.params.stride = {2, 2, 2};
    problem.layout = IndexLayout::ChannelsLast;
    problem.prepare();
    const IndexBackwardRun run = test_support::runIndexBackward(problem, "cpu_index_scatter_backward_channels_last");
    expectMatchesReference(problem, run);
    // 2 samples of 12 rows of 6x8 sums, 2 slabs each so that both threads have two.
    EXPECT_EQ(run.plan, "slabs=2x2 of <=6 rows (288 sums) in place threads=2");
    EXPECT_EQ(run.fallback, "");
}

IndexBackwardCase channelsLastCase(reference::Shape5 shape, std::array<int64_t, 3> kernel,
                                   std::array<int64_t, 3> stride) {
    IndexBackwardCase problem;
    problem.inputShape = shape;
    problem.params.kernel = kernel;
    problem.params.stride = stride;
    problem.layout = IndexLayout::ChannelsLast;
    problem.prepare();
    return problem;
}

TEST(IndexScatterPlans, ChannelVectorsPlanIsTheDefaultForOverlappingWindowsItPaysFor) {
    ThreadSetting setting(2, 1);
    // 2x2 windows at stride 1 (4 taps) over 32 channels: 4 taps x 2 (AVX-512) or 4 (AVX2) vectors <= 32.
    IndexBackwardCase problem = channelsLastCase({2, 32, 1, 8, 8}, {1, 2, 2}, {1, 1, 1});
    problem.type = ACL_BF16;  // float32 gradients are the overlapping channels-last gather's
    problem.prepare();
    const IndexBackwardRun run = test_support::runIndexBackward(problem, "");
    expectMatchesReference(problem, run);
    EXPECT_EQ(run.implementation, "cpu_index_scatter_backward_channels_last_vectors");
    // 2 samples of 8 rows of 8x32 sums, 2 slabs each so that both threads have two; bfloat16 sums are
    // buffered in float32 and rounded once.
    EXPECT_EQ(run.plan, "slabs=2x2 of <=4 rows (1024 sums) buffered threads=2 channel vectors");
    EXPECT_EQ(run.fallback, "");
}

TEST(IndexScatterPlans, ChannelVectorsDeclineWhatTheScalarScatterDoesFaster) {
    ThreadSetting setting(1, 0);
    {
        // 3x3x3 windows over 4 channels: one vector of 4 (or more) lanes per position, 27 compares for 4 adds.
        const IndexBackwardCase problem = channelsLastCase({1, 4, 5, 5, 5}, {3, 3, 3}, {2, 2, 2});
        const IndexBackwardRun run =
            test_support::runIndexBackward(problem, "cpu_index_scatter_backward_channels_last_vectors");
        EXPECT_EQ(run.status.phaseOne, 561003);
        EXPECT_NE(run.message.find("27 window taps x 1 channel vectors = 27 compares per position, more than its 4 "
                                   "channels: the scalar slab scatter measured faster"),
                  std::string::npos)
            << run.message;
        const IndexBackwardRun chosen = test_support::runIndexBackward(problem, "");
        EXPECT_EQ(chosen.implementation, "cpu_index_scatter_backward_channels_last");
        expectMatchesReference(problem, chosen);
    }
    {
        // Planar storage is the dense kernels'.
        const IndexBackwardCase problem = pooled({1, 32, 2, 4, 4}, {1, 2, 2});
        const IndexBackwardRun run =
            test_support::runIndexBackward(problem, "cpu_index_scatter_backward_channels_last_vectors");
        EXPECT_EQ(run.status.phaseOne, 561003);
        EXPECT_NE(run.message.find("is not dense channels-last"), std::string::npos) << run.message;
    }
}

TEST(IndexScatterPlans, InWindowIndicesRunThePlanStrayOnesHandOverToTheReference) {
    ThreadSetting setting(2, 1);
    // One plane of 4x8x8 cut into 4 slabs of 8 rows (d,h); outputs 2x4x4.
    IndexBackwardCase problem = pooled({1, 1, 4, 8, 8}, {2, 2, 2});
    {
        const IndexBackwardRun run = test_support::runIndexBackward(problem, "cpu_index_scatter_backward_dense");
        expectMatchesReference(problem, run);
        EXPECT_EQ(run.plan, "slabs=1x4 of <=8 rows (64 sums) in place threads=2 prefetch");
        EXPECT_EQ(run.fallback, "") << "indices of the forward lie in their own windows";
    }
    // Output 0's window is rows 0..1 of depth 0..1 (slab 0); its index now points at the last element of the
    // plane (d=3, h=7, w=7: slab 3), which slab 3 never visits for output 0.
    problem.indices[0] = 4 * 8 * 8 - 1;
    const IndexBackwardRun run = test_support::runIndexBackward(problem, "cpu_index_scatter_backward_dense");
    expectMatchesReference(problem, run);
    EXPECT_EQ(run.implementation, "cpu_index_scatter_backward_dense");
    EXPECT_EQ(run.fallback,
              "cpu_index_scatter_backward_reference: indices leave their own windows (32 contributions expected in "
              "the slabs that own their outputs, 31 landed in the slabs visited)");
}

TEST(IndexScatterPlans, AnIndexOutsideThePlaneIsReportedByTheReference) {
    ThreadSetting setting(2, 1);
    IndexBackwardCase problem = pooled({1, 1, 4, 8, 8}, {2, 2, 2});
    problem.indices[5] = 4 * 8 * 8;
    const IndexBackwardRun run = test_support::runIndexBackward(problem, "cpu_index_scatter_backward_dense");
    EXPECT_EQ(run.status.phaseTwo, 161002);
    EXPECT_EQ(run.fallback, "cpu_index_scatter_backward_reference: an index outside its plane");
    for (uint64_t bits : run.gradInputBits) ASSERT_EQ(bits, 0u);
}

// Few outputs per input element (fewer than 1 in 128, float32, dense planes): gradInput is zero-filled and the
// outputs are scattered straight into it, each thread owning whole planes.
IndexBackwardCase adaptiveCase(reference::Shape5 shape, std::array<int64_t, 3> output, double specialShare) {
    IndexBackwardCase problem;
    problem.inputShape = shape;
    problem.adaptive = true;
    problem.adaptiveOutput = output;
    problem.specialShare = specialShare;
    problem.prepare();
    return problem;
}

TEST(IndexScatterPlans, SparseProblemsZeroFillThenScatterInPlace) {
    struct Expectation {
        const char *label;
        int threads;
        IndexBackwardCase problem;
        const char *plan;
    };
    const Expectation expectations[] = {
        // 1x2x2 outputs of 4x16x16 inputs: 1 in 256.
        {"1 in 256", 2, pooled({2, 3, 4, 16, 16}, {4, 8, 8}), "planes=6 zero-filled then scattered in place threads=2"},
        // Adaptive 3x3x2 of 16x16x16, overlapping windows: 1 in 227.
        {"adaptive", 3, adaptiveCase({2, 3, 16, 16, 16}, {3, 3, 2}, 0.3),
         "planes=6 zero-filled then scattered in place threads=3"},
        // 8.5 MB of float32 gradInput: zero-filled with streaming stores.
        {"streaming", 2, pooled({2, 1, 1, 1040, 1024}, {1, 8, 32}),
         "planes=2 zero-filled streaming then scattered in place threads=2"},
        // Exactly 1 in 128 stays with the slabs.
        {"1 in 128", 2, pooled({2, 3, 4, 16, 16}, {2, 8, 8}),
         "slabs=6x1 of <=64 rows (1024 sums) in place threads=2 prefetch"},
        // Fewer planes than threads: slabs split the plane.
        {"one plane", 2, pooled({1, 1, 4, 16, 16}, {4, 8, 8}),
         "slabs=1x4 of <=16 rows (256 sums) in place threads=2 prefetch"},
        // 16-bit gradients are summed in float32 buffers: slabs.
        {"float16", 2, pooled({2, 3, 4, 16, 16}, {4, 8, 8}, ACL_FLOAT16),
         "slabs=6x1 of <=64 rows (1024 sums) buffered threads=2 prefetch"},
    };
    for (const Expectation &expectation : expectations) {
        SCOPED_TRACE(expectation.label);
        ThreadSetting setting(expectation.threads, 1);
        const IndexBackwardRun run =
            test_support::runIndexBackward(expectation.problem, "cpu_index_scatter_backward_dense");
        expectMatchesReference(expectation.problem, run);
        EXPECT_EQ(run.implementation, "cpu_index_scatter_backward_dense");
        EXPECT_EQ(run.plan, expectation.plan);
        EXPECT_EQ(run.fallback, "");
        EXPECT_EQ(run.bytesOutsideViewChanged, 0);
    }
}

TEST(IndexScatterPlans, SparseScatterSumsCollisionsInOutputOrderWithoutHandOver) {
    // Indices anywhere in the plane, several outputs per element (-0, NaN and Inf among the gradients, so the
    // order of the sums shows), most outside their own windows: the thread owning the plane takes them all.
    IndexBackwardCase problem = adaptiveCase({2, 3, 16, 16, 16}, {3, 3, 2}, 0.3);
    const int64_t planeElements = 16 * 16 * 16, outputs = 3 * 3 * 2;
    for (size_t q = 0; q < problem.indices.size(); ++q) {
        const int64_t position = static_cast<int64_t>(q) % outputs;
        problem.indices[q] = position % 7 == 3 ? -1 : (position * 5) % 4 + (position % 2) * (planeElements - 4);
    }
    for (int threads : {1, 2, 3}) {
        SCOPED_TRACE(threads);
        ThreadSetting setting(threads, 1);
        const IndexBackwardRun run = test_support::runIndexBackward(problem, "cpu_index_scatter_backward_dense");
        expectMatchesReference(problem, run);
        EXPECT_EQ(run.implementation, "cpu_index_scatter_backward_dense");
        EXPECT_EQ(run.plan, sparsePlanText(threads));
        EXPECT_EQ(run.fallback, "") << "whole planes take stray indices themselves";
    }
}

TEST(IndexScatterPlans, SparseScatterReportsAnIndexOutsideThePlaneWithZeroes) {
    for (int threads : {1, 2, 3}) {
        SCOPED_TRACE(threads);
        ThreadSetting setting(threads, 1);
        IndexBackwardCase problem = adaptiveCase({2, 3, 16, 16, 16}, {3, 3, 2}, 0.0);
        problem.indices[4 * 18 + 5] = 16 * 16 * 16;
        const IndexBackwardRun run = test_support::runIndexBackward(problem, "cpu_index_scatter_backward_dense");
        EXPECT_EQ(run.plan, sparsePlanText(threads));
        test_support::expectBadIndexZeroes(run, 16 * 16 * 16);
    }
}

}  // namespace
