// The CPU backend's device: host memory, synchronous work.
#include <cstdlib>
#include <cstring>

#include "runtime/device.h"

namespace poolgrad {
namespace {

class CpuDevice final : public Device {
public:
    Backend backend() const override { return Backend::Cpu; }
    const char *name() const override { return "cpu"; }
    void *allocate(size_t bytes) override {
        // 64-byte alignment matches cache lines and every SIMD width we use. Exactly `bytes` are allocated
        // (aligned_alloc would need a multiple of 64), so AddressSanitizer sees the true end of the block.
        void *memory = nullptr;
        return posix_memalign(&memory, 64, bytes) == 0 ? memory : nullptr;
    }
    void release(void *pointer) override { std::free(pointer); }
    void copy(void *destination, const void *source, size_t bytes, aclrtMemcpyKind) override {
        std::memmove(destination, source, bytes);
    }
    void fill(void *destination, int byteValue, size_t bytes) override { std::memset(destination, byteValue, bytes); }
    void synchronize() override {}
};

thread_local int32_t currentDevice = 0;

}  // namespace

int32_t deviceCount() { return 1; }

Device &deviceById(int32_t) {
    static CpuDevice cpu;
    return cpu;
}

int32_t currentDeviceId() { return currentDevice; }
void setCurrentDeviceId(int32_t id) { currentDevice = id; }

}  // namespace poolgrad
