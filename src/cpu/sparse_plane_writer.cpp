// Highway implementation of sparse_plane_writer.h: one source compiled for every target Highway supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/sparse_plane_writer.cpp"
#include "cpu/sparse_plane_writer.h"

#include "hwy/foreach_target.h"  // must precede highway.h
#include "hwy/highway.h"
// clang-format off: simd_store-inl.h needs highway.h first
#include "cpu/simd_store-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace poolgrad::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void WriteSparsePlane(float *HWY_RESTRICT destination, int64_t elements, const uint64_t *HWY_RESTRICT touchedLines,
                      const int32_t *HWY_RESTRICT slotOfLine, const float *HWY_RESTRICT slots, bool streaming) {
    const hn::CappedTag<float, kSparsePlaneLine> d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const auto zero = hn::Zero(d);
    const int64_t wholeLines = elements / kSparsePlaneLine;
    // Without vector alignment every store would take the cached path anyway (storeVector checks).
    const bool stream = streaming && reinterpret_cast<uintptr_t>(destination) % (lanes * sizeof(float)) == 0;
    for (int64_t first = 0; first < wholeLines; first += 64) {
        const int64_t end = first + 64 < wholeLines ? first + 64 : wholeLines;
        uint64_t bits = touchedLines[first / 64];
        float *to = destination + first * kSparsePlaneLine;
        for (int64_t line = first; line < end; ++line, bits >>= 1, to += kSparsePlaneLine) {
            if (bits & 1) {
                const float *from = slots + static_cast<int64_t>(slotOfLine[line]) * kSparsePlaneLine;
                for (int64_t i = 0; i < kSparsePlaneLine; i += lanes)
                    storeVector(d, hn::LoadU(d, from + i), to + i, stream);
            } else {
                for (int64_t i = 0; i < kSparsePlaneLine; i += lanes) storeVector(d, zero, to + i, stream);
            }
        }
    }
    // A last partial line, one by one.
    const int64_t line = wholeLines, first = line * kSparsePlaneLine;
    if (first == elements) return;
    const bool touched = (touchedLines[line / 64] >> (line % 64)) & 1;
    for (int64_t i = first; i < elements; ++i)
        destination[i] =
            touched ? slots[static_cast<int64_t>(slotOfLine[line]) * kSparsePlaneLine + (i - first)] : 0.0f;
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace poolgrad::cpu {

HWY_EXPORT(WriteSparsePlane);

void writeSparsePlane(float *destination, int64_t elements, const uint64_t *touchedLines, const int32_t *slotOfLine,
                      const float *slots, bool streaming) {
    HWY_DYNAMIC_DISPATCH(WriteSparsePlane)(destination, elements, touchedLines, slotOfLine, slots, streaming);
}

}  // namespace poolgrad::cpu
#endif
