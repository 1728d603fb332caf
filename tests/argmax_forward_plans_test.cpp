// The plans the argmax forward implementations make in phase 1, as poolgradGetLastRunReport reports them:
// what each decides before seeing data (the row search's windows and loads, the SIMD run of the planar
// kernel, the channels-last scratch and stores, the thread split), for a few problems at fixed thread
// counts, and the reasons the row search declines.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "poolgrad/poolgrad.h"
#include "support/host_vectors.h"
#include "support/max_pool3d_run.h"
#include "support/test_tensor.h"

namespace {

using test_support::MaxPool3dLists;
using test_support::TestTensor;

struct Setting {
    explicit Setting(int threads) {
        poolgradSetNumThreads(threads);
        poolgradSetParallelThreshold(1);
    }
    ~Setting() {
        poolgradSetNumThreads(0);
        poolgradSetParallelThreshold(0);
        poolgradForceImplementation(nullptr);
    }
};

struct Forward {
    std::vector<int64_t> input;  // N, C, D, H, W
    std::vector<int64_t> output;
    MaxPool3dLists lists;
    aclDataType type = ACL_FLOAT;
    bool channelsLast = false;
};

TestTensor tensorFor(const std::vector<int64_t> &shape, aclDataType type, bool channelsLast) {
    return channelsLast ? TestTensor::permuted(shape, {0, 2, 3, 4, 1}, type) : TestTensor(shape, type);
}

// The plan text of the run of `forward` with `implementation` forced (nullptr: the default choice), and
// the implementation that ran.
std::pair<std::string, std::string> planOf(const Forward &forward, const char *implementation) {
    TestTensor self = tensorFor(forward.input, forward.type, forward.channelsLast);
    for (int64_t i = 0; i < self.elementCount(); ++i) self.set(i, static_cast<double>(i % 7));
    TestTensor out = tensorFor(forward.output, forward.type, forward.channelsLast);
    TestTensor indices = tensorFor(forward.output, ACL_INT32, forward.channelsLast);
    EXPECT_EQ(poolgradForceImplementation(implementation), ACL_SUCCESS);
    const test_support::TwoPhaseStatus status = test_support::runMaxPool3dWithArgmax(self, forward.lists, out, indices);
    EXPECT_EQ(status.phaseTwo, 0) << aclGetRecentErrMsg();
    poolgradRunReport report{};
    EXPECT_EQ(poolgradGetLastRunReport(&report), ACL_SUCCESS);
    return {report.implementation, report.plan};
}

// 2 planes of 8x8, k3 s2 p1: 4x4 outputs, the first window of each row clipped.
const Forward kSmall{{1, 2, 1, 8, 8}, {1, 2, 1, 4, 4}, {{1, 3, 3}, {1, 2, 2}, {0, 1, 1}}};

TEST(ArgmaxForwardPlans, RowSearchPlanNamesItsWindowsLoadsAndThreads) {
    const Setting setting(2);
    // W: 4 windows from column -1 (padding 1), stride 2 -> pair loads; 3 input rows per window, copied into
    // rows padded with -inf (the first window leaves the row); 2 planes x 4 output rows = 8 work items on the
    // 2 threads.
    EXPECT_EQ(
        planOf(kSmall, "cpu_argmax_forward_dense_rows"),
        std::make_pair(std::string("cpu_argmax_forward_dense_rows"),
                       std::string("row vectors: 4 windows k3 s2 d1 from column -1, pairs loads, up to 3 padded rows; "
                                   "8 output rows on 2 threads")));
    // Rows wider than a vector go to the row search by default (windows 2 wide: not the stride-2 forward's).
    const Forward wide{{1, 2, 1, 4, 40}, {1, 2, 1, 2, 20}, {{1, 2, 2}, {1, 2, 2}, {0}}};
    EXPECT_EQ(planOf(wide, nullptr).first, "cpu_argmax_forward_dense_rows");
    // Windows 2 wide at stride 2 over a row of twice the outputs: the pair loads of the last chunk end at the
    // row's end, so the rows are read in place (an even kernel's last pair is loaded at tap kernel - 2).
    EXPECT_NE(planOf(wide, "cpu_argmax_forward_dense_rows").second.find("rows in place"), std::string::npos);
}

// Rows of 4 columns fit in a vector on every x86-64 target (4 to 16 lanes).
TEST(ArgmaxForwardPlans, NarrowRowsPlanNamesItsColumnsTapsAndThreads) {
    const Setting setting(2);
    // 2 planes of 6x4, k3 s2 p1: 3x2 outputs; W windows {0,1} and {1,2,3} (clipped to the row): up to 3 taps;
    // 3 rows per window; 2 planes x 3 output rows = 6 work items on the 2 threads.
    const Forward narrow{{1, 2, 1, 6, 4}, {1, 2, 1, 3, 2}, {{1, 3, 3}, {1, 2, 2}, {0, 1, 1}}};
    const auto [implementation, plan] = planOf(narrow, nullptr);
    EXPECT_EQ(implementation, "cpu_argmax_forward_narrow_rows");
    EXPECT_EQ(plan.rfind("column vectors: rows of 4 in ", 0), 0u) << plan;
    EXPECT_NE(plan.find(" lanes, 2 windows of up to 3 columns, up to 3 rows; 6 output rows on 2 threads"),
              std::string::npos)
        << plan;
    // Forced onto rows wider than any vector, it declines and says why.
    TestTensor self({1, 1, 1, 2, 40}, ACL_FLOAT), out({1, 1, 1, 1, 20}, ACL_FLOAT);
    TestTensor indices({1, 1, 1, 1, 20}, ACL_INT32);
    ASSERT_EQ(poolgradForceImplementation("cpu_argmax_forward_narrow_rows"), ACL_SUCCESS);
    const test_support::TwoPhaseStatus status =
        test_support::runMaxPool3dWithArgmax(self, {{1, 2, 2}, {1, 2, 2}, {0}}, out, indices);
    EXPECT_EQ(status.phaseOne, 561003);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("rows of 40 columns and 20 windows do not fit in one vector of"),
              std::string::npos)
        << aclGetRecentErrMsg();
}

TEST(ArgmaxForwardPlans, RowSearchLoadsFollowTheStride) {
    const Setting setting(1);
    // Stride 1, dilation 2: contiguous loads; 200 - 2*2 = 196 windows from column 0, 2x3 rows. No window
    // leaves the row and the last chunk's loads end at its last column, whatever the vector length: rows are
    // read in place.
    const Forward contiguous{{1, 1, 2, 5, 200}, {1, 1, 1, 2, 196}, {{2, 3, 3}, {2, 2, 1}, {0}, {1, 1, 2}}};
    EXPECT_EQ(planOf(contiguous, "cpu_argmax_forward_dense_rows").second,
              "row vectors: 196 windows k3 s1 d2 from column 0, contiguous loads, up to 6 rows in place, runs of "
              "output rows a call; 2 output rows on 1 threads");
    // Stride 3: gathered loads; the one window of H is clipped to 2 rows.
    const Forward gathered{{1, 1, 1, 3, 10}, {1, 1, 1, 1, 4}, {{1, 3, 3}, {1, 3, 3}, {0, 1, 1}}};
    EXPECT_EQ(planOf(gathered, "cpu_argmax_forward_dense_rows").second,
              "row vectors: 4 windows k3 s3 d1 from column -1, gathered loads, up to 2 padded rows; 1 output rows "
              "on 1 threads");
}

TEST(ArgmaxForwardPlans, PlanarAndChannelsLastPlans) {
    const Setting setting(2);
    // The planar kernel searches the unclipped windows 1..3 of each row by SIMD, window 0 scalar.
    EXPECT_EQ(planOf(kSmall, "cpu_argmax_forward_dense").second,
              "dense, SIMD across windows ow[1,4), the rest scalar; 2 planes on 2 threads");
    EXPECT_EQ(planOf(kSmall, "cpu_argmax_forward_reference").second, "strided, scalar; 2 planes on 2 threads");
    Forward channelsLast = kSmall;
    channelsLast.channelsLast = true;
    // 3x3 positions, whole rows searched at once (float32, the plane addressable in 32 bits), outputs too small to
    // stream; 1 x 4 output rows.
    EXPECT_EQ(planOf(channelsLast, "cpu_argmax_forward_channels_last").second,
              "across channels, up to 9 positions, whole rows; 4 output rows on 2 threads");
    // 16-bit rows too, compared as integers by pairs of vectors of channels (widened as they load where a NaN or
    // a rest of channels takes the float32 search).
    for (const aclDataType type : {ACL_FLOAT16, ACL_BF16}) {
        channelsLast.type = type;
        EXPECT_EQ(planOf(channelsLast, "cpu_argmax_forward_channels_last").second,
                  "across channels, up to 9 positions, whole rows, 16-bit values compared as integers by pairs of "
                  "vectors; 4 output rows on 2 threads");
    }
}

TEST(ArgmaxForwardPlans, RowSearchWidensSixteenBitRows) {
    // Float16 / bfloat16 rows are always copied (widened to float32), padded or not; the plan says so, and the
    // dispatch takes the row search for them (the planar kernel before).
    const Setting setting(2);
    for (const aclDataType type : {ACL_FLOAT16, ACL_BF16}) {
        Forward half = kSmall;
        half.type = type;
        EXPECT_EQ(planOf(half, "cpu_argmax_forward_dense_rows").second,
                  "row vectors: 4 windows k3 s2 d1 from column -1, pairs loads, up to 3 rows widened to float32 "
                  "(values: the bits of the elements the indices name); 8 output rows on 2 threads");
        EXPECT_EQ(planOf(half, nullptr).first, "cpu_argmax_forward_dense_rows");
    }
}

TEST(ArgmaxForwardPlans, RowSearchReadsBFloat16RowsInPlace) {
    // Bfloat16 rows that need no padding, read at stride 1 or 2, are searched where they lie (widened in the
    // register); float16 rows, and bfloat16 rows at stride 3, are still copied widened.
    const Setting setting(2);
    Forward pairs{{1, 2, 1, 4, 64}, {1, 2, 1, 2, 32}, {{1, 2, 2}, {1, 2, 2}, {0, 0, 0}}, ACL_BF16};
    EXPECT_EQ(planOf(pairs, "cpu_argmax_forward_dense_rows").second,
              "row vectors: 32 windows k2 s2 d1 from column 0, pairs loads, up to 2 bfloat16 rows in place, widened "
              "in the register, runs of output rows a call; 4 output rows on 2 threads");
    Forward contiguous{{1, 2, 1, 4, 64}, {1, 2, 1, 2, 62}, {{1, 2, 3}, {1, 2, 1}, {0, 0, 0}}, ACL_BF16};
    EXPECT_NE(planOf(contiguous, "cpu_argmax_forward_dense_rows")
                  .second.find("contiguous loads, up to 2 bfloat16 rows in place"),
              std::string::npos);
    Forward gathered{{1, 2, 1, 4, 64}, {1, 2, 1, 2, 21}, {{1, 2, 3}, {1, 2, 3}, {0, 0, 0}}, ACL_BF16};
    EXPECT_NE(planOf(gathered, "cpu_argmax_forward_dense_rows").second.find("rows widened to float32"),
              std::string::npos);
    pairs.type = ACL_FLOAT16;
    EXPECT_NE(planOf(pairs, "cpu_argmax_forward_dense_rows").second.find("rows widened to float32"), std::string::npos);
}

}  // namespace

namespace {

// The stride-2 forward's plan: its windows, the whole ones, the row blocks and threads; and each decline.
TEST(ArgmaxForwardPlans, Stride2PlanAndItsDeclines) {
    const Setting setting(2);
    // 4 planes of 5x40, k3 s2 p1: 20 windows from column -1, windows 1..19 whole; 4 planes are fewer than the
    // 8 items two threads want: 2 blocks of the 3 output rows per plane.
    const Forward wide{{1, 4, 1, 5, 40}, {1, 4, 1, 3, 20}, {{1, 3, 3}, {1, 2, 2}, {0, 1, 1}}};
    EXPECT_EQ(planOf(wide, "cpu_argmax_forward_stride2"),
              std::make_pair(std::string("cpu_argmax_forward_stride2"),
                             std::string("stride-2 vectors: 20 windows k3 s2 from column -1, whole 1..19, row winners "
                                         "carried down 2 blocks of output rows per plane; 8 items on 2 threads")));
    // Unforced, a 2-D problem goes to the 3x3 stride-2 search, and so does a 3-D one of 3x3x3 windows (3 planes
    // of depth, windows 3 deep at stride 2 give one output plane): measured faster; forced, this entry takes it.
    EXPECT_EQ(planOf(wide, nullptr).first, "cpu_argmax_forward_3x3_stride2");
    const Forward deep{{1, 4, 3, 5, 40}, {1, 4, 1, 3, 20}, {{3, 3, 3}, {2, 2, 2}, {0, 1, 1}}};
    EXPECT_EQ(planOf(deep, nullptr).first, "cpu_argmax_forward_3x3_stride2");
    EXPECT_EQ(planOf(deep, "cpu_argmax_forward_stride2").first, "cpu_argmax_forward_stride2");
    const auto declines = [](const Forward &forward, const char *reason) {
        TestTensor self = tensorFor(forward.input, forward.type, forward.channelsLast);
        TestTensor out = tensorFor(forward.output, forward.type, forward.channelsLast);
        TestTensor indices = tensorFor(forward.output, ACL_INT32, forward.channelsLast);
        EXPECT_EQ(poolgradForceImplementation("cpu_argmax_forward_stride2"), ACL_SUCCESS);
        const test_support::TwoPhaseStatus status =
            test_support::runMaxPool3dWithArgmax(self, forward.lists, out, indices);
        EXPECT_EQ(status.phaseOne, 561003) << reason;
        EXPECT_EQ(std::string(aclGetRecentErrMsg()).find(reason) == std::string::npos, false)
            << aclGetRecentErrMsg() << " (expected: " << reason << ")";
        poolgradForceImplementation(nullptr);
    };
    Forward half = wide;
    half.type = ACL_FLOAT16;
    declines(half, "values are not float32");
    Forward channelsLast = wide;
    channelsLast.channelsLast = true;
    declines(channelsLast, "input planes are not dense row-major");
    declines(Forward{{1, 4, 1, 5, 40}, {1, 4, 1, 3, 14}, {{1, 3, 3}, {1, 2, 3}, {0, 1, 1}}},
             "width windows are not 3 wide at stride 2 without dilation, padding 0 or 1");
    // 33 columns, padding 1: 17 windows, the first and the last clipped: 15 whole.
    declines(Forward{{1, 1, 1, 3, 33}, {1, 1, 1, 2, 17}, {{1, 3, 3}, {1, 2, 2}, {0, 1, 1}}},
             "rows of 15 whole windows, fewer than 16");
    // 2 x 3 x 1024 x 208 floats: 5,111,808 bytes, over 4 MiB: the row search was measured faster from DRAM,
    // so the dispatch passes this entry by, naming why; forced, it runs. (Depth windows of one plane: the 3x3
    // stride-2 search takes 2-D planes or 3x3x3 windows only.)
    const Forward large{{1, 2, 3, 1024, 208}, {1, 2, 3, 512, 104}, {{1, 3, 3}, {1, 2, 2}, {0, 1, 1}}};
    EXPECT_EQ(planOf(large, nullptr).first, "cpu_argmax_forward_dense_rows");
    EXPECT_EQ(planOf(large, "cpu_argmax_forward_stride2").first, "cpu_argmax_forward_stride2");
    // Unforced, rows that fit in a vector go to the narrow-rows search (kSmall's 8 columns: not in SSE4's 4 lanes).
    EXPECT_EQ(planOf(kSmall, nullptr).first,
              test_support::hostFloatLanes() >= 8 ? "cpu_argmax_forward_narrow_rows" : "cpu_argmax_forward_dense_rows");
}

}  // namespace

namespace {

// Kernel 2 with dilation 2 and padding 1 on a depth of 1 reads planes -1 and 1: the one output plane's window holds
// no input, so every output is -inf with index -1, whatever its height and width windows. The entries that take
// 2-D planes decline it (they had checked the depth's sizes only, and the flat stride-1 forward searched the plane:
// found by the random forward suite, seed 16827017081888063057, case 92); every entry that runs it gives -inf, -1.
TEST(ArgmaxForwardPlans, DepthWindowMissingThePlaneIsEmpty) {
    const Setting setting(2);
    const MaxPool3dLists lists{{2, 2, 2}, {3, 1, 1}, {1, 0, 0}, {2, 1, 1}, false};
    for (const auto &[height, width, kernelHeight] :
         {std::array<int64_t, 3>{7, 4, 2}, {9, 40, 3}, {33, 40, 3}, {33, 41, 3}}) {
        MaxPool3dLists each = lists;
        each.kernel = {2, kernelHeight, kernelHeight};
        // stride 1 (the stride-1 forwards) and, for 3x3 windows, stride 2 with padding 1 (the 3x3 stride-2 one).
        for (const int64_t stride : {int64_t{1}, int64_t{2}}) {
            if (stride == 2 && kernelHeight != 3) continue;
            each.stride = {3, stride, stride};
            each.padding = {1, stride - 1, stride - 1};
            const int64_t outH = (height + 2 * (stride - 1) - kernelHeight) / stride + 1;
            const int64_t outW = (width + 2 * (stride - 1) - kernelHeight) / stride + 1;
            for (const char *implementation :
                 {"cpu_argmax_forward_3x3_stride2", "cpu_argmax_forward_stride1_flat", "cpu_argmax_forward_stride1",
                  "cpu_argmax_forward_narrow_rows", "cpu_argmax_forward_dense_rows", "cpu_argmax_forward_dense",
                  "cpu_argmax_forward_reference", static_cast<const char *>(nullptr)}) {
                SCOPED_TRACE(std::string(implementation ? implementation : "dispatch") + ": " + std::to_string(height) +
                             "x" + std::to_string(width) + " k" + std::to_string(kernelHeight) + " s" +
                             std::to_string(stride));
                TestTensor self({2, 1, 1, height, width}, ACL_FLOAT);
                for (int64_t i = 0; i < self.elementCount(); ++i) self.set(i, static_cast<double>(i % 5));
                TestTensor out({2, 1, 1, outH, outW}, ACL_FLOAT), indices({2, 1, 1, outH, outW}, ACL_INT32);
                out.poison();
                indices.poison();
                ASSERT_EQ(poolgradForceImplementation(implementation), ACL_SUCCESS);
                const test_support::TwoPhaseStatus status =
                    test_support::runMaxPool3dWithArgmax(self, each, out, indices);
                poolgradForceImplementation(nullptr);
                if (status.phaseOne != 0) {
                    // Forced entries that decline: the 2-D ones must say the depth window misses the plane.
                    const std::string message = aclGetRecentErrMsg();
                    if (message.find("2-D planes") != std::string::npos)
                        EXPECT_NE(message.find("the depth window holds no input plane"), std::string::npos) << message;
                    continue;
                }
                ASSERT_EQ(status.phaseTwo, 0) << status.message;
                for (int64_t q = 0; q < out.elementCount(); ++q) {
                    ASSERT_EQ(out.bitsAt(q), 0xff800000u) << "output " << q;
                    ASSERT_EQ(indices.at(q), -1) << "output " << q;
                }
            }
        }
    }
}

}  // namespace
