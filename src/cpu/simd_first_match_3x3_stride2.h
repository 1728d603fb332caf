// The vector core of the 3x3 stride-2 recompute-argmax backward: one output row of windows at a time,
// first matches found and their gradients summed in registers, each gradient row produced whole.
#pragma once

#include <cstdint>

namespace poolgrad::cpu {

// Windows per call are processed a vector at a time; callers pad their window arrays to a multiple of
// this (every vector length divides it) and fill the padding with windows that cannot match.
inline constexpr int64_t kStride2WindowPadding = 64;

// One output row of 3x3 stride-2 windows (dilation 1) over float32 rows in window coordinates: window i's
// taps are columns 2i, 2i+1, 2i+2 of `top`, `middle` and `bottom` (callers pad rows so that every
// window is whole; a tap outside the input holds NaN, which never matches). Each window's gradient goes
// to its first tap, in scan order, equal to its target (float ==: NaN never matches, +0 == -0). Sums are
// float32 from +0 in output order: an element of an even column takes window i-1's tap 2 before window
// i's tap 0, and the top row takes the previous output row's sums first.
//   partialEven/partialOdd [in]: the sums the previous output row left in its bottom row (= this top
//     row), columns 2i and 2i+1 at index i (zeros for the first output row); [out]: this bottom row's.
//   topSums, middleSums [out]: the finished top and middle rows, column x at index x.
// `windows` is a multiple of kStride2WindowPadding; the rows hold 2*windows + 2 columns, the partial
// arrays windows + 1 entries and the sums rows 2*windows + 2.
void sumFirstMatches3x3Stride2(const float *top, const float *middle, const float *bottom, const float *targets,
                               const float *gradients, int64_t windows, float *partialEven, float *partialOdd,
                               float *topSums, float *middleSums);

// The same over float32 rows read where they lie, for padLeft 0, 1 or 2: rows[r] holds inputWidth columns
// (nullptr: a row outside the input), targets and gradients outputWidth windows; window i's taps are
// columns 2i - padLeft + {0, 1, 2}, and those outside [0, inputWidth) never match. partialEven/partialOdd
// as above, for outputWidth rounded up to kStride2WindowPadding. topOut and middleOut [out]: the finished
// top and middle rows, inputWidth columns each, every one written once, so they may be float32 gradInput
// rows themselves; with streaming their aligned vectors bypass the caches.
void sumFirstMatches3x3Stride2InPlace(const float *const *rows, int64_t inputWidth, int64_t padLeft,
                                      const float *targets, const float *gradients, int64_t outputWidth,
                                      float *partialEven, float *partialOdd, float *topOut, float *middleOut,
                                      bool streaming);

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

}  // namespace poolgrad::cpu
