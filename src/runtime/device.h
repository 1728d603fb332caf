// A device as the runtime sees it. Operators never talk to devices directly: phase 1 records the
// backend of the current device in the problem, and the implementation list is filtered by it.
// Adding CUDA means adding a Device subclass and CUDA implementations; operator code is unchanged.
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_rt.h"
#include "core/pool_problem.h"

namespace poolgrad {

class Device {
public:
    virtual ~Device() = default;
    virtual Backend backend() const = 0;
    virtual const char *name() const = 0;
    // nullptr when the memory cannot be had.
    virtual void *allocate(size_t bytes) = 0;
    virtual void release(void *pointer) = 0;
    virtual void copy(void *destination, const void *source, size_t bytes, aclrtMemcpyKind kind) = 0;
    virtual void fill(void *destination, int byteValue, size_t bytes) = 0;
    virtual void synchronize() = 0;
};

int32_t deviceCount();
Device &deviceById(int32_t id);
int32_t currentDeviceId();
void setCurrentDeviceId(int32_t id);

}  // namespace poolgrad
