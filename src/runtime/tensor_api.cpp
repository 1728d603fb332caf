// Creation, destruction and queries of aclTensor, aclScalar and the array and list descriptors, all behind
// handles (runtime/descriptor_handles.h): a destroyed or foreign handle is reported, never dereferenced.
#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>

#include "aclnn/aclnn_base.h"
#include "core/checked_arithmetic.h"
#include "core/error_message.h"
#include "runtime/descriptor_handles.h"

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

std::string listText(std::span<const int64_t> values) {
    std::string text = "[";
    for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
    return text + "]";
}

// Row-major strides, a size-0 axis counting as 1; an error when a stride does not fit in int64.
std::optional<std::string> fillRowMajorStrides(std::span<const int64_t> dims, std::vector<int64_t> &strides) {
    int64_t running = 1;
    for (size_t i = dims.size(); i-- > 0;) {
        strides[i] = running;
        if (i == 0) break;
        const auto next = checkedMul(running, std::max<int64_t>(dims[i], 1));
        if (!next)
            return joinText("stride is null and the row-major stride of dim ", i - 1, " (the product of viewDims ",
                            listText(dims), " after it) overflows int64");
        running = *next;
    }
    return std::nullopt;
}

// Refuses a view whose element count, furthest element or byte addresses cannot be computed without
// overflow, so that nothing computed from the descriptor later (counts, byte offsets, the base pointer
// data + offset * elementSize) can overflow either.
std::optional<std::string> sizeOverflow(std::span<const int64_t> dims, std::span<const int64_t> strides, int64_t offset,
                                        aclDataType dataType, const void *data, std::span<const int64_t> storageDims) {
    const auto elementBytes = static_cast<int64_t>(std::max<size_t>(aclDataTypeSize(dataType), 1));
    const auto elements = checkedProduct<int64_t>(dims);
    if (!elements) return joinText("the element count of viewDims ", listText(dims), " overflows int64");
    // The furthest element from data, in elements: for an empty view no element is addressed, but the base
    // data + offset * elementSize is still formed.
    std::optional<int64_t> furthest = offset;
    for (size_t i = 0; i < dims.size() && *elements > 0 && furthest; ++i) {
        const auto reach = checkedMul(dims[i] - 1, strides[i]);
        furthest = reach ? checkedAdd(*furthest, *reach) : std::nullopt;
    }
    if (!furthest)
        return joinText("offset + sum((viewDims[i] - 1) * stride[i]) overflows int64 (viewDims ", listText(dims),
                        ", strides ", listText(strides), ", offset ", offset, ")");
    const auto furthestByte = checkedMul(*furthest, elementBytes);
    const auto endByte = furthestByte ? checkedAdd(*furthestByte, elementBytes - 1) : std::nullopt;
    if (!endByte)
        return joinText("the byte offset of the view's furthest element (", *furthest, " elements of ", elementBytes,
                        " bytes) overflows int64");
    uintptr_t lastAddress = 0;
    if (data != nullptr &&
        __builtin_add_overflow(reinterpret_cast<uintptr_t>(data), static_cast<uintptr_t>(*endByte), &lastAddress))
        return joinText("the view ends past the end of the address space (tensorData ", data, " + ", *endByte,
                        " bytes)");
    const auto storageElements = checkedProduct<int64_t>(storageDims);
    if (!storageElements || !checkedMul(*storageElements, elementBytes))
        return joinText("the byte size of storageDims ", listText(storageDims), " overflows int64");
    return std::nullopt;
}

// Creates a descriptor, lets fill set it up and registers it; nullptr and a message when memory runs out.
template <typename Descriptor, typename Fill>
Descriptor *createDescriptor(const char *function, Fill &&fill) {
    try {
        auto descriptor = std::make_shared<Descriptor>();
        fill(*descriptor);
        if (Descriptor *handle = descriptorHandles<Descriptor>().add(std::move(descriptor))) return handle;
    } catch (const std::bad_alloc &) {
    }
    setRecentError(joinText(function, ": out of memory"));
    return nullptr;
}

// Unregisters a handle; its descriptor is freed once no running phase 1 or tensor list uses it.
template <typename Descriptor>
aclnnStatus destroyDescriptor(const char *function, const char *argument, const Descriptor *handle) {
    if (handle == nullptr) return ACLNN_SUCCESS;
    if (descriptorHandles<Descriptor>().remove(handle) == nullptr)
        return fail(ACLNN_ERR_PARAM_NULLPTR, function, ": ", argument, " ",
                    explainDeadHandle(handle, descriptorKind<Descriptor>));
    return ACLNN_SUCCESS;
}

// The descriptor a query's handle names; null (with a message, the caller returns 161001) when the handle
// is null or names no live descriptor.
template <typename Descriptor>
std::shared_ptr<const Descriptor> liveDescriptor(const char *function, const char *argument, const Descriptor *handle) {
    if (handle == nullptr) {
        setRecentError(joinText(function, ": ", argument, " is null"));
        return nullptr;
    }
    std::shared_ptr<const Descriptor> descriptor = descriptorHandles<Descriptor>().find(handle);
    if (descriptor == nullptr)
        setRecentError(joinText(function, ": ", argument, " ", explainDeadHandle(handle, descriptorKind<Descriptor>)));
    return descriptor;
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
    return createDescriptor<Descriptor>(function, [&](Descriptor &array) { array.values.assign(value, value + size); });
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

    const std::span<const int64_t> dims(viewDims, viewDimsNum), storage(storageDims, storageDimsNum);
    std::vector<int64_t> strides(viewDimsNum);
    if (stride != nullptr)
        std::copy(stride, stride + viewDimsNum, strides.begin());
    else if (auto overflow = fillRowMajorStrides(dims, strides))
        return refuseTensor(*overflow);
    if (auto overflow = sizeOverflow(dims, strides, offset, dataType, tensorData, storage))
        return refuseTensor(*overflow);

    // The enums travel into the lambda as integers: captured by reference, the parameters would live in
    // memory, and UBSan checks every load of an enum from memory against its enumerators' range (callers
    // may pass any int as a format).
    const int typeCode = dataType, formatCode = format;
    return createDescriptor<aclTensor>("aclCreateTensor", [&](aclTensor &tensor) {
        tensor.viewShape.assign(dims.begin(), dims.end());
        tensor.strides = std::move(strides);
        tensor.offset = offset;
        tensor.dataType = static_cast<aclDataType>(typeCode);
        tensor.format = static_cast<aclFormat>(formatCode);
        tensor.storageShape.assign(storage.begin(), storage.end());
        tensor.storageGiven = storageDims != nullptr;
        tensor.data = tensorData;
    });
}

aclScalar *aclCreateScalar(void *value, aclDataType dataType) {
    const size_t bytes = aclDataTypeSize(dataType);
    if (value == nullptr || bytes == 0 || bytes > sizeof(aclScalar::value)) {
        setRecentError("aclCreateScalar: value is null or dataType has no fixed size");
        return nullptr;
    }
    const int typeCode = dataType;  // as in aclCreateTensor
    return createDescriptor<aclScalar>("aclCreateScalar", [&](aclScalar &scalar) {
        scalar.dataType = static_cast<aclDataType>(typeCode);
        std::memcpy(scalar.value, value, bytes);
    });
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
    std::vector<std::shared_ptr<const aclTensor>> members;
    try {
        members.reserve(size);
    } catch (const std::bad_alloc &) {
        setRecentError("aclCreateTensorList: out of memory");
        return nullptr;
    }
    for (uint64_t i = 0; i < size; ++i) {
        if (value[i] == nullptr) {
            members.emplace_back();
            continue;
        }
        std::shared_ptr<const aclTensor> member = descriptorHandles<aclTensor>().find(value[i]);
        if (member == nullptr) {
            setRecentError(
                joinText("aclCreateTensorList: value[", i, "] ", explainDeadHandle(value[i], HandleKind::Tensor)));
            return nullptr;
        }
        members.push_back(std::move(member));
    }
    return createDescriptor<aclTensorList>("aclCreateTensorList",
                                           [&](aclTensorList &list) { list.tensors = std::move(members); });
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
    return destroyDescriptor("aclDestroyTensor", "tensor", tensor);
}
aclnnStatus aclDestroyScalar(const aclScalar *scalar) {
    return destroyDescriptor("aclDestroyScalar", "scalar", scalar);
}
aclnnStatus aclDestroyIntArray(const aclIntArray *array) {
    return destroyDescriptor("aclDestroyIntArray", "array", array);
}
aclnnStatus aclDestroyFloatArray(const aclFloatArray *array) {
    return destroyDescriptor("aclDestroyFloatArray", "array", array);
}
aclnnStatus aclDestroyBoolArray(const aclBoolArray *array) {
    return destroyDescriptor("aclDestroyBoolArray", "array", array);
}
aclnnStatus aclDestroyTensorList(const aclTensorList *array) {
    return destroyDescriptor("aclDestroyTensorList", "array", array);
}

aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum) {
    const auto live = liveDescriptor("aclGetViewShape", "tensor", tensor);
    if (!live) return ACLNN_ERR_PARAM_NULLPTR;
    if (!viewDims || !viewDimsNum) return nullArgument("aclGetViewShape", viewDims ? "viewDimsNum" : "viewDims");
    *viewDims = copyOut(live->viewShape);
    *viewDimsNum = live->viewShape.size();
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum) {
    const auto live = liveDescriptor("aclGetStorageShape", "tensor", tensor);
    if (!live) return ACLNN_ERR_PARAM_NULLPTR;
    if (!storageDims || !storageDimsNum)
        return nullArgument("aclGetStorageShape", storageDims ? "storageDimsNum" : "storageDims");
    *storageDims = copyOut(live->storageShape);
    *storageDimsNum = live->storageShape.size();
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum) {
    const auto live = liveDescriptor("aclGetViewStrides", "tensor", tensor);
    if (!live) return ACLNN_ERR_PARAM_NULLPTR;
    if (!stridesValue || !stridesNum)
        return nullArgument("aclGetViewStrides", stridesValue ? "stridesNum" : "stridesValue");
    *stridesValue = copyOut(live->strides);
    *stridesNum = live->strides.size();
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset) {
    const auto live = liveDescriptor("aclGetViewOffset", "tensor", tensor);
    if (!live) return ACLNN_ERR_PARAM_NULLPTR;
    if (!offset) return nullArgument("aclGetViewOffset", "offset");
    *offset = live->offset;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format) {
    const auto live = liveDescriptor("aclGetFormat", "tensor", tensor);
    if (!live) return ACLNN_ERR_PARAM_NULLPTR;
    if (!format) return nullArgument("aclGetFormat", "format");
    *format = live->format;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType) {
    const auto live = liveDescriptor("aclGetDataType", "tensor", tensor);
    if (!live) return ACLNN_ERR_PARAM_NULLPTR;
    if (!dataType) return nullArgument("aclGetDataType", "dataType");
    *dataType = live->dataType;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr) {
    const auto live = liveDescriptor("aclGetRawTensorAddr", "tensor", tensor);
    if (!live) return ACLNN_ERR_PARAM_NULLPTR;
    if (!addr) return nullArgument("aclGetRawTensorAddr", "addr");
    *addr = live->data;
    return ACLNN_SUCCESS;
}

aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr) {
    const auto live = liveDescriptor("aclSetRawTensorAddr", "tensor", tensor);
    if (!live) return ACLNN_ERR_PARAM_NULLPTR;
    // The rule aclCreateTensor applies to tensorData: the view must still end inside the address space.
    if (const std::optional<std::string> overflow =
            sizeOverflow(live->viewShape, live->strides, live->offset, live->dataType, addr, live->storageShape))
        return fail(ACLNN_ERR_PARAM_INVALID, "aclSetRawTensorAddr: ", *overflow);
    // Descriptors never change (a phase 1 on another thread may be reading this one): a copy with the new
    // address takes its place behind the handle. Executors made earlier keep the addresses they were given.
    try {
        auto repointed = std::make_shared<aclTensor>(*live);
        repointed->data = addr;
        if (!descriptorHandles<aclTensor>().replace(tensor, std::move(repointed)))
            return fail(ACLNN_ERR_PARAM_NULLPTR, "aclSetRawTensorAddr: tensor ",
                        explainDeadHandle(tensor, HandleKind::Tensor));
    } catch (const std::bad_alloc &) {
        return fail(ACLNN_ERR_INNER, "aclSetRawTensorAddr: out of memory");
    }
    clearRecentError();
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size) {
    const auto live = liveDescriptor("aclGetIntArraySize", "array", array);
    if (!live) return ACLNN_ERR_PARAM_NULLPTR;
    if (!size) return nullArgument("aclGetIntArraySize", "size");
    *size = live->values.size();
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size) {
    const auto live = liveDescriptor("aclGetFloatArraySize", "array", array);
    if (!live) return ACLNN_ERR_PARAM_NULLPTR;
    if (!size) return nullArgument("aclGetFloatArraySize", "size");
    *size = live->values.size();
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size) {
    const auto live = liveDescriptor("aclGetBoolArraySize", "array", array);
    if (!live) return ACLNN_ERR_PARAM_NULLPTR;
    if (!size) return nullArgument("aclGetBoolArraySize", "size");
    *size = live->values.size();
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size) {
    const auto live = liveDescriptor("aclGetTensorListSize", "tensorList", tensorList);
    if (!live) return ACLNN_ERR_PARAM_NULLPTR;
    if (!size) return nullArgument("aclGetTensorListSize", "size");
    *size = live->tensors.size();
    return ACLNN_SUCCESS;
}

}  // extern "C"
