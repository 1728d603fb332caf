// Whether this test binary is built with a sanitizer, so that the longest loops can run fewer times there.
// g++ defines __SANITIZE_*__; clang only answers __has_feature.
#pragma once

namespace test_support {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool sanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool sanitizerBuild = true;
#else
constexpr bool sanitizerBuild = false;
#endif
#else
constexpr bool sanitizerBuild = false;
#endif

}  // namespace test_support
