// Fuzzed calls of the descriptor and runtime API (creation, queries, destroys, misuse, device memory).
#pragma once

#include "fuzz_input.h"

namespace poolgrad_fuzz {

constexpr int kRuntimeCommandCount = 4;

// Command 0: aclCreateTensor and its queries; 1: arrays, scalars, tensor lists; 2: misuse (double
// destroys, stale/foreign executors, handle reuse); 3: aclrtMalloc/aclrtMallocHost of any size.
void fuzzRuntimeCall(FuzzInput &in, int command);

}  // namespace poolgrad_fuzz
