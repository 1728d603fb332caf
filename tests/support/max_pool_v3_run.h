// Two-phase calls of aclnnMaxPoolV3Grad and aclnnMaxPoolV3WithAttrs for tests, and operands for them:
// logical (N,C,H,W) host values placed into NCHW or NHWC test tensors of any strides and offset.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "reference/naive_max_pool_v3.h"
#include "support/test_seed.h"
#include "support/test_tensor.h"
#include "support/two_phase_run.h"

namespace max_pool_v3_test {

// Attributes exactly as passed to the operators (nullptr strings and a missing pads list = defaults).
struct V3Attributes {
    std::vector<int64_t> ksize;
    std::vector<int64_t> strides;
    const char *paddingMode = nullptr;
    std::optional<std::vector<int64_t>> pads;
    const char *dataFormat = nullptr;
    bool globalPooling = false;
    bool ceilMode = false;
};

using V3Status = test_support::TwoPhaseStatus;

// The attributes that pass `params` (the naive reference's description of a problem) to the operators:
// ksize and strides of length 4 in the data format's order, pads of length 4, the data format's name.
V3Attributes attributesFor(const reference::MaxPoolV3Params &params, bool nhwc);
// "fp16 NHWC n1c2h5w7 k2x3 s1x2 CALCULATED pads[0,1,0,0] ceil1 out4x3" for a random case's trace.
std::string describeProblem(aclDataType type, bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w,
                            const reference::MaxPoolV3Params &params, int64_t outH, int64_t outW);

V3Status runMaxPoolV3Grad(const aclTensor *origInput, const aclTensor *origOutput, const aclTensor *grad,
                          const V3Attributes &attributes, aclTensor *outGrad);
V3Status runMaxPoolV3WithAttrs(const aclTensor *x, const V3Attributes &attributes, aclTensor *y);

// Memory layouts of a rank-4 test operand.
enum class Storage {
    Contiguous,      // row-major over the view shape
    Permuted,        // dense, dimensions stored in a random order
    Gapped,          // row-major with padding after every dimension and an element offset
    PermutedGapped,  // both
};
const char *storageName(Storage storage);

// A rank-4 test tensor of the given view shape, stored as `storage` asks (random parts drawn from rng).
test_support::TestTensor makeOperand(const std::vector<int64_t> &shape, aclDataType type, Storage storage,
                                     std::mt19937 &rng, aclFormat format = ACL_FORMAT_ND);

// The view shape of an (n, c, h, w) operand for the data format.
std::vector<int64_t> layoutShape(bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w);
// Flat (row-major over the view) index of logical element (n, c, h, w).
int64_t layoutIndex(bool nhwc, int64_t c, int64_t h, int64_t w, int64_t n, int64_t ci, int64_t hi, int64_t wi);

// Writes logical (N,C,H,W) values into a tensor of layoutShape(nhwc, ...), converting to its dtype.
void storeLogical(test_support::TestTensor &tensor, bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w,
                  const std::vector<double> &values);
// Reads back logical (N,C,H,W) values (exactly as stored, widened to float).
std::vector<float> loadLogical(const test_support::TestTensor &tensor, bool nhwc, int64_t n, int64_t c, int64_t h,
                               int64_t w);
// Raw element bits of logical (N,C,H,W) order.
std::vector<uint64_t> loadLogicalBits(const test_support::TestTensor &tensor, bool nhwc, int64_t n, int64_t c,
                                      int64_t h, int64_t w);

// The bits of `value` rounded once to `type` (independent conversions of support/float_bits.h).
uint64_t bitsIn(aclDataType type, float value);
bool bitsAreNan(aclDataType type, uint64_t bits);

// Shared by the MaxPoolV3 test files.
test_support::TestTensor filled(const std::vector<int64_t> &shape, aclDataType type, const std::vector<double> &values);
// Every element bit for bit (so -0 != +0); a NaN expectation needs some NaN; nothing outside the view.
void expectBits(const test_support::TestTensor &tensor, const std::vector<double> &expected, const char *what);
void expectSuccess(const V3Status &status);
// One fresh seed per process (POOLGRAD_TEST_SEED reproduces it), and the fixed seeds plus it.
using test_support::freshSeed;
using test_support::seedsWith;
using test_support::seedTrace;

}  // namespace max_pool_v3_test
