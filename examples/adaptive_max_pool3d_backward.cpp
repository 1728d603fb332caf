// Client program for aclnnAdaptiveMaxPool3dBackward in the style of a CANN sample (the ops-nn example, SPEC
// WE-9): self (1,1,3,2,2), gradOutput (1,1,2,1,1) = [0.4757, 0.3232], indices [6, 10] (what the forward with
// outputSize (2,1,1) selects). Each gradient goes back to its argmax; prints gradInput.
#include "acl/acl.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "example_common.h"

int main() {
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> gradOutShape = {1, 1, 2, 1, 1};
    std::vector<int64_t> selfShape = {1, 1, 3, 2, 2};
    std::vector<int64_t> indicesShape = {1, 1, 2, 1, 1};
    std::vector<int64_t> gradInShape = {1, 1, 3, 2, 2};
    std::vector<float> gradOutHostData = {0.4757f, 0.3232f};
    std::vector<float> selfHostData = {0.0850f, -0.5147f, -0.0212f, -0.5654f, -0.3222f, 0.5847f,
                                       1.7510f, 0.9954f,  0.1234f,  -0.6789f, 2.3456f,  -1.2345f};
    std::vector<int32_t> indicesHostData = {6, 10};
    std::vector<float> gradInHostData(12, 0.0f);

    void *gradOutDeviceAddr = nullptr, *selfDeviceAddr = nullptr, *indicesDeviceAddr = nullptr,
         *gradInDeviceAddr = nullptr;
    aclTensor *gradOut = nullptr, *self = nullptr, *indices = nullptr, *gradIn = nullptr;
    ret = CreateAclTensor(gradOutHostData, gradOutShape, &gradOutDeviceAddr, aclDataType::ACL_FLOAT, &gradOut);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(indicesHostData, indicesShape, &indicesDeviceAddr, aclDataType::ACL_INT32, &indices);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(gradInHostData, gradInShape, &gradInDeviceAddr, aclDataType::ACL_FLOAT, &gradIn);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    // Phase 1 checks the arguments and plans the computation; phase 2 runs it on the stream.
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ret = aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gradOut, self, indices, gradIn, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize failed. ERROR: %d (%s)\n",
                                            ret, aclGetRecentErrMsg());
              return ret);
    void *workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnAdaptiveMaxPool3dBackward(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnAdaptiveMaxPool3dBackward failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

    std::vector<float> resultData(GetShapeSize(gradInShape), 0);
    ret = CopyToHost(resultData, gradInDeviceAddr);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (size_t i = 0; i < resultData.size(); i++) LOG_PRINT("result[%zu] is: %f\n", i, resultData[i]);

    aclDestroyTensor(gradOut);
    aclDestroyTensor(self);
    aclDestroyTensor(indices);
    aclDestroyTensor(gradIn);
    aclrtFree(gradOutDeviceAddr);
    aclrtFree(selfDeviceAddr);
    aclrtFree(indicesDeviceAddr);
    aclrtFree(gradInDeviceAddr);
    if (workspaceSize > 0) aclrtFree(workspaceAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return 0;
}
