// Turns a validated aclTensor of rank 4 (C,D,H,W) or 5 (N,C,D,H,W) into the kernels' 5-D view.
#pragma once

#include "core/strided_tensor.h"
#include "runtime/descriptors.h"

namespace poolgrad {

ElementType elementTypeOf(aclDataType type);  // only for FLOAT, FLOAT16, BF16, INT32, INT64
StridedTensor stridedOperand(const aclTensor *tensor);

}  // namespace poolgrad
