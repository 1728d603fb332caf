// Whether the AVX-512 kernels may round float32 to bfloat16 with the CPU's own instruction (AVX512_BF16's
// vcvtne2ps2bf16, simd_bfloat16-inl.h).
#pragma once

namespace poolgrad::cpu {

// True when the CPU has AVX512_BF16 (asked once).
bool bfloat16HardwareRounding();

}  // namespace poolgrad::cpu
