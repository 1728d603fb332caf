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

namespace {

void describeOperand(std::ostringstream &out, const char *role, const StridedTensor &tensor) {
    if (tensor.rank == 0) return;
    out << ' ' << role << '=' << elementTypeName(tensor.type) << '[';
    for (int i = 5 - tensor.rank; i < 5; ++i) out << (i > 5 - tensor.rank ? "x" : "") << tensor.size[i];
    out << "]:[";
    for (int i = 5 - tensor.rank; i < 5; ++i) out << (i > 5 - tensor.rank ? "," : "") << tensor.stride[i];
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
