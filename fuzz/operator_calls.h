// Fuzzed calls of the aclnn operators (both phases), judged against the contract and the naive reference.
#pragma once

#include "fuzz_input.h"

namespace poolgrad_fuzz {

// Every operator of include/aclnnop, in the order fuzz/README.md lists them.
constexpr int kOperatorCount = 14;

// Decodes one call of operator `opIndex` (mod kOperatorCount) from `in`, runs it and checks the outcome;
// a broken rule aborts with a message (reportDefect).
void fuzzOperatorCall(FuzzInput &in, int opIndex);

}  // namespace poolgrad_fuzz
