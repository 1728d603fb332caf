#include "api/tensor_operand.h"

#include <cstdint>

namespace poolgrad {

ElementType elementTypeOf(aclDataType type) {
    switch (type) {
        case ACL_FLOAT16:
            return ElementType::Float16;
        case ACL_BF16:
            return ElementType::BFloat16;
        case ACL_INT32:
            return ElementType::Int32;
        case ACL_INT64:
            return ElementType::Int64;
        case ACL_INT8:
            return ElementType::Int8;
        case ACL_UINT8:
            return ElementType::UInt8;
        case ACL_INT16:
            return ElementType::Int16;
        case ACL_UINT16:
            return ElementType::UInt16;
        case ACL_DOUBLE:
            return ElementType::Float64;
        default:
            return ElementType::Float32;
    }
}

namespace {

// axisOf[k] = which dim of the tensor is kernel axis k (N,C,D,H,W), or -1 for a size-1 axis.
StridedTensor mapAxes(const aclTensor *tensor, const int (&axisOf)[5]) {
    StridedTensor operand;
    operand.type = elementTypeOf(tensor->dataType);
    operand.rank = static_cast<int>(tensor->viewShape.size());
    for (int k = 0; k < 5; ++k) {
        const int dim = axisOf[k];
        operand.size[k] = dim < 0 ? 1 : tensor->viewShape[dim];
        operand.stride[k] = dim < 0 ? 0 : tensor->strides[dim];
    }
    operand.base = firstElementAddress(*tensor);
    return operand;
}

}  // namespace

StridedTensor stridedOperand(const aclTensor *tensor) {
    static constexpr int rank5[5] = {0, 1, 2, 3, 4};
    static constexpr int rank4[5] = {-1, 0, 1, 2, 3};
    return mapAxes(tensor, tensor->viewShape.size() == 5 ? rank5 : rank4);
}

StridedTensor stridedOperand2d(const aclTensor *tensor, PlaneLayout layout) {
    static constexpr int nchw[5] = {0, 1, -1, 2, 3};
    static constexpr int chw[5] = {-1, 0, -1, 1, 2};
    static constexpr int nhwc[5] = {0, 3, -1, 1, 2};
    if (layout == PlaneLayout::ChannelsLast) return mapAxes(tensor, nhwc);
    return mapAxes(tensor, tensor->viewShape.size() == 4 ? nchw : chw);
}

}  // namespace poolgrad
