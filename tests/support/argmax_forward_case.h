// A forced run of one argmax forward implementation on a float32 input given bit for bit, checked against the
// naive reference (tests/reference): every index, and every value bit for bit the element the reference names
// (-inf for an empty window). Shared by the suites of the vector forwards (stride-2 searches).
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "reference/naive_pooling.h"
#include "support/max_pool3d_run.h"

namespace test_support {

struct ArgmaxForwardCase {
    reference::Shape5 input{};  // N, C, D, H, W
    reference::Pool3dParams params;
    aclDataType indexType = ACL_INT32;
    aclDataType valueType = ACL_FLOAT;  // ACL_FLOAT, ACL_FLOAT16 or ACL_BF16
    bool channelsLast = false;          // every operand stored NDHWC
    std::vector<int64_t> inputStrides;  // when given, the input's strides (N, C, D, H, W), offset 0
    std::vector<uint32_t> bits;         // the input's bit patterns (16-bit ones in the low half), logical row-major

    std::string describe() const;
};

// The float32 bit patterns of tieHeavyBits as float16 or bfloat16 ones: each value converted (3e38 becomes
// float16's +inf), each NaN a NaN of that type with the same sign and quiet or signalling kind.
std::vector<uint32_t> sixteenBitPatterns(const std::vector<uint32_t> &float32Bits, aclDataType type);

// Runs the case through aclnnMaxPool3dWithArgmax with `implementation` forced on `threads` threads, checks
// through poolgradGetLastRunReport that it ran, compares every output (failures are reported with the first
// five outputs that differ) and returns the indices written.
std::vector<int64_t> checkArgmaxForward(const ArgmaxForwardCase &c, const char *implementation, int threads);

// Float32 bits drawn from a few values (ties everywhere), with NaNs of several payloads (quiet, signalling,
// negative) at nanChance, +-inf, -0, and at hugeChance +-3e38 (products that overflow: the fast searches'
// detectors' false alarms). finite: no infinities either, so that a detector built from products of taps lets
// the fast search's results stand.
std::vector<uint32_t> tieHeavyBits(std::mt19937_64 &rng, int64_t count, double nanChance, double hugeChance = 0,
                                   bool finite = false);

// Whether the windows give at least one output along every axis of the input.
bool hasOutputs(const reference::Shape5 &input, const reference::Pool3dParams &params);

// 2-D windows 3x3 at stride 2 with the given paddings (the depth axis one plane, window 1).
reference::Pool3dParams threeByThreeStride2(int64_t padH, int64_t padW);
// 2-D windows kernelH x kernelW at stride 1 with the given paddings (the depth axis one plane, window 1).
reference::Pool3dParams stride1Windows(int64_t kernelH, int64_t kernelW, int64_t padH, int64_t padW);
// aclnnMaxPool3dWithArgmax's argument lists for the windows.
MaxPool3dLists listsOf(const reference::Pool3dParams &params);

// A NaN (every third time two, one of them negative) moved over every position of one plane of each
// (height, width), tie-heavy finite values elsewhere, under square stride-1 windows of each kernel with padding
// kernel / 2, through checkArgmaxForward on one thread.
void checkNaNInEveryPosition(const char *implementation, const std::vector<std::array<int64_t, 2>> &heightsWidths,
                             const std::vector<int64_t> &kernels, uint64_t seed);

// aclnnMaxPoolV3WithAttrs (values only) forced onto `implementation` on 2x3 planes of height x width under square
// stride-1 windows of `kernel` with padding `pad`, on 1-3 threads, for each of `dataKinds` kinds of data: NaNs and
// infinities; finite values with -0 among the +0 ties; finite values without -0. Every output must have the bits of
// the element the reference names.
void checkStride1ValuesOnly(const char *implementation, int64_t height, int64_t width, int64_t kernel, int64_t pad,
                            int dataKinds, uint64_t seed);

}  // namespace test_support
