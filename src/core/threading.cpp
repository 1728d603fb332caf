#include "core/threading.h"

#include <omp.h>

#include <atomic>
#include <cstdlib>

#include "core/error_message.h"
#include "poolgrad/poolgrad.h"

namespace poolgrad {
namespace {

std::atomic<int> requestedThreads{0};

int defaultThreadCount() {
    if (const char *text = std::getenv("POOLGRAD_NUM_THREADS")) {
        char *end = nullptr;
        const long value = std::strtol(text, &end, 10);
        if (end != text && *end == '\0' && value >= 1 && value <= 4096) return static_cast<int>(value);
    }
    return omp_get_num_procs();
}

}  // namespace

int operatorThreadCount() {
    const int requested = requestedThreads.load(std::memory_order_relaxed);
    return requested > 0 ? requested : defaultThreadCount();
}

}  // namespace poolgrad

extern "C" {

aclError poolgradSetNumThreads(int32_t numThreads) {
    if (numThreads < 0) {
        poolgrad::setRecentError(poolgrad::joinText("poolgradSetNumThreads: numThreads must be >= 0 (0 = default), got ",
                                                    numThreads));
        return ACL_ERROR_INVALID_PARAM;
    }
    poolgrad::requestedThreads.store(numThreads, std::memory_order_relaxed);
    return ACL_SUCCESS;
}

int32_t poolgradGetNumThreads(void) { return poolgrad::operatorThreadCount(); }

}  // extern "C"
