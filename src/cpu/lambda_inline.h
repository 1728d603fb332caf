// POOLGRAD_LAMBDA_INLINE: forces a lambda inline into the SIMD loop that calls it (written after its parameter
// list). Out of line, the lambda's vector arguments and results go through memory.
#pragma once

#ifndef POOLGRAD_LAMBDA_INLINE
#define POOLGRAD_LAMBDA_INLINE __attribute__((always_inline))
#endif
