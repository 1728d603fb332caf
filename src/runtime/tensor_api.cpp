// Creation, destruction and queries of aclTensor, aclScalar and the array descriptors.
#include <algorithm>
#include <cstring>
#include <new>

#include "aclnn/aclnn_base.h"
#include "core/error_message.h"
#include "runtime/descriptors.h"

namespace poolgrad {

size_t aclDataTypeSize(aclDataType type) {
    switch (type) {
        case ACL_BOOL:
        case ACL_INT8:
        case ACL_UINT8:
        case ACL_HIFLOAT8:
        case ACL_FLOAT8_E5M2:
        case ACL_FLOAT8_E4M3FN:
        case ACL_FLOAT8_E8M0:
        case ACL_FLOAT6_E3M2:
        case ACL_FLOAT6_E2M3:
            return 1;
        case ACL_FLOAT16:
        case ACL_BF16:
        case ACL_INT16:
        case ACL_UINT16:
            return 2;
        case ACL_FLOAT:
        case ACL_INT32:
        case ACL_UINT32:
        case ACL_COMPLEX32:
            return 4;
        case ACL_INT64:
        case ACL_UINT64:
        case ACL_DOUBLE:
        case ACL_COMPLEX64:
            return 8;
        case ACL_COMPLEX128:
            return 16;
        default:
            return 0;
    }
}

namespace {

constexpr uint64_t maxRank = 8;

bool knownDataType(aclDataType type) {
    return aclDataTypeSize(type) != 0 || type == ACL_STRING || type == ACL_INT4 || type == ACL_UINT1 ||
           type == ACL_FLOAT4_E2M1 || type == ACL_FLOAT4_E1M2;
}

aclTensor *refuseTensor(const std::string &why) {
    setRecentError("aclCreateTensor: " + why);
    return nullptr;
}

aclnnStatus nullArgument(const char *function, const char *argument) {
    return fail(ACLNN_ERR_PARAM_NULLPTR, function, ": ", argument, " is null");
}

int64_t *copyOut(const std::vector<int64_t> &values) {
    auto *copy = new int64_t[std::max<size_t>(values.size(), 1)];
    std::copy(values.begin(), values.end(), copy);
    return copy;
}

template <typename Descriptor, typename Value>
Descriptor *createArray(const char *function, const Value *value, uint64_t size) {
    if (value == nullptr && size > 0) {
        setRecentError(joinText(function, ": value is null but size is ", size));
        return nullptr;
    }
    auto *array = new (std::nothrow) Descriptor{};
    if (array == nullptr) return nullptr;
    array->values.assign(value, value + size);
    return array;
}

}  // namespace
}  // namespace poolgrad

using namespace poolgrad;

extern "C" {

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride,
                           int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData) {
    if (viewDims == nullptr && viewDimsNum > 0) return refuseTensor("viewDims is null but viewDimsNum > 0");
    if (viewDimsNum > maxRank) return refuseTensor(joinText("viewDimsNum ", viewDimsNum, " exceeds ", maxRank));
    if (storageDims == nullptr && storageDimsNum > 0) return refuseTensor("storageDims is null but storageDimsNum > 0");
    if (storageDimsNum > maxRank)
        return refuseTensor(joinText("storageDimsNum ", storageDimsNum, " exceeds ", maxRank));
    if (!knownDataType(dataType)) return refuseTensor(joinText("unknown dataType ", static_cast<int>(dataType)));
    if (offset < 0) return refuseTensor(joinText("offset must be >= 0, got ", offset));
    for (uint64_t i = 0; i < viewDimsNum; ++i) {
        if (viewDims[i] < 0) return refuseTensor(joinText("viewDims[", i, "] must be >= 0, got ", viewDims[i]));
        if (stride && stride[i] < 0) return refuseTensor(joinText("stride[", i, "] must be >= 0, got ", stride[i]));
    }
    for (uint64_t i = 0; i < storageDimsNum; ++i)
        if (storageDims[i] < 0)
            return refuseTensor(joinText("storageDims[", i, "] must be >= 0, got ", storageDims[i]));

    auto *tensor = new (std::nothrow) aclTensor{};
    if (tensor == nullptr) return refuseTensor("out of memory");
    tensor->viewShape.assign(viewDims, viewDims + viewDimsNum);
    tensor->strides.resize(viewDimsNum);
    int64_t running = 1;
    for (uint64_t i = viewDimsNum; i-- > 0;) {
        tensor->strides[i] = stride ? stride[i] : running;
        running *= std::max<int64_t>(viewDims[i], 1);
    }
    tensor->offset = offset;
    tensor->dataType = dataType;
    tensor->format = format;
    tensor->storageShape.assign(storageDims, storageDims + storageDimsNum);
    tensor->storageGiven = storageDims != nullptr;
    tensor->data = tensorData;
    return tensor;
}

aclScalar *aclCreateScalar(void *value, aclDataType dataType) {
    const size_t bytes = aclDataTypeSize(dataType);
    if (value == nullptr || bytes == 0 || bytes > sizeof(aclScalar::value)) {
        setRecentError("aclCreateScalar: value is null or dataType has no fixed size");
        return nullptr;
    }
    auto *scalar = new (std::nothrow) aclScalar{};
    if (scalar == nullptr) return nullptr;
    scalar->dataType = dataType;
    std::memcpy(scalar->value, value, bytes);
    return scalar;
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
    return createArray<aclIntArray>("aclCreateIntArray", value, size);
}
aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size) {
    return createArray<aclFloatArray>("aclCreateFloatArray", value, size);
}
aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size) {
    return createArray<aclBoolArray>("aclCreateBoolArray", value, size);
}

aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size) {
    if (value == nullptr && size > 0) {
        setRecentError("aclCreateTensorList: value is null but size > 0");
        return nullptr;
    }
    auto *list = new (std::nothrow) aclTensorList{};
    if (list == nullptr) return nullptr;
    list->tensors.assign(value, value + size);
    return list;
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
    delete tensor;
    return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyScalar(const aclScalar *scalar) {
    delete scalar;
    return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyIntArray(const aclIntArray *array) {
    delete array;
    return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyFloatArray(const aclFloatArray *array) {
    delete array;
    return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyBoolArray(const aclBoolArray *array) {
    delete array;
    return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyTensorList(const aclTensorList *array) {
    delete array;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum) {
    if (!tensor) return nullArgument("aclGetViewShape", "tensor");
    if (!viewDims || !viewDimsNum) return nullArgument("aclGetViewShape", viewDims ? "viewDimsNum" : "viewDims");
    *viewDims = copyOut(tensor->viewShape);
    *viewDimsNum = tensor->viewShape.size();
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum) {
    if (!tensor) return nullArgument("aclGetStorageShape", "tensor");
    if (!storageDims || !storageDimsNum)
        return nullArgument("aclGetStorageShape", storageDims ? "storageDimsNum" : "storageDims");
    *storageDims = copyOut(tensor->storageShape);
    *storageDimsNum = tensor->storageShape.size();
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum) {
    if (!tensor) return nullArgument("aclGetViewStrides", "tensor");
    if (!stridesValue || !stridesNum) return nullArgument("aclGetViewStrides", stridesValue ? "stridesNum" : "stridesValue");
    *stridesValue = copyOut(tensor->strides);
    *stridesNum = tensor->strides.size();
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset) {
    if (!tensor) return nullArgument("aclGetViewOffset", "tensor");
    if (!offset) return nullArgument("aclGetViewOffset", "offset");
    *offset = tensor->offset;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format) {
    if (!tensor) return nullArgument("aclGetFormat", "tensor");
    if (!format) return nullArgument("aclGetFormat", "format");
    *format = tensor->format;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType) {
    if (!tensor) return nullArgument("aclGetDataType", "tensor");
    if (!dataType) return nullArgument("aclGetDataType", "dataType");
    *dataType = tensor->dataType;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size) {
    if (!array) return nullArgument("aclGetIntArraySize", "array");
    if (!size) return nullArgument("aclGetIntArraySize", "size");
    *size = array->values.size();
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size) {
    if (!array) return nullArgument("aclGetFloatArraySize", "array");
    if (!size) return nullArgument("aclGetFloatArraySize", "size");
    *size = array->values.size();
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size) {
    if (!array) return nullArgument("aclGetBoolArraySize", "array");
    if (!size) return nullArgument("aclGetBoolArraySize", "size");
    *size = array->values.size();
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size) {
    if (!tensorList) return nullArgument("aclGetTensorListSize", "tensorList");
    if (!size) return nullArgument("aclGetTensorListSize", "size");
    *size = tensorList->tensors.size();
    return ACLNN_SUCCESS;
}

}  // extern "C"
