// The vector core of the 3x3 stride-2 recompute-argmax backward: one output row of windows at a time,
// first matches found and their gradients summed in registers, each gradient row produced whole.
#pragma once

#include <cstdint>

namespace poolgrad::cpu {

// Callers size their partial sums for this many windows at a time (every vector length divides it).
inline constexpr int64_t kStride2WindowPadding = 64;

// One output row of 3x3 stride-2 windows (dilation 1) over float32 rows, read where they lie, for padLeft
// 0, 1 or 2: rows[r] (top, middle, bottom) holds inputWidth columns (nullptr: a row outside the input),
// targets and gradients outputWidth windows; window i's taps are columns 2i - padLeft + {0, 1, 2}, and a
// tap outside [0, inputWidth) never matches (nor does a NaN: callers that pad rows themselves fill the
// padding with NaN and pass padLeft 0). Each window's gradient goes to its first tap, in scan order, equal
// to its target (float ==: NaN never matches, +0 == -0). Sums are float32 from +0 in output order: an
// element of an even column takes window i-1's tap 2 before window i's tap 0, and the top row takes the
// previous output row's sums first.
//   partialEven/partialOdd [in]: the sums the previous output row left in its bottom row (= this top
//     row), input columns 2i - padLeft and 2i + 1 - padLeft at index i (zeros for the first output row);
//     [out]: this bottom row's. Each holds outputWidth rounded up to kStride2WindowPadding, plus one,
//     entries.
//   topOut, middleOut [out]: the finished top and middle rows, inputWidth columns each, every one written
//     once, so they may be float32 gradInput rows themselves; with streaming their aligned vectors bypass
//     the caches.
void sumFirstMatches3x3Stride2(const float *const *rows, int64_t inputWidth, int64_t padLeft, const float *targets,
                               const float *gradients, int64_t outputWidth, float *partialEven, float *partialOdd,
                               float *topOut, float *middleOut, bool streaming);

// The same for channels-last rows, across `channels` lanes: rows[r] holds inputWidth positions of
// `channels` values (nullptr: a row outside the input, whose taps never match), targets and gradients
// outputWidth positions; window ow's taps are columns 2*ow - padLeft + {0, 1, 2}, those outside
// [0, inputWidth) never match. partial [in]: the previous output row's sums of this top row (zeros for
// the first), [out]: this bottom row's; topSums and middleSums [out]: the finished rows. Every column of
// the three rows is written once (rows of inputWidth * channels floats), so topSums and middleSums may
// be float32 gradInput rows themselves; with streaming their aligned vectors bypass the caches.
// carries: 3 * channels floats of scratch (a block's last column, handed to the next block of windows).
void sumFirstMatches3x3Stride2AcrossChannels(const float *const *rows, const float *targets, const float *gradients,
                                             int64_t outputWidth, int64_t inputWidth, int64_t padLeft, int64_t channels,
                                             float *partial, float *topSums, float *middleSums, float *carries,
                                             bool streaming);

// Bytes of the float32 vector the channels-last rows above use on this CPU (4 for one lane). Narrower than
// a 64-byte line (AVX2, SSE4), their walk takes two adjacent vectors as one group of channels.
int64_t firstMatchVectorBytes();

}  // namespace poolgrad::cpu
