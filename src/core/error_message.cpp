#include "core/error_message.h"

namespace poolgrad {
namespace {
thread_local std::string recentMessage;
}

void setRecentError(std::string message) { recentMessage = std::move(message); }
void clearRecentError() { recentMessage.clear(); }
const char *recentError() { return recentMessage.c_str(); }

}  // namespace poolgrad
