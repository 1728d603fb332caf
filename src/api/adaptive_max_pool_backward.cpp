// Adaptive max-pool backwards (SPEC §5, §8): aclnnAdaptiveMaxPool3dBackward and
// aclnnAdaptiveMaxPool2dBackward (the 3-D operator with D = 1). Phase 1 checks the rows of §5 in
// order; the computation is the same index scatter as every indices-based backward.
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "api/argument_checks.h"
#include "api/backward_tail.h"
#include "api/phase_one.h"
#include "api/spatial_operand.h"
#include "core/geometry_builders.h"

namespace poolgrad {
namespace {

aclnnStatus describeAdaptiveMaxPoolBackward(int spatialDims, const char *op, const IndexBackwardTensors &tensors,
                                            PoolProblem &problem) {
    const auto &[gradOutput, self, indices, gradInput] = tensors;
    const NamedTensor gradOutputArg{"gradOutput", gradOutput}, selfArg{"self", self}, indicesArg{"indices", indices},
        gradInputArg{"gradInput", gradInput};

    if (auto s = requireDataTypeIn(op, selfArg, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})) return s;
    if (auto s = requireSameDataType(op, gradOutputArg, selfArg)) return s;
    if (auto s = requireSameDataType(op, gradInputArg, selfArg)) return s;
    if (auto s = requireDataTypeIn(op, indicesArg, {ACL_INT32, ACL_INT64})) return s;

    const size_t batchedRank = static_cast<size_t>(spatialDims) + 2;
    for (const NamedTensor &tensor : {gradOutputArg, selfArg, indicesArg, gradInputArg})
        if (auto s = requireRankIn(op, tensor, {batchedRank - 1, batchedRank})) return s;
    for (const NamedTensor &tensor : {gradOutputArg, indicesArg, gradInputArg})
        if (auto s = requireSameRank(op, tensor, selfArg)) return s;

    if (auto s = requireSameShape(op, indicesArg, gradOutputArg)) return s;
    if (auto s = requireSameShape(op, gradInputArg, selfArg)) return s;

    int64_t planeElements = 0;
    if (auto s = requirePlaneElements(op, selfArg, spatialDims, planeElements)) return s;
    if (auto s = requireIndexRange(op, "indices", indexStorageOf(indices->dataType), spatialDims, planeElements))
        return s;

    for (const NamedTensor &tensor : {gradOutputArg, selfArg, indicesArg, gradInputArg})
        if (auto s = requirePublicFormat(op, tensor)) return s;
    for (const NamedTensor &tensor : {gradOutputArg, indicesArg, gradInputArg})
        if (auto s = requireSameFormat(op, tensor, selfArg)) return s;

    if (auto s = describeIndexBackwardTail(op, spatialDims, tensors, problem)) return s;
    if (problem.task == PoolTask::ZeroFill) return ACLNN_SUCCESS;

    const StridedTensor input = spatialOperand(spatialDims, self);
    problem.indices = spatialOperand(spatialDims, indices);
    problem.geometry =
        adaptiveGeometry(input.size[0], input.size[1], {input.size[2], input.size[3], input.size[4]},
                         {problem.gradOutput.size[2], problem.gradOutput.size[3], problem.gradOutput.size[4]});
    return ACLNN_SUCCESS;
}

aclnnStatus phaseOne(int spatialDims, const char *op, IndexBackwardTensors tensors, uint64_t *workspaceSize,
                     aclOpExecutor **executor) {
    return planPhaseOne(
        {op, workspaceSize, executor},
        {{"gradOutput", tensors.gradOutput, inputAs(OperandRole::GradOutput)},
         {"self", tensors.self, inputAs(OperandRole::None)},
         {"indices", tensors.indices, inputAs(OperandRole::Indices)},
         {"gradInput", tensors.gradInput, outputAs(OperandRole::GradInput)}},
        [&](PoolProblem &problem) { return describeAdaptiveMaxPoolBackward(spatialDims, op, tensors, problem); });
}

constexpr const char *adaptive3dBackward = "aclnnAdaptiveMaxPool3dBackward";
constexpr const char *adaptive2dBackward = "aclnnAdaptiveMaxPool2dBackward";

}  // namespace
}  // namespace poolgrad

using namespace poolgrad;

extern "C" {

aclnnStatus aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                           const aclTensor *indices, aclTensor *gradInput,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    return phaseOne(3, adaptive3dBackward, {gradOutput, self, indices, gradInput}, workspaceSize, executor);
}

aclnnStatus aclnnAdaptiveMaxPool3dBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream) {
    return runPhaseTwo(adaptive3dBackward, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                           const aclTensor *indices, aclTensor *gradInput,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    return phaseOne(2, adaptive2dBackward, {gradOutput, self, indices, gradInput}, workspaceSize, executor);
}

aclnnStatus aclnnAdaptiveMaxPool2dBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream) {
    return runPhaseTwo(adaptive2dBackward, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
