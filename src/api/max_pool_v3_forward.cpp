// The MaxPoolV3 forwards (SPEC §7.4, §7.5): aclnnMaxPoolV3WithAttrs, the forward with the attributes of
// aclnnMaxPoolV3Grad (rules 1-4, 6-8 and 10 of §6 as §7.4 adapts them), and aclnnMaxPoolV3, the same with
// paddingMode CALCULATED, dataFormat NCHW and no global pooling, its ceilMode given as an aclScalar. Phase 1
// checks in CANN's order and describes a value-only argmax forward (no indices); the shared kernels run it.
#include <cmath>
#include <cstring>
#include <optional>

#include "aclnnop/aclnn_max_pool_v3.h"
#include "aclnnop/aclnn_max_pool_v3_with_attrs.h"
#include "api/argument_checks.h"
#include "api/max_pool_v3_attributes.h"
#include "api/operand_memory.h"
#include "api/phase_one.h"
#include "api/tensor_operand.h"
#include "core/data_type.h"
#include "core/error_message.h"

namespace poolgrad {
namespace {

constexpr const char *maxPoolV3 = "aclnnMaxPoolV3";
constexpr const char *maxPoolV3WithAttrs = "aclnnMaxPoolV3WithAttrs";

template <typename T>
T scalarValue(const aclScalar *scalar) {
    T value;
    std::memcpy(&value, scalar->value, sizeof(T));
    return value;
}

// CANN reads the scalar as an integer (ToInt64) and tests it against 0: a floating scalar counts as its
// integer part, which is non-zero exactly when |value| >= 1. That test is made in floating point: converting
// NaN, +-Inf or a value beyond int64 to an integer is undefined, and each of them is non-zero (SPEC §7.5:
// "non-zero = true"). nullopt for a type that is neither numeric nor bool.
bool integerPartNonZero(double value) { return !(std::fabs(value) < 1.0); }

std::optional<bool> nonZeroAsInteger(const aclScalar *scalar) {
    switch (scalar->dataType) {
        case ACL_BOOL:
        case ACL_INT8:
        case ACL_UINT8:
            return scalarValue<uint8_t>(scalar) != 0;
        case ACL_INT16:
        case ACL_UINT16:
            return scalarValue<uint16_t>(scalar) != 0;
        case ACL_INT32:
        case ACL_UINT32:
            return scalarValue<uint32_t>(scalar) != 0;
        case ACL_INT64:
        case ACL_UINT64:
            return scalarValue<uint64_t>(scalar) != 0;
        case ACL_FLOAT:
            return integerPartNonZero(scalarValue<float>(scalar));
        case ACL_DOUBLE:
            return integerPartNonZero(scalarValue<double>(scalar));
        case ACL_FLOAT16:
            return integerPartNonZero(toFloat(Float16{scalarValue<uint16_t>(scalar)}));
        case ACL_BF16:
            return integerPartNonZero(toFloat(BFloat16{scalarValue<uint16_t>(scalar)}));
        default:
            return std::nullopt;
    }
}

// nullptr means false.
aclnnStatus decodeCeilMode(const aclScalar *ceilMode, bool &ceil) {
    ceil = false;
    if (ceilMode == nullptr) return ACLNN_SUCCESS;
    const std::optional<bool> nonZero = nonZeroAsInteger(ceilMode);
    if (!nonZero)
        return fail(ACLNN_ERR_PARAM_INVALID, maxPoolV3, ": ceilMode must be a numeric or bool scalar, got dtype ",
                    dataTypeName(ceilMode->dataType));
    ceil = *nonZero;
    return ACLNN_SUCCESS;
}

// Rules 2 and 3: x's dtype, y's the same; both rank 4 in a public format.
aclnnStatus requireForwardTensors(const char *op, NamedTensor x, NamedTensor y,
                                  std::initializer_list<aclDataType> dataTypes) {
    if (auto s = requireDataTypeIn(op, x, dataTypes)) return s;
    if (auto s = requireSameDataType(op, y, x)) return s;
    for (const NamedTensor &tensor : {x, y})
        if (auto s = requireRankIn(op, tensor, {4})) return s;
    for (const NamedTensor &tensor : {x, y})
        if (auto s = requirePublicFormat(op, tensor)) return s;
    return ACLNN_SUCCESS;
}

// What both forwards check and describe once their attributes are decoded.
aclnnStatus describeForward(const char *op, NamedTensor x, NamedTensor y, const MaxPoolV3Attributes &attributes,
                            PoolProblem &problem) {
    const std::vector<int64_t> &shape = x.tensor->viewShape;
    if (isEmpty(x.tensor)) {
        if (!isEmpty(y.tensor))
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": ", x.name, " is empty (shape ", shapeText(shape), ") so ",
                        y.name, " must be empty too, got ", y.name, " ", shapeText(y.tensor->viewShape));
        problem.task = PoolTask::ZeroFill;  // nothing to write
        return ACLNN_SUCCESS;
    }

    const MaxPoolV3AxisPositions at = maxPoolV3AxisPositions(attributes.dataFormat);
    const MaxPoolV3Plan plan = maxPoolV3Plan(attributes, shape[at.h], shape[at.w]);
    const std::vector<int64_t> expected = maxPoolV3OutputShape(attributes, shape, plan);
    if (plan.hasNoOutput())
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": the output size computed for ", x.name, " ", shapeText(shape),
                    " is ", shapeText(expected), "; Ho and Wo must be >= 1 (", maxPoolV3AttributeText(attributes), ")");
    if (auto s = requireShape(op, y, expected, "the pooled shape of x")) return s;
    if (auto s = requireOperandMemory(op, {x}, {y})) return s;

    const PlaneLayout layout = maxPoolV3Layout(attributes);
    problem.task = PoolTask::ArgmaxForward;
    problem.geometry = regularGeometry(plan.windows, shape[at.n], shape[at.c], plan.input, plan.output);
    if (auto s = requireWindowArithmetic(op, problem.geometry)) return s;
    problem.input = stridedOperand2d(x.tensor, layout);
    problem.output = stridedOperand2d(y.tensor, layout);
    // problem.indices stays absent: a value-only forward.
    return ACLNN_SUCCESS;
}

struct MaxPoolV3WithAttrsArguments {
    const aclTensor *x;
    MaxPoolV3AttributeArguments attributes;
    const aclTensor *y;
};

aclnnStatus describeMaxPoolV3WithAttrs(const MaxPoolV3WithAttrsArguments &arguments, PoolProblem &problem) {
    const char *op = maxPoolV3WithAttrs;
    const NamedTensor xArg{"x", arguments.x}, yArg{"y", arguments.y};
    // Rule 2, extended to BF16 for the forward; rule 3.
    if (auto s = requireForwardTensors(op, xArg, yArg, {ACL_FLOAT16, ACL_FLOAT, ACL_BF16})) return s;
    // Rules 4, 6, 7, 8, 10 (kernel and stride H/W need only be >= 1 here).
    MaxPoolV3Attributes attributes;
    if (auto s = decodeMaxPoolV3Attributes(op, MaxPoolV3Direction::Forward, arguments.attributes, attributes)) return s;
    return describeForward(op, xArg, yArg, attributes, problem);
}

struct MaxPoolV3Arguments {
    const aclTensor *x;
    const aclIntArray *ksize, *strides, *pads;
    const aclScalar *ceilMode;
    const aclTensor *out;
};

aclnnStatus describeMaxPoolV3(const MaxPoolV3Arguments &arguments, PoolProblem &problem) {
    const char *op = maxPoolV3;
    const NamedTensor xArg{"x", arguments.x}, outArg{"out", arguments.out};
    if (auto s = requireForwardTensors(op, xArg, outArg, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})) return s;
    bool ceil = false;
    if (auto s = decodeCeilMode(arguments.ceilMode, ceil)) return s;
    MaxPoolV3Attributes attributes;
    if (auto s = decodeMaxPoolV3Attributes(
            op, MaxPoolV3Direction::Forward,
            {arguments.ksize, arguments.strides, nullptr, arguments.pads, nullptr, false, ceil}, attributes))
        return s;
    return describeForward(op, xArg, outArg, attributes, problem);
}

}  // namespace
}  // namespace poolgrad

using namespace poolgrad;

extern "C" {

aclnnStatus aclnnMaxPoolV3WithAttrsGetWorkspaceSize(const aclTensor *x, const aclIntArray *ksize,
                                                    const aclIntArray *strides, const char *paddingMode,
                                                    const aclIntArray *pads, const char *dataFormat, bool globalPooling,
                                                    bool ceilMode, aclTensor *y, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor) {
    MaxPoolV3WithAttrsArguments arguments{
        x, {ksize, strides, paddingMode, pads, dataFormat, globalPooling, ceilMode}, y};
    return planPhaseOne({maxPoolV3WithAttrs, workspaceSize, executor},
                        {{"x", arguments.x, inputAs(OperandRole::Input)},
                         {"ksize", arguments.attributes.ksize},
                         {"strides", arguments.attributes.strides},
                         {"pads", arguments.attributes.pads, Presence::Optional},
                         {"y", arguments.y, outputAs(OperandRole::Output)}},
                        [&](PoolProblem &problem) { return describeMaxPoolV3WithAttrs(arguments, problem); });
}

aclnnStatus aclnnMaxPoolV3WithAttrs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream) {
    return runPhaseTwo(maxPoolV3WithAttrs, workspace, workspaceSize, executor, stream);
}

// CANN checks workspaceSize and executor first, then x, out, ksize and strides.
aclnnStatus aclnnMaxPoolV3GetWorkspaceSize(const aclTensor *x, const aclIntArray *ksize, const aclIntArray *strides,
                                           const aclIntArray *pads, const aclScalar *ceilMode, aclTensor *out,
                                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    MaxPoolV3Arguments arguments{x, ksize, strides, pads, ceilMode, out};
    return planPhaseOne({maxPoolV3, workspaceSize, executor, NullCheckOrder::OutputsFirst},
                        {{"x", arguments.x, inputAs(OperandRole::Input)},
                         {"out", arguments.out, outputAs(OperandRole::Output)},
                         {"ksize", arguments.ksize},
                         {"strides", arguments.strides},
                         {"pads", arguments.pads, Presence::Optional},
                         {"ceilMode", arguments.ceilMode, Presence::Optional}},
                        [&](PoolProblem &problem) { return describeMaxPoolV3(arguments, problem); });
}

aclnnStatus aclnnMaxPoolV3(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream) {
    return runPhaseTwo(maxPoolV3, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
