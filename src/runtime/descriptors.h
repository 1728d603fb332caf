// The definitions behind the opaque aclnn descriptor types.
#pragma once

#include <cstdint>
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

struct aclTensorList {
    std::vector<const aclTensor *> tensors;
};

namespace poolgrad {
// Bytes per element of an aclDataType, 0 for types without a fixed byte size (strings, sub-byte).
size_t aclDataTypeSize(aclDataType type);
}
