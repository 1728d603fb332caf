#include "api/backward_tail.h"

#include "api/argument_checks.h"
#include "api/operand_memory.h"
#include "api/spatial_operand.h"

namespace poolgrad {

aclnnStatus describeIndexBackwardTail(const char *op, int spatialDims, const IndexBackwardTensors &tensors,
                                      PoolProblem &problem) {
    const auto &[gradOutput, self, indices, gradInput] = tensors;
    const NamedTensor gradOutputArg{"gradOutput", gradOutput}, selfArg{"self", self}, indicesArg{"indices", indices},
        gradInputArg{"gradInput", gradInput};
    const size_t rank = self->viewShape.size();
    if (auto s = requireSameDims(op, gradOutputArg, selfArg,
                                 batchAndChannelDims(rank, spatialDims, rank - static_cast<size_t>(spatialDims))))
        return s;
    if (auto s = requireOperandMemory(op, {gradOutputArg, indicesArg}, {gradInputArg})) return s;

    problem.gradInput = spatialOperand(spatialDims, gradInput);
    if (isEmpty(gradOutput) || isEmpty(self) || isEmpty(indices)) {
        problem.task = PoolTask::ZeroFill;
        return ACLNN_SUCCESS;
    }
    problem.task = PoolTask::IndexScatterBackward;
    problem.gradOutput = spatialOperand(spatialDims, gradOutput);
    return ACLNN_SUCCESS;
}

}  // namespace poolgrad
