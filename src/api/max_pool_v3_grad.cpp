// aclnnMaxPoolV3Grad (SPEC §6, seed 004): phase 1 checks the rows of §6 in order and describes a
// recompute-argmax backward problem (or a zero-fill when there is no window); phase 2 runs the
// implementation chosen for it. NHWC tensors are read through permuted strides.
#include "aclnnop/aclnn_max_pool_v3_grad.h"
#include "api/argument_checks.h"
#include "api/max_pool_v3_attributes.h"
#include "api/operand_memory.h"
#include "api/tensor_operand.h"
#include "core/error_message.h"
#include "core/executor.h"

namespace poolgrad {
namespace {

constexpr const char *op = "aclnnMaxPoolV3Grad";

aclnnStatus describeMaxPoolV3Grad(const aclTensor *origInput, const aclTensor *origOutput, const aclTensor *grad,
                                  const aclIntArray *ksize, const aclIntArray *strides, const char *paddingMode,
                                  const aclIntArray *pads, const char *dataFormat, bool globalPooling, bool ceilMode,
                                  const aclTensor *outGrad, uint64_t *workspaceSize, aclOpExecutor **executor,
                                  PoolProblem &problem) {
    // Row 1. paddingMode, pads and dataFormat may be null: their defaults.
    if (auto s = requireNonNull(op, {{"origInput", origInput},
                                     {"origOutput", origOutput},
                                     {"grad", grad},
                                     {"ksize", ksize},
                                     {"strides", strides},
                                     {"outGrad", outGrad},
                                     {"workspaceSize", workspaceSize},
                                     {"executor", executor}}))
        return s;
    const NamedTensor origInputArg{"origInput", origInput}, origOutputArg{"origOutput", origOutput},
        gradArg{"grad", grad}, outGradArg{"outGrad", outGrad};

    // Row 2: the seed's FLOAT16 / FLOAT only (no BF16, no integers: SPEC §11 #4).
    if (auto s = requireDataTypeIn(op, origInputArg, {ACL_FLOAT16, ACL_FLOAT})) return s;
    for (const NamedTensor &tensor : {origOutputArg, gradArg, outGradArg})
        if (auto s = requireSameDataType(op, tensor, origInputArg)) return s;

    // Row 3. Format tags are only checked; the layout comes from dataFormat.
    for (const NamedTensor &tensor : {origInputArg, origOutputArg, gradArg, outGradArg})
        if (auto s = requireRankIn(op, tensor, {4})) return s;
    for (const NamedTensor &tensor : {origInputArg, origOutputArg, gradArg, outGradArg})
        if (auto s = requirePublicFormat(op, tensor)) return s;

    // Rows 4-10.
    MaxPoolV3Attributes attributes;
    if (auto s = decodeMaxPoolV3Attributes(op, MaxPoolV3Direction::Grad, ksize, strides, paddingMode, pads, dataFormat,
                                           globalPooling, ceilMode, attributes))
        return s;

    // Row 11.
    const MaxPoolV3AxisPositions at = maxPoolV3AxisPositions(attributes.dataFormat);
    if (auto s = requireSameShape(op, gradArg, origOutputArg)) return s;
    for (const auto &[position, axis] : {std::pair{at.n, "N"}, std::pair{at.c, "C"}})
        if (origOutput->viewShape[position] != origInput->viewShape[position])
            return fail(ACLNN_ERR_PARAM_INVALID, op, ": origOutput ", axis, " (dim ", position,
                        ") must equal origInput's, got origOutput ", shapeText(origOutput->viewShape),
                        " and origInput ", shapeText(origInput->viewShape));
    if (auto s = requireSameShape(op, outGradArg, origInputArg)) return s;

    // Row 12 (library addition, SPEC §11 #9).
    const int64_t inH = origInput->viewShape[at.h], inW = origInput->viewShape[at.w];
    const MaxPoolV3Plan plan = maxPoolV3Plan(attributes, inH, inW);
    const std::vector<int64_t> expected = maxPoolV3OutputShape(attributes, origInput->viewShape, plan);
    if (origOutput->viewShape != expected)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": origOutput shape must be ", shapeText(expected),
                    " (the pooled shape of origInput ", shapeText(origInput->viewShape), " for ",
                    maxPoolV3AttributeText(attributes), "), got ", shapeText(origOutput->viewShape));

    if (auto s = requireAddressable(op, {origInputArg, origOutputArg, gradArg, outGradArg})) return s;
    if (auto s = requireNoSelfOverlap(op, {outGradArg})) return s;
    if (auto s = requireNoSharedMemory(op, {outGradArg}, {origInputArg, origOutputArg, gradArg})) return s;

    // Row 13: an empty origInput is a no-op (outGrad is empty too); no output position -> zeros.
    const PlaneLayout layout = maxPoolV3Layout(attributes);
    problem.operatorName = op;
    problem.gradInput = stridedOperand2d(outGrad, layout);
    if (isEmpty(origInput) || isEmpty(origOutput)) {
        problem.task = PoolTask::ZeroFill;
        return ACLNN_SUCCESS;
    }

    problem.task = PoolTask::RecomputeArgmaxBackward;
    problem.geometry =
        maxPoolV3Geometry(attributes, plan, origInput->viewShape[at.n], origInput->viewShape[at.c], inH, inW);
    if (auto s = requireWindowArithmetic(op, problem.geometry)) return s;
    problem.input = stridedOperand2d(origInput, layout);
    problem.output = stridedOperand2d(origOutput, layout);
    problem.gradOutput = stridedOperand2d(grad, layout);
    return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace poolgrad

using namespace poolgrad;

extern "C" {

aclnnStatus aclnnMaxPoolV3GradGetWorkspaceSize(const aclTensor *origInput, const aclTensor *origOutput,
                                               const aclTensor *grad, const aclIntArray *ksize,
                                               const aclIntArray *strides, const char *paddingMode,
                                               const aclIntArray *pads, const char *dataFormat, bool globalPooling,
                                               bool ceilMode, aclTensor *outGrad, uint64_t *workspaceSize,
                                               aclOpExecutor **executor) {
    return planOperator(op,
                        {{"origInput", origInput},
                         {"origOutput", origOutput},
                         {"grad", grad},
                         {"ksize", ksize},
                         {"strides", strides},
                         {"pads", pads},
                         {"outGrad", outGrad}},
                        workspaceSize, executor, [&](PoolProblem &problem) {
                            return describeMaxPoolV3Grad(origInput, origOutput, grad, ksize, strides, paddingMode, pads,
                                                         dataFormat, globalPooling, ceilMode, outGrad, workspaceSize,
                                                         executor, problem);
                        });
}

aclnnStatus aclnnMaxPoolV3Grad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream) {
    return runPhaseTwo(op, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
