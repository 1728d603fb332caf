// Phase 1 as every operator runs it: its descriptor arguments resolved (core/executor.h), the required
// pointers checked against null in CANN's order, the problem's operator recorded, then the
// operator's describe(problem) — which therefore never sees workspaceSize or executor.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "aclnn/aclnn_base.h"
#include "api/operand_memory.h"
#include "core/executor.h"

namespace poolgrad {

using Presence = LiveDescriptors::Presence;

// Where CANN's null check of an operator puts workspaceSize and executor: after or before its arguments.
enum class NullCheckOrder { ArgumentsFirst, OutputsFirst };

struct PhaseOneCall {
    const char *op;
    uint64_t *workspaceSize;
    aclOpExecutor **executor;
    NullCheckOrder order = NullCheckOrder::ArgumentsFirst;
};

// 161001 naming the first null among the required `descriptors` and the two phase-1 outputs, in the
// order the call states; then the problem's operator name (finishPhaseOne records the backend).
aclnnStatus beginProblem(const PhaseOneCall &call, std::initializer_list<LiveDescriptors::Argument> descriptors,
                         PoolProblem &problem);

// `descriptors` names every descriptor argument in the order of CANN's null check, each tensor with its
// role (inputAs / outputAs: what aclSetInputTensorAddr / aclSetOutputTensorAddr index); describe must
// capture the listed variables by reference (planOperator rewrites them into live descriptors).
template <typename Describe>
aclnnStatus planPhaseOne(const PhaseOneCall &call, std::initializer_list<LiveDescriptors::Argument> descriptors,
                         Describe &&describe) {
    return planOperator(call.op, descriptors, &requireBoundOperandMemory, call.workspaceSize, call.executor,
                        [&](PoolProblem &problem) {
                            if (auto s = beginProblem(call, descriptors, problem)) return s;
                            return describe(problem);
                        });
}

}  // namespace poolgrad
