// A training loop's backward in the style of a CANN sample: one phase 1, then a repeatable executor run once
// per step on that step's new gradient buffers, re-pointed with aclSetInputTensorAddr / aclSetOutputTensorAddr
// instead of a new phase 1 each step. self (1,1,4,4) = [1..16] row by row, kernel 2x2, stride 2: the maxima
// are the bottom-right elements, indices [5,7,13,15]. Step s sends gradOutput [s, 2s, 3s, 4s] there, so
// gradInput holds s, 2s, 3s, 4s at 5, 7, 13, 15 and zeros elsewhere. Prints each step's gradInput.
#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "example_common.h"

int main() {
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> selfShape = {1, 1, 4, 4}, outShape = {1, 1, 2, 2};
    std::vector<int64_t> kernelSizeData = {2, 2}, strideData = {2, 2}, paddingData = {0, 0}, dilationData = {1, 1};
    std::vector<float> selfHostData(16), gradInHostData(16, 0.0f), gradOutHostData(4, 0.0f);
    for (int i = 0; i < 16; ++i) selfHostData[i] = static_cast<float>(i + 1);
    std::vector<int32_t> indicesHostData = {5, 7, 13, 15};

    void *selfDeviceAddr = nullptr, *indicesDeviceAddr = nullptr, *gradOutDeviceAddr = nullptr,
         *gradInDeviceAddr = nullptr;
    aclTensor *self = nullptr, *indices = nullptr, *gradOut = nullptr, *gradIn = nullptr;
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
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

    // Phase 1 once; the executor is kept and run every step.
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ret = aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gradOut, self, indices, kernelSize, stride, padding,
                                                            dilation, false, gradIn, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("GetWorkspaceSize failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    ret = aclSetAclOpExecutorRepeatable(executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclSetAclOpExecutorRepeatable failed. ERROR: %d\n", ret); return ret);

    for (int step = 1; step <= 3; ++step) {
        // Each step's gradients arrive in new device memory, as a framework's allocator hands them out.
        std::vector<float> stepGradOut = {1.0f * step, 2.0f * step, 3.0f * step, 4.0f * step};
        void *stepGradOutAddr = nullptr, *stepGradInAddr = nullptr;
        ret = aclrtMalloc(&stepGradOutAddr, stepGradOut.size() * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, return ret);
        ret = aclrtMalloc(&stepGradInAddr, gradInHostData.size() * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, return ret);
        ret = aclrtMemcpy(stepGradOutAddr, stepGradOut.size() * sizeof(float), stepGradOut.data(),
                          stepGradOut.size() * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE);
        CHECK_RET(ret == ACL_SUCCESS, return ret);
        // Inputs count from 0 in parameter order: gradOutput 0, self 1, indices 2; the output gradInput is 0.
        ret = aclSetInputTensorAddr(executor, 0, gradOut, stepGradOutAddr);
        CHECK_RET(ret == ACL_SUCCESS,
                  LOG_PRINT("aclSetInputTensorAddr failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
                  return ret);
        ret = aclSetOutputTensorAddr(executor, 0, gradIn, stepGradInAddr);
        CHECK_RET(ret == ACL_SUCCESS,
                  LOG_PRINT("aclSetOutputTensorAddr failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
                  return ret);
        ret = aclnnMaxPool2dWithIndicesBackward(nullptr, 0, executor, stream);
        CHECK_RET(ret == ACL_SUCCESS,
                  LOG_PRINT("aclnnMaxPool2dWithIndicesBackward failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
                  return ret);
        ret = aclrtSynchronizeStream(stream);
        CHECK_RET(ret == ACL_SUCCESS, return ret);
        ret = CopyToHost(gradInHostData, stepGradInAddr);
        CHECK_RET(ret == ACL_SUCCESS, return ret);
        LOG_PRINT("step %d gradInput:", step);
        for (float value : gradInHostData) LOG_PRINT(" %g", value);
        LOG_PRINT("\n");
        aclrtFree(stepGradOutAddr);
        aclrtFree(stepGradInAddr);
    }

    aclDestroyAclOpExecutor(executor);
    aclDestroyTensor(self);
    aclDestroyTensor(indices);
    aclDestroyTensor(gradOut);
    aclDestroyTensor(gradIn);
    aclDestroyIntArray(kernelSize);
    aclDestroyIntArray(stride);
    aclDestroyIntArray(padding);
    aclDestroyIntArray(dilation);
    aclrtFree(selfDeviceAddr);
    aclrtFree(indicesDeviceAddr);
    aclrtFree(gradOutDeviceAddr);
    aclrtFree(gradInDeviceAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return 0;
}
