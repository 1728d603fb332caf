// poolgradGetLastRunReport: what phase 2 ran — the implementation phase 1 chose, its plan, the fallback the
// data forced on it, the status — per thread. The dense index scatter must report its hand-over to the
// reference when an index leaves its own window (a fast path that silently never ran would otherwise pass
// every differential test), and must not report one for the indices the forward itself produces.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "poolgrad/poolgrad.h"
#include "support/test_tensor.h"

namespace {

using test_support::IntArray;
using test_support::TestTensor;

// self (1,1,2,4,4), k = s = 2: four outputs, each window 2x2x2. Input rows (d*4 + h) 0..7. With two
// threads and one plane the dense scatter cuts the plane into four slabs of two rows; output 0's window
// spans rows 0,1,4,5, so an index of output 0 pointing into row 7 (d=1, h=3) lands in a slab that never
// visits output 0.
const std::vector<int64_t> inputShape{1, 1, 2, 4, 4}, outputShape{1, 1, 1, 2, 2};
// In-window indices (as the forward would produce): output (oh, ow) picks (d=1, h=2oh+1, w=2ow).
const std::vector<int64_t> inWindowIndices{16 + 4 + 0, 16 + 4 + 2, 16 + 12 + 0, 16 + 12 + 2};
constexpr int64_t row7Element = 16 + 12 + 3;  // d=1, h=3, w=3: inside output 3's window, not output 0's

class ThreadSettings {
public:
    ThreadSettings() {
        poolgradSetNumThreads(2);
        poolgradSetParallelThreshold(1);
    }
    ~ThreadSettings() {
        poolgradSetNumThreads(0);
        poolgradSetParallelThreshold(0);
        poolgradForceImplementation(nullptr);
    }
};

struct Backward {
    TestTensor gradOutput{outputShape, ACL_FLOAT}, self{inputShape, ACL_FLOAT}, indices{outputShape, ACL_INT32},
        gradInput{inputShape, ACL_FLOAT};

    explicit Backward(const std::vector<int64_t> &indexValues) {
        for (int64_t q = 0; q < 4; ++q) {
            gradOutput.set(q, 1.5 + q);
            indices.set(q, static_cast<double>(indexValues[static_cast<size_t>(q)]));
        }
        self.setValues(std::vector<double>(static_cast<size_t>(self.elementCount()), 0.0));
        gradInput.poison();
    }

    // Phase-2 status; ASSERTs that phase 1 accepted.
    aclnnStatus run() {
        IntArray kernel({2, 2, 2}), stride({2, 2, 2}), padding({0}), dilation({1});
        uint64_t workspaceSize = 0;
        aclOpExecutor *executor = nullptr;
        EXPECT_EQ(
            aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOutput, self, indices, kernel, stride, padding,
                                                             dilation, false, gradInput, &workspaceSize, &executor),
            ACLNN_SUCCESS)
            << aclGetRecentErrMsg();
        if (executor == nullptr) return -1;
        return aclnnMaxPool3dWithArgmaxBackward(nullptr, workspaceSize, executor, nullptr);
    }
};

poolgradRunReport lastReport() {
    poolgradRunReport report{};
    EXPECT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
    return report;
}

TEST(RunReport, NullReportIsRefusedWithAMessage) {
    EXPECT_EQ(poolgradGetLastRunReport(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("report is null"), std::string::npos) << aclGetRecentErrMsg();
}

TEST(RunReport, EmptyOnAThreadThatRanNothing) {
    {
        ThreadSettings settings;
        Backward backward(inWindowIndices);
        ASSERT_EQ(backward.run(), ACLNN_SUCCESS);
    }
    poolgradRunReport report{};
    aclError status = -1;
    std::thread([&] { status = poolgradGetLastRunReport(&report); }).join();
    EXPECT_EQ(status, ACL_SUCCESS);
    EXPECT_STREQ(report.implementation, "");
    EXPECT_STREQ(report.plan, "");
    EXPECT_STREQ(report.fallback, "");
}

TEST(RunReport, DenseScatterWithInWindowIndicesRunsItsPlanWithoutFallback) {
    ThreadSettings settings;
    ASSERT_EQ(poolgradForceImplementation("cpu_index_scatter_backward_dense"), ACL_SUCCESS);
    Backward backward(inWindowIndices);
    ASSERT_EQ(backward.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    const poolgradRunReport report = lastReport();
    EXPECT_STREQ(report.implementation, "cpu_index_scatter_backward_dense");
    EXPECT_STRNE(report.plan, "");
    EXPECT_STREQ(report.fallback, "");
    EXPECT_EQ(report.status, 0);
    for (int64_t i = 0; i < backward.gradInput.elementCount(); ++i) {
        double expected = 0.0;
        for (int64_t q = 0; q < 4; ++q)
            if (inWindowIndices[static_cast<size_t>(q)] == i) expected = 1.5 + q;
        EXPECT_EQ(backward.gradInput.at(i), expected) << "element " << i;
    }
}

TEST(RunReport, DenseScatterReportsTheHandOverWhenAnIndexLeavesItsWindow) {
    ThreadSettings settings;
    ASSERT_EQ(poolgradForceImplementation("cpu_index_scatter_backward_dense"), ACL_SUCCESS);
    std::vector<int64_t> indices = inWindowIndices;
    indices[0] = row7Element;
    Backward backward(indices);
    ASSERT_EQ(backward.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    const poolgradRunReport report = lastReport();
    EXPECT_STREQ(report.implementation, "cpu_index_scatter_backward_dense");
    EXPECT_EQ(std::string(report.fallback)
                  .rfind("cpu_index_scatter_backward_reference: indices leave their own "
                         "windows",
                         0),
              0u)
        << report.fallback;
    // The result is still the full scatter: outputs 0 and 3 both land on row7Element.
    for (int64_t i = 0; i < backward.gradInput.elementCount(); ++i) {
        double expected = 0.0;
        for (int64_t q = 0; q < 4; ++q)
            if (indices[static_cast<size_t>(q)] == i) expected += 1.5 + q;
        EXPECT_EQ(backward.gradInput.at(i), expected) << "element " << i;
    }
}

TEST(RunReport, BadIndexReportsStatusAndHandOver) {
    ThreadSettings settings;
    ASSERT_EQ(poolgradForceImplementation("cpu_index_scatter_backward_dense"), ACL_SUCCESS);
    std::vector<int64_t> indices = inWindowIndices;
    indices[2] = 32;  // one past the plane
    Backward backward(indices);
    EXPECT_EQ(backward.run(), ACLNN_ERR_PARAM_INVALID);
    const poolgradRunReport report = lastReport();
    EXPECT_EQ(report.status, ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(std::string(report.fallback).rfind("cpu_index_scatter_backward_reference: ", 0), 0u) << report.fallback;
    for (int64_t i = 0; i < backward.gradInput.elementCount(); ++i) EXPECT_EQ(backward.gradInput.at(i), 0.0);
}

}  // namespace
