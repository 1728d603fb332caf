// How the harness reports a finding: a message naming the rule that broke, then abort(), which libFuzzer
// records as a crash with the input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace poolgrad_fuzz {

[[noreturn]] inline void reportDefect(const std::string &what) {
    std::fprintf(stderr, "\n==poolgrad-fuzz== DEFECT: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

template <typename... Parts>
std::string text(const Parts &...parts) {
    std::ostringstream out;
    (out << ... << parts);
    return out.str();
}

#define FUZZ_REQUIRE(condition, ...)                                                         \
    do {                                                                                     \
        if (!(condition)) ::poolgrad_fuzz::reportDefect(::poolgrad_fuzz::text(__VA_ARGS__)); \
    } while (0)

}  // namespace poolgrad_fuzz
