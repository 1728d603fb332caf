// The TensorFlow-style attributes shared by aclnnMaxPoolV3Grad (SPEC §6) and aclnnMaxPoolV3WithAttrs
// (§7.4): ksize / strides / pads / paddingMode / dataFormat / globalPooling / ceilMode, decoded once,
// one function per rule in the §6 order, into per-axis values and then the windows of core/geometry_builders.h.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"
#include "api/tensor_operand.h"
#include "core/geometry_builders.h"

namespace poolgrad {

enum class MaxPoolV3PaddingMode { Calculated, Same, Valid };
enum class MaxPoolV3DataFormat { Nchw, Nhwc };

// Which operator the attributes belong to: the grad has the seed's extra rules (§6 rows 5 and 9).
enum class MaxPoolV3Direction { Forward, Grad };

// Where N, C, H and W sit in a rank-4 tensor shape and in ksize/strides.
struct MaxPoolV3AxisPositions {
    size_t n, c, h, w;
};
MaxPoolV3AxisPositions maxPoolV3AxisPositions(MaxPoolV3DataFormat format);

struct MaxPoolV3Attributes {
    MaxPoolV3DataFormat dataFormat = MaxPoolV3DataFormat::Nchw;
    MaxPoolV3PaddingMode paddingMode = MaxPoolV3PaddingMode::Calculated;
    bool globalPooling = false;
    bool ceilMode = false;
    int64_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1;
    // pads as given, [top, bottom, left, right]; used by CALCULATED only.
    std::array<int64_t, 4> pads{};
};

// Row 4: "NCHW" (nullptr) or "NHWC", exactly.
aclnnStatus decodeMaxPoolV3DataFormat(const char *op, const char *dataFormat, MaxPoolV3DataFormat &format);
// Row 4: "CALCULATED" (nullptr), "SAME" or "VALID", exactly.
aclnnStatus decodeMaxPoolV3PaddingMode(const char *op, const char *paddingMode, MaxPoolV3PaddingMode &mode);
// Row 5 (grad only): the seed does not support the gradient of global pooling.
aclnnStatus requireNoGlobalPooling(const char *op, bool globalPooling);
// Row 6: ceilMode only with CALCULATED.
aclnnStatus requireCeilModeOnlyCalculated(const char *op, bool ceilMode, MaxPoolV3PaddingMode mode);
// Row 7: a list of exactly four values (pads may be nullptr: the default zeros).
aclnnStatus requireListOfFour(const char *op, const char *name, const aclIntArray *list);
// Row 8: the N and C entries of ksize / strides are 1.
aclnnStatus requireUnitBatchAndChannel(const char *op, const char *name, const aclIntArray *list,
                                       MaxPoolV3DataFormat format);
// Row 9 (grad: [1,255] / [1,63]; forward: >= 1 only): the H and W entries lie in [low, high].
aclnnStatus requireSpatialRange(const char *op, const char *name, const aclIntArray *list, MaxPoolV3DataFormat format,
                                int64_t low, int64_t high, const char *why);
// Row 10: CALCULATED pads are >= 0 (pads >= kernel are allowed).
aclnnStatus requireNonNegativePads(const char *op, const aclIntArray *pads, MaxPoolV3PaddingMode mode);

// The attribute arguments, as the operators take them.
struct MaxPoolV3AttributeArguments {
    const aclIntArray *ksize, *strides;
    const char *paddingMode;  // nullptr: CALCULATED
    const aclIntArray *pads;  // nullptr: zeros
    const char *dataFormat;   // nullptr: NCHW
    bool globalPooling, ceilMode;
};
// Rows 4–10 of §6 in order (rows 5 and 9 as the direction asks); on failure the message is recorded
// and the status returned.
aclnnStatus decodeMaxPoolV3Attributes(const char *op, MaxPoolV3Direction direction,
                                      const MaxPoolV3AttributeArguments &arguments, MaxPoolV3Attributes &attributes);

// The resolved windows for an H x W input (§6 table) as a (D,H,W) problem with D = 1: the windows
// (global pooling: one covering the plane) and the input and output sizes.
struct MaxPoolV3Plan {
    RegularWindows windows;
    std::array<int64_t, 3> input{1, 1, 1};
    std::array<int64_t, 3> output{1, 1, 1};
    bool hasNoOutput() const { return output[1] < 1 || output[2] < 1; }
};
MaxPoolV3Plan maxPoolV3Plan(const MaxPoolV3Attributes &attributes, int64_t inH, int64_t inW);

// The shape origOutput / y must have, in dataFormat order.
std::vector<int64_t> maxPoolV3OutputShape(const MaxPoolV3Attributes &attributes, const std::vector<int64_t> &input,
                                          const MaxPoolV3Plan &plan);

PlaneLayout maxPoolV3Layout(const MaxPoolV3Attributes &attributes);

// One-line description of the attributes, for messages.
std::string maxPoolV3AttributeText(const MaxPoolV3Attributes &attributes);

}  // namespace poolgrad
