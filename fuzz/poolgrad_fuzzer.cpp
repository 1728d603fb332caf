// libFuzzer entry point of poolgrad: an input is a short program of commands (fuzz/README.md), each an
// operator call (both phases, judged against the contract and the naive reference) or a descriptor/runtime
// API call. Any broken rule, sanitizer report or leak is a crash with the input that caused it.
#include <cstddef>
#include <cstdint>

#include "acl/acl.h"
#include "fuzz_input.h"
#include "operator_calls.h"
#include "poolgrad/poolgrad.h"
#include "runtime_calls.h"

// Absurd allocation sizes are part of the API under test: ASan returns null for them as malloc would,
// instead of aborting.
extern "C" const char *__asan_default_options() { return "allocator_may_return_null=1:detect_leaks=1"; }
extern "C" const char *__ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }

namespace {
constexpr int kMaxCommands = 4;
constexpr int kFirstRuntimeCode = 12;
}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    aclInit(nullptr);
    poolgradSetNumThreads(1);  // fast and reproducible; an input asks for 2 threads per call
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    poolgrad_fuzz::FuzzInput in(data, size);
    for (int command = 0; command < kMaxCommands && !in.exhausted(); ++command) {
        // Codes 0-11 the first twelve operators, 12-15 the runtime commands, 16-17 the operators added later
        // (aclnnMaxPool, aclnnMaxPoolV3), so that the checked-in inputs (command bytes below 16) keep their meaning.
        const int code = in.byte() % (poolgrad_fuzz::kOperatorCount + poolgrad_fuzz::kRuntimeCommandCount);
        if (code < kFirstRuntimeCode)
            poolgrad_fuzz::fuzzOperatorCall(in, code);
        else if (code < kFirstRuntimeCode + poolgrad_fuzz::kRuntimeCommandCount)
            poolgrad_fuzz::fuzzRuntimeCall(in, code - kFirstRuntimeCode);
        else
            poolgrad_fuzz::fuzzOperatorCall(in, code - poolgrad_fuzz::kRuntimeCommandCount);
    }
    return 0;
}
