// Streams behind handles (core/handle_registry.h): phase 2 of an operator refuses a destroyed stream.
#pragma once

#include "acl/acl_rt.h"

namespace poolgrad {

// False for null, destroyed and foreign values.
bool isLiveStream(aclrtStream stream);

}  // namespace poolgrad
