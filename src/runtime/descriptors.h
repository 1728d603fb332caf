// The definitions behind the opaque aclnn descriptor types. Callers never hold these addresses: they hold
// handles (runtime/descriptor_handles.h), which every entry point resolves to a descriptor first. A
// descriptor never changes after its creation: aclSetRawTensorAddr and aclSetInputTensorAddr put a copy with
// the new address behind the handle, so whoever resolved the old one keeps reading a consistent descriptor.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "aclnn/acl_meta.h"

struct aclTensor {
    std::vector<int64_t> viewShape;
    std::vector<int64_t> strides;  // always filled: row-major when the caller passed nullptr
    int64_t offset = 0;
    aclDataType dataType = ACL_FLOAT;
    aclFormat format = ACL_FORMAT_ND;
    std::vector<int64_t> storageShape;
    bool storageGiven = false;
    void *data = nullptr;
};

struct aclScalar {
    aclDataType dataType = ACL_FLOAT;
    alignas(8) unsigned char value[16] = {};
};

struct aclIntArray {
    std::vector<int64_t> values;
};

struct aclFloatArray {
    std::vector<float> values;
};

struct aclBoolArray {
    std::vector<bool> values;
};

// Holds its members' descriptors (shared with their handles; descriptors never change, so this is a copy):
// destroying a member's handle does not change the list, nor destroying the list the members' handles.
struct aclTensorList {
    std::vector<std::shared_ptr<const aclTensor>> tensors;
};

namespace poolgrad {
// Bytes per element of an aclDataType, 0 for types without a fixed byte size (strings, sub-byte).
size_t aclDataTypeSize(aclDataType type);

// The address of the view's first element, data + offset * element size (null for null data). Integer
// arithmetic, defined for any offset: operands are formed before phase 1's memory rules have checked that
// it lies inside the address space, and kernels see them only after.
inline void *firstElementAddress(const aclTensor &tensor) {
    if (tensor.data == nullptr) return nullptr;
    return reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(tensor.data) +
                                    static_cast<uintptr_t>(tensor.offset) * aclDataTypeSize(tensor.dataType));
}
}  // namespace poolgrad
