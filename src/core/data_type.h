// Element types the kernels handle, and exact conversions between them and float32.
// 16-bit floats are stored as bit patterns; widening is exact, narrowing rounds to nearest even.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"

namespace poolgrad {

struct Float16 {
    uint16_t bits;
};
struct BFloat16 {
    uint16_t bits;
};

inline float toFloat(float value) { return value; }

inline float toFloat(BFloat16 value) { return std::bit_cast<float>(static_cast<uint32_t>(value.bits) << 16); }

inline float toFloat(Float16 value) {
    const uint32_t sign = static_cast<uint32_t>(value.bits & 0x8000u) << 16;
    const uint32_t exponent = (value.bits >> 10) & 0x1fu;
    uint32_t mantissa = value.bits & 0x3ffu;
    if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    if (exponent != 0) return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
    if (mantissa == 0) return std::bit_cast<float>(sign);
    // Subnormal half: normalise it, every subnormal half is a normal float.
    int shift = 0;
    while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        ++shift;
    }
    return std::bit_cast<float>(sign | (static_cast<uint32_t>(113 - shift) << 23) | ((mantissa & 0x3ffu) << 13));
}

template <typename T>
T fromFloat(float value);

template <>
inline float fromFloat<float>(float value) {
    return value;
}

template <>
inline BFloat16 fromFloat<BFloat16>(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return BFloat16{static_cast<uint16_t>((bits >> 16) | 0x40u)};
    const uint32_t roundingBias = 0x7fffu + ((bits >> 16) & 1u);
    return BFloat16{static_cast<uint16_t>((bits + roundingBias) >> 16)};
}

template <>
inline Float16 fromFloat<Float16>(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) return Float16{static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu))};
    if (magnitude >= 0x477ff000u) return Float16{static_cast<uint16_t>(sign | 0x7c00u)};  // rounds to >= 65520: Inf
    if (magnitude >= 0x38800000u) {                                                       // normal half range
        const uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
        return Float16{static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13))};
    }
    if (magnitude < 0x33000000u) return Float16{sign};  // below half the smallest subnormal: zero
    // Subnormal half: shift the full significand right, rounding to nearest even.
    const uint32_t exponent = magnitude >> 23;
    const uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - exponent;  // 14 + (112 - exponent) + ... keeps result in 10 bits
    const uint32_t halfway = 1u << (shift - 1);
    uint32_t result = significand >> shift;
    const uint32_t remainder = significand & ((1u << shift) - 1u);
    if (remainder > halfway || (remainder == halfway && (result & 1u))) ++result;
    return Float16{static_cast<uint16_t>(sign | result)};
}

// Int8 .. UInt16 are values of aclnnMaxPool only and Float64 of aclnnAdaptiveMaxPool2d only: the planar
// forward kernels handle them; every other kernel sees Float32, Float16 or BFloat16 values. Int32 and Int64
// are also indices.
enum class ElementType { Float32, Float16, BFloat16, Int32, Int64, Int8, UInt8, Int16, UInt16, Float64 };

// The value types every kernel (and the SIMD searches) handles.
inline bool isCommonValueType(ElementType type) {
    return type == ElementType::Float32 || type == ElementType::Float16 || type == ElementType::BFloat16;
}

inline size_t elementSize(ElementType type) {
    switch (type) {
        case ElementType::Int8:
        case ElementType::UInt8:
            return 1;
        case ElementType::Float16:
        case ElementType::BFloat16:
        case ElementType::Int16:
        case ElementType::UInt16:
            return 2;
        case ElementType::Float32:
        case ElementType::Int32:
            return 4;
        case ElementType::Int64:
        case ElementType::Float64:
            return 8;
    }
    return 0;
}

inline const char *elementTypeName(ElementType type) {
    switch (type) {
        case ElementType::Float32:
            return "float32";
        case ElementType::Float16:
            return "float16";
        case ElementType::BFloat16:
            return "bfloat16";
        case ElementType::Int32:
            return "int32";
        case ElementType::Int64:
            return "int64";
        case ElementType::Int8:
            return "int8";
        case ElementType::UInt8:
            return "uint8";
        case ElementType::Int16:
            return "int16";
        case ElementType::UInt16:
            return "uint16";
        case ElementType::Float64:
            return "float64";
    }
    return "?";
}

}  // namespace poolgrad
