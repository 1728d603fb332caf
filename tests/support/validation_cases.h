// The validation tables: a phase-1 validation test is one row (start from the operator's valid call,
// break one thing, expect a status, the words of the message), and one harness runs every row of every
// table. A table is a `std::vector<ValidationRow<Case, Call>>` where
//   Case: the valid call's specs, default-constructed (TensorSpecs, attribute lists, flags);
//   Call: a PhaseOneCall built from a Case, with `PhaseOneOutcome phaseOne()` and
//         `std::vector<const TestTensor *> outputs() const` (the operands phase 1 must leave alone);
// and POOLGRAD_VALIDATION_TABLE(Suite, rows) makes one parameterised test per row, named after the row.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "support/phase_one_check.h"
#include "support/test_tensor.h"

namespace test_support {

constexpr aclnnStatus accepted = ACLNN_SUCCESS;
constexpr aclnnStatus invalid = ACLNN_ERR_PARAM_INVALID;
constexpr aclnnStatus nullPointer = ACLNN_ERR_PARAM_NULLPTR;

template <typename Case, typename Call>
struct ValidationRow {
    std::string name;                            // the test's name; says what is broken and the expected code
    std::function<void(Case &)> breakCase;       // on the specs, before the operands exist (may be empty)
    aclnnStatus code;                            // `accepted`: phase 1 must succeed
    std::vector<std::string> mentions = {};      // words the message must contain (the argument first)
    std::vector<std::string> notMentioned = {};  // a later rule the call also breaks: it must not be reported
    std::function<void(Call &)> breakCall = {};  // on the argument pointers, after the operands exist
};

// gtest names a failing row by its name rather than by its bytes.
template <typename Case, typename Call>
void PrintTo(const ValidationRow<Case, Call> &row, std::ostream *out) {
    *out << row.name;
}

// Every storage byte of the outputs, to show a rejected call wrote nothing.
inline std::vector<std::vector<unsigned char>> outputBytes(const std::vector<const TestTensor *> &outputs) {
    std::vector<std::vector<unsigned char>> bytes;
    for (const TestTensor *output : outputs) {
        const auto *data = static_cast<const unsigned char *>(output->data());
        bytes.emplace_back(data, data + output->storageElements() * dataTypeBytes(output->type()));
    }
    return bytes;
}

// Runs one row: the operator's valid call with the row's breakage, phase 1, then the row's expectations.
// An acceptance: an executor and workspace 0. A rejection: the code, both out-parameters cleared (where they
// were passed), a message naming `mentions` and none of `notMentioned`, and every output byte as it was.
template <typename Case, typename Call>
::testing::AssertionResult MeetsRow(const ValidationRow<Case, Call> &row) {
    Case specs;
    if (row.breakCase) row.breakCase(specs);
    Call call(specs);
    if (row.breakCall) row.breakCall(call);
    const std::vector<std::vector<unsigned char>> before = outputBytes(call.outputs());
    const PhaseOneOutcome outcome = call.phaseOne();
    if (row.code == accepted) {
        if (::testing::AssertionResult result = IsAccepted(outcome); !result) return result;
        if (outcome.workspaceSize != 0)  // SPEC §1.2: the CPU backend needs no workspace
            return ::testing::AssertionFailure() << "accepted with workspace " << outcome.workspaceSize;
        return ::testing::AssertionSuccess();
    }
    ::testing::AssertionResult result =
        IsRejected(outcome, row.code, row.mentions, call.workspaceSizeArg, call.executorArg);
    if (!result) return result;
    for (const std::string &word : row.notMentioned)
        if (::testing::AssertionResult absent = DoesNotMention(outcome, word); !absent) return absent;
    if (outputBytes(call.outputs()) != before)
        return ::testing::AssertionFailure() << "a rejected phase 1 wrote into an output";
    return result;
}

// Phase 1 of the call a Case describes.
template <typename Call, typename Case>
PhaseOneOutcome phaseOneOf(const Case &specs) {
    Call call(specs);
    return call.phaseOne();
}

// A call that must be accepted with workspace 0 (SPEC §1.2, the CPU backend) and run.
template <typename Call>
void expectAcceptedAndRuns(Call &call) {
    ASSERT_TRUE(IsAccepted(call.phaseOne()));
    EXPECT_EQ(call.outcome.workspaceSize, 0u);
    ASSERT_EQ(call.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

// Row 1 for one argument pointer of the call (`member`, a pointer to the Call's member passed for `argument`).
template <typename Case, typename Call, typename Member>
ValidationRow<Case, Call> nullArgumentRow(const std::string &namePrefix, const std::string &argument, Member member) {
    return {namePrefix + argument, {}, nullPointer, {argument}, {}, [member](Call &c) { c.*member = nullptr; }};
}

// Row 1 of an operator: one row per {argument name, Call member} pair, then nullptr for workspaceSize and for
// executor; each is 161001 naming that argument.
template <typename Case, typename Call, typename... Members>
void addNullPointerRows(std::vector<ValidationRow<Case, Call>> &rows, const std::string &namePrefix,
                        std::pair<const char *, Members>... arguments) {
    (rows.push_back(nullArgumentRow<Case, Call>(namePrefix, arguments.first, arguments.second)), ...);
    rows.push_back({namePrefix + "workspaceSize", {}, nullPointer, {"workspaceSize"}, {}, [](Call &c) {
                        c.workspaceSizeArg = false;
                    }});
    rows.push_back(
        {namePrefix + "executor", {}, nullPointer, {"executor"}, {}, [](Call &c) { c.executorArg = false; }});
}

// "type<n>"/"format<n>" parts of row names (enum values as CANN numbers them; UNDEFINED is -1).
inline std::string typeName(aclDataType type) { return "type" + std::to_string(static_cast<int>(type)); }
inline std::string formatName(aclFormat format) {
    const int value = static_cast<int>(format);
    return value < 0 ? std::string("UNDEFINED") : "format" + std::to_string(value);
}

struct RowName {
    template <typename Row>
    std::string operator()(const ::testing::TestParamInfo<Row> &info) const {
        return info.param.name;
    }
};

}  // namespace test_support

// One parameterised test per row of `rows` (a std::vector of ValidationRow), named Table/Suite.Row/<row name>.
#define POOLGRAD_VALIDATION_TABLE(Suite, rows)                                             \
    class Suite : public ::testing::TestWithParam<typename decltype(rows)::value_type> {}; \
    TEST_P(Suite, Row) { EXPECT_TRUE(::test_support::MeetsRow(GetParam())); }              \
    INSTANTIATE_TEST_SUITE_P(Table, Suite, ::testing::ValuesIn(rows), ::test_support::RowName{})
