// The fuzzer's input format: a stream of bytes read front to back, little-endian, with every read past
// the end returning 0, so that any byte string is a valid input and a hand-written one (fuzz/make_corpus.py)
// stays short. `fuzzy(low, high)` reads one byte: below 0xF0 it picks a value in [low, high]; 0xF0..0xFF
// pick a boundary value (0, -1, INT64_MAX, 2^31, 2^32, 2^62, ...) or, for 0xFF, eight raw bytes, which is
// how sane calls and absurd descriptors come out of the same decoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "known_defects.h"

namespace poolgrad_fuzz {

class FuzzInput {
public:
    FuzzInput(const uint8_t *data, size_t size) : data_(data), size_(size) {}

    bool exhausted() const { return position_ >= size_; }

    uint8_t byte() { return position_ < size_ ? data_[position_++] : 0; }

    uint32_t u32() {
        uint32_t value = 0;
        for (int i = 0; i < 4; ++i) value |= uint32_t(byte()) << (8 * i);
        return value;
    }

    int64_t i64() {
        uint64_t value = 0;
        for (int i = 0; i < 8; ++i) value |= uint64_t(byte()) << (8 * i);
        return static_cast<int64_t>(value);
    }

    // Byte codes 0xF0.. of fuzzy(); make_corpus.py uses the same table.
    static constexpr uint8_t kFirstSpecial = 0xF0;

    int64_t fuzzy(int64_t low, int64_t high) {
        const int64_t value = fuzzyUnbounded(low, high);
        // Huge values reach the overflow defects of issue #13; a campaign that avoids them folds them.
        constexpr int64_t kFold = int64_t(1) << 20;
        if (knownDefectsAvoided() && (value > kFold || value < -kFold))
            return static_cast<int64_t>(static_cast<uint64_t>(value) % 4096) + low;
        return value;
    }

private:
    int64_t fuzzyUnbounded(int64_t low, int64_t high) {
        const uint8_t code = byte();
        if (code < kFirstSpecial) {
            const unsigned __int128 span = static_cast<unsigned __int128>(static_cast<__int128>(high) - low) + 1;
            return static_cast<int64_t>(static_cast<__int128>(low) + static_cast<__int128>(code % span));
        }
        constexpr int64_t max = std::numeric_limits<int64_t>::max();
        switch (code - kFirstSpecial) {
            case 0:
                return 0;
            case 1:
                return -1;
            case 2:
                return max;
            case 3:
                return std::numeric_limits<int64_t>::min();
            case 4:
                return (int64_t(1) << 31) - 1;
            case 5:
                return int64_t(1) << 31;
            case 6:
                return int64_t(1) << 32;
            case 7:
                return (int64_t(1) << 32) + 1;
            case 8:
                return int64_t(1) << 62;
            case 9:
                return max - 1;
            case 10:
                return 3037000500;  // just above sqrt(INT64_MAX): the square overflows
            case 11:
                return int64_t(1) << 40;
            case 12:
                return 2097152;  // 2^21: the cube is 2^63, one past INT64_MAX
            case 13:
                return -2;
            case 14:
                return high == max ? max : high + 1;
            default:
                return i64();
        }
    }

    const uint8_t *data_;
    size_t size_;
    size_t position_ = 0;
};

// aclDataType and aclFormat have no fixed underlying type: their values span [-64, 63], and C++ code
// may not form others. Values outside that span are folded into it.
inline int enumValue(int64_t value) {
    if (value >= -64 && value <= 63) return static_cast<int>(value);
    return static_cast<int>(((value % 128) + 128) % 128) - 64;
}

// A small deterministic generator for element values, seeded from the input (so the bytes of an input
// describe a call, not every element of its tensors).
class SplitMix {
public:
    explicit SplitMix(uint64_t seed) : state_(seed) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    int64_t uniform(int64_t low, int64_t high) {  // inclusive, small ranges only
        return low + static_cast<int64_t>(next() % static_cast<uint64_t>(high - low + 1));
    }

private:
    uint64_t state_;
};

}  // namespace poolgrad_fuzz
