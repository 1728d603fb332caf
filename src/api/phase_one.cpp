#include "api/phase_one.h"

#include "core/error_message.h"

namespace poolgrad {
namespace {

aclnnStatus requireOutputs(const PhaseOneCall &call) {
    if (call.workspaceSize == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, call.op, ": workspaceSize is null");
    if (call.executor == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, call.op, ": executor is null");
    return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus beginProblem(const PhaseOneCall &call, std::initializer_list<LiveDescriptors::Argument> descriptors,
                         PoolProblem &problem) {
    if (call.order == NullCheckOrder::OutputsFirst)
        if (auto s = requireOutputs(call)) return s;
    for (const LiveDescriptors::Argument &argument : descriptors)
        if (argument.missing()) return fail(ACLNN_ERR_PARAM_NULLPTR, call.op, ": ", argument.name(), " is null");
    if (call.order == NullCheckOrder::ArgumentsFirst)
        if (auto s = requireOutputs(call)) return s;
    problem.operatorName = call.op;
    return ACLNN_SUCCESS;
}

}  // namespace poolgrad
