// Validation rows shared by the tables of the 3-D max-pool forward and backward (aclnnMaxPool3dWithArgmax
// and its Backward), which follow the same rules for dtypes, attribute lists, ceil mode and the INT32 index
// range. A Case used here has the lists `kernel`, `stride`, `padding`, `dilation`, `ceilMode`, an
// `indices` TensorSpec, and sets its operands by role: valueTypes(type) (every floating operand),
// inputView(shape, strides) (self, and gradInput for the backward) and outputShape(shape) (out and indices,
// or gradOutput and indices), and names the output checked against the computed size in `outputArgument`.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "support/validation_cases.h"

namespace test_support {

// The attribute lists of a pooling call, owned, and the pointers passed for them (a row may null one).
struct PoolListArguments {
    template <typename Case>
    explicit PoolListArguments(const Case &c)
        : kernel(c.kernel), stride(c.stride), padding(c.padding), dilation(c.dilation), ceilMode(c.ceilMode) {}

    IntArray kernel, stride, padding, dilation;
    bool ceilMode;
    const aclIntArray *kernelArg = kernel;
    const aclIntArray *strideArg = stride;
    const aclIntArray *paddingArg = padding;
    const aclIntArray *dilationArg = dilation;
};

// Row 2: dtypes outside the operator's sets.
inline const std::vector<aclDataType> &unsupportedValueTypes() {
    static const std::vector<aclDataType> types{ACL_DOUBLE, ACL_INT8,  ACL_INT16, ACL_INT32,
                                                ACL_INT64,  ACL_UINT8, ACL_BOOL,  ACL_COMPLEX64};
    return types;
}
inline const std::vector<aclDataType> &unsupportedIndexTypes() {
    static const std::vector<aclDataType> types{ACL_FLOAT,  ACL_FLOAT16, ACL_INT8,   ACL_INT16,
                                                ACL_UINT32, ACL_UINT64,  ACL_DOUBLE, ACL_BOOL};
    return types;
}

// Row 2: a self dtype (every floating operand following it) or an indices dtype outside its set.
template <typename Case, typename Call>
void addDtypeRows(std::vector<ValidationRow<Case, Call>> &rows) {
    for (aclDataType type : unsupportedValueTypes())
        rows.push_back({"Row2SelfDtypeOutsideFloatTypesIs161002_" + typeName(type),
                        [type](Case &c) { c.valueTypes(type); },
                        invalid,
                        {"self", "dtype"}});
    for (aclDataType type : unsupportedIndexTypes())
        rows.push_back({"Row2IndicesDtypeOutsideInt32Int64Is161002_" + typeName(type),
                        [type](Case &c) { c.indices.type = type; },
                        invalid,
                        {"indices", "dtype"}});
}

// Every floating dtype with every index dtype is accepted.
template <typename Case, typename Call>
void expectEveryDtypePairAccepted() {
    for (aclDataType value : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
        for (aclDataType index : {ACL_INT32, ACL_INT64}) {
            SCOPED_TRACE(testing::Message() << "value " << value << " index " << index);
            Case c;
            c.valueTypes(value);
            c.indices.type = index;
            Call call(c);
            EXPECT_TRUE(IsAccepted(call.phaseOne()));
        }
}

// Row 5: kernelSize / stride / padding / dilation lists that break one rule named by `argument`.
template <typename Case, typename Call>
ValidationRow<Case, Call> poolListRow(const char *label, std::vector<int64_t> kernel, std::vector<int64_t> stride,
                                      std::vector<int64_t> padding, std::vector<int64_t> dilation,
                                      const char *argument) {
    return {std::string("Row5Is161002_") + label,
            [=](Case &c) {
                c.kernel = kernel;
                c.stride = stride;
                c.padding = padding;
                c.dilation = dilation;
            },
            invalid,
            {argument}};
}

// WE-3/WE-4: a (1,1,1,1,5) input with W kernel and stride 2 and an output of `width` columns.
template <typename Case>
Case ceilCase(bool ceilMode, int64_t width, std::vector<int64_t> padding) {
    Case c;
    c.inputView({1, 1, 1, 1, 5});
    c.outputShape({1, 1, 1, 1, width});
    c.kernel = {1, 1, 2};
    c.stride = {1, 1, 2};
    c.padding = std::move(padding);
    c.ceilMode = ceilMode;
    return c;
}

// WE-3: ceil mode changes the expected width from 2 to 3; WE-4: the last-window rule keeps it at 3 with a
// padding of 1. `output` is the argument the message names for a wrong width.
template <typename Case, typename Call>
void expectCeilModeWidthsWE3() {
    const auto phaseOne = phaseOneOf<Call, Case>;
    EXPECT_TRUE(IsAccepted(phaseOne(ceilCase<Case>(false, 2, {0}))));
    EXPECT_TRUE(IsAccepted(phaseOne(ceilCase<Case>(true, 3, {0}))));
    EXPECT_TRUE(IsRejected(phaseOne(ceilCase<Case>(true, 2, {0})), invalid, {Case::outputArgument}));
    EXPECT_TRUE(IsRejected(phaseOne(ceilCase<Case>(false, 3, {0})), invalid, {Case::outputArgument}));
}
template <typename Case, typename Call>
void expectLastWindowRuleWE4() {
    const auto phaseOne = phaseOneOf<Call, Case>;
    EXPECT_TRUE(IsAccepted(phaseOne(ceilCase<Case>(true, 3, {0, 0, 1}))));
    EXPECT_TRUE(IsRejected(phaseOne(ceilCase<Case>(true, 4, {0, 0, 1})), invalid, {Case::outputArgument}));
}

constexpr int64_t int32Max = 2147483647;

// The INT32 index range: a (1,1,1,1,width) input (all strides 0 over one element: phase 1 reads no data)
// with kernel 1 and a W stride of 2^30: width 2^31-1 or 2^31 gives Wo = 2, so the output stays small and
// nothing in phase 1 scales with the huge plane.
template <typename Case>
Case hugePlaneCase(int64_t width, aclDataType indexType) {
    Case c;
    c.inputView({1, 1, 1, 1, width}, std::vector<int64_t>(5, 0));
    c.outputShape({1, 1, 1, 1, 2});
    c.indices.type = indexType;
    c.kernel = {1};
    c.stride = {1, 1, int64_t{1} << 30};
    c.padding = {0};
    c.dilation = {1};
    return c;
}

}  // namespace test_support
