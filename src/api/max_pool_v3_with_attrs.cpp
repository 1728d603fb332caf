// aclnnMaxPoolV3WithAttrs (SPEC §7.4): the MaxPoolV3 forward with the attributes of aclnnMaxPoolV3Grad.
// Phase 1 checks rules 1-4, 6-8 and 10 of §6 as §7.4 adapts them and describes a value-only argmax
// forward (no indices); phase 2 runs the implementation chosen for it.
#include "aclnnop/aclnn_max_pool_v3_with_attrs.h"
#include "api/argument_checks.h"
#include "api/max_pool_v3_attributes.h"
#include "api/operand_memory.h"
#include "api/tensor_operand.h"
#include "core/error_message.h"
#include "core/executor.h"

namespace poolgrad {
namespace {

constexpr const char *op = "aclnnMaxPoolV3WithAttrs";

aclnnStatus describeMaxPoolV3WithAttrs(const aclTensor *x, const aclIntArray *ksize, const aclIntArray *strides,
                                       const char *paddingMode, const aclIntArray *pads, const char *dataFormat,
                                       bool globalPooling, bool ceilMode, const aclTensor *y, uint64_t *workspaceSize,
                                       aclOpExecutor **executor, PoolProblem &problem) {
    if (auto s = requireNonNull(op, {{"x", x},
                                     {"ksize", ksize},
                                     {"strides", strides},
                                     {"y", y},
                                     {"workspaceSize", workspaceSize},
                                     {"executor", executor}}))
        return s;
    const NamedTensor xArg{"x", x}, yArg{"y", y};

    // Rule 2, extended to BF16 for the forward.
    if (auto s = requireDataTypeIn(op, xArg, {ACL_FLOAT16, ACL_FLOAT, ACL_BF16})) return s;
    if (auto s = requireSameDataType(op, yArg, xArg)) return s;

    // Rule 3.
    for (const NamedTensor &tensor : {xArg, yArg})
        if (auto s = requireRankIn(op, tensor, {4})) return s;
    for (const NamedTensor &tensor : {xArg, yArg})
        if (auto s = requirePublicFormat(op, tensor)) return s;

    // Rules 4, 6, 7, 8, 10 (kernel and stride H/W need only be >= 1 here).
    MaxPoolV3Attributes attributes;
    if (auto s = decodeMaxPoolV3Attributes(op, MaxPoolV3Direction::Forward, ksize, strides, paddingMode, pads,
                                           dataFormat, globalPooling, ceilMode, attributes))
        return s;

    problem.operatorName = op;
    if (isEmpty(x)) {
        if (!isEmpty(y))
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": x is empty (shape ", shapeText(x->viewShape),
                        ") so y must be empty too, got y ", shapeText(y->viewShape));
        problem.task = PoolTask::ZeroFill;  // nothing to write
        return ACLNN_SUCCESS;
    }

    const MaxPoolV3AxisPositions at = maxPoolV3AxisPositions(attributes.dataFormat);
    const int64_t inH = x->viewShape[at.h], inW = x->viewShape[at.w];
    const MaxPoolV3Plan plan = maxPoolV3Plan(attributes, inH, inW);
    const std::vector<int64_t> expected = maxPoolV3OutputShape(attributes, x->viewShape, plan);
    if (plan.outH < 1 || plan.outW < 1)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": the output size computed for x ", shapeText(x->viewShape), " is ",
                    shapeText(expected), "; Ho and Wo must be >= 1 (", maxPoolV3AttributeText(attributes), ")");
    if (auto s = requireShape(op, yArg, expected, "the pooled shape of x")) return s;
    if (auto s = requireAddressable(op, {xArg, yArg})) return s;
    if (auto s = requireNoSelfOverlap(op, {yArg})) return s;
    if (auto s = requireNoSharedMemory(op, {yArg}, {xArg})) return s;

    const PlaneLayout layout = maxPoolV3Layout(attributes);
    problem.task = PoolTask::ArgmaxForward;
    problem.geometry = maxPoolV3Geometry(attributes, plan, x->viewShape[at.n], x->viewShape[at.c], inH, inW);
    if (auto s = requireWindowArithmetic(op, problem.geometry)) return s;
    problem.input = stridedOperand2d(x, layout);
    problem.output = stridedOperand2d(y, layout);
    // problem.indices stays absent: a value-only forward.
    return ACLNN_SUCCESS;
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
    return planOperator(op, {{"x", x}, {"ksize", ksize}, {"strides", strides}, {"pads", pads}, {"y", y}}, workspaceSize,
                        executor, [&](PoolProblem &problem) {
                            return describeMaxPoolV3WithAttrs(x, ksize, strides, paddingMode, pads, dataFormat,
                                                              globalPooling, ceilMode, y, workspaceSize, executor,
                                                              problem);
                        });
}

aclnnStatus aclnnMaxPoolV3WithAttrs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream) {
    return runPhaseTwo(op, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
