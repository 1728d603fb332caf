// Phase 1 remembers, per thread, the implementation and plan it chose for a problem and reuses them when the
// same problem comes again (core/plan_cache.h). A remembered plan must be the plan phase 1 would make
// afresh: every setting a plan depends on (threads, parallel threshold, streaming stores, the address
// alignment of the operands, the SIMD target) is changed between two calls of the same problem, and the
// second call's implementation, plan text and results are compared with those of a call after
// poolgradClearPlanCache. A key that missed one of them serves the first call's plan to the second.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "hwy/targets.h"
#include "poolgrad/poolgrad.h"
#include "support/highway_target_mock.h"
#include "support/test_tensor.h"
#include "support/two_phase_run.h"

namespace {

using test_support::IntArray;
using test_support::TestTensor;

// 3x3 windows at stride 2, padding 1 (the stride-2 gather's problem): 2x8 planes of 32x32.
const std::vector<int64_t> inputShape{2, 8, 32, 32}, outputShape{2, 8, 16, 16};
const std::vector<int64_t> inputStrides{8 * 32 * 32, 32 * 32, 32, 1};

struct Settings {
    int threads = 2;
    int64_t parallelThreshold = 1;  // 0: the library's default (a problem this small then runs on one thread)
    int32_t streaming = POOLGRAD_STREAMING_STORES_AUTOMATIC;
    int64_t gradInputOffset = 0;  // elements before gradInput's first one in its storage
    int64_t simdTarget = 0;       // 0: the CPU's own; else the one Highway is held to
    std::string name;
};

struct Outcome {
    std::string implementation, plan;
    std::vector<uint64_t> gradInputBits;
};

class PlanCache : public ::testing::Test {
protected:
    void SetUp() override {
        poolgradClearPlanCache();
        std::mt19937 random(20261203);
        std::uniform_int_distribution<int> value(-50, 50);  // integers: ties everywhere
        std::vector<double> values(static_cast<size_t>(self.elementCount()));
        for (double &v : values) v = value(random);
        self.setValues(values);
        std::vector<double> gradients(static_cast<size_t>(gradOutput.elementCount()));
        for (double &g : gradients) g = value(random) / 4.0;
        gradOutput.setValues(gradients);
        IntArray kernel({3, 3}), stride({2, 2}), padding({1, 1}), dilation({1, 1});
        const auto forward = test_support::runTwoPhase(
            [&](uint64_t *workspaceSize, aclOpExecutor **executor) {
                return aclnnMaxPool2dWithIndicesGetWorkspaceSize(self, kernel, stride, padding, dilation, false, output,
                                                                 indices, workspaceSize, executor);
            },
            aclnnMaxPool2dWithIndices);
        ASSERT_EQ(forward.phaseTwo, ACLNN_SUCCESS) << forward.message;
    }
    void TearDown() override {
        poolgradSetNumThreads(0);
        poolgradSetParallelThreshold(0);
        poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT);
        poolgradForceImplementation(nullptr);
        poolgradClearPlanCache();
    }

    // The backward under the settings, into a fresh gradInput placed at the settings' offset; run twice,
    // since Highway settles a new target only at the first dispatched call after it (the second call is then
    // looked up under that target).
    Outcome runBackward(const Settings &settings) {
        poolgradSetNumThreads(settings.threads);
        poolgradSetParallelThreshold(settings.parallelThreshold);
        poolgradSetStreamingStores(settings.streaming);
        TestTensor gradInput(inputShape, inputStrides, settings.gradInputOffset, ACL_FLOAT);
        gradInput.poison();
        Outcome outcome;
        {
            std::optional<test_support::HighwayTargetMock> mock;
            if (settings.simdTarget != 0) mock.emplace(settings.simdTarget);
            const Outcome first = runBackwardInto(gradInput);
            gradInput.poison();
            outcome = runBackwardInto(gradInput);
            EXPECT_EQ(first.plan, outcome.plan);
            EXPECT_EQ(first.gradInputBits, outcome.gradInputBits);
        }
        return outcome;
    }

    Outcome runBackwardInto(const TestTensor &gradInput) {
        IntArray kernel({3, 3}), stride({2, 2}), padding({1, 1}), dilation({1, 1});
        const auto run = test_support::runTwoPhase(
            [&](uint64_t *workspaceSize, aclOpExecutor **executor) {
                return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gradOutput, self, indices, kernel, stride,
                                                                         padding, dilation, false, gradInput,
                                                                         workspaceSize, executor);
            },
            aclnnMaxPool2dWithIndicesBackward);
        EXPECT_EQ(run.phaseTwo, ACLNN_SUCCESS) << run.message;
        poolgradRunReport report{};
        EXPECT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
        Outcome outcome{report.implementation, report.plan, {}};
        for (int64_t i = 0; i < gradInput.elementCount(); ++i) outcome.gradInputBits.push_back(gradInput.bitsAt(i));
        return outcome;
    }

    // Settings that each change the plan of this problem (or, for the offset of 16 floats, keep the alignment
    // and so the plan); the SIMD targets below the CPU's best that Highway can dispatch here.
    static std::vector<Settings> settingsToVisit() {
        std::vector<Settings> all{
            {2, 1, POOLGRAD_STREAMING_STORES_AUTOMATIC, 0, 0, "2 threads"},
            {1, 1, POOLGRAD_STREAMING_STORES_AUTOMATIC, 0, 0, "1 thread"},
            {2, 0, POOLGRAD_STREAMING_STORES_AUTOMATIC, 0, 0, "default parallel threshold"},
            {2, 1, POOLGRAD_STREAMING_STORES_ALWAYS, 0, 0, "streaming, aligned"},
            {2, 1, POOLGRAD_STREAMING_STORES_ALWAYS, 1, 0, "streaming, gradInput 4 bytes past a line"},
            {2, 1, POOLGRAD_STREAMING_STORES_ALWAYS, 16, 0, "streaming, gradInput one line on"},
            {2, 1, POOLGRAD_STREAMING_STORES_NEVER, 0, 0, "never streaming"},
        };
        const int64_t supported = hwy::SupportedTargets() & HWY_TARGETS;  // what the dispatch can take
        const int64_t best = supported & -supported;  // the lowest bit is the best target
        for (const int64_t target : {int64_t{HWY_AVX2}, int64_t{HWY_SSE4}})
            if ((supported & target) != 0 && target != best)
                all.push_back({2, 1, POOLGRAD_STREAMING_STORES_AUTOMATIC, 0, target,
                               target == HWY_AVX2 ? "held to AVX2" : "held to SSE4"});
        return all;
    }

    TestTensor self{inputShape, ACL_FLOAT}, output{outputShape, ACL_FLOAT}, indices{outputShape, ACL_INT32},
        gradOutput{outputShape, ACL_FLOAT};
};

TEST_F(PlanCache, APlanKeptUnderOtherSettingsIsNeverReused) {
    const std::vector<Settings> all = settingsToVisit();
    std::vector<Outcome> fresh;
    for (const Settings &settings : all) {
        poolgradClearPlanCache();
        fresh.push_back(runBackward(settings));
    }
    for (size_t first = 0; first < all.size(); ++first) {
        for (size_t second = 0; second < all.size(); ++second) {
            poolgradClearPlanCache();
            runBackward(all[first]);
            const Outcome again = runBackward(all[second]);
            SCOPED_TRACE("planned under \"" + all[first].name + "\", then run under \"" + all[second].name + "\"");
            EXPECT_EQ(again.implementation, fresh[second].implementation);
            EXPECT_EQ(again.plan, fresh[second].plan);
            EXPECT_EQ(again.gradInputBits, fresh[second].gradInputBits);
        }
    }
    // The settings do change this problem's plan, so the comparisons above can fail.
    EXPECT_NE(fresh[0].plan, fresh[1].plan) << "threads";
    EXPECT_NE(fresh[0].plan, fresh[2].plan) << "parallel threshold";
    EXPECT_NE(fresh[3].plan, fresh[6].plan) << "streaming";
    EXPECT_EQ(fresh[3].plan, fresh[5].plan) << "alignment modulo a line";
    // The stride-2 gather's plan names its lanes and streams only from a line: where it is dispatched (16
    // lanes; AVX2 hosts and the ThreadSanitizer build, compiled without AVX-512, take the slab scatter), the
    // alignment and the SIMD target change the plan too.
    if (fresh[0].implementation == "cpu_index_gather_backward_stride2") {
        EXPECT_NE(fresh[3].plan, fresh[4].plan) << "alignment";
        for (size_t i = 7; i < all.size(); ++i) EXPECT_NE(fresh[0].plan, fresh[i].plan) << all[i].name;
    }
    for (const Outcome &outcome : fresh) EXPECT_EQ(outcome.gradInputBits, fresh[0].gradInputBits);
}

TEST_F(PlanCache, ForcedImplementationsAreNeitherServedNorKept) {
    const Settings settings;
    const Outcome chosen = runBackward(settings);
    const std::string reference = "cpu_index_scatter_backward_reference";
    ASSERT_NE(chosen.implementation, reference);
    ASSERT_EQ(poolgradForceImplementation(reference.c_str()), ACL_SUCCESS);
    const Outcome forced = runBackward(settings);
    EXPECT_EQ(forced.implementation, reference);
    ASSERT_EQ(poolgradForceImplementation(nullptr), ACL_SUCCESS);
    const Outcome after = runBackward(settings);
    EXPECT_EQ(after.implementation, chosen.implementation);
    EXPECT_EQ(after.plan, chosen.plan);
    EXPECT_EQ(forced.gradInputBits, chosen.gradInputBits);
    EXPECT_EQ(after.gradInputBits, chosen.gradInputBits);
}

TEST_F(PlanCache, AnExecutorKeepsItsPlanWhenTheCacheIsCleared) {
    poolgradSetNumThreads(2);
    poolgradSetParallelThreshold(1);
    TestTensor gradInput(inputShape, ACL_FLOAT);
    const Outcome first = runBackwardInto(gradInput);  // planned and kept
    IntArray kernel({3, 3}), stride({2, 2}), padding({1, 1}), dilation({1, 1});
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gradOutput, self, indices, kernel, stride, padding,
                                                                dilation, false, gradInput, &workspaceSize, &executor),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
    poolgradClearPlanCache();
    for (int run = 0; run < 2; ++run) {
        gradInput.poison();
        ASSERT_EQ(aclnnMaxPool2dWithIndicesBackward(nullptr, workspaceSize, executor, nullptr), ACLNN_SUCCESS);
        poolgradRunReport report{};
        ASSERT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
        EXPECT_EQ(std::string(report.plan), first.plan);
        for (int64_t i = 0; i < gradInput.elementCount(); ++i)
            ASSERT_EQ(gradInput.bitsAt(i), first.gradInputBits[static_cast<size_t>(i)]) << i;
        poolgradClearPlanCache();
    }
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

// Each thread plans for itself: threads running the same problem at once under one setting all get the
// plan and results of a fresh call.
TEST_F(PlanCache, ThreadsKeepTheirOwnPlans) {
    const Outcome expected = runBackward(Settings{});
    std::vector<std::thread> threads;
    std::vector<Outcome> outcomes(4);
    for (size_t t = 0; t < outcomes.size(); ++t) {
        threads.emplace_back([&, t] {
            TestTensor gradInput(inputShape, ACL_FLOAT);
            for (int run = 0; run < 20; ++run) {
                gradInput.poison();
                outcomes[t] = runBackwardInto(gradInput);
            }
        });
    }
    for (std::thread &thread : threads) thread.join();
    for (const Outcome &outcome : outcomes) {
        EXPECT_EQ(outcome.implementation, expected.implementation);
        EXPECT_EQ(outcome.plan, expected.plan);
        EXPECT_EQ(outcome.gradInputBits, expected.gradInputBits);
    }
}

}  // namespace
