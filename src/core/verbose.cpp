#include "core/verbose.h"

#include <cstdlib>
#include <cstring>

namespace poolgrad {

bool verboseEnabled() {
    static const bool enabled = [] {
        const char *value = std::getenv("POOLGRAD_VERBOSE");
        return value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0;
    }();
    return enabled;
}

}  // namespace poolgrad
