// Whether operators write large outputs with streaming (non-temporal) stores: a process-wide choice that
// plans read in phase 1 (poolgradSetStreamingStores, POOLGRAD_STREAMING_STORES). Streaming stores send an
// output past the caches: from DRAM (a cold cache full of other data) they save reading every output line
// first and evicting the operands, but when the operands are already in the last-level cache (the same
// buffers run again and again) they push the output out to DRAM where ordinary stores would leave it in
// the cache. Measured both ways on the Zen 4 host (bench/analysis.md): automatic is 1.2-2.0x faster cold
// and 1.1-2.3x slower warm than never, on outputs of 8-16 MiB (two sessions, several runs).
#pragma once

#include <cstdint>

namespace poolgrad {

enum class StreamingStores : int32_t {
    Automatic = 1,  // outputs over 4 MiB, where the kernel's pieces allow (streamingStoresPay)
    Never = 2,      // ordinary stores only
    Always = 3,     // every output, where the kernel's pieces allow
};

// The choice in force: the one set by poolgradSetStreamingStores, else POOLGRAD_STREAMING_STORES
// ("automatic", "never" or "always"), else Automatic.
StreamingStores streamingStoresChoice();

}  // namespace poolgrad
