// poolgradSetStreamingStores / POOLGRAD_STREAMING_STORES: the choice is validated, read by phase 1 (the
// plan text says streaming or cached), and never changes a result. The random suites run every other case
// with streaming stores always (tests/support/differential_driver.cpp).
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <random>
#include <string>

#include "acl/acl.h"
#include "hwy/targets.h"
#include "poolgrad/poolgrad.h"
#include "support/argmax_forward_case.h"
#include "support/highway_target_mock.h"
#include "support/index_backward_case.h"

namespace {

using test_support::IndexBackwardCase;
using test_support::IndexBackwardRun;
using test_support::ThreadSetting;

constexpr const char *kStride2Gather = "cpu_index_gather_backward_stride2";

// Restores the default choice and the environment variable however a test ends.
class ChoiceRestorer {
public:
    ChoiceRestorer() {
        if (const char *value = std::getenv("POOLGRAD_STREAMING_STORES")) saved_ = value, hadValue_ = true;
    }
    ~ChoiceRestorer() {
        poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT);
        if (hadValue_)
            setenv("POOLGRAD_STREAMING_STORES", saved_.c_str(), 1);
        else
            unsetenv("POOLGRAD_STREAMING_STORES");
    }

private:
    std::string saved_;
    bool hadValue_ = false;
};

IndexBackwardCase stride2Problem(reference::Shape5 shape) {
    IndexBackwardCase problem;
    problem.inputShape = shape;
    problem.params.kernel = {1, 3, 3};
    problem.params.stride = {1, 2, 2};
    problem.params.padding = {0, 1, 1};
    problem.type = ACL_FLOAT;
    problem.prepare();
    return problem;
}

// The stride-2 gather's plan ends "..., <lanes> lanes, streaming threads=1" or "... cached threads=1".
std::string storesOf(const IndexBackwardRun &run) {
    if (run.plan.find(" lanes, streaming ") != std::string::npos) return "streaming";
    if (run.plan.find(" lanes, cached ") != std::string::npos) return "cached";
    return "neither: " + run.plan;
}

TEST(StreamingStoresChoice, SetGetAndRefusals) {
    ChoiceRestorer restore;
    unsetenv("POOLGRAD_STREAMING_STORES");
    EXPECT_EQ(poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT), ACL_SUCCESS);
    EXPECT_EQ(poolgradGetStreamingStores(), POOLGRAD_STREAMING_STORES_AUTOMATIC);
    EXPECT_EQ(poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_NEVER), ACL_SUCCESS);
    EXPECT_EQ(poolgradGetStreamingStores(), POOLGRAD_STREAMING_STORES_NEVER);
    for (int32_t refused : {-1, 4, 1 << 30}) {
        EXPECT_EQ(poolgradSetStreamingStores(refused), ACL_ERROR_INVALID_PARAM);
        const std::string message = aclGetRecentErrMsg();
        EXPECT_NE(message.find("poolgradSetStreamingStores: choice"), std::string::npos) << message;
        EXPECT_NE(message.find("got " + std::to_string(refused)), std::string::npos) << message;
        EXPECT_EQ(poolgradGetStreamingStores(), POOLGRAD_STREAMING_STORES_NEVER) << "a refused choice was applied";
    }
    EXPECT_EQ(poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_ALWAYS), ACL_SUCCESS);
    EXPECT_EQ(poolgradGetStreamingStores(), POOLGRAD_STREAMING_STORES_ALWAYS);
    EXPECT_EQ(poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_AUTOMATIC), ACL_SUCCESS);
    EXPECT_EQ(poolgradGetStreamingStores(), POOLGRAD_STREAMING_STORES_AUTOMATIC);
}

TEST(StreamingStoresChoice, EnvironmentVariableIsTheDefault) {
    ChoiceRestorer restore;
    EXPECT_EQ(poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT), ACL_SUCCESS);
    const std::array<std::pair<const char *, int32_t>, 4> values = {{{"never", POOLGRAD_STREAMING_STORES_NEVER},
                                                                     {"always", POOLGRAD_STREAMING_STORES_ALWAYS},
                                                                     {"automatic", POOLGRAD_STREAMING_STORES_AUTOMATIC},
                                                                     {"sometimes", POOLGRAD_STREAMING_STORES_AUTOMATIC}}};
    for (const auto &[text, choice] : values) {
        SCOPED_TRACE(text);
        setenv("POOLGRAD_STREAMING_STORES", text, 1);
        EXPECT_EQ(poolgradGetStreamingStores(), choice);
    }
    // A choice set through the API wins over the variable.
    setenv("POOLGRAD_STREAMING_STORES", "always", 1);
    EXPECT_EQ(poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_NEVER), ACL_SUCCESS);
    EXPECT_EQ(poolgradGetStreamingStores(), POOLGRAD_STREAMING_STORES_NEVER);
}

TEST(StreamingStoresChoice, PlansFollowTheChoiceAndResultsDoNot) {
    ChoiceRestorer restore;
    ThreadSetting threads(1, 0);
    // 4.2 MB of gradInput in rows of whole lines: streamed by the automatic choice; 64 KB: not.
    const IndexBackwardCase large = stride2Problem({1, 1, 1, 1040, 1024});
    const IndexBackwardCase small = stride2Problem({1, 4, 1, 64, 64});
    // Rows of 4080 bytes: never streamed, whatever the choice (a line would take both kinds of store).
    const IndexBackwardCase partialLines = stride2Problem({1, 1, 1, 1040, 1020});
    struct Expectation {
        int32_t choice;
        const IndexBackwardCase *problem;
        const char *label, *stores;
    };
    const Expectation expectations[] = {
        {POOLGRAD_STREAMING_STORES_AUTOMATIC, &large, "automatic, large", "streaming"},
        {POOLGRAD_STREAMING_STORES_AUTOMATIC, &small, "automatic, small", "cached"},
        {POOLGRAD_STREAMING_STORES_NEVER, &large, "never, large", "cached"},
        {POOLGRAD_STREAMING_STORES_ALWAYS, &small, "always, small", "streaming"},
        {POOLGRAD_STREAMING_STORES_ALWAYS, &partialLines, "always, rows of partial lines", "cached"},
    };
    for (const Expectation &expectation : expectations) {
        SCOPED_TRACE(expectation.label);
        ASSERT_EQ(poolgradSetStreamingStores(expectation.choice), ACL_SUCCESS);
        const IndexBackwardRun run = test_support::runIndexBackward(*expectation.problem, kStride2Gather);
        ASSERT_EQ(run.status.phaseOne, 0) << run.message;
        ASSERT_EQ(run.status.phaseTwo, 0) << run.message;
        EXPECT_EQ(storesOf(run), expectation.stores) << run.plan;
        test_support::expectGradInputBits(expectation.problem->expectedBits(), run, ACL_FLOAT, false);
    }
}

TEST(StreamingStoresChoice, ForwardsWeighTheirValuesAndIndicesTogether) {
    // A forward writes values and indices side by side: the two together are weighed against 2 MiB (each alone
    // stays under the single-output rule's 4 MiB here). 2x2 stride-2 windows over 32 planes, float32 values and
    // INT32 indices: 96x128 outputs a plane are 1.5 MiB each (3 MiB together: streamed), 64x96 0.75 MiB each
    // (1.5 MiB: cached); output rows of 120 floats (480 bytes) are never streamed (a line would take both kinds
    // of store). Channels-last and the planar row search alike; every output checked against the reference.
    // Channels-last bfloat16 streams where each position's channels are whole vectors of its integer search
    // (32 channels), and is cached with 48; the row search's bfloat16 rows read in place stream output rows of
    // whole lines (128 columns), not of half lines (16).
    ChoiceRestorer restore;
    std::mt19937_64 rng(43);
    struct Expectation {
        int32_t choice;
        int64_t outH, outW;
        bool channelsLast;
        const char *label;
        bool streamed;
        aclDataType type = ACL_FLOAT;
        int64_t channels = 32;
    };
    const Expectation expectations[] = {
        {POOLGRAD_STREAMING_STORES_AUTOMATIC, 96, 128, true, "channels-last, 3 MiB together", true},
        {POOLGRAD_STREAMING_STORES_AUTOMATIC, 64, 96, true, "channels-last, 1.5 MiB together", false},
        {POOLGRAD_STREAMING_STORES_NEVER, 96, 128, true, "channels-last, never", false},
        {POOLGRAD_STREAMING_STORES_AUTOMATIC, 96, 128, false, "planar rows, 3 MiB together", true},
        {POOLGRAD_STREAMING_STORES_AUTOMATIC, 64, 96, false, "planar rows, 1.5 MiB together", false},
        {POOLGRAD_STREAMING_STORES_ALWAYS, 96, 120, false, "planar rows of 480 bytes, always", false},
        {POOLGRAD_STREAMING_STORES_ALWAYS, 8, 16, false, "planar rows, small, always", true},
        {POOLGRAD_STREAMING_STORES_AUTOMATIC, 128, 128, true, "channels-last bfloat16, 3 MiB together", true, ACL_BF16},
        {POOLGRAD_STREAMING_STORES_ALWAYS, 8, 16, true, "channels-last bfloat16, 48 channels", false, ACL_BF16, 48},
        {POOLGRAD_STREAMING_STORES_AUTOMATIC, 128, 128, false, "planar bfloat16 rows in place, 3 MiB together", true,
         ACL_BF16},
        {POOLGRAD_STREAMING_STORES_ALWAYS, 8, 16, false, "planar bfloat16 rows of 32 bytes, always", false, ACL_BF16},
    };
    for (const Expectation &expectation : expectations) {
        SCOPED_TRACE(expectation.label);
        ASSERT_EQ(poolgradSetStreamingStores(expectation.choice), ACL_SUCCESS);
        test_support::ArgmaxForwardCase c;
        c.channelsLast = expectation.channelsLast;
        c.valueType = expectation.type;
        c.input = {1, expectation.channels, 1, 2 * expectation.outH, 2 * expectation.outW};
        c.params.kernel = {1, 2, 2};
        c.params.stride = {1, 2, 2};
        c.bits = test_support::tieHeavyBits(rng, expectation.channels * 4 * expectation.outH * expectation.outW, 0.001);
        if (expectation.type != ACL_FLOAT) c.bits = test_support::sixteenBitPatterns(c.bits, expectation.type);
        const char *implementation =
            expectation.channelsLast ? "cpu_argmax_forward_channels_last" : "cpu_argmax_forward_dense_rows";
        test_support::checkArgmaxForward(c, implementation, 2);
        poolgradRunReport report{};
        ASSERT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
        EXPECT_EQ(std::string(report.plan).find("streaming stores") != std::string::npos, expectation.streamed)
            << report.plan;
    }
}

TEST(StreamingStores, SixteenBitVectorsOfEveryInstructionSetWriteOnlyTheirOwnBytes) {
    // Highway streams an x86 vector of fewer than 16 bytes as a whole 16-byte register: with SSE4's four lanes a
    // 16-bit vector is 8 bytes, and its stream wrote the 8 bytes after it as well and faulted wherever it did not
    // start on 16 bytes (found by the ThreadSanitizer build, whose kernels are SSE4's: this suite's forward test
    // crashed there). On every instruction set this CPU has, streaming always: the forward's 16-bit rows (whole
    // lines, streamed) and the stride-2 gather's 16-bit gradInput at each 8-byte offset of a line, every output
    // checked against the references and gradInput's surroundings against change.
    ChoiceRestorer restore;
    ASSERT_EQ(poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_ALWAYS), ACL_SUCCESS);
    std::mt19937_64 rng(91);
    uint64_t seed = 900;
    int64_t instructionSets = 0;
    const test_support::IndexGeometry gatherGeometry{
        "3x3 stride 2 pad 1", {1, 2, 1, 13, 70}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}};
    test_support::forEachInstructionSet([&](int64_t target) {
        SCOPED_TRACE(hwy::TargetName(target));
        ++instructionSets;
        for (const aclDataType type : {ACL_BF16, ACL_FLOAT16}) {
            SCOPED_TRACE(type == ACL_BF16 ? "bfloat16" : "float16");
            test_support::ArgmaxForwardCase c;
            c.valueType = type;
            c.input = {1, 3, 1, 2 * 6, 2 * 128};
            c.params.kernel = {1, 2, 2};
            c.params.stride = {1, 2, 2};
            c.bits = test_support::sixteenBitPatterns(test_support::tieHeavyBits(rng, 3 * 12 * 256, 0.001), type);
            test_support::checkArgmaxForward(c, "cpu_argmax_forward_dense_rows", 2);
            for (const int64_t offset : {0, 4, 8, 12}) {  // elements: 0, 8, 16 and 24 bytes into a line
                IndexBackwardCase problem = test_support::indexCaseOf(gatherGeometry, type, ACL_INT32,
                                                                      test_support::IndexLayout::Contiguous, ++seed);
                problem.gradInputOffset = offset;
                SCOPED_TRACE(problem.describe() + ", gradInput " + std::to_string(offset) + " elements into a line");
                ThreadSetting setting(2, 1);
                test_support::expectOwnRunMatchesReferences(problem, "cpu_index_gather_backward_stride2");
            }
        }
        return !HasFatalFailure();
    });
    EXPECT_EQ(instructionSets, test_support::visitedInstructionSetCount());
    EXPECT_GE(instructionSets, 1);
}

}  // namespace
