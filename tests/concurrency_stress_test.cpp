// Many callers at once: threads run different operators (with repeatable executors among them) on their
// own data while another thread churns descriptors, each thread checking that aclGetRecentErrMsg holds its
// own errors. Every thread's results must equal, bit for bit, those of the same calls made one thread at a
// time. scripts/test.sh also runs this suite under ThreadSanitizer (build/tsan).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "poolgrad/poolgrad.h"
#include "support/max_pool_v3_run.h"
#include "support/sanitizer_build.h"
#include "support/test_tensor.h"

using test_support::IntArray;
using test_support::TestTensor;

namespace {

constexpr int callerThreads = 6;
constexpr int rounds = test_support::sanitizerBuild ? 8 : 20;

std::string recentMessage() { return aclGetRecentErrMsg(); }

// Small integers: many ties, so the selection rule (first maximum) is exercised too.
void fillRandom(TestTensor &tensor, std::mt19937 &random) {
    std::uniform_int_distribution<int> value(-8, 8);
    std::vector<double> values(static_cast<size_t>(tensor.elementCount()));
    for (double &v : values) v = value(random);
    tensor.setValues(values);
}

void appendBits(const TestTensor &tensor, std::vector<uint64_t> &bits) {
    for (int64_t i = 0; i < tensor.elementCount(); ++i) bits.push_back(tensor.bitsAt(i));
}

// Phase 1 must fail with 161002 and leave this thread's own message, naming its own padding value.
void expectOwnError(int seed, int round) {
    TestTensor self({1, 1, 2, 4, 4}, ACL_FLOAT), out({1, 1, 1, 2, 2}, ACL_FLOAT), indices({1, 1, 1, 2, 2}, ACL_INT64);
    const int64_t padding = 1000 + seed * 100 + round;
    IntArray kernel({2}), stride({2}), pads({padding}), dilation({1});
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(self, kernel, stride, pads, dilation, false, out, indices,
                                                       &workspaceSize, &executor),
              ACLNN_ERR_PARAM_INVALID);
    const std::string message = recentMessage();
    EXPECT_NE(message.find("got " + std::to_string(padding)), std::string::npos)
        << "thread " << seed << " sees another message: " << message;
}

// One caller's sequence of calls; returns the bits of every result in order.
std::vector<uint64_t> runCaller(int seed) {
    std::mt19937 random(static_cast<uint32_t>(seed) * 7919u + 17u);
    std::vector<uint64_t> bits;

    // A repeatable executor, run once per round on data rewritten in between.
    TestTensor repeatIn({2, 3, 7, 9}, ACL_FLOAT), repeatOut({2, 3, 3, 4}, ACL_FLOAT),
        repeatIndices({2, 3, 3, 4}, ACL_INT64);
    aclOpExecutor *repeatable = nullptr;
    {
        IntArray outputSize({3, 4});
        uint64_t workspaceSize = 0;
        EXPECT_EQ(aclnnAdaptiveMaxPool2dGetWorkspaceSize(repeatIn, outputSize, repeatOut, repeatIndices, &workspaceSize,
                                                         &repeatable),
                  ACLNN_SUCCESS)
            << recentMessage();
        EXPECT_EQ(aclSetAclOpExecutorRepeatable(repeatable), ACLNN_SUCCESS);
    }

    for (int round = 0; round < rounds; ++round) {
        // 3-D forward then backward; descriptors made for the call and destroyed right after phase 1.
        auto self = std::make_unique<TestTensor>(std::vector<int64_t>{2, 3, 4, 6, 6}, ACL_FLOAT);
        TestTensor out({2, 3, 2, 3, 3}, ACL_FLOAT), indices({2, 3, 2, 3, 3}, ACL_INT64);
        fillRandom(*self, random);
        uint64_t workspaceSize = 0;
        aclOpExecutor *executor = nullptr;
        {
            IntArray kernel({2, 2, 2}), stride({2, 2, 2}), padding({0}), dilation({1});
            EXPECT_EQ(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(*self, kernel, stride, padding, dilation, false, out,
                                                               indices, &workspaceSize, &executor),
                      ACLNN_SUCCESS)
                << recentMessage();
            EXPECT_STREQ(aclGetRecentErrMsg(), "") << "a successful phase 1 clears the message";
        }
        EXPECT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << recentMessage();
        EXPECT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_NULLPTR)
            << "a finished executor ran again";
        appendBits(out, bits);
        appendBits(indices, bits);

        TestTensor gradOutput({2, 3, 2, 3, 3}, ACL_FLOAT), gradInput({2, 3, 4, 6, 6}, ACL_FLOAT);
        fillRandom(gradOutput, random);
        {
            IntArray kernel({2, 2, 2}), stride({2, 2, 2}), padding({0}), dilation({1});
            EXPECT_EQ(
                aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOutput, *self, indices, kernel, stride, padding,
                                                                 dilation, false, gradInput, &workspaceSize, &executor),
                ACLNN_SUCCESS)
                << recentMessage();
        }
        self.reset();  // the executor copied what it needs (SPEC §1.2)
        EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << recentMessage();
        appendBits(gradInput, bits);

        // MaxPoolV3WithAttrs and its gradient MaxPoolV3Grad, in float16.
        const max_pool_v3_test::V3Attributes v3{{1, 1, 2, 2}, {1, 1, 2, 2}, "VALID", std::nullopt, "NCHW"};
        TestTensor x({2, 3, 6, 8}, ACL_FLOAT16), y({2, 3, 3, 4}, ACL_FLOAT16), grad({2, 3, 3, 4}, ACL_FLOAT16),
            outGrad({2, 3, 6, 8}, ACL_FLOAT16);
        fillRandom(x, random);
        fillRandom(grad, random);
        const max_pool_v3_test::V3Status forward = max_pool_v3_test::runMaxPoolV3WithAttrs(x, v3, y);
        EXPECT_TRUE(forward.phaseOne == 0 && forward.phaseTwo == 0) << forward.message;
        const max_pool_v3_test::V3Status backward = max_pool_v3_test::runMaxPoolV3Grad(x, y, grad, v3, outGrad);
        EXPECT_TRUE(backward.phaseOne == 0 && backward.phaseTwo == 0) << backward.message;
        appendBits(y, bits);
        appendBits(outGrad, bits);

        fillRandom(repeatIn, random);
        EXPECT_EQ(aclnnAdaptiveMaxPool2d(nullptr, 0, repeatable, nullptr), ACLNN_SUCCESS) << recentMessage();
        appendBits(repeatOut, bits);
        appendBits(repeatIndices, bits);

        expectOwnError(seed, round);
    }
    EXPECT_EQ(aclDestroyAclOpExecutor(repeatable), ACLNN_SUCCESS);
    EXPECT_EQ(aclnnAdaptiveMaxPool2d(nullptr, 0, repeatable, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    return bits;
}

// Creates and destroys descriptors of every kind until told to stop; returns the cycles done.
int churnDescriptors(const std::atomic<bool> &stop) {
    const int64_t dims[3] = {2, 3, 4}, values[2] = {1, 2};
    const float floats[2] = {0.5f, 1.5f};
    const bool bools[2] = {true, false};
    int cycles = 0;
    while (!stop.load() || cycles < 100) {
        aclTensor *tensor = aclCreateTensor(dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 3, nullptr);
        aclIntArray *intArray = aclCreateIntArray(values, 2);
        aclFloatArray *floatArray = aclCreateFloatArray(floats, 2);
        aclBoolArray *boolArray = aclCreateBoolArray(bools, 2);
        const aclTensor *members[1] = {tensor};
        aclTensorList *list = aclCreateTensorList(members, 1);
        EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
        EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_ERR_PARAM_NULLPTR);
        EXPECT_EQ(aclDestroyIntArray(intArray), ACLNN_SUCCESS);
        EXPECT_EQ(aclDestroyIntArray(intArray), ACLNN_ERR_PARAM_NULLPTR);
        EXPECT_EQ(aclDestroyFloatArray(floatArray), ACLNN_SUCCESS);
        EXPECT_EQ(aclDestroyBoolArray(boolArray), ACLNN_SUCCESS);
        uint64_t size = 0;
        EXPECT_EQ(aclGetTensorListSize(list, &size), ACLNN_SUCCESS);
        EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
        ++cycles;
    }
    return cycles;
}

}  // namespace

TEST(ConcurrencyStress, ManyCallersGetTheSingleThreadedResultsBitForBit) {
    // Split even these small problems over 2 threads per call, so operator threads run inside every caller.
    ASSERT_EQ(poolgradSetNumThreads(2), ACL_SUCCESS);
    ASSERT_EQ(poolgradSetParallelThreshold(1), ACL_SUCCESS);

    std::vector<std::vector<uint64_t>> alone(callerThreads), together(callerThreads);
    for (int seed = 0; seed < callerThreads; ++seed) alone[seed] = runCaller(seed);

    std::atomic<bool> stop{false};
    int churnCycles = 0;
    std::thread churn([&] { churnCycles = churnDescriptors(stop); });
    std::vector<std::thread> callers;
    for (int seed = 0; seed < callerThreads; ++seed)
        callers.emplace_back([seed, &together] { together[seed] = runCaller(seed); });
    for (std::thread &caller : callers) caller.join();
    stop = true;
    churn.join();

    for (int seed = 0; seed < callerThreads; ++seed) {
        ASSERT_FALSE(alone[seed].empty());
        EXPECT_EQ(together[seed], alone[seed]) << "caller " << seed << " got different results concurrently";
    }
    EXPECT_GE(churnCycles, 100);
    EXPECT_EQ(poolgradSetNumThreads(0), ACL_SUCCESS);  // back to the defaults
    EXPECT_EQ(poolgradSetParallelThreshold(0), ACL_SUCCESS);
}
