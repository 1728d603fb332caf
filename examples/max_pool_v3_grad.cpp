// Client program for aclnnMaxPoolV3WithAttrs and aclnnMaxPoolV3Grad in the style of a CANN sample (SPEC
// §9 WE-16): a (1,3,3,2) NHWC input, 2x2 windows, stride 2, SAME padding. The forward produces y (the
// grad's origOutput); the grad sends each output's gradient to the first input equal to it. Prints y and
// outGrad in NHWC order.
#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool_v3_grad.h"
#include "aclnnop/aclnn_max_pool_v3_with_attrs.h"
#include "example_common.h"

namespace {

// Phase 2 with a workspace when phase 1 asked for one, then synchronisation.
int RunPhaseTwo(aclnnStatus (*phaseTwo)(void *, uint64_t, aclOpExecutor *, aclrtStream), const char *name,
                uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream) {
    void *workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        auto ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    auto ret = phaseTwo(workspaceAddr, workspaceSize, executor, stream);
    if (ret == ACL_SUCCESS) ret = aclrtSynchronizeStream(stream);  // the workspace is in use until then
    if (workspaceSize > 0) aclrtFree(workspaceAddr);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("%s failed. ERROR: %d (%s)\n", name, ret, aclGetRecentErrMsg());
              return ret);
    return 0;
}

}  // namespace

int main() {
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    // NHWC: channel 0 holds 1..9 row by row, channel 1 holds 9..1.
    std::vector<int64_t> xShape = {1, 3, 3, 2};
    std::vector<int64_t> yShape = {1, 2, 2, 2};
    std::vector<float> xHostData = {1, 9, 2, 8, 3, 7, 4, 6, 5, 5, 6, 4, 7, 3, 8, 2, 9, 1};
    std::vector<float> yHostData(8, 0.0f);
    std::vector<float> gradHostData = {1, 10, 2, 20, 3, 30, 4, 40};
    std::vector<float> outGradHostData(18, 0.0f);
    std::vector<int64_t> ksizeData = {1, 2, 2, 1};    // N, H, W, C
    std::vector<int64_t> stridesData = {1, 2, 2, 1};
    std::vector<int64_t> padsData = {0, 0, 0, 0};     // unused with SAME
    const char *paddingMode = "SAME";
    const char *dataFormat = "NHWC";

    void *xDeviceAddr = nullptr, *yDeviceAddr = nullptr, *gradDeviceAddr = nullptr, *outGradDeviceAddr = nullptr;
    aclTensor *x = nullptr, *y = nullptr, *grad = nullptr, *outGrad = nullptr;
    ret = CreateAclTensor(xHostData, xShape, &xDeviceAddr, aclDataType::ACL_FLOAT, &x);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(yHostData, yShape, &yDeviceAddr, aclDataType::ACL_FLOAT, &y);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(gradHostData, yShape, &gradDeviceAddr, aclDataType::ACL_FLOAT, &grad);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outGradHostData, xShape, &outGradDeviceAddr, aclDataType::ACL_FLOAT, &outGrad);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray *ksize = aclCreateIntArray(ksizeData.data(), 4);
    aclIntArray *strides = aclCreateIntArray(stridesData.data(), 4);
    aclIntArray *pads = aclCreateIntArray(padsData.data(), 4);
    const bool globalPooling = false;
    const bool ceilMode = false;

    // Forward: y = max over each window (the grad's origOutput).
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ret = aclnnMaxPoolV3WithAttrsGetWorkspaceSize(x, ksize, strides, paddingMode, pads, dataFormat, globalPooling,
                                                  ceilMode, y, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnMaxPoolV3WithAttrsGetWorkspaceSize failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    ret = RunPhaseTwo(aclnnMaxPoolV3WithAttrs, "aclnnMaxPoolV3WithAttrs", workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    // Grad: origInput = x, origOutput = y.
    ret = aclnnMaxPoolV3GradGetWorkspaceSize(x, y, grad, ksize, strides, paddingMode, pads, dataFormat,
                                             globalPooling, ceilMode, outGrad, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnMaxPoolV3GradGetWorkspaceSize failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    ret = RunPhaseTwo(aclnnMaxPoolV3Grad, "aclnnMaxPoolV3Grad", workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    ret = CopyToHost(yHostData, yDeviceAddr);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CopyToHost(outGradHostData, outGradDeviceAddr);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (size_t i = 0; i < yHostData.size(); i++) LOG_PRINT("y[%zu] is: %f\n", i, yHostData[i]);
    for (size_t i = 0; i < outGradHostData.size(); i++) LOG_PRINT("outGrad[%zu] is: %f\n", i, outGradHostData[i]);

    aclDestroyTensor(x);
    aclDestroyTensor(y);
    aclDestroyTensor(grad);
    aclDestroyTensor(outGrad);
    aclDestroyIntArray(ksize);
    aclDestroyIntArray(strides);
    aclDestroyIntArray(pads);
    aclrtFree(xDeviceAddr);
    aclrtFree(yDeviceAddr);
    aclrtFree(gradDeviceAddr);
    aclrtFree(outGradDeviceAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return 0;
}
