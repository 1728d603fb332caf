// The one differential driver of every operator family: a case is an OperatorCall (its operands already
// hold the inputs, its check knows the reference's answer), and the driver runs it the same way for all of
// them: outputs poisoned before every run, the default choice and then every implementation of the call's
// task forced (enumerated at run time, so new implementations are covered without a test change),
// optionally at 1, 2 and 3 threads with bit-identical results, every other case with streaming stores
// wherever a kernel can stream (poolgradSetStreamingStores always), inputs and storage outside every view
// untouched, and a declining implementation leaving the outputs as poisoned as it found them. It counts per
// implementation how many cases it was offered and accepted, so that a suite can assert that no fast path
// silently declines (almost) everything.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "support/pool_differential_helpers.h"

namespace pool_diff {

struct Watched {
    TestTensor *tensor;
    const char *name;
};

// One operator call of a random case, ready to run.
struct OperatorCall {
    std::string task;                             // poolgradImplementationTask of the implementations to force
    std::string trace;                            // the problem and its operands' layouts, shown with a failure
    std::vector<Watched> outputs;                 // poisoned before every run
    std::vector<Watched> inputs;                  // must not change, inside or outside their views
    std::function<TwoPhase()> run;                // phase 1, phase 2, synchronise
    std::function<void(const TwoPhase &)> check;  // after a successful run: the outputs against the reference
    std::string declineMentions;                  // non-empty: a decline's message must contain it
};

// One run of `call` with implementation `name` ("" = the default choice): outputs poisoned, the status and
// the check, outputs' storage outside their views and the inputs untouched. False when a forced implementation
// declined (561003, no executor, a message, outputs still poisoned).
bool runChoice(OperatorCall &call, const std::string &name);

// The forward of the argmax families (3-D, adaptive, 2-D): out must hold `expectedBits` (each selected
// element's own bits), `checkIndices` judges the indices output, self must not change. `problem` describes the
// case; the operands' layouts are added to the trace.
OperatorCall argmaxForwardCall(const std::string &problem, Operand &self, Operand &out, Operand &indices,
                               aclDataType type, const std::vector<uint32_t> &expectedBits,
                               std::function<testing::AssertionResult()> checkIndices, std::function<TwoPhase()> run);

// The index backward of the same families: gradInput must hold `expectedBits` (any NaN for a NaN), its
// three inputs must not change.
OperatorCall indexBackwardCall(const std::string &problem, Operand &gradOutput, Operand &self, Operand &indices,
                               Operand &gradInput, aclDataType type, const std::vector<uint32_t> &expectedBits,
                               std::function<TwoPhase()> run);

struct Acceptance {
    int offered = 0;
    int accepted = 0;
};

class DifferentialDriver {
public:
    explicit DifferentialDriver(std::string suite) : suite_(std::move(suite)) {}
    DifferentialDriver(const DifferentialDriver &) = delete;
    DifferentialDriver &operator=(const DifferentialDriver &) = delete;

    // Runs `call` with the default choice and with each implementation of its task forced. `threadCounts`
    // {0} keeps the library's count; several counts run every choice at each of them with
    // poolgradSetParallelThreshold(1) (even small problems are split), and the outputs must be bit-identical
    // across counts. Returns false once the test has a failure (callers stop: one reproducible case is enough).
    bool run(OperatorCall &call, const std::vector<int32_t> &threadCounts = {0});

    // Prints the acceptance log; every implementation named *reference* accepted every case it was offered,
    // every other one at least `minimumShare` of them.
    void expectAcceptance(double minimumShare) const;

    const std::map<std::string, Acceptance> &acceptance() const { return acceptance_; }
    int cases() const { return cases_; }

private:
    // Forced implementation, thread count, parallel threshold and streaming choice go back to the defaults
    // however a test ends.
    LibraryControlsGuard controls_;
    std::string suite_;
    std::map<std::string, Acceptance> acceptance_;
    int cases_ = 0;
};

// A random suite of one task: for every case n of forEachRandomCase(fixed, cases), `draw(rng, n)` draws the
// case, `prepare(rng, case)` makes its operands and `makeCall(case, operands)` the OperatorCall the driver
// runs; then every implementation must have accepted at least `minimumShare` of the cases. False after a
// failure (a caller's own checks on the cases are then moot).
template <typename Draw, typename Prepare, typename MakeCall>
bool runRandomSuite(const std::string &name, std::initializer_list<uint64_t> fixed, int cases, double minimumShare,
                    Draw draw, Prepare prepare, MakeCall makeCall) {
    DifferentialDriver driver(name);
    const bool passed = forEachRandomCase(fixed, cases, [&](Rng &rng, int n) {
        const auto randomCase = draw(rng, n);
        auto operands = prepare(rng, randomCase);
        OperatorCall call = makeCall(randomCase, operands);
        driver.run(call);
    });
    if (!passed) return false;
    driver.expectAcceptance(minimumShare);
    return true;
}

}  // namespace pool_diff
