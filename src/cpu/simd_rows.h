// Row-wise SIMD helpers with run-time dispatch (Google Highway): the best instruction set of the
// running CPU is chosen on first use, so the library runs on any x86-64 (and builds on aarch64).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include "core/data_type.h"
#include "core/streaming_stores.h"
#include "core/strided_tensor.h"

namespace poolgrad::cpu {

// Converts count float32 sums to `type` (round to nearest even, NaN stays NaN) and stores them at
// destination. With streaming, full vectors bypass the caches (non-temporal stores): for outputs much
// larger than the cache that will not be read again soon.
void storeFloatRow(ElementType type, const float *source, void *destination, int64_t count, bool streaming);

// Widens count float16 values (bit patterns) to float32, exactly; NaNs come out quiet (payload kept).
void widenFloat16Row(const uint16_t *source, float *destination, int64_t count);

// Widens count bfloat16 values (bit patterns) to float32, exactly (the pattern shifted to the high half).
void widenBFloat16Row(const uint16_t *source, float *destination, int64_t count);

// count values of T (float, Float16 or BFloat16) as float32 at destination: copied, or widened as above.
template <typename T>
void widenRowToFloat(const T *source, float *destination, int64_t count) {
    if constexpr (std::is_same_v<T, float>)
        std::memcpy(destination, source, static_cast<size_t>(count) * sizeof(float));
    else if constexpr (std::is_same_v<T, Float16>)
        widenFloat16Row(reinterpret_cast<const uint16_t *>(source), destination, count);
    else
        widenBFloat16Row(reinterpret_cast<const uint16_t *>(source), destination, count);
}

// One window of a channels-last recompute-argmax backward, across `channels` lanes: for each lane, the
// first of the `positions` input rows (in the order given) equal to target (float ==: NaN never matches,
// +0 == -0) adds that lane's gradient to the same lane of its sums row; rows whose sums pointer is null
// take part in the search but receive nothing (another thread owns them).
void accumulateFirstMatches(const float *const *inputRows, float *const *sumRows, int64_t positions,
                            const float *target, const float *gradient, int64_t channels);

// First-match search of a recompute-argmax backward over `count` consecutive windows of one output row of
// a dense float32 plane (row length `width`), vectorised across the windows: window i covers rows
// [firstRow, firstRow + rowCount) and columns firstColumn + i*stride + [0, kernelWidth), all inside the
// plane (dilation 1). positions[i] becomes the flat plane index (row*width + column) of the first element,
// scanned row-major, equal to targets[i] (float ==: NaN never matches, +0 == -0), or -1 without one.
// Requires rows*width < 2^31.
void firstMatchPositions(const float *plane, int64_t width, int64_t firstRow, int64_t rowCount, int64_t firstColumn,
                         int64_t stride, int64_t kernelWidth, const float *targets, int32_t *positions, int64_t count);

// The same for 3x3 windows at stride 1: window i covers columns i + [0, 3) of rows windowRows, windowRows +
// rowLength and windowRows + 2 * rowLength (rows of NaN where windows reach into padding: nothing matches them),
// and positions[i] becomes firstPosition + kh * rowLength + i + kw of its first match (kh, kw), or a negative
// value without one. The rows must be readable up to column roundUp(count, kThreeByThreeMostLanes) + 1 (the
// last vector's lanes past `count` search too); no target or position past `count` is read or written.
// Requires every position and firstPosition in [-2^29, 2^29).
inline constexpr int32_t kThreeByThreeNoMatch = -(int32_t{1} << 30);
inline constexpr int64_t kThreeByThreeMostLanes = 16;
void firstMatchPositionsThreeByThree(const float *windowRows, int64_t rowLength, int32_t firstPosition,
                                     const float *targets, int32_t *positions, int64_t count);

// Forward argmax over `count` consecutive windows of one output row of a dense float32 plane (row length
// `width`), vectorised across the windows: window i covers the rows listed in rowIndices (plane row
// numbers, in scan order) and columns firstColumn + i*stride + j*dilation (0 <= j < kernelWidth), all
// inside the plane. Scan order rows then columns; the first strictly greater value wins, a NaN wins over
// everything and the last NaN is kept; with no rows the value is -inf and the index -1. values[i] is the
// winning input value bit for bit, indices[i] its flat plane index. Requires rows*width < 2^31.
void argmaxWindows(const float *plane, int64_t width, const int64_t *rowIndices, int64_t rowCount, int64_t firstColumn,
                   int64_t stride, int64_t kernelWidth, int64_t dilation, float *values, int32_t *indices,
                   int64_t count);

// Whether an output should be written with streaming (non-temporal) stores: when it is a good part of a
// last-level cache or more, caching it would only evict the inputs (4 MiB, half the L3 slice of the
// 2-core machines measured; 8 MiB made a 6 MiB output 1.5x slower from DRAM and no faster from L3).
// For writers that stream whole cache lines only (storeFloatRow) and write few long runs (the slab
// scatter's slabs); a kernel that writes row by row asks the overload below.
// poolgradSetStreamingStores can turn the size rule off (never) or make every output qualify (always).
inline std::optional<int64_t> bytesOf(const StridedTensor &output) {
    return checkedMul<int64_t>(output.elementCount(), elementSize(output.type));
}
inline bool outputExceedsCacheShare(const StridedTensor &output) {
    const std::optional<int64_t> bytes = bytesOf(output);
    return !bytes || *bytes > (int64_t{4} << 20);
}

// The choice in force for `bytes` of output (nullopt: more than int64 counts), the automatic one streaming
// outputs over automaticAbove bytes.
inline bool streamingChoiceAllows(std::optional<int64_t> bytes, int64_t automaticAbove) {
    switch (streamingStoresChoice()) {
        case StreamingStores::Never:
            return false;
        case StreamingStores::Always:
            return !bytes || *bytes > 0;
        case StreamingStores::Automatic:
            break;
    }
    return !bytes || *bytes > automaticAbove;
}

inline bool streamingStoresPay(const StridedTensor &output) {
    return streamingChoiceAllows(bytesOf(output), int64_t{4} << 20);
}

// The same for a kernel that writes the output in pieces of pieceElements contiguous elements (a row, a
// plane, a position's channels), streaming its aligned vectors and storing the others plainly. A cache
// line that takes both is read from memory and flushed for each plain store, and the plain stores at
// every piece's ends draw the neighbouring lines into the cache, where the streaming stores must then
// evict them: on the Zen 4 host a gather of 56-wide float32 rows took 2.2x, of 56-wide bfloat16 rows 6x,
// and MaxPoolV3Grad's 3x3 stride 2 rows of 56 (storeFloatRow, plain stores only at the rows' ends) 1.5x
// the time of plain stores throughout. So such a kernel streams only where every piece starts on a
// 64-byte line: the base address, the piece and every
// stride between pieces whole lines (the plan sees the addresses phase 2 will write; another address
// there changes the speed, never the result). A kernel that streams every aligned half line too
// (streamedBytes 32: the stride-2 gather's 16-bit rows) needs only half lines: both halves of a shared line
// are then streamed.
inline bool piecesStartOnLines(const StridedTensor &output, int64_t pieceElements, int64_t streamedBytes = 64) {
    const int64_t bytesPerElement = elementSize(output.type);
    const auto wholeGranules = [&](int64_t elements) {
        const std::optional<int64_t> bytes = checkedMul(elements, bytesPerElement);
        return bytes && *bytes % streamedBytes == 0;
    };
    if (reinterpret_cast<uintptr_t>(output.base) % static_cast<uintptr_t>(streamedBytes) != 0 ||
        !wholeGranules(pieceElements))
        return false;
    for (int axis = 0; axis < 5; ++axis)
        if (output.size[axis] > 1 && output.stride[axis] >= pieceElements && !wholeGranules(output.stride[axis]))
            return false;
    return true;
}
inline bool streamingStoresPay(const StridedTensor &output, int64_t pieceElements, int64_t streamedBytes = 64) {
    return streamingStoresPay(output) && piecesStartOnLines(output, pieceElements, streamedBytes);
}

// The same for a forward that writes its values and indices (when present) side by side, piece by piece: the two
// together against a core's L2 (2 MiB on the Intel host). Measured there (channels-last forward, 2 threads):
// values and indices of 2 MiB each, neither over the single-output rule's 4 MiB, took 0.37 / 0.81 ms warm / cold
// cached and 0.33 / 0.72 streamed; 0.5 MiB each 0.072 / 0.22 and 0.060 / 0.20. Outputs that fit a core's L2 stay
// cached, where the next operator finds them.
inline bool forwardOutputsStreamingPay(const StridedTensor &values, const StridedTensor &indices,
                                       int64_t pieceElements) {
    const bool withIndices = indices.present();
    if (!piecesStartOnLines(values, pieceElements) || (withIndices && !piecesStartOnLines(indices, pieceElements)))
        return false;
    const std::optional<int64_t> valueBytes = bytesOf(values);
    const std::optional<int64_t> indexBytes = withIndices ? bytesOf(indices) : int64_t{0};
    const std::optional<int64_t> bytes =
        valueBytes && indexBytes ? checkedAdd<int64_t>(*valueBytes, *indexBytes) : std::nullopt;
    return streamingChoiceAllows(bytes, int64_t{2} << 20);
}

// Orders the calling thread's preceding streaming stores before its later loads and stores.
void streamingStoreFence();

// A parallel block body that fences its thread's streaming stores when it ends (when `streaming`). sfence
// orders only the stores of the thread that runs it, and streaming stores are weakly ordered: a fence on the
// calling thread after the parallel region leaves the other threads' stores to the region's barrier, whose
// locked instructions order them on the CPUs we know of but not by any architectural rule of them all. One
// fence per block: a few per thread and call.
template <typename Body>
auto fencingStreamingStores(bool streaming, const Body &body) {
    return [&body, streaming](int64_t begin, int64_t end) {
        body(begin, end);
        if (streaming) streamingStoreFence();
    };
}

}  // namespace poolgrad::cpu
