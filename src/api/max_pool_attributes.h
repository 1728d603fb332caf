// kernelSize / stride / padding / dilation of the max-pool-with-indices operators (SPEC §3.2, §3.3,
// §8), decoded once into (D,H,W) values, and the pooling geometry they define. 2-D operators give
// lists over (H,W) and get D = kernel 1, stride 1, padding 0, dilation 1.
#pragma once

#include <array>
#include <cstdint>

#include "aclnn/acl_meta.h"
#include "core/pool_geometry.h"

namespace poolgrad {

struct MaxPoolAttributes {
    std::array<int64_t, 3> kernel{};  // D, H, W
    std::array<int64_t, 3> stride{};
    std::array<int64_t, 3> padding{};
    std::array<int64_t, 3> dilation{};
    bool ceilMode = false;
};

// Applies the length and value rules of §3.2 (spatialDims 3: lengths 1/3, stride also 0) or §8
// (spatialDims 2: lengths 1/2, stride also 0); on failure records the message and returns 161002.
aclnnStatus decodeMaxPoolAttributes(const char *op, int spatialDims, const aclIntArray *kernelSize,
                                    const aclIntArray *stride, const aclIntArray *padding,
                                    const aclIntArray *dilation, bool ceilMode, MaxPoolAttributes &attributes);

// Output (Do, Ho, Wo) for input (D, H, W); entries may be < 1, which the caller rejects.
std::array<int64_t, 3> maxPoolOutputSize(const MaxPoolAttributes &attributes, const std::array<int64_t, 3> &input);

PoolGeometry maxPoolGeometry(const MaxPoolAttributes &attributes, int64_t batch, int64_t channels,
                               const std::array<int64_t, 3> &input, const std::array<int64_t, 3> &output);

}  // namespace poolgrad
