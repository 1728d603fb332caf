#include "api/tensor_operand.h"

namespace poolgrad {

ElementType elementTypeOf(aclDataType type) {
    switch (type) {
        case ACL_FLOAT16: return ElementType::Float16;
        case ACL_BF16: return ElementType::BFloat16;
        case ACL_INT32: return ElementType::Int32;
        case ACL_INT64: return ElementType::Int64;
        default: return ElementType::Float32;
    }
}

StridedTensor stridedOperand(const aclTensor *tensor) {
    StridedTensor operand;
    operand.type = elementTypeOf(tensor->dataType);
    operand.rank = static_cast<int>(tensor->viewShape.size());
    const int missing = 5 - operand.rank;  // leading axes a lower-rank tensor lacks: size 1
    for (int i = 0; i < 5; ++i) {
        operand.size[i] = i < missing ? 1 : tensor->viewShape[i - missing];
        operand.stride[i] = i < missing ? 0 : tensor->strides[i - missing];
    }
    operand.base = tensor->data == nullptr
                       ? nullptr
                       : static_cast<unsigned char *>(tensor->data) + tensor->offset * elementSize(operand.type);
    return operand;
}

}  // namespace poolgrad
