#include "support/allocation_watch.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<int> activeWatches{0};
std::atomic<size_t> largestSeen{0};

void *allocate(size_t bytes) {
    if (activeWatches.load(std::memory_order_relaxed) > 0) {
        size_t seen = largestSeen.load(std::memory_order_relaxed);
        while (bytes > seen && !largestSeen.compare_exchange_weak(seen, bytes, std::memory_order_relaxed)) {
        }
    }
    if (void *memory = std::malloc(bytes == 0 ? 1 : bytes)) return memory;
    throw std::bad_alloc();
}

}  // namespace

void *operator new(size_t bytes) { return allocate(bytes); }
void *operator new[](size_t bytes) { return allocate(bytes); }
void operator delete(void *memory) noexcept { std::free(memory); }
void operator delete[](void *memory) noexcept { std::free(memory); }
void operator delete(void *memory, size_t) noexcept { std::free(memory); }
void operator delete[](void *memory, size_t) noexcept { std::free(memory); }

namespace test_support {

LargestAllocationWatch::LargestAllocationWatch() {
    largestSeen.store(0);
    activeWatches.fetch_add(1);
}

LargestAllocationWatch::~LargestAllocationWatch() { activeWatches.fetch_sub(1); }

size_t LargestAllocationWatch::largestBytes() const { return largestSeen.load(); }

}  // namespace test_support
