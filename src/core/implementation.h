// An implementation of a pooling task on one backend. Phase 1 asks each implementation of the task, in
// order, to plan the problem; the first that accepts returns its plan (strategy, tile sizes, window tables,
// thread split), which the executor keeps. Phase 2 only runs that plan: kernels neither re-check nor
// re-plan. The last entry of every task is a reference implementation that accepts every valid problem.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <utility>

#include "core/pool_problem.h"

namespace poolgrad {

// What an implementation decided in phase 1. Each implementation derives its own plan type; run()
// receives the one its plan() made.
struct ImplementationPlan {
    virtual ~ImplementationPlan() = default;
    // The decisions in one short line ("slabs=2x32rows streaming threads=2"), for POOLGRAD_VERBOSE and
    // the run report.
    virtual std::string describe() const = 0;
};

template <typename Plan>
const Plan &planAs(const ImplementationPlan &plan) {
    return static_cast<const Plan &>(plan);
}

// An implementation's answer to a problem: a plan (accepted) or the reason it declines. A third answer,
// slowerThanLater, is a plan with a reason: the entry can run the problem but was measured slower there than
// an entry after it (on this instruction set, say). The dispatch passes it by with that reason, shown with
// the declines; a forced run (poolgradForceImplementation: the tests, the bench) takes the plan, so the
// code stays exercised on every host.
struct PlanOutcome {
    std::shared_ptr<const ImplementationPlan> plan;
    std::string declined;

    bool accepted() const { return plan != nullptr && declined.empty(); }
    // accepted, or slowerThanLater: what a forced run takes.
    bool runnable() const { return plan != nullptr; }
    static PlanOutcome decline(std::string reason) { return {nullptr, std::move(reason)}; }
    template <typename Plan>
    static PlanOutcome accept(Plan plan) {
        return {std::make_shared<const Plan>(std::move(plan)), {}};
    }
    template <typename Plan>
    static PlanOutcome slowerThanLater(Plan plan, std::string reason) {
        return {std::make_shared<const Plan>(std::move(plan)), std::move(reason)};
    }
};

// What a run reports: status 0, or a status with a message for data-dependent failures (bad indices).
struct RunResult {
    int status = 0;
    std::string message;
    // Set when the data made the plan hand the problem on: "<implementation that ran instead>: <why>"
    // (e.g. indices outside their own windows). Empty when the plan ran as made. Reported by
    // POOLGRAD_VERBOSE and poolgradGetLastRunReport, so a fast path that never runs cannot hide.
    std::string fallback;

    static RunResult failure(int status, std::string message) { return {status, std::move(message), {}}; }
};

struct Implementation {
    const char *name;
    PoolTask task;
    Backend backend;
    PlanOutcome (*plan)(const PoolProblem &problem);
    RunResult (*run)(const PoolProblem &problem, const ImplementationPlan &plan);
};

// Every implementation of every backend, fastest first within a task.
std::span<const Implementation> allImplementations();
const Implementation *implementationNamed(const std::string &name);

struct Selection {
    const Implementation *chosen = nullptr;
    std::shared_ptr<const ImplementationPlan> plan;
    std::string declined;  // "name: reason; ..." of those tried before
};

// Plans the problem with the first implementation that accepts it, honouring poolgradForceImplementation.
Selection selectImplementation(const PoolProblem &problem);
// True while poolgradForceImplementation restricts this thread's phase 1.
bool implementationForced();

}  // namespace poolgrad
