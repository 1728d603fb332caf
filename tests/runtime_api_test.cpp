// The runtime / tensor C API (SPEC §2), the executor life cycle of the two-phase convention (SPEC §1.2),
// the thread-local error message and the library controls of poolgrad/poolgrad.h.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "poolgrad/poolgrad.h"
#include "support/phase_one_check.h"
#include "support/test_tensor.h"

namespace {

using test_support::DeviceBuffer;
using test_support::IntArray;
using test_support::RawTensor;
using test_support::TestTensor;

std::string recentMessage() { return aclGetRecentErrMsg(); }

// ---- aclInit / aclFinalize ------------------------------------------------------------------------------

TEST(RuntimeApi, AclInitTwiceIs100002) {
    const aclError first = aclInit(nullptr);
    ASSERT_TRUE(first == ACL_SUCCESS || first == ACL_ERROR_REPEAT_INITIALIZE) << first;
    EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
    EXPECT_FALSE(recentMessage().empty());
    if (first == ACL_SUCCESS) {  // restore the state we found
        EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
    }
}

TEST(RuntimeApi, AclFinalizeWithoutInitIs100037) {
    const bool wasInitialised = aclInit(nullptr) == ACL_ERROR_REPEAT_INITIALIZE;
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    EXPECT_FALSE(recentMessage().empty());
    // A finalised runtime can be initialised again.
    EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
    if (!wasInitialised) {
        EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
    }
}

// ---- devices --------------------------------------------------------------------------------------------

TEST(RuntimeApi, SetDeviceIdRules) {
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_INVALID_PARAM);
    EXPECT_FALSE(recentMessage().empty());
    EXPECT_EQ(aclrtSetDevice(1), ACL_ERROR_INVALID_DEVICE);
    EXPECT_FALSE(recentMessage().empty());
    EXPECT_EQ(aclrtSetDevice(1000), ACL_ERROR_INVALID_DEVICE);
    int32_t current = -5;
    EXPECT_EQ(aclrtGetDevice(&current), ACL_SUCCESS);
    EXPECT_EQ(current, 0) << "a refused aclrtSetDevice must not change the current device";
}

TEST(RuntimeApi, ResetDeviceIdRules) {
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(-1), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtResetDevice(1), ACL_ERROR_INVALID_DEVICE);
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
}

TEST(RuntimeApi, DeviceCountIsOne) {
    uint32_t count = 0;
    EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
    EXPECT_EQ(count, 1u);
    EXPECT_EQ(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
}

// ---- streams --------------------------------------------------------------------------------------------

TEST(RuntimeApi, StreamCreateSynchronizeDestroy) {
    aclrtStream first = nullptr, second = nullptr;
    ASSERT_EQ(aclrtCreateStream(&first), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&second), ACL_SUCCESS);
    EXPECT_NE(first, nullptr);
    EXPECT_NE(second, nullptr);
    EXPECT_NE(first, second);
    EXPECT_EQ(aclrtSynchronizeStream(first), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << "nullptr is the default stream";
    EXPECT_EQ(aclrtDestroyStream(first), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(first), ACL_ERROR_INVALID_PARAM) << "destroyed twice";
    EXPECT_EQ(aclrtSynchronizeStream(first), ACL_ERROR_INVALID_PARAM) << "synchronize of a destroyed stream";
    EXPECT_EQ(aclrtDestroyStream(second), ACL_SUCCESS);
}

TEST(RuntimeApi, CreateStreamWithNullPointerIs100000) {
    EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_FALSE(recentMessage().empty());
}

// ---- memory ---------------------------------------------------------------------------------------------

TEST(RuntimeApi, MallocIsAlignedAndFreeable) {
    for (size_t size : {size_t{1}, size_t{63}, size_t{64}, size_t{1000}, size_t{1} << 20}) {
        void *memory = nullptr;
        ASSERT_EQ(aclrtMalloc(&memory, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << size;
        ASSERT_NE(memory, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(memory) % 64, 0u) << "SPEC §2.3: aligned to at least 64 bytes";
        std::memset(memory, 0x5A, size);  // the whole size is usable
        EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
    }
}

TEST(RuntimeApi, MallocSizeZeroOrNullPointerIs100000) {
    void *memory = reinterpret_cast<void *>(uintptr_t{0x1234});
    EXPECT_EQ(aclrtMalloc(&memory, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT_FALSE(recentMessage().empty());
    EXPECT_EQ(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
}

TEST(RuntimeApi, FreeOfUnknownPointerIs100000) {
    int onStack = 0;
    EXPECT_EQ(aclrtFree(&onStack), ACL_ERROR_INVALID_PARAM);
    EXPECT_FALSE(recentMessage().empty());
    EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
    void *memory = nullptr;
    ASSERT_EQ(aclrtMalloc(&memory, 128, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(static_cast<char *>(memory) + 64), ACL_ERROR_INVALID_PARAM) << "interior pointer";
    EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(memory), ACL_ERROR_INVALID_PARAM) << "double free";
}

TEST(RuntimeApi, MallocHostAndFreeHost) {
    void *host = nullptr;
    ASSERT_EQ(aclrtMallocHost(&host, 100), ACL_SUCCESS);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(host) % 64, 0u);
    std::memset(host, 1, 100);
    EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
    EXPECT_EQ(aclrtMallocHost(&host, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMallocHost(nullptr, 8), ACL_ERROR_INVALID_PARAM);
}

TEST(RuntimeApi, MemcpyCopiesWithEveryKind) {
    DeviceBuffer device(256);
    ASSERT_NE(device.get(), nullptr);
    for (int kind = ACL_MEMCPY_HOST_TO_HOST; kind <= ACL_MEMCPY_INTER_DEVICE_TO_DEVICE; ++kind) {
        SCOPED_TRACE(testing::Message() << "kind " << kind);
        std::vector<unsigned char> source(200), back(200, 0);
        for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<unsigned char>(i * 7 + kind);
        ASSERT_EQ(aclrtMemcpy(device.get(), 256, source.data(), 200, static_cast<aclrtMemcpyKind>(kind)), ACL_SUCCESS);
        ASSERT_EQ(aclrtMemcpy(back.data(), back.size(), device.get(), 200, static_cast<aclrtMemcpyKind>(kind)),
                  ACL_SUCCESS);
        EXPECT_EQ(back, source);
    }
}

TEST(RuntimeApi, MemcpyCountAboveDestMaxIs100000AndCopiesNothing) {
    std::vector<unsigned char> source(16, 0x11), destination(16, 0x22);
    EXPECT_EQ(aclrtMemcpy(destination.data(), 8, source.data(), 16, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
    EXPECT_FALSE(recentMessage().empty());
    EXPECT_EQ(destination, std::vector<unsigned char>(16, 0x22));
}

TEST(RuntimeApi, MemcpyNullPointersAre100000) {
    unsigned char buffer[4] = {};
    EXPECT_EQ(aclrtMemcpy(nullptr, 4, buffer, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMemcpy(buffer, 4, nullptr, 4, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
}

TEST(RuntimeApi, MemsetWritesTheLowByte) {
    DeviceBuffer device(64);
    ASSERT_NE(device.get(), nullptr);
    std::memset(device.get(), 0, 64);
    ASSERT_EQ(aclrtMemset(device.get(), 64, 0x1AB, 40), ACL_SUCCESS);
    const auto *bytes = static_cast<const unsigned char *>(device.get());
    for (int i = 0; i < 64; ++i) EXPECT_EQ(bytes[i], i < 40 ? 0xAB : 0x00) << i;
    EXPECT_EQ(aclrtMemset(device.get(), 16, 0, 17), ACL_ERROR_INVALID_PARAM) << "count > maxCount";
    EXPECT_EQ(bytes[16], 0xAB) << "a refused memset writes nothing";
    EXPECT_EQ(aclrtMemset(nullptr, 16, 0, 16), ACL_ERROR_INVALID_PARAM);
}

// ---- options --------------------------------------------------------------------------------------------

TEST(RuntimeApi, DeterministicOptionIsStoredAndReadBack) {
    int64_t original = -1;
    ASSERT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &original), ACL_SUCCESS);
    for (int64_t value : {1, 0, 1}) {
        EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, value), ACL_SUCCESS);
        int64_t read = -1;
        EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &read), ACL_SUCCESS);
        EXPECT_EQ(read, value);
    }
    EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT_FALSE(recentMessage().empty());
    EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, -1), ACL_ERROR_INVALID_PARAM);
    int64_t read = -1;
    EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &read), ACL_SUCCESS);
    EXPECT_EQ(read, 1) << "a refused value must not be stored";
    EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, original), ACL_SUCCESS);
}

TEST(RuntimeApi, ProcessOptionIsStoredSeparately) {
    int64_t ctxOriginal = -1, processOriginal = -1;
    ASSERT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &ctxOriginal), ACL_SUCCESS);
    ASSERT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &processOriginal), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
    EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
    int64_t process = -1, ctx = -1;
    EXPECT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &process), ACL_SUCCESS);
    EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &ctx), ACL_SUCCESS);
    EXPECT_EQ(process, 1);
    EXPECT_EQ(ctx, 0);
    EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, processOriginal), ACL_SUCCESS);
    EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, ctxOriginal), ACL_SUCCESS);
}

// ---- aclTensor creation and queries ---------------------------------------------------------------------

TEST(TensorApi, NullDimsWithNonZeroCountIsRefused) {
    float data[4] = {};
    EXPECT_EQ(aclCreateTensor(nullptr, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, data), nullptr);
    EXPECT_FALSE(recentMessage().empty());
}

TEST(TensorApi, NegativeDimIsRefused) {
    float data[4] = {};
    const int64_t dims[2] = {2, -1}, storage[1] = {4};
    EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, storage, 1, data), nullptr);
    EXPECT_FALSE(recentMessage().empty());
}

TEST(TensorApi, NegativeStrideOrOffsetIsRefused) {
    float data[4] = {};
    const int64_t dims[2] = {2, 2}, strides[2] = {-2, 1}, storage[1] = {4};
    EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, data), nullptr);
    EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, -1, ACL_FORMAT_ND, storage, 1, data), nullptr);
}

TEST(TensorApi, UnknownDataTypeIsRefused) {
    float data[4] = {};
    const int64_t dims[1] = {4};
    EXPECT_EQ(aclCreateTensor(dims, 1, static_cast<aclDataType>(5), nullptr, 0, ACL_FORMAT_ND, dims, 1, data), nullptr);
    EXPECT_EQ(aclCreateTensor(dims, 1, static_cast<aclDataType>(1000), nullptr, 0, ACL_FORMAT_ND, dims, 1, data),
              nullptr);
}

TEST(TensorApi, QueriesReturnWhatWasGiven) {
    std::vector<float> data(64);
    std::vector<int64_t> dims{6, 5}, strides{10, 1}, storage{64};
    aclTensor *tensor = aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT16, strides.data(), 22, ACL_FORMAT_NCHW,
                                        storage.data(), storage.size(), data.data());
    ASSERT_NE(tensor, nullptr);
    // The descriptor keeps copies: changing the caller's arrays afterwards changes nothing.
    dims = {0, 0};
    strides = {0, 0};
    storage = {0};

    int64_t *values = nullptr;
    uint64_t count = 0;
    ASSERT_EQ(aclGetViewShape(tensor, &values, &count), ACLNN_SUCCESS);
    EXPECT_EQ(std::vector<int64_t>(values, values + count), (std::vector<int64_t>{6, 5}));
    delete[] values;
    ASSERT_EQ(aclGetStorageShape(tensor, &values, &count), ACLNN_SUCCESS);
    EXPECT_EQ(std::vector<int64_t>(values, values + count), (std::vector<int64_t>{64}));
    delete[] values;
    ASSERT_EQ(aclGetViewStrides(tensor, &values, &count), ACLNN_SUCCESS);
    EXPECT_EQ(std::vector<int64_t>(values, values + count), (std::vector<int64_t>{10, 1}));
    delete[] values;
    int64_t offset = -1;
    EXPECT_EQ(aclGetViewOffset(tensor, &offset), ACLNN_SUCCESS);
    EXPECT_EQ(offset, 22);
    aclFormat format = ACL_FORMAT_UNDEFINED;
    EXPECT_EQ(aclGetFormat(tensor, &format), ACLNN_SUCCESS);
    EXPECT_EQ(format, ACL_FORMAT_NCHW);
    aclDataType type = ACL_DT_UNDEFINED;
    EXPECT_EQ(aclGetDataType(tensor, &type), ACLNN_SUCCESS);
    EXPECT_EQ(type, ACL_FLOAT16);
    EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

TEST(TensorApi, NullStrideMeansRowMajor) {
    float data[24] = {};
    const int64_t dims[3] = {2, 3, 4};
    aclTensor *tensor = aclCreateTensor(dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 3, data);
    ASSERT_NE(tensor, nullptr);
    int64_t *strides = nullptr;
    uint64_t count = 0;
    ASSERT_EQ(aclGetViewStrides(tensor, &strides, &count), ACLNN_SUCCESS);
    EXPECT_EQ(std::vector<int64_t>(strides, strides + count), (std::vector<int64_t>{12, 4, 1}));
    delete[] strides;
    aclDestroyTensor(tensor);
}

TEST(TensorApi, QueriesWithNullArgumentsAre161001) {
    float data[1] = {};
    const int64_t dims[1] = {1};
    aclTensor *tensor = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, data);
    ASSERT_NE(tensor, nullptr);
    int64_t *values = nullptr;
    uint64_t count = 0;
    EXPECT_EQ(aclGetViewShape(nullptr, &values, &count), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetViewShape(tensor, nullptr, &count), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetViewShape(tensor, &values, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetStorageShape(nullptr, &values, &count), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetViewStrides(nullptr, &values, &count), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetViewOffset(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetFormat(nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetDataType(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclGetIntArraySize(nullptr, &count), ACLNN_ERR_PARAM_NULLPTR);
    aclDestroyTensor(tensor);
}

TEST(TensorApi, EmptyIntArrayIsValid) {
    aclIntArray *empty = aclCreateIntArray(nullptr, 0);
    ASSERT_NE(empty, nullptr);
    uint64_t size = 99;
    EXPECT_EQ(aclGetIntArraySize(empty, &size), ACLNN_SUCCESS);
    EXPECT_EQ(size, 0u);
    EXPECT_EQ(aclDestroyIntArray(empty), ACLNN_SUCCESS);
    EXPECT_EQ(aclCreateIntArray(nullptr, 3), nullptr) << "null values with a non-zero size";
}

TEST(TensorApi, IntArrayCopiesItsValues) {
    // WE-1 with a kernelSize whose source is overwritten after creation: the array must hold {2,2,2}.
    std::vector<int64_t> kernelValues{2, 2, 2};
    aclIntArray *kernel = aclCreateIntArray(kernelValues.data(), kernelValues.size());
    ASSERT_NE(kernel, nullptr);
    kernelValues = {0, 0, 0};
    uint64_t size = 0;
    EXPECT_EQ(aclGetIntArraySize(kernel, &size), ACLNN_SUCCESS);
    EXPECT_EQ(size, 3u);
    TestTensor gradOutput({1, 1, 1, 1, 1}, ACL_FLOAT), self({1, 1, 2, 2, 2}, ACL_FLOAT),
        indices({1, 1, 1, 1, 1}, ACL_INT32), gradInput({1, 1, 2, 2, 2}, ACL_FLOAT);
    IntArray stride({2, 2, 2}), padding({0}), dilation({1});
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOutput, self, indices, kernel, stride, padding,
                                                               dilation, false, gradInput, &workspaceSize, &executor),
              ACLNN_SUCCESS)
        << recentMessage();
    if (executor) {
        EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
    }
    aclDestroyIntArray(kernel);
}

TEST(TensorApi, ScalarsFloatBoolArraysAndTensorLists) {
    float value = 1.5f;
    aclScalar *scalar = aclCreateScalar(&value, ACL_FLOAT);
    EXPECT_NE(scalar, nullptr);
    EXPECT_EQ(aclCreateScalar(nullptr, ACL_FLOAT), nullptr);
    EXPECT_EQ(aclDestroyScalar(scalar), ACLNN_SUCCESS);

    const float floats[3] = {1.0f, 2.0f, 3.0f};
    aclFloatArray *floatArray = aclCreateFloatArray(floats, 3);
    ASSERT_NE(floatArray, nullptr);
    uint64_t size = 0;
    EXPECT_EQ(aclGetFloatArraySize(floatArray, &size), ACLNN_SUCCESS);
    EXPECT_EQ(size, 3u);
    EXPECT_EQ(aclDestroyFloatArray(floatArray), ACLNN_SUCCESS);
    aclFloatArray *emptyFloats = aclCreateFloatArray(nullptr, 0);
    EXPECT_NE(emptyFloats, nullptr);
    aclDestroyFloatArray(emptyFloats);

    const bool bools[2] = {true, false};
    aclBoolArray *boolArray = aclCreateBoolArray(bools, 2);
    ASSERT_NE(boolArray, nullptr);
    EXPECT_EQ(aclGetBoolArraySize(boolArray, &size), ACLNN_SUCCESS);
    EXPECT_EQ(size, 2u);
    EXPECT_EQ(aclDestroyBoolArray(boolArray), ACLNN_SUCCESS);

    TestTensor a({2}, ACL_FLOAT), b({3}, ACL_INT32);
    const aclTensor *tensors[2] = {a.get(), b.get()};
    aclTensorList *list = aclCreateTensorList(tensors, 2);
    ASSERT_NE(list, nullptr);
    EXPECT_EQ(aclGetTensorListSize(list, &size), ACLNN_SUCCESS);
    EXPECT_EQ(size, 2u);
    EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
    // The list did not own the tensors: they are still usable.
    aclDataType type = ACL_DT_UNDEFINED;
    EXPECT_EQ(aclGetDataType(b, &type), ACLNN_SUCCESS);
    EXPECT_EQ(type, ACL_INT32);
    EXPECT_EQ(aclCreateTensorList(nullptr, 2), nullptr);
}

TEST(TensorApi, DestroyNullIsSuccess) {
    EXPECT_EQ(aclDestroyTensor(nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyScalar(nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyIntArray(nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyFloatArray(nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyBoolArray(nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyTensorList(nullptr), ACLNN_SUCCESS);
}

TEST(TensorApi, DestroyTensorNeverFreesTheData) {
    DeviceBuffer data(16);
    const int64_t dims[1] = {4};
    aclTensor *tensor = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, data.get());
    ASSERT_NE(tensor, nullptr);
    EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
    std::memset(data.get(), 0, 16);  // still ours; DeviceBuffer frees it with aclrtFree, which must succeed
    void *raw = data.get();
    EXPECT_EQ(aclrtMemset(raw, 16, 1, 16), ACL_SUCCESS);
}

// ---- executor life cycle (SPEC §1.2) ---------------------------------------------------------------------

// The seed call WE-1 (gradient 0.4757 at index 6) with its own tensors.
struct SeedBackward {
    TestTensor gradOutput{{1, 1, 1, 1, 1}, ACL_FLOAT}, self{{1, 1, 2, 2, 2}, ACL_FLOAT},
        indices{{1, 1, 1, 1, 1}, ACL_INT32}, gradInput{{1, 1, 2, 2, 2}, ACL_FLOAT};
    IntArray kernel{{2, 2, 2}}, stride{{2, 2, 2}}, padding{{0, 0, 0}}, dilation{{1, 1, 1}};
    uint64_t workspaceSize = 0;

    SeedBackward() {
        gradOutput.set(0, 0.4757);
        indices.set(0, 6);
    }
    aclOpExecutor *phaseOne() {
        aclOpExecutor *executor = nullptr;
        const aclnnStatus status = aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
            gradOutput, self, indices, kernel, stride, padding, dilation, false, gradInput, &workspaceSize, &executor);
        EXPECT_EQ(status, ACLNN_SUCCESS) << recentMessage();
        return executor;
    }
    bool resultIsSeed(double value = double(0.4757f)) const {
        for (int64_t i = 0; i < 8; ++i)
            if (gradInput.at(i) != (i == 6 ? value : 0.0)) return false;
        return true;
    }
    bool gradInputPoisoned() const {
        for (int64_t i = 0; i < 8; ++i)
            if (gradInput.bitsAt(i) != 0xA5A5A5A5u) return false;
        return true;
    }
};

// A valid forward call: (1,1,1,2,2) → (1,1,1,1,1).
struct SmallForward {
    TestTensor self{{1, 1, 1, 2, 2}, ACL_FLOAT}, out{{1, 1, 1, 1, 1}, ACL_FLOAT}, indices{{1, 1, 1, 1, 1}, ACL_INT64};
    IntArray kernel{{1, 2, 2}}, stride{std::vector<int64_t>{}}, padding{{0}}, dilation{{1}};
    uint64_t workspaceSize = 0;

    SmallForward() { self.setValues({1, 4, 3, 2}); }
    aclOpExecutor *phaseOne() {
        aclOpExecutor *executor = nullptr;
        const aclnnStatus status = aclnnMaxPool3dWithArgmaxGetWorkspaceSize(
            self, kernel, stride, padding, dilation, false, out, indices, &workspaceSize, &executor);
        EXPECT_EQ(status, ACLNN_SUCCESS) << recentMessage();
        return executor;
    }
};

TEST(ExecutorLifecycle, PhaseTwoWithNullExecutorIs161001) {
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_NE(recentMessage().find("executor"), std::string::npos) << recentMessage();
    EXPECT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_NE(recentMessage().find("executor"), std::string::npos) << recentMessage();
}

TEST(ExecutorLifecycle, RunsOnACreatedStream) {
    SeedBackward seed;
    aclrtStream stream = nullptr;
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    aclOpExecutor *executor = seed.phaseOne();
    ASSERT_NE(executor, nullptr);
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, stream), ACLNN_SUCCESS) << recentMessage();
    EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    EXPECT_TRUE(seed.resultIsSeed());
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST(ExecutorLifecycle, NonRepeatableExecutorRunsOnce) {
    SeedBackward seed;
    aclOpExecutor *executor = seed.phaseOne();
    ASSERT_NE(executor, nullptr);
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << recentMessage();
    EXPECT_TRUE(seed.resultIsSeed());
    seed.gradInput.poison();
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_FALSE(recentMessage().empty());
    EXPECT_TRUE(seed.gradInputPoisoned()) << "a refused run must not write gradInput";
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_NULLPTR) << "already released by phase 2";
}

TEST(ExecutorLifecycle, NullWorkspaceWithNonZeroSizeIs161001AndReleasesTheExecutor) {
    SeedBackward seed;
    aclOpExecutor *executor = seed.phaseOne();
    ASSERT_NE(executor, nullptr);
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 64, executor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_NE(recentMessage().find("workspace"), std::string::npos) << recentMessage();
    EXPECT_TRUE(seed.gradInputPoisoned());
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_NULLPTR)
        << "SPEC §1.2: the executor is released by the failed phase 2";
    EXPECT_TRUE(seed.gradInputPoisoned());
}

TEST(ExecutorLifecycle, WorkspaceLargerThanNeededIsAccepted) {
    SeedBackward seed;
    aclOpExecutor *executor = seed.phaseOne();
    ASSERT_NE(executor, nullptr);
    DeviceBuffer workspace(seed.workspaceSize + 256);
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(workspace.get(), seed.workspaceSize + 256, executor, nullptr),
              ACLNN_SUCCESS)
        << recentMessage();
    EXPECT_TRUE(seed.resultIsSeed());
}

TEST(ExecutorLifecycle, RepeatableExecutorRunsUntilDestroyedAndRereadsData) {
    SeedBackward seed;
    aclOpExecutor *executor = seed.phaseOne();
    ASSERT_NE(executor, nullptr);
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
    const double gradients[3] = {0.5, -2.0, 8.25};
    for (int run = 0; run < 3; ++run) {
        seed.gradOutput.set(0, gradients[run]);
        seed.gradInput.poison();
        EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS)
            << "run " << run << ": " << recentMessage();
        EXPECT_TRUE(seed.resultIsSeed(gradients[run])) << "run " << run << " must re-read gradOutput";
    }
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_NULLPTR) << "destroyed twice";
    EXPECT_FALSE(recentMessage().empty());
    seed.gradInput.poison();
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_NULLPTR)
        << "run after destroy";
    EXPECT_TRUE(seed.gradInputPoisoned());
}

TEST(ExecutorLifecycle, DestroyAndSetRepeatableOfNullAre561103) {
    EXPECT_EQ(aclDestroyAclOpExecutor(nullptr), ACLNN_ERR_INNER_NULLPTR);
    EXPECT_FALSE(recentMessage().empty());
    EXPECT_EQ(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_INNER_NULLPTR);
}

TEST(ExecutorLifecycle, SetRepeatableOnAReleasedExecutorIs161001) {
    SeedBackward seed;
    aclOpExecutor *executor = seed.phaseOne();
    ASSERT_NE(executor, nullptr);
    ASSERT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_ERR_PARAM_NULLPTR);
}

TEST(ExecutorLifecycle, DestroyingAnUnrunExecutorReleasesIt) {
    SeedBackward seed;
    aclOpExecutor *executor = seed.phaseOne();
    ASSERT_NE(executor, nullptr);
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(seed.gradInputPoisoned());
}

TEST(ExecutorLifecycle, ForwardExecutorIsRefusedByTheBackward) {
    SmallForward forward;
    aclOpExecutor *executor = forward.phaseOne();
    ASSERT_NE(executor, nullptr);
    const aclnnStatus status = aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr);
    EXPECT_NE(status, ACLNN_SUCCESS);
    EXPECT_TRUE(status == ACLNN_ERR_PARAM_NULLPTR || status == ACLNN_ERR_PARAM_INVALID) << status;
    EXPECT_FALSE(recentMessage().empty());
    EXPECT_EQ(forward.out.bitsAt(0), 0xA5A5A5A5u) << "the refused executor must not have run";
    // Single-use executors are released by phase 2, successful or not.
    EXPECT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(forward.out.bitsAt(0), 0xA5A5A5A5u);
}

TEST(ExecutorLifecycle, BackwardExecutorIsRefusedByTheForwardButARepeatableOneSurvives) {
    SeedBackward seed;
    aclOpExecutor *executor = seed.phaseOne();
    ASSERT_NE(executor, nullptr);
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
    EXPECT_NE(aclnnMaxPool3dWithArgmax(nullptr, 0, executor, nullptr), ACLNN_SUCCESS);
    EXPECT_TRUE(seed.gradInputPoisoned());
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << recentMessage();
    EXPECT_TRUE(seed.resultIsSeed());
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

TEST(ExecutorLifecycle, ExecutorOutlivesItsDescriptors) {
    // SPEC §1.2: the executor copies all metadata, so tensors and arrays may be destroyed after phase 1.
    DeviceBuffer gradOutputData(4), indicesData(4), gradInputData(32);
    const float gradient = 0.4757f;
    const int32_t index = 6;
    std::memcpy(gradOutputData.get(), &gradient, 4);
    std::memcpy(indicesData.get(), &index, 4);
    std::memset(gradInputData.get(), 0xA5, 32);
    std::vector<int64_t> one{1, 1, 1, 1, 1}, two{1, 1, 2, 2, 2};
    aclTensor *gradOutput =
        aclCreateTensor(one.data(), 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, one.data(), 5, gradOutputData.get());
    aclTensor *self = aclCreateTensor(two.data(), 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, two.data(), 5, nullptr);
    aclTensor *indices =
        aclCreateTensor(one.data(), 5, ACL_INT32, nullptr, 0, ACL_FORMAT_ND, one.data(), 5, indicesData.get());
    aclTensor *gradInput =
        aclCreateTensor(two.data(), 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, two.data(), 5, gradInputData.get());
    const int64_t two3[3] = {2, 2, 2}, zero[1] = {0}, unit[1] = {1};
    aclIntArray *kernel = aclCreateIntArray(two3, 3), *stride = aclCreateIntArray(two3, 3),
                *padding = aclCreateIntArray(zero, 1), *dilation = aclCreateIntArray(unit, 1);
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOutput, self, indices, kernel, stride, padding,
                                                               dilation, false, gradInput, &workspaceSize, &executor),
              ACLNN_SUCCESS)
        << recentMessage();
    for (aclTensor *tensor : {gradOutput, self, indices, gradInput}) aclDestroyTensor(tensor);
    for (aclIntArray *array : {kernel, stride, padding, dilation}) aclDestroyIntArray(array);
    // Overwrite the caller's shape vectors too: nothing may still point at them.
    one.assign(5, 0);
    two.assign(5, 0);
    ASSERT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << recentMessage();
    const auto *result = static_cast<const float *>(gradInputData.get());
    for (int i = 0; i < 8; ++i) EXPECT_EQ(result[i], i == 6 ? gradient : 0.0f) << i;
}

TEST(ExecutorLifecycle, RepeatedPhaseOneCreatesIndependentExecutors) {
    SeedBackward seed;
    aclOpExecutor *first = seed.phaseOne();
    aclOpExecutor *second = seed.phaseOne();
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    EXPECT_NE(first, second);
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, second, nullptr), ACLNN_SUCCESS);
    seed.gradInput.poison();
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, first, nullptr), ACLNN_SUCCESS);
    EXPECT_TRUE(seed.resultIsSeed());
}

TEST(ExecutorLifecycle, DifferentExecutorsRunConcurrently) {
    constexpr int threadCount = 4;
    std::vector<int> okCount(threadCount, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < threadCount; ++t)
        threads.emplace_back([t, &okCount] {
            for (int repeat = 0; repeat < 20; ++repeat) {
                SeedBackward seed;
                aclOpExecutor *executor = seed.phaseOne();
                if (executor && aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr) == ACLNN_SUCCESS &&
                    seed.resultIsSeed())
                    ++okCount[t];
            }
        });
    for (std::thread &thread : threads) thread.join();
    for (int t = 0; t < threadCount; ++t) EXPECT_EQ(okCount[t], 20) << "thread " << t;
}

TEST(ExecutorLifecycle, DeterministicOptionDoesNotChangeResults) {
    // SPEC §1.3: the CPU backend is always deterministic; WE-10 (fp16 2048+1+1 = 2050) under both settings.
    int64_t original = 0;
    ASSERT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &original), ACL_SUCCESS);
    std::vector<uint64_t> bits[2];
    for (int64_t option : {0, 1}) {
        ASSERT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, option), ACL_SUCCESS);
        TestTensor gradOutput({1, 1, 1, 2, 2}, ACL_FLOAT16), self({1, 1, 1, 3, 3}, ACL_FLOAT16),
            indices({1, 1, 1, 2, 2}, ACL_INT64), gradInput({1, 1, 1, 3, 3}, ACL_FLOAT16);
        gradOutput.setValues({2048, 1, 1, 0});
        indices.setValues({4, 4, 4, 4});
        IntArray kernel({1, 2, 2}), stride({1, 1, 1}), padding({0}), dilation({1});
        uint64_t workspaceSize = 0;
        aclOpExecutor *executor = nullptr;
        ASSERT_EQ(
            aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOutput, self, indices, kernel, stride, padding,
                                                             dilation, false, gradInput, &workspaceSize, &executor),
            ACLNN_SUCCESS)
            << recentMessage();
        ASSERT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS);
        for (int64_t i = 0; i < 9; ++i) bits[option].push_back(gradInput.bitsAt(i));
        EXPECT_EQ(gradInput.at(4), 2050.0);
    }
    EXPECT_EQ(bits[0], bits[1]);
    EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, original), ACL_SUCCESS);
}

// ---- aclGetRecentErrMsg is per thread --------------------------------------------------------------------

TEST(RecentErrorMessage, IsThreadLocal) {
    SeedBackward seed;
    IntArray badKernel({2, 2});
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(seed.gradOutput, seed.self, seed.indices, badKernel,
                                                               seed.stride, seed.padding, seed.dilation, false,
                                                               seed.gradInput, &workspaceSize, &executor),
              ACLNN_ERR_PARAM_INVALID);
    const std::string mainMessage = recentMessage();
    ASSERT_NE(mainMessage.find("kernelSize"), std::string::npos) << mainMessage;

    std::string seenByOtherThread = "unset", otherThreadOwnMessage;
    std::thread other([&] {
        seenByOtherThread = aclGetRecentErrMsg();
        EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_INVALID_PARAM);
        otherThreadOwnMessage = aclGetRecentErrMsg();
    });
    other.join();
    EXPECT_EQ(seenByOtherThread.find("kernelSize"), std::string::npos)
        << "another thread sees this thread's error: " << seenByOtherThread;
    EXPECT_TRUE(seenByOtherThread.empty()) << seenByOtherThread;
    EXPECT_FALSE(otherThreadOwnMessage.empty());
    EXPECT_EQ(recentMessage(), mainMessage) << "the other thread's error leaked into this thread";
}

// ---- poolgrad/poolgrad.h controls -------------------------------------------------------------------------

TEST(PoolgradControls, SetNumThreads) {
    EXPECT_EQ(poolgradSetNumThreads(-1), ACL_ERROR_INVALID_PARAM);
    EXPECT_FALSE(recentMessage().empty());
    EXPECT_EQ(poolgradSetNumThreads(3), ACL_SUCCESS);
    EXPECT_EQ(poolgradGetNumThreads(), 3);
    EXPECT_EQ(poolgradSetNumThreads(1), ACL_SUCCESS);
    EXPECT_EQ(poolgradGetNumThreads(), 1);
    EXPECT_EQ(poolgradSetNumThreads(-7), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(poolgradGetNumThreads(), 1) << "a refused value must not be applied";
    EXPECT_EQ(poolgradSetNumThreads(0), ACL_SUCCESS);
    EXPECT_GE(poolgradGetNumThreads(), 1);
}

TEST(PoolgradControls, ForceUnknownImplementationIs100000) {
    EXPECT_EQ(poolgradForceImplementation("nope"), ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(recentMessage().find("nope"), std::string::npos) << recentMessage();
    EXPECT_EQ(poolgradForceImplementation(nullptr), ACL_SUCCESS);
    EXPECT_EQ(poolgradForceImplementation(""), ACL_SUCCESS);
}

TEST(PoolgradControls, ImplementationNames) {
    const int32_t count = poolgradImplementationCount();
    ASSERT_GT(count, 0);
    std::set<std::string> names;
    for (int32_t i = 0; i < count; ++i) {
        const char *name = poolgradImplementationName(i);
        ASSERT_NE(name, nullptr) << i;
        EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
        EXPECT_EQ(poolgradForceImplementation(name), ACL_SUCCESS) << name;
    }
    EXPECT_EQ(poolgradForceImplementation(nullptr), ACL_SUCCESS);
    EXPECT_EQ(poolgradImplementationName(-1), nullptr);
    EXPECT_EQ(poolgradImplementationName(count), nullptr);
    // Each task's list ends with its reference: no "<task>_<variant>" follows "<task>_reference".
    bool forwardReference = false, backwardReference = false;
    for (int32_t i = 0; i < count; ++i) {
        const std::string name = poolgradImplementationName(i), suffix = "_reference";
        if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        const std::string task = name.substr(0, name.size() - suffix.size());
        forwardReference |= task.find("forward") != std::string::npos;
        backwardReference |= task.find("backward") != std::string::npos;
        for (int32_t j = i + 1; j < count; ++j)
            EXPECT_NE(std::string(poolgradImplementationName(j)).rfind(task + "_", 0), 0u)
                << poolgradImplementationName(j) << " comes after " << name;
    }
    EXPECT_TRUE(forwardReference) << "no forward reference implementation";
    EXPECT_TRUE(backwardReference) << "no backward reference implementation";
}

TEST(PoolgradControls, EveryImplementationEitherDeclinesOrComputesTheSeed) {
    int accepted = 0;
    bool referenceAccepted = false;
    for (int32_t i = 0; i < poolgradImplementationCount(); ++i) {
        const std::string name = poolgradImplementationName(i);
        SCOPED_TRACE(name);
        ASSERT_EQ(poolgradForceImplementation(name.c_str()), ACL_SUCCESS);
        SeedBackward seed;
        aclOpExecutor *executor = test_support::garbageExecutor();
        const aclnnStatus status = aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
            seed.gradOutput, seed.self, seed.indices, seed.kernel, seed.stride, seed.padding, seed.dilation, false,
            seed.gradInput, &seed.workspaceSize, &executor);
        if (status == ACLNN_ERR_INNER_FIND_KERNEL_ERROR) {
            EXPECT_EQ(executor, nullptr);
            EXPECT_FALSE(recentMessage().empty());
            continue;
        }
        ASSERT_EQ(status, ACLNN_SUCCESS) << recentMessage();
        ++accepted;
        referenceAccepted |= name.find("reference") != std::string::npos;
        EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS);
        EXPECT_TRUE(seed.resultIsSeed());
    }
    ASSERT_EQ(poolgradForceImplementation(nullptr), ACL_SUCCESS);
    EXPECT_GE(accepted, 1);
    EXPECT_TRUE(referenceAccepted);
}

// WE-1 with a gradInput whose elements have gaps between them: dense-only implementations decline it.
aclnnStatus stridedSeedPhaseOne(aclOpExecutor **executor) {
    SeedBackward seed;
    TestTensor gradInput({1, 1, 2, 2, 2}, {16, 16, 8, 4, 2}, 0, ACL_FLOAT);
    *executor = test_support::garbageExecutor();
    const aclnnStatus status = aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
        seed.gradOutput, seed.self, seed.indices, seed.kernel, seed.stride, seed.padding, seed.dilation, false,
        gradInput, &seed.workspaceSize, executor);
    if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(*executor);
    return status;
}

TEST(PoolgradControls, ForcingIsPerThread) {
    // Find an implementation that declines the strided problem when forced (a dense-only one).
    std::string decliner;
    for (int32_t i = 0; i < poolgradImplementationCount() && decliner.empty(); ++i) {
        ASSERT_EQ(poolgradForceImplementation(poolgradImplementationName(i)), ACL_SUCCESS);
        aclOpExecutor *executor = nullptr;
        if (stridedSeedPhaseOne(&executor) == ACLNN_ERR_INNER_FIND_KERNEL_ERROR) {
            decliner = poolgradImplementationName(i);
            EXPECT_EQ(executor, nullptr);
            EXPECT_FALSE(recentMessage().empty()) << "the message gives the reason";
        }
    }
    ASSERT_EQ(poolgradForceImplementation(nullptr), ACL_SUCCESS);
    if (decliner.empty()) GTEST_SKIP() << "no implementation declines a strided gradInput";

    ASSERT_EQ(poolgradForceImplementation(decliner.c_str()), ACL_SUCCESS);
    aclOpExecutor *executor = nullptr;
    EXPECT_EQ(stridedSeedPhaseOne(&executor), ACLNN_ERR_INNER_FIND_KERNEL_ERROR) << decliner;
    aclnnStatus otherThreadStatus = -1;
    std::thread other([&] {
        aclOpExecutor *otherExecutor = nullptr;
        otherThreadStatus = stridedSeedPhaseOne(&otherExecutor);
    });
    other.join();
    EXPECT_EQ(otherThreadStatus, ACLNN_SUCCESS) << "forcing in one thread restricted another thread";
    EXPECT_EQ(poolgradForceImplementation(nullptr), ACL_SUCCESS);
    EXPECT_EQ(stridedSeedPhaseOne(&executor), ACLNN_SUCCESS) << "forcing must be undone by nullptr";
}

TEST(PoolgradControls, VersionIsMajorMinorPatch) {
    const char *version = poolgradVersion();
    ASSERT_NE(version, nullptr);
    EXPECT_TRUE(std::regex_match(version, std::regex("[0-9]+\\.[0-9]+\\.[0-9]+"))) << version;
}

}  // namespace

namespace {

TEST(PoolgradControls, EveryImplementationNamesItsTaskAndEachTaskEndsWithAReference) {
    const std::set<std::string> tasks{"argmax-forward", "index-scatter-backward", "recompute-argmax-backward",
                                      "zero-fill"};
    std::map<std::string, std::string> lastOfTask;
    for (int32_t i = 0; i < poolgradImplementationCount(); ++i) {
        const char *task = poolgradImplementationTask(i);
        ASSERT_NE(task, nullptr) << i;
        EXPECT_EQ(tasks.count(task), 1u) << task;
        lastOfTask[task] = poolgradImplementationName(i);
    }
    EXPECT_EQ(poolgradImplementationTask(-1), nullptr);
    EXPECT_EQ(poolgradImplementationTask(poolgradImplementationCount()), nullptr);
    EXPECT_EQ(lastOfTask.size(), tasks.size());
    for (const auto &[task, name] : lastOfTask) {
        if (task != "zero-fill") {
            EXPECT_NE(name.find("reference"), std::string::npos) << task << ": " << name;
        }
    }
}

}  // namespace

namespace {

TEST(PoolgradControls, ParallelThresholdRejectsNegativeAndAcceptsDefault) {
    EXPECT_EQ(poolgradSetParallelThreshold(-1), ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("elementsPerThread"), std::string::npos);
    EXPECT_EQ(poolgradSetParallelThreshold(1), ACL_SUCCESS);
    EXPECT_EQ(poolgradSetParallelThreshold(0), ACL_SUCCESS);
}

}  // namespace
