// Turns a validated aclTensor into the kernels' 5-D (N,C,D,H,W) view. Missing leading axes get size 1;
// 2-D operators get a D axis of size 1; NHWC tensors are read through permuted strides, so no data
// is ever moved.
#pragma once

#include "core/strided_tensor.h"
#include "runtime/descriptors.h"

namespace poolgrad {

ElementType elementTypeOf(aclDataType type);  // FLOAT, FLOAT16, BF16 and the integer types of ElementType

// Rank 5 (N,C,D,H,W) or 4 (C,D,H,W).
StridedTensor stridedOperand(const aclTensor *tensor);

enum class PlaneLayout { ChannelsFirst, ChannelsLast };
// Rank 4 (N,C,H,W) / (N,H,W,C) or, channels-first only, rank 3 (C,H,W).
StridedTensor stridedOperand2d(const aclTensor *tensor, PlaneLayout layout);

}  // namespace poolgrad
