// Client program for aclnnMaxPool3dWithArgmax in the style of a CANN sample: a (1,1,2,4,4) input
// pooled with kernel 2 and stride 2 over H and W, kernel 1 over D; a repeated maximum (ties keep the
// first) and a NaN (wins and propagates). Prints values and indices.
#include <cmath>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "example_common.h"

int main() {
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> selfShape = {1, 1, 2, 4, 4};
    std::vector<int64_t> outShape = {1, 1, 2, 2, 2};
    std::vector<float> selfHostData = {
        // d = 0
        1, 7, 2, 3,  //
        7, 0, 4, 9,  //
        -1, -2, 5, 5,  //
        -3, -4, 5, NAN,  //
        // d = 1
        0.5f, 0.25f, 8, 8,  //
        0.75f, 0, 8, 1,  //
        -6, -5, 2, 3,  //
        -7, -8, 3, 2};
    std::vector<float> outHostData(GetShapeSize(outShape), 0);
    std::vector<int64_t> indicesHostData(GetShapeSize(outShape), 0);
    std::vector<int64_t> kernelSizeData = {1, 2, 2};
    std::vector<int64_t> strideData = {1, 2, 2};
    std::vector<int64_t> paddingData = {0, 0, 0};
    std::vector<int64_t> dilationData = {1};

    void *selfDeviceAddr = nullptr, *outDeviceAddr = nullptr, *indicesDeviceAddr = nullptr;
    aclTensor *self = nullptr, *out = nullptr, *indices = nullptr;
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(indicesHostData, outShape, &indicesDeviceAddr, aclDataType::ACL_INT64, &indices);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray *kernelSize = aclCreateIntArray(kernelSizeData.data(), kernelSizeData.size());
    aclIntArray *stride = aclCreateIntArray(strideData.data(), strideData.size());
    aclIntArray *padding = aclCreateIntArray(paddingData.data(), paddingData.size());
    aclIntArray *dilation = aclCreateIntArray(dilationData.data(), dilationData.size());

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ret = aclnnMaxPool3dWithArgmaxGetWorkspaceSize(self, kernelSize, stride, padding, dilation, false, out, indices,
                                                  &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnMaxPool3dWithArgmaxGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                        aclGetRecentErrMsg());
              return ret);
    void *workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnMaxPool3dWithArgmax(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnMaxPool3dWithArgmax failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

    ret = CopyToHost(outHostData, outDeviceAddr);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CopyToHost(indicesHostData, indicesDeviceAddr);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (size_t i = 0; i < outHostData.size(); i++)
        LOG_PRINT("out[%zu] is: %f, indices[%zu] is: %ld\n", i, outHostData[i], i, (long)indicesHostData[i]);

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyTensor(indices);
    aclDestroyIntArray(kernelSize);
    aclDestroyIntArray(stride);
    aclDestroyIntArray(padding);
    aclDestroyIntArray(dilation);
    aclrtFree(selfDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(indicesDeviceAddr);
    if (workspaceSize > 0) aclrtFree(workspaceAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return 0;
}
