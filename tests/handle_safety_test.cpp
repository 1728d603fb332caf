// Handles that cannot be confused: every descriptor, executor and stream handle the library returns is
// never issued again, so a stale or double use is reported (161001, or 100000 from the acl* runtime
// functions) and never reaches another caller's object, however many objects were created since.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "support/sanitizer_build.h"
#include "support/test_tensor.h"

using test_support::IntArray;
using test_support::TestTensor;

namespace {

std::string recentMessage() { return aclGetRecentErrMsg(); }

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

constexpr int churnCycles = test_support::sanitizerBuild ? 100'000 : 1'000'000;

// A 3-D forward over a (1,1,1,2,2) input holding `values`: out = the maximum, indices = its position.
struct Forward {
    TestTensor self{{1, 1, 1, 2, 2}, ACL_FLOAT}, out{{1, 1, 1, 1, 1}, ACL_FLOAT}, indices{{1, 1, 1, 1, 1}, ACL_INT64};
    IntArray kernel{{1, 2, 2}}, stride{std::vector<int64_t>{}}, padding{{0}}, dilation{{1}};

    explicit Forward(std::vector<double> values) { self.setValues(values); }
    aclOpExecutor *phaseOne() {
        uint64_t workspaceSize = 0;
        aclOpExecutor *executor = nullptr;
        EXPECT_EQ(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(self, kernel, stride, padding, dilation, false, out, indices,
                                                           &workspaceSize, &executor),
                  ACLNN_SUCCESS)
            << recentMessage();
        return executor;
    }
};

// A 3-D backward that sends 0.5 to position `index` of a (1,1,1,2,2) gradInput.
struct Backward {
    TestTensor gradOutput{{1, 1, 1, 1, 1}, ACL_FLOAT}, self{{1, 1, 1, 2, 2}, ACL_FLOAT},
        indices{{1, 1, 1, 1, 1}, ACL_INT64}, gradInput{{1, 1, 1, 2, 2}, ACL_FLOAT};
    IntArray kernel{{1, 2, 2}}, stride{std::vector<int64_t>{}}, padding{{0}}, dilation{{1}};

    explicit Backward(int64_t index) {
        gradOutput.set(0, 0.5);
        indices.set(0, static_cast<double>(index));
    }
    aclOpExecutor *phaseOne() {
        uint64_t workspaceSize = 0;
        aclOpExecutor *executor = nullptr;
        EXPECT_EQ(
            aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOutput, self, indices, kernel, stride, padding,
                                                             dilation, false, gradInput, &workspaceSize, &executor),
            ACLNN_SUCCESS)
            << recentMessage();
        return executor;
    }
    bool untouched() const {
        for (int64_t i = 0; i < 4; ++i)
            if (gradInput.bitsAt(i) != 0xA5A5A5A5u) return false;
        return true;
    }
};

}  // namespace

// ---- executors -------------------------------------------------------------------------------------------

TEST(HandleSafety, RerunningAFinishedExecutorNeverRunsTheNextCallersExecutor) {
    // The defect: liveness was a set of addresses and the allocator hands a freed executor's address to the
    // next phase 1, so a second run of a finished executor ran whatever executor now lived there.
    Forward first({1, 4, 3, 2});
    aclOpExecutor *finished = first.phaseOne();
    ASSERT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, finished, nullptr), ACLNN_SUCCESS) << recentMessage();
    EXPECT_EQ(first.out.at(0), 4.0);

    for (int attempt = 0; attempt < 64; ++attempt) {
        Forward second({8, 5, 9, 7});  // another caller's executor, created after the first one finished
        aclOpExecutor *other = second.phaseOne();
        ASSERT_NE(other, finished) << "a finished executor's handle was issued again";
        second.out.poison();
        EXPECT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, finished, nullptr), ACLNN_ERR_PARAM_NULLPTR);
        EXPECT_TRUE(contains(recentMessage(), "executor")) << recentMessage();
        EXPECT_EQ(second.out.bitsAt(0), 0xA5A5A5A5u) << "the stale run ran the other caller's executor";
        // The other caller's executor is intact and still runs once.
        ASSERT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, other, nullptr), ACLNN_SUCCESS) << recentMessage();
        EXPECT_EQ(second.out.at(0), 9.0);
    }
}

TEST(HandleSafety, AStaleExecutorGivenToAnotherOperatorNeverReleasesTheNextCallersExecutor) {
    // The other half of the defect: phase 2 of another operator releases an executor it did not make, so a
    // stale handle released another caller's live executor.
    Forward first({1, 4, 3, 2});
    aclOpExecutor *finished = first.phaseOne();
    ASSERT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, finished, nullptr), ACLNN_SUCCESS);
    for (int attempt = 0; attempt < 64; ++attempt) {
        Backward backward(2);
        aclOpExecutor *other = backward.phaseOne();
        EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, finished, nullptr), ACLNN_ERR_PARAM_NULLPTR);
        EXPECT_TRUE(backward.untouched());
        ASSERT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, other, nullptr), ACLNN_SUCCESS) << recentMessage();
        EXPECT_EQ(backward.gradInput.values(), (std::vector<double>{0, 0, 0.5, 0}));
    }
}

TEST(HandleSafety, DestroyedExecutorIsRefusedByEveryExecutorFunction) {
    Forward forward({1, 4, 3, 2});
    aclOpExecutor *executor = forward.phaseOne();
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
    ASSERT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
    Forward next({0, 0, 0, 0});
    aclOpExecutor *live = next.phaseOne();
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(contains(recentMessage(), "aclDestroyAclOpExecutor: executor is not live")) << recentMessage();
    EXPECT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, live, nullptr), ACLNN_SUCCESS) << recentMessage();
}

TEST(HandleSafety, ADescriptorHandleIsNotAnExecutor) {
    IntArray array({1, 2});
    auto *wrongKind = reinterpret_cast<aclOpExecutor *>(static_cast<aclIntArray *>(array));
    EXPECT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, wrongKind, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(contains(recentMessage(), "is an aclIntArray handle, not an aclOpExecutor")) << recentMessage();
    int notAHandle = 0;
    EXPECT_EQ(aclDestroyAclOpExecutor(reinterpret_cast<aclOpExecutor *>(&notAHandle)), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(contains(recentMessage(), "is not an aclOpExecutor handle")) << recentMessage();
}

TEST(HandleSafety, PhaseTwoOnADestroyedStreamIs161001AndReleasesTheExecutor) {
    aclrtStream stream = nullptr;
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(contains(recentMessage(), "was already destroyed")) << recentMessage();
    EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);
    Forward forward({1, 4, 3, 2});
    forward.out.poison();
    aclOpExecutor *executor = forward.phaseOne();
    EXPECT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, executor, stream), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(contains(recentMessage(), "stream")) << recentMessage();
    EXPECT_EQ(forward.out.bitsAt(0), 0xA5A5A5A5u);
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_NULLPTR) << "the failed run released it";
}

// ---- descriptors -----------------------------------------------------------------------------------------

TEST(HandleSafety, DoubleDestroyOfEveryDescriptorIs161001) {
    const int64_t dims[2] = {2, 3}, values[2] = {1, 2};
    const float floats[1] = {1.0f};
    const bool bools[1] = {true};
    float scalarValue = 2.0f;
    aclTensor *tensor = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, nullptr);
    aclIntArray *intArray = aclCreateIntArray(values, 2);
    aclFloatArray *floatArray = aclCreateFloatArray(floats, 1);
    aclBoolArray *boolArray = aclCreateBoolArray(bools, 1);
    aclScalar *scalar = aclCreateScalar(&scalarValue, ACL_FLOAT);
    const aclTensor *members[1] = {tensor};
    aclTensorList *list = aclCreateTensorList(members, 1);
    ASSERT_TRUE(tensor && intArray && floatArray && boolArray && scalar && list);

    EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(contains(recentMessage(), "aclDestroyTensor: tensor was already destroyed")) << recentMessage();
    EXPECT_EQ(aclDestroyIntArray(intArray), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyIntArray(intArray), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(contains(recentMessage(), "aclDestroyIntArray: array was already destroyed")) << recentMessage();
    EXPECT_EQ(aclDestroyFloatArray(floatArray), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyFloatArray(floatArray), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclDestroyBoolArray(boolArray), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyBoolArray(boolArray), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclDestroyScalar(scalar), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyScalar(scalar), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyTensorList(list), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(contains(recentMessage(), "aclDestroyTensorList")) << recentMessage();
}

TEST(HandleSafety, QueriesOnADestroyedTensorAre161001) {
    const int64_t dims[3] = {2, 3, 4};
    aclTensor *tensor = aclCreateTensor(dims, 3, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND, dims, 3, nullptr);
    ASSERT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
    // A new tensor, likely at the freed descriptor's address: the stale handle must not see it.
    aclTensor *next = aclCreateTensor(dims, 2, ACL_INT32, nullptr, 0, ACL_FORMAT_NCHW, dims, 2, nullptr);
    int64_t *values = nullptr;
    uint64_t count = 0;
    int64_t offset = 0;
    aclFormat format = ACL_FORMAT_UNDEFINED;
    aclDataType type = ACL_DT_UNDEFINED;
    EXPECT_EQ(aclGetViewShape(tensor, &values, &count), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(contains(recentMessage(), "aclGetViewShape: tensor was already destroyed")) << recentMessage();
    EXPECT_EQ(aclGetStorageShape(tensor, &values, &count), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetViewStrides(tensor, &values, &count), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetViewOffset(tensor, &offset), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetFormat(tensor, &format), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetDataType(tensor, &type), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(values, nullptr);
    EXPECT_EQ(format, ACL_FORMAT_UNDEFINED);
    EXPECT_EQ(type, ACL_DT_UNDEFINED);
    EXPECT_EQ(aclGetDataType(next, &type), ACLNN_SUCCESS);
    EXPECT_EQ(type, ACL_INT32);
    EXPECT_EQ(aclDestroyTensor(next), ACLNN_SUCCESS);
}

TEST(HandleSafety, ArrayQueriesOnDestroyedArraysAre161001) {
    const int64_t values[3] = {1, 2, 3};
    const float floats[1] = {1.0f};
    const bool bools[1] = {false};
    aclIntArray *intArray = aclCreateIntArray(values, 3);
    aclFloatArray *floatArray = aclCreateFloatArray(floats, 1);
    aclBoolArray *boolArray = aclCreateBoolArray(bools, 1);
    aclTensorList *list = aclCreateTensorList(nullptr, 0);
    aclDestroyIntArray(intArray);
    aclDestroyFloatArray(floatArray);
    aclDestroyBoolArray(boolArray);
    aclDestroyTensorList(list);
    uint64_t size = 99;
    EXPECT_EQ(aclGetIntArraySize(intArray, &size), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetFloatArraySize(floatArray, &size), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetBoolArraySize(boolArray, &size), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetTensorListSize(list, &size), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(size, 99u);
}

TEST(HandleSafety, PhaseOneWithADestroyedDescriptorIs161001NamingTheArgument) {
    Forward forward({1, 4, 3, 2});
    const int64_t dims[5] = {1, 1, 1, 1, 1};
    aclTensor *stale = aclCreateTensor(dims, 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 5, nullptr);
    aclDestroyTensor(stale);
    const int64_t one[1] = {1};
    aclIntArray *staleArray = aclCreateIntArray(one, 1);
    aclDestroyIntArray(staleArray);
    uint64_t workspaceSize = 7;
    aclOpExecutor *executor = reinterpret_cast<aclOpExecutor *>(&workspaceSize);
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(forward.self, forward.kernel, forward.stride, forward.padding,
                                                       forward.dilation, false, stale, forward.indices, &workspaceSize,
                                                       &executor),
              ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(contains(recentMessage(), "aclnnMaxPool3dWithArgmax: out was already destroyed")) << recentMessage();
    EXPECT_EQ(executor, nullptr);
    EXPECT_EQ(workspaceSize, 0u);
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(forward.self, forward.kernel, staleArray, forward.padding,
                                                       forward.dilation, false, forward.out, forward.indices,
                                                       &workspaceSize, &executor),
              ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(contains(recentMessage(), "stride was already destroyed")) << recentMessage();

    // A tensor handle where an int array belongs, and an int array where a tensor belongs.
    TestTensor input({1, 1, 4, 4}, ACL_FLOAT), output({1, 1, 2, 2}, ACL_FLOAT), indices({1, 1, 2, 2}, ACL_INT64);
    auto *tensorAsArray = reinterpret_cast<aclIntArray *>(input.get());
    EXPECT_EQ(aclnnAdaptiveMaxPool2dGetWorkspaceSize(input, tensorAsArray, output, indices, &workspaceSize, &executor),
              ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(contains(recentMessage(), "outputSize is an aclTensor handle, not an aclIntArray")) << recentMessage();
}

TEST(HandleSafety, HandlesAreNeverReusedAcrossAMillionCreateDestroyCycles) {
    const int64_t dims[2] = {3, 5};
    aclTensor *first = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, nullptr);
    ASSERT_EQ(aclDestroyTensor(first), ACLNN_SUCCESS);
    std::unordered_set<uintptr_t> seen{reinterpret_cast<uintptr_t>(first)};
    seen.reserve(churnCycles + 1);
    for (int cycle = 0; cycle < churnCycles; ++cycle) {
        aclTensor *tensor = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, nullptr);
        ASSERT_NE(tensor, nullptr);
        ASSERT_TRUE(seen.insert(reinterpret_cast<uintptr_t>(tensor)).second) << "handle repeated at cycle " << cycle;
        ASSERT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
    }
    int64_t offset = 0;
    EXPECT_EQ(aclGetViewOffset(first, &offset), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclDestroyTensor(first), ACLNN_ERR_PARAM_NULLPTR);
}

TEST(HandleSafety, ATensorListHoldsCopiesOfItsMembers) {
    const int64_t a[2] = {2, 3}, b[1] = {7};
    aclTensor *first = aclCreateTensor(a, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, a, 2, nullptr);
    aclTensor *second = aclCreateTensor(b, 1, ACL_INT64, nullptr, 0, ACL_FORMAT_ND, b, 1, nullptr);
    const aclTensor *members[3] = {first, nullptr, second};
    aclTensorList *list = aclCreateTensorList(members, 3);
    ASSERT_NE(list, nullptr) << recentMessage();
    // Destroying a member leaves the list intact; destroying the list leaves the other member alive.
    EXPECT_EQ(aclDestroyTensor(first), ACLNN_SUCCESS);
    uint64_t size = 0;
    EXPECT_EQ(aclGetTensorListSize(list, &size), ACLNN_SUCCESS);
    EXPECT_EQ(size, 3u);
    EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
    aclDataType type = ACL_DT_UNDEFINED;
    EXPECT_EQ(aclGetDataType(second, &type), ACLNN_SUCCESS);
    EXPECT_EQ(type, ACL_INT64);
    // A list cannot be made of a destroyed tensor.
    const aclTensor *stale[1] = {first};
    EXPECT_EQ(aclCreateTensorList(stale, 1), nullptr);
    EXPECT_TRUE(contains(recentMessage(), "aclCreateTensorList: value[0] was already destroyed")) << recentMessage();
    EXPECT_EQ(aclDestroyTensor(second), ACLNN_SUCCESS);
}
