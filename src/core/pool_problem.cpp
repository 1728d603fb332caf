#include "core/pool_problem.h"

#include <sstream>

namespace poolgrad {

const char *poolTaskName(PoolTask task) {
    switch (task) {
        case PoolTask::ArgmaxForward:
            return "argmax-forward";
        case PoolTask::IndexScatterBackward:
            return "index-scatter-backward";
        case PoolTask::RecomputeArgmaxBackward:
            return "recompute-argmax-backward";
        case PoolTask::ZeroFill:
            return "zero-fill";
    }
    return "?";
}

int64_t PoolProblem::bytesMoved() const {
    int64_t bytes = 0;
    for (const StridedTensor *operand : {&input, &output, &indices, &gradOutput, &gradInput})
        if (operand->present())
            bytes = saturatingAdd(
                bytes, saturatingMul(operand->elementCount(), static_cast<int64_t>(elementSize(operand->type))));
    return bytes;
}

StridedTensor *operandInRole(PoolProblem &problem, OperandRole role) {
    switch (role) {
        case OperandRole::Input:
            return &problem.input;
        case OperandRole::Output:
            return &problem.output;
        case OperandRole::Indices:
            return &problem.indices;
        case OperandRole::GradOutput:
            return &problem.gradOutput;
        case OperandRole::GradInput:
            return &problem.gradInput;
        case OperandRole::None:
            break;
    }
    return nullptr;
}

namespace {

// The 5-D view the kernels see, (N, C, D, H, W): a 2-D operand has D = 1, an unbatched one N = 1. (Printing
// only the caller's last `rank` axes of it dropped N and kept D for every 2-D operand: [8,64,28,28] read
// 64x1x28x28.)
void describeOperand(std::ostringstream &out, const char *role, const StridedTensor &tensor) {
    if (tensor.rank == 0) return;
    out << ' ' << role << '=' << elementTypeName(tensor.type) << "(n,c,d,h,w)[";
    for (int i = 0; i < 5; ++i) out << (i > 0 ? "x" : "") << tensor.size[i];
    out << "]:[";
    for (int i = 0; i < 5; ++i) out << (i > 0 ? "," : "") << tensor.stride[i];
    out << ']';
}

}  // namespace

std::string PoolProblem::describe() const {
    std::ostringstream out;
    out << operatorName << " task=" << poolTaskName(task);
    describeOperand(out, "input", input);
    describeOperand(out, "output", output);
    describeOperand(out, "indices", indices);
    describeOperand(out, "gradOutput", gradOutput);
    describeOperand(out, "gradInput", gradInput);
    out << " window=";
    for (int a = 0; a < 3; ++a) {
        const WindowAxis &axis = geometry.axes[a];
        if (a) out << ',';
        if (axis.adaptive)
            out << "adaptive" << axis.inputSize << "->" << axis.outputSize;
        else
            out << 'k' << axis.kernel << 's' << axis.stride << 'p' << axis.padBegin << 'd' << axis.dilation;
    }
    return out.str();
}

}  // namespace poolgrad
