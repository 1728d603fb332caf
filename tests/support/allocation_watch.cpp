#include "support/allocation_watch.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {

std::atomic<int> activeWatches{0};
std::atomic<size_t> largestSeen{0};

void record(size_t bytes) {
    if (activeWatches.load(std::memory_order_relaxed) == 0) return;
    size_t seen = largestSeen.load(std::memory_order_relaxed);
    while (bytes > seen && !largestSeen.compare_exchange_weak(seen, bytes, std::memory_order_relaxed)) {
    }
}

// Every form of operator new is replaced (plain, nothrow, aligned), so that each allocation is paired with
// the matching replaced operator delete, all on malloc/free.
void *tryAllocate(size_t bytes, size_t alignment = 0) {
    record(bytes);
    if (bytes == 0) bytes = 1;
    if (alignment <= alignof(std::max_align_t)) return std::malloc(bytes);
    return std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
}

void *allocate(size_t bytes, size_t alignment = 0) {
    if (void *memory = tryAllocate(bytes, alignment)) return memory;
    throw std::bad_alloc();
}

}  // namespace

void *operator new(size_t bytes) { return allocate(bytes); }
void *operator new[](size_t bytes) { return allocate(bytes); }
void *operator new(size_t bytes, const std::nothrow_t &) noexcept { return tryAllocate(bytes); }
void *operator new[](size_t bytes, const std::nothrow_t &) noexcept { return tryAllocate(bytes); }
void *operator new(size_t bytes, std::align_val_t alignment) { return allocate(bytes, size_t(alignment)); }
void *operator new[](size_t bytes, std::align_val_t alignment) { return allocate(bytes, size_t(alignment)); }
void *operator new(size_t bytes, std::align_val_t alignment, const std::nothrow_t &) noexcept {
    return tryAllocate(bytes, size_t(alignment));
}
void *operator new[](size_t bytes, std::align_val_t alignment, const std::nothrow_t &) noexcept {
    return tryAllocate(bytes, size_t(alignment));
}
void operator delete(void *memory) noexcept { std::free(memory); }
void operator delete[](void *memory) noexcept { std::free(memory); }
void operator delete(void *memory, size_t) noexcept { std::free(memory); }
void operator delete[](void *memory, size_t) noexcept { std::free(memory); }
void operator delete(void *memory, const std::nothrow_t &) noexcept { std::free(memory); }
void operator delete[](void *memory, const std::nothrow_t &) noexcept { std::free(memory); }
void operator delete(void *memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void *memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete(void *memory, size_t, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void *memory, size_t, std::align_val_t) noexcept { std::free(memory); }
void operator delete(void *memory, std::align_val_t, const std::nothrow_t &) noexcept { std::free(memory); }
void operator delete[](void *memory, std::align_val_t, const std::nothrow_t &) noexcept { std::free(memory); }

namespace test_support {

LargestAllocationWatch::LargestAllocationWatch() {
    largestSeen.store(0);
    activeWatches.fetch_add(1);
}

LargestAllocationWatch::~LargestAllocationWatch() { activeWatches.fetch_sub(1); }

size_t LargestAllocationWatch::largestBytes() const { return largestSeen.load(); }

}  // namespace test_support
