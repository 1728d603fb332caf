// Library addition: a non-empty operand whose data address is not aligned to its element size is
// refused in phase 1 (161002), so no kernel ever dereferences a misaligned pointer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"

namespace {

TEST(OperandAlignment, MisalignedGradInputIsRefusedAndNothingIsWritten) {
    std::vector<int64_t> selfShape{1, 1, 2, 2, 2}, outShape{1, 1, 1, 1, 1};
    std::vector<unsigned char> storage(64, 0xA5);  // gradInput lives at storage + 1: misaligned floats
    float gradOutputData[1] = {0.5f};
    int32_t indicesData[1] = {6};
    aclTensor *gradOutput =
        aclCreateTensor(outShape.data(), 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, gradOutputData);
    aclTensor *indices =
        aclCreateTensor(outShape.data(), 5, ACL_INT32, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, indicesData);
    aclTensor *self =
        aclCreateTensor(selfShape.data(), 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, storage.data() + 32);
    aclTensor *gradInput =
        aclCreateTensor(selfShape.data(), 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, storage.data() + 1);
    const int64_t k[3] = {2, 2, 2}, p[3] = {0, 0, 0}, d[1] = {1};
    aclIntArray *kernel = aclCreateIntArray(k, 3), *stride = aclCreateIntArray(k, 3),
                *padding = aclCreateIntArray(p, 3), *dilation = aclCreateIntArray(d, 1);
    uint64_t workspaceSize = 77;
    aclOpExecutor *executor = reinterpret_cast<aclOpExecutor *>(0x1);
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOutput, self, indices, kernel, stride, padding,
                                                               dilation, false, gradInput, &workspaceSize, &executor),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(executor, nullptr);
    EXPECT_EQ(workspaceSize, 0u);
    const std::string message = aclGetRecentErrMsg();
    EXPECT_NE(message.find("gradInput"), std::string::npos) << message;
    EXPECT_NE(message.find("aligned"), std::string::npos) << message;
    for (size_t i = 0; i < 32; ++i) EXPECT_EQ(storage[i], 0xA5) << i;
    for (const aclTensor *tensor : {gradOutput, indices, self, gradInput}) aclDestroyTensor(tensor);
    for (const aclIntArray *array : {kernel, stride, padding, dilation}) aclDestroyIntArray(array);
}

}  // namespace
