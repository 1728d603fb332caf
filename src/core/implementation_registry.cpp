#include <cstring>
#include <string>

#include "core/error_message.h"
#include "core/implementation.h"
#include "poolgrad/poolgrad.h"

namespace poolgrad {
namespace {
thread_local std::string forcedImplementation;
}

// The forced implementation restricts only the task it implements: other tasks of the same call
// (the empty shortcut's zero-fill) keep their usual choice.
bool forcedFor(const PoolProblem &problem) {
    if (forcedImplementation.empty()) return false;
    for (const Implementation &candidate : allImplementations())
        if (forcedImplementation == candidate.name) return candidate.task == problem.task;
    return false;
}

Selection selectImplementation(const PoolProblem &problem) {
    Selection selection;
    const bool forced = forcedFor(problem);
    for (const Implementation &candidate : allImplementations()) {
        if (candidate.task != problem.task || candidate.backend != problem.backend) continue;
        std::optional<std::string> reason;
        if (forced && forcedImplementation != candidate.name)
            reason = "not the forced implementation";
        else
            reason = candidate.declineReason(problem);
        if (!reason) {
            selection.chosen = &candidate;
            return selection;
        }
        if (!selection.declined.empty()) selection.declined += "; ";
        selection.declined += joinText(candidate.name, ": ", *reason);
    }
    return selection;
}

}  // namespace poolgrad

extern "C" {

int32_t poolgradImplementationCount(void) { return static_cast<int32_t>(poolgrad::allImplementations().size()); }

const char *poolgradImplementationName(int32_t index) {
    const auto implementations = poolgrad::allImplementations();
    if (index < 0 || static_cast<size_t>(index) >= implementations.size()) return nullptr;
    return implementations[static_cast<size_t>(index)].name;
}

const char *poolgradImplementationTask(int32_t index) {
    const auto implementations = poolgrad::allImplementations();
    if (index < 0 || static_cast<size_t>(index) >= implementations.size()) return nullptr;
    return poolgrad::poolTaskName(implementations[static_cast<size_t>(index)].task);
}

aclError poolgradForceImplementation(const char *name) {
    if (name == nullptr || *name == '\0') {
        poolgrad::forcedImplementation.clear();
        return ACL_SUCCESS;
    }
    for (const poolgrad::Implementation &candidate : poolgrad::allImplementations()) {
        if (std::strcmp(candidate.name, name) == 0) {
            poolgrad::forcedImplementation = name;
            return ACL_SUCCESS;
        }
    }
    poolgrad::setRecentError(poolgrad::joinText("poolgradForceImplementation: no implementation is named \"", name,
                                                "\" (see poolgradImplementationName)"));
    return ACL_ERROR_INVALID_PARAM;
}

}  // extern "C"
