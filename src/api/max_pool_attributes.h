// kernelSize / stride / padding / dilation / ceilMode of the max-pool-with-indices operators (SPEC §3.2,
// §3.3, §8), decoded once into (D,H,W) windows. 2-D operators give lists over (H,W) and get D = kernel 1,
// stride 1, padding 0, dilation 1.
#pragma once

#include "aclnn/acl_meta.h"
#include "core/geometry_builders.h"

namespace poolgrad {

struct MaxPoolWindowArguments {
    const aclIntArray *kernelSize, *stride, *padding, *dilation;
    bool ceilMode;
};

// Applies the length and value rules of §3.2 (spatialDims 3: lengths 1/3, stride also 0) or §8
// (spatialDims 2: lengths 1/2, stride also 0); on failure records the message and returns 161002.
// The padding is symmetric: padEnd = padBegin.
aclnnStatus decodeMaxPoolWindows(const char *op, int spatialDims, const MaxPoolWindowArguments &arguments,
                                 RegularWindows &windows);

}  // namespace poolgrad
