// Phase-1 validation of the adaptive operators (SPEC §7.2 forward, §5 backward; both the 3-D operators and the
// 2-D ones of §8, whose rows are the same on (N,)C,H,W tensors) and the key rows of the 2-D max-pool wrappers
// (aclnnMaxPool2dWithIndices / WithMask and their backwards: §7.1 and §4 rows applied to (N,)C,H,W, with the
// INT8 mask of §8). Every row of the table starts from a valid call of one operator and breaks one rule; the
// table harness (support/validation_cases.h) checks the exact code, that *executor and *workspaceSize were
// cleared (SPEC §1.2), that aclGetRecentErrMsg() names the argument and that no output was written. Order
// rows break two rules at once and check which one is reported. Empty tensors (the tests after the table):
// success, workspace 0, and the backward zero-fills gradInput.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "support/adaptive_and_2d_call.h"
#include "support/test_tensor.h"
#include "support/validation_cases.h"

namespace {

using namespace adaptive_and_2d_test;

constexpr aclnnStatus kNull = ACLNN_ERR_PARAM_NULLPTR;
constexpr aclnnStatus kInvalid = ACLNN_ERR_PARAM_INVALID;

// A backward with an empty gradOutput: succeeds and writes +0.0 over all of gradInput.
void expectZeroFilledGradInput(const Case &c) {
    Invocation invocation(c);
    test_support::expectAcceptedAndRuns(invocation);
    TestTensor &gradInput = invocation.tensor("gradInput");
    for (int64_t i = 0; i < gradInput.elementCount(); ++i) ASSERT_EQ(gradInput.bitsAt(i), 0u) << "element " << i;
}

std::string text(aclDataType type) { return test_support::typeName(type); }
std::string text(aclFormat format) { return test_support::formatName(format); }

// The output whose dtype, rank or format is compared with self's.
std::string outputName(const Case &c) {
    return c.tensors.count("outputOut") ? "outputOut" : c.tensors.count("out") ? "out" : "gradInput";
}

// Leading dim `dim` (N or C) of `tensor` and its companion differs from self's.
void addLeadingDimRows(Rows &rows, Op op, const std::string &name, const std::string &tensor,
                       const std::string &companion) {
    for (int dim : {0, 1})
        rows.push_back(row(op, name + "_dim" + std::to_string(dim),
                           [=](Case &c) {
                               c[tensor].shape[dim] += 1;
                               c[companion].shape[dim] += 1;
                           },
                           kInvalid, {tensor}));
}

// gradOutput or gradInput of another dtype than self's.
void addGradientDtypeRows(Rows &rows, Op op, const std::string &name, aclDataType type) {
    for (const char *tensor : {"gradOutput", "gradInput"})
        rows.push_back(
            row(op, name + "_" + tensor, [=](Case &c) { c[tensor].type = type; }, kInvalid, {tensor, "dtype"}));
}

// `tensor` set to each of `shapes`, each a 161002 naming `tensor`.
void addShapeRows(Rows &rows, Op op, const std::string &name, const std::string &tensor,
                  const std::vector<std::vector<int64_t>> &shapes) {
    for (size_t i = 0; i < shapes.size(); ++i)
        rows.push_back(
            row(op, name + "_" + std::to_string(i), [=](Case &c) { c[tensor].shape = shapes[i]; }, kInvalid, {tensor}));
}

// The rules every one of the eight operators shares (SPEC §7.1/§7.2/§4/§5 rows 1-4 and §8).
void addCommonRows(Rows &rows, Op op) {
    for (const std::string &name : pointerNames(op))
        rows.push_back(row(op, "Row1EachNullPointerIs161001AndNamesTheArgument_" + name,
                           [name](Case &c) { c.nulls = {name}; }, kNull, {name}));
    const Case valid = validCase(op);
    // A null output (161001) is reported before a dtype error (161002) on self.
    const std::string nulled = valid.tensors.count("indicesOut")  ? "indicesOut"
                               : valid.tensors.count("gradInput") ? "gradInput"
                                                                  : "indices";
    rows.push_back(row(op, "Row1NullPointerWinsOverAnInvalidDtype",
                       [nulled](Case &c) {
                           c["self"].type = ACL_DOUBLE;
                           c.nulls = {nulled};
                       },
                       kNull, {nulled}));
    // aclnnAdaptiveMaxPool2d takes DOUBLE, as CANN's op_api does (AdaptiveMaxPool2dTakesDoubleAndNhwc).
    // Every floating operand follows self so that only "self dtype" is broken.
    if (op != Op::Adaptive2d)
        rows.push_back(row(op, "Row2SelfDtypeDoubleIs161002",
                           [](Case &c) {
                               for (auto &[name, spec] : c.tensors)
                                   if (spec.type == ACL_FLOAT) spec.type = ACL_DOUBLE;
                           },
                           kInvalid, {"self", "dtype"}));
    rows.push_back(row(op, "Row2SelfDtypeIntegerIs161002",
                       [](Case &c) {
                           for (auto &[name, spec] : c.tensors)
                               if (spec.type == ACL_FLOAT) spec.type = ACL_INT32;
                       },
                       kInvalid, {"dtype"}));
    const bool mask = isMask(op);
    for (aclDataType value : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
        for (aclDataType index : {ACL_INT32, ACL_INT64}) {
            if (mask && index == ACL_INT64) continue;
            rows.push_back(acceptedRow(
                op, "EveryFloatingDtypeAndIndexDtypeIsAccepted_" + text(value) + "_" + text(index), [=](Case &c) {
                    for (auto &[name, spec] : c.tensors) {
                        if (spec.type == ACL_FLOAT)
                            spec.type = value;
                        else if (!mask)
                            spec.type = index;
                    }
                }));
        }
    // Indices ops: INT32/INT64 only. Mask ops: INT8 only (SPEC §8).
    const std::string indices = valid.tensors.count("indicesOut") ? "indicesOut" : "indices";
    for (aclDataType type :
         mask ? std::vector<aclDataType>{ACL_INT32, ACL_UINT8, ACL_FLOAT, ACL_BOOL}
              : std::vector<aclDataType>{ACL_FLOAT, ACL_INT8, ACL_INT16, ACL_UINT32, ACL_UINT64, ACL_DOUBLE})
        rows.push_back(row(op, "IndicesDtypeOutsideTheAllowedSetIs161002_" + text(type),
                           [=](Case &c) { c[indices].type = type; }, kInvalid, {indices, "dtype"}));
    const std::string output = outputName(valid);
    rows.push_back(row(op, "OutputDtypeDiffersFromSelfIs161002", [=](Case &c) { c[output].type = ACL_FLOAT16; },
                       kInvalid, {output, "dtype"}));
    // 3-D operators: rank 4 or 5; 2-D operators: rank 3 or 4. Every tensor gets the bad rank so that only the
    // rank rule (not "ranks differ") is broken.
    for (int64_t rank : isTwoD(op) ? std::vector<int64_t>{2, 5} : std::vector<int64_t>{3, 6})
        rows.push_back(row(op, "RankOutsideTheAllowedPairIs161002_rank" + std::to_string(rank),
                           [rank](Case &c) {
                               const int64_t valid = static_cast<int64_t>(c["self"].shape.size());
                               for (auto &[name, spec] : c.tensors) {
                                   for (int64_t r = valid; r > rank; --r) spec.shape.erase(spec.shape.begin());
                                   for (int64_t r = valid; r < rank; ++r) spec.shape.insert(spec.shape.begin(), 1);
                               }
                           },
                           kInvalid, {"rank"}));
    // The unbatched form of one output-side tensor next to batched others (N = 1 so that the shape would match).
    rows.push_back(row(op, "RanksDifferIs161002",
                       [=](Case &c) {
                           for (auto &[name, spec] : c.tensors) spec.shape[0] = 1;
                           c[output].shape.erase(c[output].shape.begin());
                       },
                       kInvalid, {output, "rank"}));
    // 4-D (C,D,H,W) for the 3-D operators, 3-D (C,H,W) for the 2-D ones: every tensor without N.
    rows.push_back(acceptedRow(op, "UnbatchedFormIsAccepted", [](Case &c) {
        for (auto &[name, spec] : c.tensors) spec.shape.erase(spec.shape.begin());
    }));
    for (aclFormat format : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_NDC1HWC0, ACL_FRACTAL_Z_3D,
                             ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_UNDEFINED})
        rows.push_back(row(op, "PrivateOrUndefinedFormatIs161002_" + text(format),
                           [format](Case &c) { c.all([format](Spec &s) { s.format = format; }); }, kInvalid,
                           {"format"}));
}

// The INT32 index range: a plane of 2^31 elements ((1,1,2048,1024,1024) or (1,1,65536,32768)), a view over
// reserved address space (its storage dims claim the full size; phase 1 reads no data) passed for `huge` —
// self, and gradInput for the backward (self is never read, so gradInput may take its memory) — with
// (1,1,[1,]1,width) for the small operands `small`: INT32 indices are 161002 naming `indices`, INT64 ones
// accepted.
void addIndexRangeRows(Rows &rows, Op op, const std::string &name, std::vector<std::string> huge,
                       std::vector<std::string> small, int64_t width, const std::string &indices) {
    const std::vector<int64_t> hugePlane =
        isTwoD(op) ? std::vector<int64_t>{1, 1, 65536, 32768} : std::vector<int64_t>{1, 1, 2048, 1024, 1024};
    const std::vector<int64_t> smallShape = shapeOf(op, {1, 1}, {1, 1, width});
    for (aclDataType type : {ACL_INT32, ACL_INT64})
        rows.push_back({std::string(opName(op)) + "_" + name + "_" + text(type),
                        [=](Case &c) {
                            c = validCase(op);
                            for (const std::string &tensor : small) c[tensor].shape = smallShape;
                            c[indices].type = type;
                            if (c.lists.count("outputSize"))
                                c.lists["outputSize"] = std::vector<int64_t>(smallShape.begin() + 2, smallShape.end());
                        },
                        type == ACL_INT32 ? kInvalid : test_support::accepted,
                        type == ACL_INT32 ? std::vector<std::string>{indices} : std::vector<std::string>{},
                        {},
                        [=](Invocation &call) {
                            void *memory = call.keepReservedAddresses((size_t{1} << 31) * sizeof(float));
                            for (const std::string &tensor : huge)
                                call.replacements[tensor] = call.keepRawTensor(hugePlane, ACL_FLOAT, memory, hugePlane);
                        }});
}

// aclnnAdaptiveMaxPool3d/2d, SPEC §7.2 rows 2-7.
void addAdaptiveForwardRows(Rows &rows, Op op) {
    const bool twoD = isTwoD(op);
    rows.push_back(
        row(op, "Row2SelfRankWinsOverItsDtype",
            [](Case &c) {
                c.all([](Spec &s) { s.shape.erase(s.shape.begin(), s.shape.begin() + 2); });  // rank 3 / 2 (2-D op)
                c["self"].type = ACL_DOUBLE;
            },
            kInvalid, {"self", "rank"}, {"dtype"}));
    rows.push_back(row(op, "Row2IndicesRankDiffersIs161002",
                       [](Case &c) { c["indicesOut"].shape.insert(c["indicesOut"].shape.begin(), 1); }, kInvalid,
                       {"indicesOut", "rank"}));
    rows.push_back(row(op, "Row3OutputDtypeOutsideFloatTypesIs161002", [](Case &c) { c["outputOut"].type = ACL_INT32; },
                       kInvalid, {"outputOut", "dtype"}));
    rows.push_back(row(op, "Row3DtypeWinsOverFormat",
                       [](Case &c) {
                           c["indicesOut"].type = ACL_FLOAT;
                           c["self"].format = ACL_FORMAT_NHWC;
                       },
                       kInvalid, {"indicesOut", "dtype"}, {"format"}));
    // 3-D: ND, NCDHW, NCHW (SPEC §7.2, §11 #19/#20). 2-D: ND, NCHW and NHWC (as CANN's op_api).
    std::vector<aclFormat> bad{ACL_FORMAT_NDHWC, ACL_FORMAT_HWCN, ACL_FORMAT_NC, ACL_FORMAT_NCL};
    bad.push_back(twoD ? ACL_FORMAT_NCDHW : ACL_FORMAT_NHWC);
    for (aclFormat format : bad)
        rows.push_back(row(op, "Row4SelfFormatOutsideTheAllowedSetIs161002_" + text(format),
                           [format](Case &c) { c.all([format](Spec &s) { s.format = format; }); }, kInvalid,
                           {"self", "format"}));
    std::vector<aclFormat> good{ACL_FORMAT_ND, ACL_FORMAT_NCHW};
    if (!twoD) good.push_back(ACL_FORMAT_NCDHW);
    for (aclFormat format : good)
        rows.push_back(acceptedRow(op, "Row4AllowedFormatsAreAccepted_" + text(format),
                                   [format](Case &c) { c.all([format](Spec &s) { s.format = format; }); }));
    rows.push_back(row(op, "Row4OutputFormatDiffersFromSelfIs161002",
                       [](Case &c) { c["outputOut"].format = ACL_FORMAT_NCHW; }, kInvalid, {"outputOut", "format"}));
    rows.push_back(row(op, "Row4FormatWinsOverOutputSizeLength",
                       [](Case &c) {
                           c["outputOut"].format = ACL_FORMAT_NCHW;
                           c.lists["outputSize"] = {1, 2, 3, 4};
                       },
                       kInvalid, {"format"}, {"outputSize"}));
    for (const std::vector<int64_t> &sizes :
         twoD ? std::vector<std::vector<int64_t>>{{3, 4, 4}, {1, 3, 4, 4}}
              : std::vector<std::vector<int64_t>>{{3, 4}, {1, 2, 3, 4}, {2, 3, 4, 4, 4}})
        rows.push_back(
            row(op, "Row5OutputSizeLengthOutsideZeroOneOrSpatialDimsIs161002_length" + std::to_string(sizes.size()),
                [sizes](Case &c) { c.lists["outputSize"] = sizes; }, kInvalid, {"outputSize"}));
    rows.push_back(acceptedRow(op, "Row5OutputSizeLengthZeroIsAccepted", [](Case &c) {
        c.lists["outputSize"] = {};  // out spatial = self spatial
        c["outputOut"].shape = c["indicesOut"].shape = c["self"].shape;
    }));
    rows.push_back(acceptedRow(op, "Row5OutputSizeLengthOneIsAccepted", [op](Case &c) {
        c.lists["outputSize"] = {3};  // every spatial axis 3
        c["outputOut"].shape = c["indicesOut"].shape = shapeOf(op, {2, 3}, {3, 3, 3});
    }));
    rows.push_back(acceptedRow(op, "Row5OutputSizeLargerThanSelfIsAccepted", [op, twoD](Case &c) {
        c.lists["outputSize"] = twoD ? std::vector<int64_t>{11, 13} : std::vector<int64_t>{9, 11, 13};
        c["outputOut"].shape = c["indicesOut"].shape = shapeOf(op, {2, 3}, {9, 11, 13});
    }));
    // out keeps the (2,3,[2,]3,4) shape of outputSize ([2,]3,4), but outputSize is now empty.
    rows.push_back(row(op, "Row5LengthZeroWithOutputNotEqualToSelfIs161002",
                       [](Case &c) { c.lists["outputSize"] = {}; }, kInvalid, {"outputOut", "shape"}));
    addLeadingDimRows(rows, op, "Row5LeadingDimsOfOutputDifferFromSelfIs161002", "outputOut", "indicesOut");
    rows.push_back(row(op, "Row5OutputSpatialDiffersFromOutputSizeIs161002",
                       [](Case &c) {
                           c["outputOut"].shape.back() += 1;
                           c["indicesOut"].shape.back() += 1;
                       },
                       kInvalid, {"outputOut", "shape"}));
    rows.push_back(row(op, "Row5IndicesShapeDiffersFromOutputIs161002",
                       [](Case &c) { c["indicesOut"].shape.back() -= 1; }, kInvalid, {"indicesOut", "shape"}));
    rows.push_back(row(op, "Row5ShapeWinsOverOutputDtypeMismatch",
                       [](Case &c) {
                           c["outputOut"].type = ACL_FLOAT16;  // row 6
                           c["indicesOut"].shape.back() -= 1;  // row 5
                       },
                       kInvalid, {"indicesOut", "shape"}, {"dtype"}));
    for (aclDataType type : {ACL_FLOAT16, ACL_BF16})
        rows.push_back(row(op, "Row6OutputDtypeDiffersFromSelfIs161002_" + text(type),
                           [type](Case &c) { c["outputOut"].type = type; }, kInvalid, {"outputOut", "dtype"}));
    rows.push_back(row(op, "Row6DtypeMismatchWinsOverOutputSizeZero",
                       [](Case &c) {
                           c["outputOut"].type = ACL_BF16;    // row 6
                           c.lists["outputSize"].back() = 0;  // row 7 (out's shape follows so that row 5 holds)
                           c["outputOut"].shape.back() = c["indicesOut"].shape.back() = 0;
                       },
                       kInvalid, {"outputOut", "dtype"}, {"outputSize"}));
    for (size_t dim = 1; dim < validCase(op).tensors.at("self").shape.size(); ++dim)
        rows.push_back(row(op, "Row7SelfDimOtherThanDimZeroIsZeroIs161002_dim" + std::to_string(dim),
                           [dim](Case &c) {
                               c.lists["outputSize"] = {};  // out = self's shape, so only row 7 is broken
                               c["self"].shape[dim] = 0;
                               c["outputOut"].shape = c["indicesOut"].shape = c["self"].shape;
                           },
                           kInvalid, {"self"}));
    rows.push_back(row(op, "Row7OutputSizeValueBelowOneIs161002_zero",
                       [op](Case &c) {
                           c.lists["outputSize"] = {0};
                           c["outputOut"].shape = c["indicesOut"].shape = shapeOf(op, {2, 3}, {0, 0, 0});
                       },
                       kInvalid, {"outputSize"}));
    // out must match for row 5: a negative dim cannot be expressed, so only the code is checked.
    rows.push_back(row(
        op, "Row7OutputSizeValueBelowOneIs161002_negative", [](Case &c) { c.lists["outputSize"] = {-1}; }, kInvalid));
    // Row 7 precedes row 8: self (0,3,...) with outputSize containing 0 is still 161002.
    rows.push_back(row(op, "Row7EmptySelfDoesNotExcuseOutputSizeZero",
                       [](Case &c) {
                           c["self"].shape[0] = 0;
                           c.lists["outputSize"].back() = 0;
                           c["outputOut"].shape = c["indicesOut"].shape = c["self"].shape;
                           for (size_t i = 0; i < c.lists["outputSize"].size(); ++i)
                               c["outputOut"].shape[2 + i] = c["indicesOut"].shape[2 + i] = c.lists["outputSize"][i];
                       },
                       kInvalid, {"outputSize"}));
    addIndexRangeRows(rows, op, "Row7IndicesOnAPlaneOf2To31", {"self"}, {"outputOut", "indicesOut"}, 1, "indicesOut");
}

// aclnnAdaptiveMaxPool3dBackward/2dBackward, SPEC §5 rows 2-7.
void addAdaptiveBackwardRows(Rows &rows, Op op) {
    addGradientDtypeRows(rows, op, "Row2GradOutputOrGradInputDtypeDiffersFromSelfIs161002", ACL_BF16);
    rows.push_back(row(op, "Row2DtypeWinsOverRank",
                       [](Case &c) {
                           c["indices"].type = ACL_FLOAT;
                           c["gradInput"].shape.insert(c["gradInput"].shape.begin(), 1);
                       },
                       kInvalid, {"indices", "dtype"}, {"rank"}));
    for (const char *tensor : {"gradOutput", "indices", "gradInput", "self"})
        rows.push_back(row(op, std::string("Row3RanksDifferIs161002_") + tensor,
                           [tensor](Case &c) {
                               c.all([](Spec &s) { s.shape[0] = 1; });
                               c[tensor].shape.erase(c[tensor].shape.begin());
                           },
                           kInvalid, {"rank"}));
    rows.push_back(row(op, "Row3RankWinsOverShape",
                       [](Case &c) {
                           c["gradInput"].shape.insert(c["gradInput"].shape.begin(),
                                                       2);  // rank differs (and shape differs)
                           c["indices"].shape.back() += 1;  // shape differs
                       },
                       kInvalid, {"rank"}, {"indices"}));
    rows.push_back(row(op, "Row4IndicesShapeDiffersFromGradOutputIs161002",
                       [](Case &c) { c["indices"].shape.back() += 1; }, kInvalid, {"indices", "shape"}));
    rows.push_back(row(op, "Row4GradInputShapeDiffersFromSelfIs161002",
                       [](Case &c) { c["gradInput"].shape.back() -= 1; }, kInvalid, {"gradInput", "shape"}));
    rows.push_back(row(op, "Row4ShapeWinsOverFormat",
                       [](Case &c) {
                           c["indices"].shape.back() += 1;
                           c["gradOutput"].format = ACL_FORMAT_NCHW;
                       },
                       kInvalid, {"indices", "shape"}, {"format"}));
    addIndexRangeRows(rows, op, "Row5IndicesOnAPlaneOf2To31", {"self", "gradInput"}, {"gradOutput", "indices"}, 2,
                      "indices");
    // Unlike §4 (indices' format is free), §5 row 6 requires ALL FOUR formats identical.
    for (const char *tensor : {"gradOutput", "self", "indices", "gradInput"})
        rows.push_back(row(op, std::string("Row6FormatOfAnyTensorDiffersIs161002_") + tensor,
                           [tensor](Case &c) { c[tensor].format = ACL_FORMAT_NCHW; }, kInvalid, {"format"}));
    // Formats are tags only for the backward (layout always channels-first).
    for (aclFormat format : {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NCDHW, ACL_FORMAT_NHWC, ACL_FORMAT_NDHWC})
        rows.push_back(acceptedRow(op, "Row6AnyIdenticalPublicFormatIsAccepted_" + text(format),
                                   [format](Case &c) { c.all([format](Spec &s) { s.format = format; }); }));
    rows.push_back(row(op, "Row6FormatWinsOverBatchMismatch",
                       [](Case &c) {
                           c["indices"].format = ACL_FORMAT_NCHW;
                           c["gradOutput"].shape[1] = c["indices"].shape[1] = 4;  // C differs from self's 3 (row 7)
                       },
                       kInvalid, {"format"}));
    addLeadingDimRows(rows, op, "Row7GradOutputNOrCDiffersFromSelfIs161002", "gradOutput", "indices");
    rows.push_back(row(op, "Row7UnbatchedChannelDiffersIs161002",
                       [](Case &c) {
                           c.all([](Spec &s) { s.shape.erase(s.shape.begin()); });
                           c["gradOutput"].shape[0] = c["indices"].shape[0] = 4;
                       },
                       kInvalid, {"gradOutput"}));
    for (const std::array<int64_t, 3> &spatial :
         {std::array<int64_t, 3>{1, 1, 1}, std::array<int64_t, 3>{9, 11, 13}, std::array<int64_t, 3>{4, 5, 6}})
        rows.push_back(acceptedRow(op,
                                   "GradOutputSpatialSizeIsFreeIncludingLargerThanSelf_" + std::to_string(spatial[0]) +
                                       "_" + std::to_string(spatial[1]) + "_" + std::to_string(spatial[2]),
                                   [op, spatial](Case &c) {
                                       c["gradOutput"].shape = c["indices"].shape = shapeOf(op, {2, 3}, spatial);
                                   }));
}

// kernelSize len 1/2 (>= 1), stride len 0/1/2 (>= 1), padding len 1/2 (0 <= p <= k/2), dilation len 1/2 (>= 1).
void addListRows(Rows &rows, Op op) {
    const std::vector<std::pair<const char *, std::vector<int64_t>>> badLists{
        {"kernelSize", {}},     {"kernelSize", {2, 2, 2}}, {"kernelSize", {0, 2}}, {"kernelSize", {2, -1}},
        {"stride", {2, 2, 2}},  {"stride", {0}},           {"stride", {2, 0}},     {"padding", {}},
        {"padding", {0, 0, 0}}, {"padding", {2}},          {"padding", {0, -1}},   {"padding", {1, 2}},
        {"dilation", {}},       {"dilation", {1, 1, 1}},   {"dilation", {0}},      {"dilation", {1, -2}},
    };
    for (size_t i = 0; i < badLists.size(); ++i) {
        // Named copies rather than a structured binding: clang before 16 cannot capture one.
        const char *list = badLists[i].first;
        const std::vector<int64_t> values = badLists[i].second;
        rows.push_back(row(op, "ListLengthsAndValuesViolatingTheRulesAre161002_" + std::to_string(i) + "_" + list,
                           [list, values](Case &c) { c.lists[list] = values; }, kInvalid, {list}));
    }
}

// aclnnMaxPool2dWithIndices / WithMask: SPEC §7.1 rows on (N,)C,H,W, the INT8 mask of §8.
void addMaxPool2dForwardRows(Rows &rows, Op op) {
    for (aclFormat format : {ACL_FORMAT_NHWC, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_NCL})
        rows.push_back(row(op, "FormatsMustBeNdOrNchw_" + text(format),
                           [format](Case &c) { c.all([format](Spec &s) { s.format = format; }); }, kInvalid,
                           {"format"}));
    for (const char *tensor : {"out", "indices"})
        rows.push_back(row(op, std::string("FormatsMustBeEqual_") + tensor,
                           [tensor](Case &c) { c[tensor].format = ACL_FORMAT_NCHW; }, kInvalid, {tensor, "format"}));
    rows.push_back(
        acceptedRow(op, "FormatNchwIsAccepted", [](Case &c) { c.all([](Spec &s) { s.format = ACL_FORMAT_NCHW; }); }));
    addListRows(rows, op);
    // stride of length 0 = kernel; length-1 forms repeat; padding k/2 allowed.
    rows.push_back(acceptedRow(op, "AllowedListFormsAreAccepted", [op](Case &c) {
        c.lists["kernelSize"] = {2};
        c.lists["stride"] = {};
        c.lists["padding"] = {1};
        c.lists["dilation"] = {1};
        // k 2 s 2 p 1 on (6,8): Ho = (6+2-2)/2+1 = 4, Wo = (8+2-2)/2+1 = 5.
        c["out"].shape = {2, 3, 4, 5};
        c["indices"].shape = isMask(op) ? maskShapeFor({2, 3}, 4, 4, 5) : std::vector<int64_t>{2, 3, 4, 5};
    }));
    rows.push_back(row(op, "OutputShapeMismatchIs161002", [](Case &c) { c["out"].shape.back() += 1; }, kInvalid,
                       {"out", "shape"}));
    // Indices: == out. Mask: exactly (N, C, kH*kW, (ceil(Ho*Wo/16)+1)*32).
    addShapeRows(
        rows, op, "IndicesShapeMismatchIs161002", "indices",
        isMask(op)
            ? std::vector<std::vector<int64_t>>{{2, 3, 4, 96}, {2, 3, 4, 32}, {2, 3, 1, 64}, {2, 3, 256}, {2, 3, 3, 4}}
            : std::vector<std::vector<int64_t>>{{2, 3, 3, 5}, {2, 3, 4, 4}, {2, 4, 3, 4}});
    rows.push_back(row(
        op, "ComputedOutputBelowOneIs161002",
        [](Case &c) {
            c.lists["kernelSize"] = {7, 9};  // W 8 < 9
            c.lists["padding"] = {0, 0};
        },
        kInvalid));
    rows.push_back(
        row(op, "EmptySelfWithNonEmptyOutputsIs161002", [](Case &c) { c["self"].shape[0] = 0; }, kInvalid, {"empty"}));
}

// The mask is addressed as raw bytes; a library rule (documented in the header): dense row-major view.
void addMaskRows(Rows &rows) {
    rows.push_back(row(Op::Mask2d, "NonDenseMaskIs161002",
                       [](Case &c) {
                           c["indices"].strides = {3 * 4 * 64 * 2, 4 * 64 * 2, 64 * 2, 2};
                       },
                       kInvalid, {"indices"}));
    rows.push_back(row(Op::Mask2dBackward, "NonDenseMaskIs161002",
                       [](Case &c) {
                           c["indices"].strides = {3 * 4 * 64, 4 * 64, 1, 4};
                       },  // transposed last two axes
                       kInvalid, {"indices"}));
    rows.push_back(acceptedRow(Op::Mask2d, "ThreeDimensionalInputDropsNFromTheMask", [](Case &c) {
        c.all([](Spec &s) { s.shape.erase(s.shape.begin()); });  // mask (3,4,64)
    }));
    rows.push_back(row(Op::Mask2d, "ThreeDimensionalInputWithABatchedMaskIs161002",
                       [](Case &c) {
                           c.all([](Spec &s) { s.shape.erase(s.shape.begin()); });
                           c["indices"].shape = {1, 3, 4, 64};
                       },
                       kInvalid, {"indices"}));
}

// aclnnMaxPool2dWithIndicesBackward / WithMaskBackward: SPEC §4 rows on (N,)C,H,W.
void addMaxPool2dBackwardRows(Rows &rows, Op op) {
    addGradientDtypeRows(rows, op, "GradOutputOrGradInputDtypeDiffersIs161002", ACL_FLOAT16);
    // gradOutput / gradInput formats must equal self's; indices may carry any public format; no private format.
    for (const char *tensor : {"gradOutput", "gradInput"})
        rows.push_back(row(op, std::string("FormatMustEqualSelfs_") + tensor,
                           [tensor](Case &c) { c[tensor].format = ACL_FORMAT_NCHW; }, kInvalid, {tensor, "format"}));
    rows.push_back(row(op, "PrivateIndicesFormatIs161002", [](Case &c) { c["indices"].format = ACL_FORMAT_NC1HWC0; },
                       kInvalid, {"indices", "format"}));
    rows.push_back(
        acceptedRow(op, "IndicesMayCarryAnotherPublicFormat", [](Case &c) { c["indices"].format = ACL_FORMAT_NCHW; }));
    addListRows(rows, op);
    addShapeRows(rows, op, "IndicesShapeMismatchIs161002", "indices",
                 isMask(op) ? std::vector<std::vector<int64_t>>{{2, 3, 4, 96}, {2, 3, 9, 64}, {2, 3, 3, 4}}
                            : std::vector<std::vector<int64_t>>{{2, 3, 3, 5}, {2, 3, 4, 4}});
    rows.push_back(row(op, "GradInputShapeDiffersFromSelfIs161002", [](Case &c) { c["gradInput"].shape.back() += 1; },
                       kInvalid, {"gradInput", "shape"}));
    addLeadingDimRows(rows, op, "GradOutputNOrCDiffersFromSelfIs161002", "gradOutput", "indices");
    rows.push_back(
        row(op, "GradOutputSpatialShapeMismatchIs161002",
            [op](Case &c) {
                c["gradOutput"].shape = {2, 3, 3, 5};
                c["indices"].shape = isMask(op) ? maskShapeFor({2, 3}, 4, 3, 5) : std::vector<int64_t>{2, 3, 3, 5};
            },
            kInvalid, {"gradOutput"}));
}

Rows allRows() {
    Rows rows;
    for (Op op : {Op::Adaptive3d, Op::Adaptive2d, Op::Adaptive3dBackward, Op::Adaptive2dBackward, Op::Indices2d,
                  Op::Mask2d, Op::Indices2dBackward, Op::Mask2dBackward})
        addCommonRows(rows, op);
    for (Op op : {Op::Adaptive3d, Op::Adaptive2d}) addAdaptiveForwardRows(rows, op);
    for (Op op : {Op::Adaptive3dBackward, Op::Adaptive2dBackward}) addAdaptiveBackwardRows(rows, op);
    for (Op op : {Op::Indices2d, Op::Mask2d}) addMaxPool2dForwardRows(rows, op);
    addMaskRows(rows);
    for (Op op : {Op::Indices2dBackward, Op::Mask2dBackward}) addMaxPool2dBackwardRows(rows, op);
    return rows;
}

POOLGRAD_VALIDATION_TABLE(AdaptiveAnd2dValidationRows, allRows());

// ================================================================================================ calls that run

class AdaptiveAnd2dValidation : public ::testing::TestWithParam<Op> {};

TEST_P(AdaptiveAnd2dValidation, ValidBaselineIsAcceptedWithWorkspaceZeroAndRuns) {
    Case c = validCase(GetParam());
    Invocation invocation(c);
    if (c.tensors.count("gradOutput")) {
        // Backward inputs need valid indices: zeros are valid for every op.
        TestTensor &indices = invocation.tensor("indices");
        TestTensor &gradOutput = invocation.tensor("gradOutput");
        for (int64_t i = 0; i < gradOutput.elementCount(); ++i) gradOutput.set(i, 1.0);
        for (int64_t i = 0; i < indices.elementCount(); ++i) indices.setBits(i, 0);
    } else {
        TestTensor &self = invocation.tensor("self");
        for (int64_t i = 0; i < self.elementCount(); ++i) self.set(i, static_cast<double>(i % 7));
    }
    test_support::expectAcceptedAndRuns(invocation);
}

INSTANTIATE_TEST_SUITE_P(Ops, AdaptiveAnd2dValidation,
                         ::testing::Values(Op::Adaptive3d, Op::Adaptive2d, Op::Adaptive3dBackward,
                                           Op::Adaptive2dBackward, Op::Indices2d, Op::Mask2d, Op::Indices2dBackward,
                                           Op::Mask2dBackward),
                         opParamName);

class AdaptiveForwardValidation : public ::testing::TestWithParam<Op> {
protected:
    Case valid() const { return validCase(GetParam()); }
    bool twoD() const { return isTwoD(GetParam()); }
};

TEST_P(AdaptiveForwardValidation, Row8EmptySelfIsSuccessWithWorkspaceZeroAndWritesNothing) {
    Case c = valid();
    c["self"].shape[0] = 0;  // N = 0 (3-D op 4-D form / 2-D op 3-D form: C = 0 is dim 0 as well)
    c["outputOut"].shape[0] = c["indicesOut"].shape[0] = 0;
    Invocation invocation(c);
    test_support::expectAcceptedAndRuns(invocation);
    EXPECT_EQ(invocation.tensor("outputOut").bytesOutsideViewChanged(), 0);
    EXPECT_EQ(invocation.tensor("indicesOut").bytesOutsideViewChanged(), 0);
}

TEST_P(AdaptiveForwardValidation, Row8UnbatchedEmptyChannelIsSuccess) {
    Case c = valid();
    c.all([](Spec &s) { s.shape.erase(s.shape.begin()); });  // (C,[D,]H,W)
    c["self"].shape[0] = 0;
    c["outputOut"].shape[0] = c["indicesOut"].shape[0] = 0;
    Invocation invocation(c);
    ASSERT_TRUE(IsAccepted(invocation.phaseOne()));
    EXPECT_EQ(invocation.run(), ACLNN_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Ops, AdaptiveForwardValidation, ::testing::Values(Op::Adaptive3d, Op::Adaptive2d),
                         opParamName);

class AdaptiveBackwardValidation : public ::testing::TestWithParam<Op> {
protected:
    Case valid() const { return validCase(GetParam()); }
    bool twoD() const { return isTwoD(GetParam()); }
};

TEST_P(AdaptiveBackwardValidation, Row8EmptyInputsAreSuccessAndZeroFillGradInput) {
    // gradOutput/indices empty (a spatial 0) with a non-empty self: success, workspace 0, gradInput := +0.0.
    Case c = valid();
    c["gradOutput"].shape.back() = c["indices"].shape.back() = 0;
    expectZeroFilledGradInput(c);
}

TEST_P(AdaptiveBackwardValidation, Row8EmptySelfIsSuccess) {
    Case c = valid();
    c.all([](Spec &s) { s.shape[0] = 0; });
    Invocation invocation(c);
    test_support::expectAcceptedAndRuns(invocation);
    EXPECT_EQ(invocation.tensor("gradInput").bytesOutsideViewChanged(), 0);
}

TEST_P(AdaptiveBackwardValidation, ZeroFilledGradInputHonoursItsStrides) {
    // Empty gradOutput with a strided gradInput: only the view is zeroed.
    Case c = valid();
    c["gradOutput"].shape[2] = c["indices"].shape[2] = 0;
    std::vector<int64_t> strides(c["gradInput"].shape.size());
    int64_t running = 2;
    for (size_t i = strides.size(); i-- > 0;) strides[i] = running, running *= c["gradInput"].shape[i] + 1;
    c["gradInput"].strides = strides;
    Invocation invocation(c);
    ASSERT_TRUE(IsAccepted(invocation.phaseOne()));
    ASSERT_EQ(invocation.run(), ACLNN_SUCCESS);
    TestTensor &gradInput = invocation.tensor("gradInput");
    for (int64_t i = 0; i < gradInput.elementCount(); ++i) ASSERT_EQ(gradInput.bitsAt(i), 0u) << "element " << i;
    EXPECT_EQ(gradInput.bytesOutsideViewChanged(), 0);
}

INSTANTIATE_TEST_SUITE_P(Ops, AdaptiveBackwardValidation,
                         ::testing::Values(Op::Adaptive3dBackward, Op::Adaptive2dBackward), opParamName);

class MaxPool2dForwardValidation : public ::testing::TestWithParam<Op> {};

TEST_P(MaxPool2dForwardValidation, EmptySelfIsSuccess) {
    Case c = validCase(GetParam());
    c.all([](Spec &s) { s.shape[0] = 0; });
    Invocation invocation(c);
    test_support::expectAcceptedAndRuns(invocation);
}

INSTANTIATE_TEST_SUITE_P(Ops, MaxPool2dForwardValidation, ::testing::Values(Op::Indices2d, Op::Mask2d), opParamName);

class MaxPool2dBackwardValidation : public ::testing::TestWithParam<Op> {
protected:
    Case valid() const { return validCase(GetParam()); }
    bool mask() const { return GetParam() == Op::Mask2dBackward; }
};

TEST_P(MaxPool2dBackwardValidation, EmptyGradOutputIsSuccessAndZeroFillsGradInput) {
    Case c = valid();
    c["gradOutput"].shape[3] = 0;  // (2,3,3,0): empty; the spatial check comes after the empty shortcut (§4 #9/#10)
    c["indices"].shape = mask() ? maskShapeFor({2, 3}, 4, 3, 0) : std::vector<int64_t>{2, 3, 3, 0};
    expectZeroFilledGradInput(c);
}

TEST_P(MaxPool2dBackwardValidation, EmptySelfIsSuccess) {
    Case c = valid();
    c.all([](Spec &s) { s.shape[0] = 0; });
    Invocation invocation(c);
    test_support::expectAcceptedAndRuns(invocation);
}

INSTANTIATE_TEST_SUITE_P(Ops, MaxPool2dBackwardValidation, ::testing::Values(Op::Indices2dBackward, Op::Mask2dBackward),
                         opParamName);

}  // namespace
