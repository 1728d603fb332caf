// The library's streaming-store choice (poolgradSetStreamingStores) for a scope; the default is restored after.
#pragma once

#include <cstdint>

#include "poolgrad/poolgrad.h"

namespace test_support {

class StreamingStoresSetting {
public:
    explicit StreamingStoresSetting(int32_t choice) { poolgradSetStreamingStores(choice); }
    ~StreamingStoresSetting() { poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_DEFAULT); }
    StreamingStoresSetting(const StreamingStoresSetting &) = delete;
    StreamingStoresSetting &operator=(const StreamingStoresSetting &) = delete;
};

}  // namespace test_support
