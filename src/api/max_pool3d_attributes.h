// kernelSize / stride / padding / dilation of the 3-D max-pool operators (SPEC §3.2, §3.3), decoded
// once into per-axis values, and the pooling geometry they define.
#pragma once

#include <array>
#include <cstdint>

#include "aclnn/acl_meta.h"
#include "core/pool_geometry.h"

namespace poolgrad {

struct MaxPool3dAttributes {
    std::array<int64_t, 3> kernel{};  // D, H, W
    std::array<int64_t, 3> stride{};
    std::array<int64_t, 3> padding{};
    std::array<int64_t, 3> dilation{};
    bool ceilMode = false;
};

// Applies the length and value rules of §3.2; on failure records the message and returns 161002.
aclnnStatus decodeMaxPool3dAttributes(const char *op, const aclIntArray *kernelSize, const aclIntArray *stride,
                                      const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode,
                                      MaxPool3dAttributes &attributes);

// Output (Do, Ho, Wo) for input (D, H, W); entries may be < 1, which the caller rejects.
std::array<int64_t, 3> maxPool3dOutputSize(const MaxPool3dAttributes &attributes, const std::array<int64_t, 3> &input);

PoolGeometry maxPool3dGeometry(const MaxPool3dAttributes &attributes, int64_t batch, int64_t channels,
                               const std::array<int64_t, 3> &input, const std::array<int64_t, 3> &output);

}  // namespace poolgrad
