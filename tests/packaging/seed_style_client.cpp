// A client program written the way CANN's aclnnMaxPool3dWithArgmaxBackward sample is (SPEC §9, WE-1):
// only the two CANN includes, device memory from aclrtMalloc, host data copied in, the two-phase call,
// results copied back and printed with "result[%ld] is: %f". The install test compiles it with
//   g++ seed_style_client.cpp -I<prefix>/include -L<prefix>/lib -lpoolgrad
// and expects result[6] is: 0.475700 and 0.000000 everywhere else.
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"

#define CHECK_RET(cond, return_expr) \
    do {                             \
        if (!(cond)) {               \
            return_expr;             \
        }                            \
    } while (0)

#define LOG_PRINT(message, ...)         \
    do {                                \
        printf(message, ##__VA_ARGS__); \
    } while (0)

static int64_t ElementCount(const std::vector<int64_t> &shape) {
    int64_t count = 1;
    for (int64_t dim : shape) count *= dim;
    return count;
}

// Copies host data into new device memory and describes it as a contiguous ND tensor.
template <typename T>
static int MakeDeviceTensor(const std::vector<T> &host, const std::vector<int64_t> &shape, aclDataType dataType,
                            void **device, aclTensor **tensor) {
    const size_t bytes = static_cast<size_t>(ElementCount(shape)) * sizeof(T);
    int ret = aclrtMalloc(device, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    ret = aclrtMemcpy(*device, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) strides[i] = shape[i + 1] * strides[i + 1];
    *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, aclFormat::ACL_FORMAT_ND,
                              shape.data(), shape.size(), *device);
    CHECK_RET(*tensor != nullptr, LOG_PRINT("aclCreateTensor failed\n"); return 1);
    return 0;
}

int main() {
    const int32_t deviceId = 0;
    aclrtStream stream = nullptr;
    int ret = aclInit(nullptr);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return 1);
    ret = aclrtSetDevice(deviceId);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return 1);
    ret = aclrtCreateStream(&stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return 1);

    const std::vector<int64_t> gradOutShape = {1, 1, 1, 1, 1};
    const std::vector<int64_t> selfShape = {1, 1, 2, 2, 2};
    const std::vector<int64_t> indicesShape = {1, 1, 1, 1, 1};
    const std::vector<int64_t> gradInShape = {1, 1, 2, 2, 2};
    std::vector<int64_t> kernelSizeData = {2, 2, 2};
    std::vector<int64_t> strideData = {2, 2, 2};
    std::vector<int64_t> paddingData = {0, 0, 0};
    std::vector<int64_t> dilationData = {1, 1, 1};
    const std::vector<float> gradOutHostData = {0.4757};
    const std::vector<float> selfHostData = {0.0850, -0.5147, -0.0212, -0.5654, -0.3222, 0.5847, 1.7510, 0.9954};
    const std::vector<int32_t> indicesHostData = {6};
    const std::vector<float> gradInHostData = {0, 0, 0, 0, 0, 0, 0, 0};

    void *gradOutDeviceAddr = nullptr, *selfDeviceAddr = nullptr, *indicesDeviceAddr = nullptr,
         *gradInDeviceAddr = nullptr;
    aclTensor *gradOut = nullptr, *self = nullptr, *indices = nullptr, *gradIn = nullptr;
    ret = MakeDeviceTensor(gradOutHostData, gradOutShape, aclDataType::ACL_FLOAT, &gradOutDeviceAddr, &gradOut);
    CHECK_RET(ret == 0, return 1);
    ret = MakeDeviceTensor(selfHostData, selfShape, aclDataType::ACL_FLOAT, &selfDeviceAddr, &self);
    CHECK_RET(ret == 0, return 1);
    ret = MakeDeviceTensor(indicesHostData, indicesShape, aclDataType::ACL_INT32, &indicesDeviceAddr, &indices);
    CHECK_RET(ret == 0, return 1);
    ret = MakeDeviceTensor(gradInHostData, gradInShape, aclDataType::ACL_FLOAT, &gradInDeviceAddr, &gradIn);
    CHECK_RET(ret == 0, return 1);
    aclIntArray *kernelSize = aclCreateIntArray(kernelSizeData.data(), 3);
    aclIntArray *stride = aclCreateIntArray(strideData.data(), 3);
    aclIntArray *padding = aclCreateIntArray(paddingData.data(), 3);
    aclIntArray *dilation = aclCreateIntArray(dilationData.data(), 3);
    const bool ceilMode = false;

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor;
    ret = aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOut, self, indices, kernelSize, stride, padding,
                                                          dilation, ceilMode, gradIn, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize failed. ERROR: %d\n", ret);
              return 1);
    void *workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return 1);
    }
    ret = aclnnMaxPool3dWithArgmaxBackward(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMaxPool3dWithArgmaxBackward failed. ERROR: %d\n", ret); return 1);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return 1);

    const int64_t size = ElementCount(gradInShape);
    std::vector<float> resultData(size, 0);
    ret = aclrtMemcpy(resultData.data(), resultData.size() * sizeof(resultData[0]), gradInDeviceAddr,
                      size * sizeof(resultData[0]), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return 1);
    for (int64_t i = 0; i < size; i++) {
        LOG_PRINT("result[%ld] is: %f\n", static_cast<long>(i), resultData[i]);
    }

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
