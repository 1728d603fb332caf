// Client program for aclnnMaxPool2dWithIndices and aclnnMaxPool2dWithIndicesBackward in the style of a CANN
// sample: self (1,1,4,4) = [1,2,3,4, 8,7,6,5, 9,10,11,12, 16,15,14,13], kernel 3x3, stride 2x2, padding 1x1,
// dilation 1, ceilMode true -> out (1,1,3,3) = [8,7,5, 16,15,13, 16,15,13], indices (h*W+w) =
// [4,5,7, 12,13,15, 12,13,15]. The backward sends gradOutput [1..9] to those positions; windows overlap, so
// gradInput = [0,0,0,0, 1,2,0,3, 0,0,0,0, 11,13,0,15]. Prints out, indices and gradInput.
#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "example_common.h"

int main() {
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> selfShape = {1, 1, 4, 4};
    std::vector<int64_t> outShape = {1, 1, 3, 3};
    std::vector<int64_t> kernelSizeData = {3, 3};
    std::vector<int64_t> strideData = {2, 2};
    std::vector<int64_t> paddingData = {1, 1};
    std::vector<int64_t> dilationData = {1, 1};
    const bool ceilMode = true;
    std::vector<float> selfHostData = {1, 2, 3, 4, 8, 7, 6, 5, 9, 10, 11, 12, 16, 15, 14, 13};
    std::vector<float> outHostData(9, 0.0f);
    std::vector<int32_t> indicesHostData(9, 0);
    std::vector<float> gradOutHostData = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    std::vector<float> gradInHostData(16, 0.0f);

    void *selfDeviceAddr = nullptr, *outDeviceAddr = nullptr, *indicesDeviceAddr = nullptr,
         *gradOutDeviceAddr = nullptr, *gradInDeviceAddr = nullptr;
    aclTensor *self = nullptr, *out = nullptr, *indices = nullptr, *gradOut = nullptr, *gradIn = nullptr;
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(indicesHostData, outShape, &indicesDeviceAddr, aclDataType::ACL_INT32, &indices);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(gradOutHostData, outShape, &gradOutDeviceAddr, aclDataType::ACL_FLOAT, &gradOut);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(gradInHostData, selfShape, &gradInDeviceAddr, aclDataType::ACL_FLOAT, &gradIn);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray *kernelSize = aclCreateIntArray(kernelSizeData.data(), 2);
    aclIntArray *stride = aclCreateIntArray(strideData.data(), 2);
    aclIntArray *padding = aclCreateIntArray(paddingData.data(), 2);
    aclIntArray *dilation = aclCreateIntArray(dilationData.data(), 2);

    // Forward: phase 1 checks the arguments and plans the computation; phase 2 runs it on the stream.
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ret = aclnnMaxPool2dWithIndicesGetWorkspaceSize(self, kernelSize, stride, padding, dilation, ceilMode, out, indices,
                                                    &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMaxPool2dWithIndicesGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                                            aclGetRecentErrMsg());
              return ret);
    void *workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnMaxPool2dWithIndices(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnMaxPool2dWithIndices failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    if (workspaceSize > 0) aclrtFree(workspaceAddr);

    ret = CopyToHost(outHostData, outDeviceAddr);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CopyToHost(indicesHostData, indicesDeviceAddr);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (size_t i = 0; i < outHostData.size(); i++) LOG_PRINT("out[%zu] is: %f\n", i, outHostData[i]);
    for (size_t i = 0; i < indicesHostData.size(); i++) LOG_PRINT("indices[%zu] is: %d\n", i, indicesHostData[i]);

    // Backward with the indices the forward produced.
    workspaceSize = 0;
    executor = nullptr;
    ret = aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gradOut, self, indices, kernelSize, stride, padding,
                                                            dilation, ceilMode, gradIn, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                        aclGetRecentErrMsg());
              return ret);
    workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnMaxPool2dWithIndicesBackward(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnMaxPool2dWithIndicesBackward failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    if (workspaceSize > 0) aclrtFree(workspaceAddr);

    ret = CopyToHost(gradInHostData, gradInDeviceAddr);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (size_t i = 0; i < gradInHostData.size(); i++) LOG_PRINT("gradInput[%zu] is: %f\n", i, gradInHostData[i]);

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyTensor(indices);
    aclDestroyTensor(gradOut);
    aclDestroyTensor(gradIn);
    aclDestroyIntArray(kernelSize);
    aclDestroyIntArray(stride);
    aclDestroyIntArray(padding);
    aclDestroyIntArray(dilation);
    aclrtFree(selfDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(indicesDeviceAddr);
    aclrtFree(gradOutDeviceAddr);
    aclrtFree(gradInDeviceAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return 0;
}
