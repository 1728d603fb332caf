// Writing a plane of float32 that is zero except in a few lines (the sparse index scatter backward): one
// pass from the plane's start to its end, so that with streaming stores every line is written once and
// none is read.
#pragma once

#include <cstdint>

namespace poolgrad::cpu {

// Positions per line: a 64-byte cache line of float32.
inline constexpr int64_t kSparsePlaneLine = 16;

// Writes `elements` float32 at destination, line by line (line l: positions [16 l, 16 l + 16)): where bit l of
// touchedLines (bit l % 64 of word l / 64) is set, the line's values from slots + 16 * slotOfLine[l], else +0.
// Streaming: vectors at aligned addresses bypass the caches.
void writeSparsePlane(float *destination, int64_t elements, const uint64_t *touchedLines, const int32_t *slotOfLine,
                      const float *slots, bool streaming);

}  // namespace poolgrad::cpu
