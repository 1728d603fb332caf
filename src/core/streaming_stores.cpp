#include "core/streaming_stores.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "core/error_message.h"
#include "poolgrad/poolgrad.h"

namespace poolgrad {
namespace {

std::atomic<int32_t> requestedChoice{POOLGRAD_STREAMING_STORES_DEFAULT};

StreamingStores environmentChoice() {
    const char *text = std::getenv("POOLGRAD_STREAMING_STORES");
    if (text != nullptr) {
        if (std::strcmp(text, "never") == 0) return StreamingStores::Never;
        if (std::strcmp(text, "always") == 0) return StreamingStores::Always;
    }
    return StreamingStores::Automatic;  // unset, "automatic" or anything else
}

}  // namespace

StreamingStores streamingStoresChoice() {
    const int32_t requested = requestedChoice.load(std::memory_order_relaxed);
    return requested == POOLGRAD_STREAMING_STORES_DEFAULT ? environmentChoice()
                                                          : static_cast<StreamingStores>(requested);
}

}  // namespace poolgrad

extern "C" {

aclError poolgradSetStreamingStores(int32_t choice) {
    if (choice < POOLGRAD_STREAMING_STORES_DEFAULT || choice > POOLGRAD_STREAMING_STORES_ALWAYS) {
        poolgrad::setRecentError(poolgrad::joinText(
            "poolgradSetStreamingStores: choice must be POOLGRAD_STREAMING_STORES_DEFAULT (0), _AUTOMATIC (1), "
            "_NEVER (2) or _ALWAYS (3), got ",
            choice));
        return ACL_ERROR_INVALID_PARAM;
    }
    poolgrad::requestedChoice.store(choice, std::memory_order_relaxed);
    return ACL_SUCCESS;
}

int32_t poolgradGetStreamingStores(void) { return static_cast<int32_t>(poolgrad::streamingStoresChoice()); }

}  // extern "C"
