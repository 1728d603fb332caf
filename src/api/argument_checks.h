// Phase-1 rules shared by the operators, one function per rule. Each returns 0 when the rule holds,
// otherwise the aclnn status, after recording a message that names the operator, the argument, the
// rule and the values involved.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "runtime/descriptors.h"

namespace poolgrad {

struct NamedPointer {
    const char *name;
    const void *pointer;
};

struct NamedTensor {
    const char *name;
    const aclTensor *tensor;
};

std::string shapeText(const std::vector<int64_t> &values);
const char *dataTypeName(aclDataType type);
const char *formatName(aclFormat format);

int64_t elementCount(const aclTensor *tensor);
bool isEmpty(const aclTensor *tensor);

aclnnStatus requireNonNull(const char *op, std::initializer_list<NamedPointer> arguments);
aclnnStatus requireDataTypeIn(const char *op, NamedTensor tensor, std::initializer_list<aclDataType> allowed);
aclnnStatus requireSameDataType(const char *op, NamedTensor tensor, NamedTensor reference);
// Rejects UNDEFINED and the NPU-private formats.
aclnnStatus requirePublicFormat(const char *op, NamedTensor tensor);
aclnnStatus requireFormatIn(const char *op, NamedTensor tensor, std::initializer_list<aclFormat> allowed);
aclnnStatus requireSameFormat(const char *op, NamedTensor tensor, NamedTensor reference);
aclnnStatus requireRankIn(const char *op, NamedTensor tensor, std::initializer_list<size_t> allowed);
aclnnStatus requireSameRank(const char *op, NamedTensor tensor, NamedTensor reference);
aclnnStatus requireSameShape(const char *op, NamedTensor tensor, NamedTensor reference);
aclnnStatus requireShape(const char *op, NamedTensor tensor, const std::vector<int64_t> &expected, const char *why);
// INT32 indices can only address planes of at most 2^31-1 elements.
aclnnStatus requireIndexRange(const char *op, const char *name, aclDataType indexType, int64_t planeElements);
// Library addition: a non-empty tensor has data aligned to its element size, and every element of its
// view lies inside its storage.
aclnnStatus requireAddressable(const char *op, std::initializer_list<NamedTensor> tensors);

}  // namespace poolgrad
