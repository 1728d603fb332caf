// A range of address space with no memory behind it (mmap PROT_NONE): the data pointer of descriptors
// whose views are huge but which phase 1 must only check, never read or write. Unlike a tiny buffer, such
// a view then overlaps no other operand, so the memory-overlap rules accept it.
#pragma once

#include <sys/mman.h>

#include <cstddef>

namespace test_support {

class AddressReservation {
public:
    explicit AddressReservation(size_t bytes) : bytes_(bytes) {
        void *start = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        start_ = start == MAP_FAILED ? nullptr : start;
    }
    ~AddressReservation() {
        if (start_) munmap(start_, bytes_);
    }
    AddressReservation(const AddressReservation &) = delete;
    AddressReservation &operator=(const AddressReservation &) = delete;
    void *get() const { return start_; }

private:
    size_t bytes_;
    void *start_ = nullptr;
};

}  // namespace test_support
