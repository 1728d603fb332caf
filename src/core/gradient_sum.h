// Adding gradients into a float32 sum with a NaN result that does not depend on code generation.
#pragma once

namespace poolgrad {

// IEEE 754 leaves the payload of NaN + NaN to the implementation; x86 and AArch64 keep the first
// operand's. A plain `sum += value` lets the compiler choose which operand comes first, and it chooses
// differently in different loops, so two implementations (or one at two thread counts) could give different
// NaN bits. Here the sum is always the first operand: a sum that is already NaN keeps its NaN, a NaN
// gradient reaching a number comes out quiet with its payload, and Inf + -Inf gives the platform's default
// NaN. On other CPUs the same rule is written as a test.
inline float addToSum(float sum, float value) {
#if defined(__x86_64__) && defined(__SSE__)
    __asm__("addss %1, %0" : "+x"(sum) : "x"(value));
    return sum;
#elif defined(__aarch64__)
    __asm__("fadd %s0, %s0, %s1" : "+w"(sum) : "w"(value));
    return sum;
#else
    return sum != sum ? sum : sum + value;
#endif
}

}  // namespace poolgrad
