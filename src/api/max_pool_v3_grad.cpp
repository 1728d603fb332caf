// aclnnMaxPoolV3Grad (SPEC §6, seed 004): phase 1 checks the rows of §6 in order and describes a
// recompute-argmax backward problem (or a zero-fill when there is no window); phase 2 runs the
// implementation chosen for it. NHWC tensors are read through permuted strides.
#include "aclnnop/aclnn_max_pool_v3_grad.h"
#include "api/argument_checks.h"
#include "api/max_pool_v3_attributes.h"
#include "api/operand_memory.h"
#include "api/phase_one.h"
#include "api/tensor_operand.h"
#include "core/error_message.h"

namespace poolgrad {
namespace {

constexpr const char *op = "aclnnMaxPoolV3Grad";

// The arguments of aclnnMaxPoolV3GradGetWorkspaceSize but workspaceSize and executor.
struct MaxPoolV3GradArguments {
    const aclTensor *origInput, *origOutput, *grad;
    MaxPoolV3AttributeArguments attributes;
    const aclTensor *outGrad;
};

aclnnStatus describeMaxPoolV3Grad(const MaxPoolV3GradArguments &arguments, PoolProblem &problem) {
    // Row 1, the null checks, ran in planPhaseOne (paddingMode, pads and dataFormat may be null: their defaults).
    const auto &[origInput, origOutput, grad, attributeArguments, outGrad] = arguments;
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
    if (auto s = decodeMaxPoolV3Attributes(op, MaxPoolV3Direction::Grad, attributeArguments, attributes)) return s;

    // Row 11.
    const MaxPoolV3AxisPositions at = maxPoolV3AxisPositions(attributes.dataFormat);
    if (auto s = requireSameShape(op, gradArg, origOutputArg)) return s;
    if (auto s = requireSameDims(op, origOutputArg, origInputArg, {{at.n, "N"}, {at.c, "C"}})) return s;
    if (auto s = requireSameShape(op, outGradArg, origInputArg)) return s;

    // Row 12 (library addition, SPEC §11 #9).
    const MaxPoolV3Plan plan = maxPoolV3Plan(attributes, origInput->viewShape[at.h], origInput->viewShape[at.w]);
    const std::vector<int64_t> expected = maxPoolV3OutputShape(attributes, origInput->viewShape, plan);
    if (origOutput->viewShape != expected)
        return fail(ACLNN_ERR_PARAM_INVALID, op, ": origOutput shape must be ", shapeText(expected),
                    " (the pooled shape of origInput ", shapeText(origInput->viewShape), " for ",
                    maxPoolV3AttributeText(attributes), "), got ", shapeText(origOutput->viewShape));

    if (auto s = requireOperandMemory(op, {origInputArg, origOutputArg, gradArg}, {outGradArg})) return s;

    // Row 13: an empty origInput is a no-op (outGrad is empty too); no output position -> zeros.
    const PlaneLayout layout = maxPoolV3Layout(attributes);
    problem.gradInput = stridedOperand2d(outGrad, layout);
    if (isEmpty(origInput) || isEmpty(origOutput)) {
        problem.task = PoolTask::ZeroFill;
        return ACLNN_SUCCESS;
    }

    problem.task = PoolTask::RecomputeArgmaxBackward;
    problem.geometry =
        regularGeometry(plan.windows, origInput->viewShape[at.n], origInput->viewShape[at.c], plan.input, plan.output);
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
    MaxPoolV3GradArguments arguments{
        origInput, origOutput, grad, {ksize, strides, paddingMode, pads, dataFormat, globalPooling, ceilMode}, outGrad};
    return planPhaseOne({op, workspaceSize, executor},
                        {{"origInput", arguments.origInput, inputAs(OperandRole::Input)},
                         {"origOutput", arguments.origOutput, inputAs(OperandRole::Output)},
                         {"grad", arguments.grad, inputAs(OperandRole::GradOutput)},
                         {"ksize", arguments.attributes.ksize},
                         {"strides", arguments.attributes.strides},
                         {"pads", arguments.attributes.pads, Presence::Optional},
                         {"outGrad", arguments.outGrad, outputAs(OperandRole::GradInput)}},
                        [&](PoolProblem &problem) { return describeMaxPoolV3Grad(arguments, problem); });
}

aclnnStatus aclnnMaxPoolV3Grad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream) {
    return runPhaseTwo(op, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
