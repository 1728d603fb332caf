// Client program for aclnnMaxPool3dWithArgmaxBackward in the style of a CANN sample: one 2x2x2 window,
// the gradient 0.4757 goes back to the argmax (flat index 6). Prints gradInput.
#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "example_common.h"

int main() {
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> gradOutShape = {1, 1, 1, 1, 1};
    std::vector<int64_t> selfShape = {1, 1, 2, 2, 2};
    std::vector<int64_t> indicesShape = {1, 1, 1, 1, 1};
    std::vector<int64_t> gradInShape = {1, 1, 2, 2, 2};
    std::vector<int64_t> kernelSizeData = {2, 2, 2};
    std::vector<int64_t> strideData = {2, 2, 2};
    std::vector<int64_t> paddingData = {0, 0, 0};
    std::vector<int64_t> dilationData = {1, 1, 1};
    std::vector<float> gradOutHostData = {0.4757f};
    std::vector<float> selfHostData = {0.0850f, -0.5147f, -0.0212f, -0.5654f, -0.3222f, 0.5847f, 1.7510f, 0.9954f};
    std::vector<int32_t> indicesHostData = {6};
    std::vector<float> gradInHostData(8, 0.0f);

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
    aclIntArray *kernelSize = aclCreateIntArray(kernelSizeData.data(), 3);
    aclIntArray *stride = aclCreateIntArray(strideData.data(), 3);
    aclIntArray *padding = aclCreateIntArray(paddingData.data(), 3);
    aclIntArray *dilation = aclCreateIntArray(dilationData.data(), 3);
    const bool ceilMode = false;

    // Phase 1 checks the arguments and plans the computation; phase 2 runs it on the stream.
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ret = aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOut, self, indices, kernelSize, stride, padding,
                                                          dilation, ceilMode, gradIn, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                        aclGetRecentErrMsg());
              return ret);
    void *workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnMaxPool3dWithArgmaxBackward(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnMaxPool3dWithArgmaxBackward failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
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
    aclDestroyIntArray(kernelSize);
    aclDestroyIntArray(stride);
    aclDestroyIntArray(padding);
    aclDestroyIntArray(dilation);
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
