// Phase-1 rules shared by the operators, one function per rule. Each returns 0 when the rule holds,
// otherwise the aclnn status, after recording a message that names the operator, the argument, the
// rule and the values involved.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "core/pool_geometry.h"
#include "runtime/descriptors.h"

namespace poolgrad {

struct NamedTensor {
    const char *name;
    const aclTensor *tensor;
};

std::string shapeText(const std::vector<int64_t> &values);
const char *dataTypeName(aclDataType type);
const char *formatName(aclFormat format);

// The product of the view dims, saturated at INT64_MAX (requireAddressable refuses counts that large).
int64_t elementCount(const aclTensor *tensor);
bool isEmpty(const aclTensor *tensor);

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

// A dim by position and the name messages give it ("N", "C").
struct NamedDim {
    size_t position;
    const char *name;
};
// The batch and channel dims of a rank-`rank` tensor whose spatialDims spatial dims start at firstSpatial:
// every other dim, the first named N when the tensor has a batch, the others C.
std::vector<NamedDim> batchAndChannelDims(size_t rank, int spatialDims, size_t firstSpatial);
aclnnStatus requireSameDims(const char *op, NamedTensor tensor, NamedTensor reference,
                            const std::vector<NamedDim> &dims);
// The elements of one (n,c) plane of `tensor`: the product of its spatialDims spatial dims (D*H*W, or H*W
// for 2-D operators; the last dims, or the ones before C when channelsLast), exact; 161002 naming the tensor
// when it does not fit in int64.
aclnnStatus requirePlaneElements(const char *op, NamedTensor tensor, int spatialDims, int64_t &planeElements,
                                 bool channelsLast = false);

// Library addition: the window bounds of every regular axis are computable in int64 (absurd paddings or
// output sizes can make (o*stride - padding) overflow); 161002 naming the axis otherwise.
aclnnStatus requireWindowArithmetic(const char *op, const PoolGeometry &geometry);

// How an operator stores indices: INT32 / INT64 tensors, or INT32 values inside an INT8 mask.
enum class IndexStorage { Int32, Int64, Int32InMask };
IndexStorage indexStorageOf(aclDataType indexType);  // INT32 or INT64 tensors
// INT32 indices can only address planes of at most 2^31-1 elements. An INT32 tensor can be replaced by
// an INT64 one; a mask cannot.
aclnnStatus requireIndexRange(const char *op, const char *name, IndexStorage storage, int spatialDims,
                              int64_t planeElements);

}  // namespace poolgrad
