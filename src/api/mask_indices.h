// The Ascend "mask" form of max-pool indices (SPEC §8): an INT8 tensor of shape
// (N, C, kH*kW, (ceil(Ho*Wo/16)+1)*32) — without N for 3-D inputs — whose content is opaque to users.
// poolgrad, like CANN on A2/A3, stores INT32 flat indices (ih*W+iw) in its first N*C*Ho*Wo*4 bytes.
// With a 1x1 kernel the mask is too small for that and carries nothing: every window has exactly one
// element, so the backward derives the index from the window instead.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "core/strided_tensor.h"
#include "runtime/descriptors.h"

namespace poolgrad {

// kH*kW, exact; 161002 naming kernelSize when it overflows int64.
aclnnStatus requireMaskKernelElements(const char *op, int64_t kernelHeight, int64_t kernelWidth,
                                      int64_t &kernelElements);

// The mask shape; nullopt when its last dim overflows int64 (the caller reports it).
std::optional<std::vector<int64_t>> maskShape(const std::vector<int64_t> &leadingDims, int64_t kernelElements,
                                              int64_t outputHeight, int64_t outputWidth);

// requireShape against maskShape(), or 161002 naming `what` when the mask shape is not representable.
aclnnStatus requireMaskShape(const char *op, const char *name, const aclTensor *mask,
                             const std::vector<int64_t> &leadingDims, int64_t kernelElements, int64_t outputHeight,
                             int64_t outputWidth, const char *why);

// A mask is addressed as raw bytes holding INT32 values, so its view must be dense row-major and start
// at a 4-byte aligned address.
aclnnStatus requireDenseMask(const char *op, const char *name, const aclTensor *mask);

// The INT32 (N,C,1,Ho,Wo) view of the indices inside a mask; absent when the kernel is 1x1. Call after
// the mask passed requireMaskShape and requireAddressable (so N*C*Ho*Wo fits in int64).
StridedTensor maskIndicesOperand(const aclTensor *mask, int64_t kernelElements, int64_t batch, int64_t channels,
                                 int64_t outputHeight, int64_t outputWidth);

}  // namespace poolgrad
