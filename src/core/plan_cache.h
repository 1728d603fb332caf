// Phase 1's choice of implementation and plan, remembered per thread for problems seen again.
//
// A training loop or a CANN program calls GetWorkspaceSize with the same shapes every step. Asking the
// implementation list again builds the same window tables and plans each time: for the demo's max-pool
// backward (16x8x8x16x16, 2x2x2) that took 14 us of a 35 us call. The arguments are still checked on every
// call (phase 1's checks come first and stay); only the planning of a problem already planned on this
// thread is skipped.
#pragma once

#include <memory>
#include <string>

#include "core/implementation.h"

namespace poolgrad {

// An implementation's accepted plan with its verbose texts, shared (immutable) by every executor made
// from it.
struct PlannedSelection {
    const Implementation *chosen = nullptr;  // null: no implementation accepts the problem
    std::shared_ptr<const ImplementationPlan> plan;
    std::string planText;  // plan->describe()
    std::string declined;  // "name: reason; ..." of those tried before
};

// selectImplementation's answer for the problem, from this thread's cache when the same problem was
// planned here under the same settings. What a plan may depend on, and hence the key: the operator and
// task, the backend, the geometry, every operand's type, rank, sizes, strides and address modulo 64 (plans
// see alignment, never data), the thread count and parallel threshold, the streaming-stores choice and
// the SIMD target Highway dispatches to. Forced implementations (poolgradForceImplementation) and
// problems with planes over kMaxCachedPlaneElements are planned afresh every time and not kept. Throws
// std::bad_alloc as selectImplementation does.
std::shared_ptr<const PlannedSelection> plannedSelection(const PoolProblem &problem);

// Planes (input and output) up to this many positions are cached: plans hold tables of up to a few
// entries per plane position, so the cache holds at most about kPlanCacheEntries such tables; larger
// problems spend far longer in phase 2 than in planning.
inline constexpr int64_t kMaxCachedPlaneElements = int64_t{1} << 16;
inline constexpr int kPlanCacheEntries = 8;

// Empties this thread's cache (poolgradClearPlanCache).
void clearPlanCache();

}  // namespace poolgrad
