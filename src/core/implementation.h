// An implementation of a pooling task on one backend. The registry asks each, in order, whether it
// accepts a problem; the first that does runs it. The last entry of every task is a reference
// implementation that accepts every valid problem.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "core/pool_problem.h"

namespace poolgrad {

// What a kernel reports: 0, or a status with a message for data-dependent failures (bad indices).
struct RunResult {
    int status = 0;
    std::string message;
};

struct Implementation {
    const char *name;
    PoolTask task;
    Backend backend;
    // nullopt when the problem is accepted, otherwise why it is declined.
    std::optional<std::string> (*declineReason)(const PoolProblem &problem);
    RunResult (*run)(const PoolProblem &problem);
};

// Every implementation of every backend, fastest first within a task.
std::span<const Implementation> allImplementations();

struct Selection {
    const Implementation *chosen = nullptr;
    std::string declined;  // "name: reason; ..." of those tried before
};

// Picks the first implementation that accepts the problem, honouring poolgradForceImplementation.
Selection selectImplementation(const PoolProblem &problem);

}  // namespace poolgrad
