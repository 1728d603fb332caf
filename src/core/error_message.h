// The thread-local message behind aclGetRecentErrMsg, and a helper that builds messages from values.
#pragma once

#include <sstream>
#include <string>
#include <utility>

#include "aclnn/aclnn_base.h"

namespace poolgrad {

void setRecentError(std::string message);
void clearRecentError();
const char *recentError();

template <typename... Parts>
std::string joinText(Parts &&...parts) {
    std::ostringstream stream;
    (stream << ... << std::forward<Parts>(parts));
    return stream.str();
}

// Records the message and returns code, so a failing check reads `return fail(code, ...)`.
template <typename... Parts>
int fail(int code, Parts &&...parts) {
    setRecentError(joinText(std::forward<Parts>(parts)...));
    return code;
}

}  // namespace poolgrad
