// Row-wise SIMD helpers with run-time dispatch (Google Highway): the best instruction set of the
// running CPU is chosen on first use, so the library runs on any x86-64 (and builds on aarch64).
#pragma once

#include <cstdint>

#include "core/data_type.h"

namespace poolgrad::cpu {

// Converts count float32 sums to `type` (round to nearest even, NaN stays NaN) and stores them at
// destination. With streaming, full vectors bypass the caches (non-temporal stores): for outputs much
// larger than the cache that will not be read again soon.
void storeFloatRow(ElementType type, const float *source, void *destination, int64_t count, bool streaming);

// Orders preceding streaming stores before later loads and stores (call once after a parallel region).
void streamingStoreFence();

}  // namespace poolgrad::cpu
