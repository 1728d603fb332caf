#include "core/threading.h"

#include <omp.h>

#include <atomic>
#include <cstdlib>

#include "core/error_message.h"
#include "poolgrad/poolgrad.h"

namespace poolgrad {
namespace {

std::atomic<int> requestedThreads{0};
constexpr int64_t defaultMinimumWorkPerThread = 32 * 1024;
std::atomic<int64_t> requestedMinimumWork{0};

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

int64_t minimumWorkPerThread() {
    const int64_t requested = requestedMinimumWork.load(std::memory_order_relaxed);
    return requested > 0 ? requested : defaultMinimumWorkPerThread;
}

}  // namespace poolgrad

extern "C" {

aclError poolgradSetParallelThreshold(int64_t elementsPerThread) {
    if (elementsPerThread < 0) {
        poolgrad::setRecentError(poolgrad::joinText(
            "poolgradSetParallelThreshold: elementsPerThread must be >= 0 (0 = default), got ", elementsPerThread));
        return ACL_ERROR_INVALID_PARAM;
    }
    poolgrad::requestedMinimumWork.store(elementsPerThread, std::memory_order_relaxed);
    return ACL_SUCCESS;
}

aclError poolgradSetNumThreads(int32_t numThreads) {
    if (numThreads < 0) {
        poolgrad::setRecentError(
            poolgrad::joinText("poolgradSetNumThreads: numThreads must be >= 0 (0 = default), got ", numThreads));
        return ACL_ERROR_INVALID_PARAM;
    }
    poolgrad::requestedThreads.store(numThreads, std::memory_order_relaxed);
    return ACL_SUCCESS;
}

int32_t poolgradGetNumThreads(void) { return poolgrad::operatorThreadCount(); }

}  // extern "C"
