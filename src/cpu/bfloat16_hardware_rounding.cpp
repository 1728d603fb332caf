#include "cpu/bfloat16_hardware_rounding.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace poolgrad::cpu {
namespace {

bool cpuHasAvx512BFloat16() {
#if defined(__x86_64__) || defined(__i386__)
    // CPUID leaf 7, sub-leaf 1: EAX bit 5. The AVX-512 register state the instruction needs is enabled
    // wherever Highway chose an AVX-512 target, the only targets that use it.
    if (__get_cpuid_max(0, nullptr) < 7) return false;
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    __cpuid_count(7, 1, eax, ebx, ecx, edx);
    return (eax & (1u << 5)) != 0;
#else
    return false;
#endif
}

}  // namespace

bool bfloat16HardwareRounding() {
    static const bool cpuHasIt = cpuHasAvx512BFloat16();
    return cpuHasIt;
}

}  // namespace poolgrad::cpu
