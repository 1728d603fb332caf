// Test-side conversions between float and the 16-bit formats, written independently of src/ with
// arithmetic (frexp/ldexp and an explicit round-half-even) instead of bit tricks.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace test_support {

inline float floatFromBits(uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

inline uint32_t bitsFromFloat(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

// Rounds a finite non-negative double to an integer, ties to even.
inline double roundHalfEven(double value) {
    const double floorValue = std::floor(value);
    const double fraction = value - floorValue;
    if (fraction > 0.5) return floorValue + 1;
    if (fraction < 0.5) return floorValue;
    return std::fmod(floorValue, 2.0) == 0.0 ? floorValue : floorValue + 1;
}

// Generic IEEE binary format with `mantissaBits` stored fraction bits and exponent bias `bias`.
inline uint16_t encodeSmallFloat(float value, int mantissaBits, int exponentBits) {
    const int bias = (1 << (exponentBits - 1)) - 1;
    const uint16_t signBit = std::signbit(value) ? uint16_t(1u << (mantissaBits + exponentBits)) : uint16_t(0);
    const uint16_t infinity = uint16_t(((1u << exponentBits) - 1) << mantissaBits);
    if (std::isnan(value)) return uint16_t(signBit | infinity | (1u << (mantissaBits - 1)));
    const double magnitude = std::fabs(static_cast<double>(value));
    if (std::isinf(value)) return uint16_t(signBit | infinity);
    if (magnitude == 0.0) return signBit;
    const int minExponent = 1 - bias;  // exponent of the smallest normal
    int exponent;
    std::frexp(magnitude, &exponent);                    // magnitude = f * 2^exponent, f in [0.5, 1)
    exponent -= 1;                                       // now magnitude = m * 2^exponent, m in [1, 2)
    if (exponent < minExponent) exponent = minExponent;  // subnormal range shares the minimum scale
    double scaled = roundHalfEven(std::ldexp(magnitude, mantissaBits - exponent));
    if (scaled >= std::ldexp(1.0, mantissaBits + 1)) {  // rounding carried into the next binade
        scaled /= 2;
        exponent += 1;
    }
    if (exponent > bias) return uint16_t(signBit | infinity);
    const bool normal = scaled >= std::ldexp(1.0, mantissaBits);
    const uint32_t biasedExponent = normal ? uint32_t(exponent + bias) : 0u;
    const uint32_t fraction = uint32_t(scaled) & ((1u << mantissaBits) - 1u);
    return uint16_t(signBit | (biasedExponent << mantissaBits) | fraction);
}

inline double decodeSmallFloat(uint16_t bits, int mantissaBits, int exponentBits) {
    const int bias = (1 << (exponentBits - 1)) - 1;
    const bool negative = (bits >> (mantissaBits + exponentBits)) & 1u;
    const uint32_t exponent = (bits >> mantissaBits) & ((1u << exponentBits) - 1u);
    const uint32_t fraction = bits & ((1u << mantissaBits) - 1u);
    double magnitude;
    if (exponent == (1u << exponentBits) - 1u)
        magnitude = fraction ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else if (exponent == 0)
        magnitude = std::ldexp(static_cast<double>(fraction), 1 - bias - mantissaBits);
    else
        magnitude =
            std::ldexp(static_cast<double>(fraction + (1u << mantissaBits)), int(exponent) - bias - mantissaBits);
    return negative ? -magnitude : magnitude;
}

inline uint16_t halfFromFloat(float value) { return encodeSmallFloat(value, 10, 5); }
inline float floatFromHalf(uint16_t bits) { return static_cast<float>(decodeSmallFloat(bits, 10, 5)); }
inline uint16_t bfloat16FromFloat(float value) { return encodeSmallFloat(value, 7, 8); }
inline float floatFromBfloat16(uint16_t bits) { return static_cast<float>(decodeSmallFloat(bits, 7, 8)); }

}  // namespace test_support
