// Client program for aclnnMaxPool (ONNX MaxPool) and aclnnMaxPoolV3, self-contained like a CANN sample so
// that it builds with a CANN link line alone:
//   g++ max_pool.cpp -I<prefix>/include -L<prefix>/lib -lascendcl -lnnopbase -lopapi_nn -lopapi_math
// self (2,2,3,3) = 1..36, kernel 2x2, strides 2x2, ceilMode 1, and one column of padding on the left:
// aclnnMaxPool's pads are ONNX's {top, left, bottom, right} = {0,1,0,0}, aclnnMaxPoolV3's are
// {top, bottom, left, right} = {0,0,1,0}. Windows per plane: rows {0,1},{2} x columns {0},{1,2}, so plane
// [[1,2,3],[4,5,6],[7,8,9]] gives [4,6,7,9] and out (2,2,2,2) = [4,6,7,9, 13,15,16,18, 22,24,25,27,
// 31,33,34,36] from both operators.
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool.h"
#include "aclnnop/aclnn_max_pool_v3.h"

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

static int64_t GetShapeSize(const std::vector<int64_t> &shape) {
    int64_t shapeSize = 1;
    for (auto dim : shape) shapeSize *= dim;
    return shapeSize;
}

static int Init(int32_t deviceId, aclrtStream *stream) {
    auto ret = aclInit(nullptr);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSetDevice(deviceId);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
    ret = aclrtCreateStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
    return 0;
}

template <typename T>
static int CreateAclTensor(const std::vector<T> &hostData, const std::vector<int64_t> &shape, void **deviceAddr,
                           aclDataType dataType, aclTensor **tensor) {
    auto size = GetShapeSize(shape) * sizeof(T);
    auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) strides[i] = shape[i + 1] * strides[i + 1];
    *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, aclFormat::ACL_FORMAT_NCHW,
                              shape.data(), shape.size(), *deviceAddr);
    return 0;
}

// Phase 2 with the workspace phase 1 asked for, then the results copied back and printed.
static int RunAndPrint(const char *name, aclnnStatus (*run)(void *, uint64_t, aclOpExecutor *, aclrtStream),
                       uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream, void *outDeviceAddr,
                       int64_t outSize) {
    void *workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        auto ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    auto ret = run(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("%s failed. ERROR: %d (%s)\n", name, ret, aclGetRecentErrMsg());
              return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    if (workspaceSize > 0) aclrtFree(workspaceAddr);

    std::vector<float> outData(outSize, 0);
    ret = aclrtMemcpy(outData.data(), outData.size() * sizeof(outData[0]), outDeviceAddr, outSize * sizeof(outData[0]),
                      ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return ret);
    for (int64_t i = 0; i < outSize; i++) LOG_PRINT("%s result[%ld] is: %f\n", name, static_cast<long>(i), outData[i]);
    return 0;
}

int main() {
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> selfShape = {2, 2, 3, 3};
    std::vector<int64_t> outShape = {2, 2, 2, 2};
    std::vector<float> selfHostData(36);
    for (size_t i = 0; i < selfHostData.size(); i++) selfHostData[i] = static_cast<float>(i + 1);
    std::vector<float> outHostData(16, 0);

    void *selfDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *out = nullptr;
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    // aclnnMaxPool: ONNX attributes.
    std::vector<int64_t> kernelData = {2, 2}, stridesData = {2, 2}, padsData = {0, 1, 0, 0}, dilationsData = {1, 1};
    const int64_t autoPad = 0, ceilMode = 1;
    aclIntArray *kernelShape = aclCreateIntArray(kernelData.data(), kernelData.size());
    aclIntArray *strides = aclCreateIntArray(stridesData.data(), stridesData.size());
    aclIntArray *pads = aclCreateIntArray(padsData.data(), padsData.size());
    aclIntArray *dilations = aclCreateIntArray(dilationsData.data(), dilationsData.size());
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ret = aclnnMaxPoolGetWorkspaceSize(self, kernelShape, strides, autoPad, pads, dilations, ceilMode, out,
                                       &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnMaxPoolGetWorkspaceSize failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    ret = RunAndPrint("aclnnMaxPool", aclnnMaxPool, workspaceSize, executor, stream, outDeviceAddr,
                      GetShapeSize(outShape));
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    // aclnnMaxPoolV3: [N, C, H, W] lists, pads {top, bottom, left, right}, ceilMode as a scalar.
    std::vector<int64_t> ksizeData = {1, 1, 2, 2}, stridesV3Data = {1, 1, 2, 2}, padsV3Data = {0, 0, 1, 0};
    int64_t ceilModeValue = 1;
    aclIntArray *ksize = aclCreateIntArray(ksizeData.data(), ksizeData.size());
    aclIntArray *stridesV3 = aclCreateIntArray(stridesV3Data.data(), stridesV3Data.size());
    aclIntArray *padsV3 = aclCreateIntArray(padsV3Data.data(), padsV3Data.size());
    aclScalar *ceilModeScalar = aclCreateScalar(&ceilModeValue, aclDataType::ACL_INT64);
    workspaceSize = 0;
    executor = nullptr;
    ret =
        aclnnMaxPoolV3GetWorkspaceSize(self, ksize, stridesV3, padsV3, ceilModeScalar, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnMaxPoolV3GetWorkspaceSize failed. ERROR: %d (%s)\n", ret, aclGetRecentErrMsg());
              return ret);
    ret = RunAndPrint("aclnnMaxPoolV3", aclnnMaxPoolV3, workspaceSize, executor, stream, outDeviceAddr,
                      GetShapeSize(outShape));
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyIntArray(kernelShape);
    aclDestroyIntArray(strides);
    aclDestroyIntArray(pads);
    aclDestroyIntArray(dilations);
    aclDestroyIntArray(ksize);
    aclDestroyIntArray(stridesV3);
    aclDestroyIntArray(padsV3);
    aclDestroyScalar(ceilModeScalar);
    aclrtFree(selfDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return 0;
}
