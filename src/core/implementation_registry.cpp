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

bool implementationForced() { return !forcedImplementation.empty(); }

const Implementation *implementationNamed(const std::string &name) {
    for (const Implementation &candidate : allImplementations())
        if (name == candidate.name) return &candidate;
    return nullptr;
}

Selection selectImplementation(const PoolProblem &problem) {
    Selection selection;
    const bool forced = forcedFor(problem);
    for (const Implementation &candidate : allImplementations()) {
        if (candidate.task != problem.task || candidate.backend != problem.backend) continue;
        std::string reason;
        if (forced && forcedImplementation != candidate.name) {
            reason = "not the forced implementation";
        } else {
            PlanOutcome outcome = candidate.plan(problem);
            if (outcome.accepted() || (forced && outcome.runnable())) {
                selection.chosen = &candidate;
                selection.plan = std::move(outcome.plan);
                return selection;
            }
            reason = std::move(outcome.declined);
        }
        if (!selection.declined.empty()) selection.declined += "; ";
        selection.declined += joinText(candidate.name, ": ", reason);
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
    if (poolgrad::implementationNamed(name) != nullptr) {
        poolgrad::forcedImplementation = name;
        return ACL_SUCCESS;
    }
    poolgrad::setRecentError(poolgrad::joinText("poolgradForceImplementation: no implementation is named \"", name,
                                                "\" (see poolgradImplementationName)"));
    return ACL_ERROR_INVALID_PARAM;
}

}  // extern "C"
