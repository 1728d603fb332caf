// Overflow-checked arithmetic for every place where sizes meet: dims, strides, offsets, kernel volumes and
// byte counts. Each operation returns an empty optional instead of wrapping, so a caller can refuse the
// argument with a message before any pointer or loop bound is formed from the result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>

namespace poolgrad {

template <typename Integer>
std::optional<Integer> checkedAdd(Integer a, Integer b) {
    Integer sum;
    if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
    return sum;
}

// The sum of two checked results: empty when either is.
template <typename Integer>
std::optional<Integer> checkedAdd(std::optional<Integer> a, std::optional<Integer> b) {
    return a && b ? checkedAdd(*a, *b) : std::nullopt;
}

template <typename Integer>
std::optional<Integer> checkedSub(Integer a, Integer b) {
    Integer difference;
    if (__builtin_sub_overflow(a, b, &difference)) return std::nullopt;
    return difference;
}

template <typename Integer>
std::optional<Integer> checkedMul(Integer a, Integer b) {
    Integer product;
    if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
    return product;
}

// Product of a list of non-negative extents. A zero anywhere makes the product 0 even when the other
// factors would overflow (an empty tensor of shape {0, 2^62, 2^62} has 0 elements).
template <typename Integer>
std::optional<Integer> checkedProduct(std::span<const Integer> factors) {
    for (Integer factor : factors)
        if (factor == 0) return Integer{0};
    Integer product = 1;
    for (Integer factor : factors) {
        if (__builtin_mul_overflow(product, factor, &product)) return std::nullopt;
    }
    return product;
}

template <typename Integer>
std::optional<Integer> checkedProduct(std::initializer_list<Integer> factors) {
    return checkedProduct(std::span<const Integer>(factors.begin(), factors.size()));
}

// For estimates only (how much work a loop does, to pick a thread count), where clamping an absurd value
// to the largest one changes nothing: non-negative a and b, the result saturated at the type's maximum.
template <typename Integer>
Integer saturatingAdd(Integer a, Integer b) {
    return checkedAdd(a, b).value_or(std::numeric_limits<Integer>::max());
}

template <typename Integer>
Integer saturatingMul(Integer a, Integer b) {
    return checkedMul(a, b).value_or(std::numeric_limits<Integer>::max());
}

}  // namespace poolgrad
