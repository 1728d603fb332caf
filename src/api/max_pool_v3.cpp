// aclnnMaxPoolV3 (SPEC §7.5): aclnnMaxPoolV3WithAttrs with paddingMode CALCULATED, dataFormat NCHW and
// no global pooling, its ceilMode given as an aclScalar. Phase 1 checks in CANN's order (workspaceSize
// and executor, then x, out, ksize and strides against null; the dtypes), then the attribute rules of
// §6 that §7.4 keeps, and describes a value-only argmax forward; the shared kernels run it.
#include <cstring>

#include "aclnnop/aclnn_max_pool_v3.h"
#include "api/argument_checks.h"
#include "api/max_pool_v3_attributes.h"
#include "api/operand_memory.h"
#include "api/tensor_operand.h"
#include "core/data_type.h"
#include "core/error_message.h"
#include "core/executor.h"

namespace poolgrad {
namespace {

constexpr const char *op = "aclnnMaxPoolV3";

template <typename T>
T scalarValue(const aclScalar *scalar) {
    T value;
    std::memcpy(&value, scalar->value, sizeof(T));
    return value;
}

// CANN reads the scalar as an integer (ToInt64) and tests it against 0; nullptr means false.
aclnnStatus decodeCeilMode(const aclScalar *ceilMode, bool &ceil) {
    ceil = false;
    if (ceilMode == nullptr) return ACLNN_SUCCESS;
    switch (ceilMode->dataType) {
        case ACL_BOOL:
        case ACL_INT8:
        case ACL_UINT8:
            ceil = scalarValue<uint8_t>(ceilMode) != 0;
            return ACLNN_SUCCESS;
        case ACL_INT16:
        case ACL_UINT16:
            ceil = scalarValue<uint16_t>(ceilMode) != 0;
            return ACLNN_SUCCESS;
        case ACL_INT32:
        case ACL_UINT32:
            ceil = scalarValue<uint32_t>(ceilMode) != 0;
            return ACLNN_SUCCESS;
        case ACL_INT64:
        case ACL_UINT64:
            ceil = scalarValue<uint64_t>(ceilMode) != 0;
            return ACLNN_SUCCESS;
        // Floating scalars count as their integer part, as a conversion to int64 takes it.
        case ACL_FLOAT:
            ceil = static_cast<int64_t>(scalarValue<float>(ceilMode)) != 0;
            return ACLNN_SUCCESS;
        case ACL_DOUBLE:
            ceil = static_cast<int64_t>(scalarValue<double>(ceilMode)) != 0;
            return ACLNN_SUCCESS;
        case ACL_FLOAT16:
            ceil = static_cast<int64_t>(toFloat(Float16{scalarValue<uint16_t>(ceilMode)})) != 0;
            return ACLNN_SUCCESS;
        case ACL_BF16:
            ceil = static_cast<int64_t>(toFloat(BFloat16{scalarValue<uint16_t>(ceilMode)})) != 0;
            return ACLNN_SUCCESS;
        default:
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": ceilMode must be a numeric or bool scalar, got dtype ",
                        dataTypeName(ceilMode->dataType));
    }
}

aclnnStatus describeMaxPoolV3(const aclTensor *x, const aclIntArray *ksize, const aclIntArray *strides,
                              const aclIntArray *pads, const aclScalar *ceilMode, const aclTensor *out,
                              uint64_t *workspaceSize, aclOpExecutor **executor, PoolProblem &problem) {
    if (auto s = requireNonNull(op, {{"workspaceSize", workspaceSize},
                                     {"executor", executor},
                                     {"x", x},
                                     {"out", out},
                                     {"ksize", ksize},
                                     {"strides", strides}}))
        return s;
    const NamedTensor xArg{"x", x}, outArg{"out", out};

    if (auto s = requireDataTypeIn(op, xArg, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})) return s;
    if (auto s = requireSameDataType(op, outArg, xArg)) return s;
    for (const NamedTensor &tensor : {xArg, outArg})
        if (auto s = requireRankIn(op, tensor, {4})) return s;
    for (const NamedTensor &tensor : {xArg, outArg})
        if (auto s = requirePublicFormat(op, tensor)) return s;

    bool ceil = false;
    if (auto s = decodeCeilMode(ceilMode, ceil)) return s;
    MaxPoolV3Attributes attributes;
    if (auto s = decodeMaxPoolV3Attributes(op, MaxPoolV3Direction::Forward, ksize, strides, nullptr, pads, nullptr,
                                           false, ceil, attributes))
        return s;

    problem.operatorName = op;
    if (isEmpty(x)) {
        if (!isEmpty(out))
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": x is empty (shape ", shapeText(x->viewShape),
                        ") so out must be empty too, got out ", shapeText(out->viewShape));
        problem.task = PoolTask::ZeroFill;  // nothing to write
        return ACLNN_SUCCESS;
    }

    const int64_t inH = x->viewShape[2], inW = x->viewShape[3];
    const MaxPoolV3Plan plan = maxPoolV3Plan(attributes, inH, inW);
    const std::vector<int64_t> expected = maxPoolV3OutputShape(attributes, x->viewShape, plan);
    if (plan.outH < 1 || plan.outW < 1)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": the output size computed for x ", shapeText(x->viewShape), " is ",
                    shapeText(expected), "; Ho and Wo must be >= 1 (", maxPoolV3AttributeText(attributes), ")");
    if (auto s = requireShape(op, outArg, expected, "the pooled shape of x")) return s;
    if (auto s = requireAddressable(op, {xArg, outArg})) return s;
    if (auto s = requireNoSelfOverlap(op, {outArg})) return s;
    if (auto s = requireNoSharedMemory(op, {outArg}, {xArg})) return s;

    problem.task = PoolTask::ArgmaxForward;
    problem.geometry = maxPoolV3Geometry(attributes, plan, x->viewShape[0], x->viewShape[1], inH, inW);
    if (auto s = requireWindowArithmetic(op, problem.geometry)) return s;
    problem.input = stridedOperand2d(x, PlaneLayout::ChannelsFirst);
    problem.output = stridedOperand2d(out, PlaneLayout::ChannelsFirst);
    // problem.indices stays absent: a value-only forward.
    return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace poolgrad

using namespace poolgrad;

extern "C" {

aclnnStatus aclnnMaxPoolV3GetWorkspaceSize(const aclTensor *x, const aclIntArray *ksize, const aclIntArray *strides,
                                           const aclIntArray *pads, const aclScalar *ceilMode, aclTensor *out,
                                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    return planOperator(
        op, {{"x", x}, {"ksize", ksize}, {"strides", strides}, {"pads", pads}, {"ceilMode", ceilMode}, {"out", out}},
        workspaceSize, executor, [&](PoolProblem &problem) {
            return describeMaxPoolV3(x, ksize, strides, pads, ceilMode, out, workspaceSize, executor, problem);
        });
}

aclnnStatus aclnnMaxPoolV3(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream) {
    return runPhaseTwo(op, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
