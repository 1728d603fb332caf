/* The seed call WE-1 (SPEC §9) from a C11 program: the headers and the library's C linkage must work
 * without C++. Prints the same lines as seed_style_client.cpp. */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"

#define CHECK(cond, what)                                                              \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s failed: %s\n", what, aclGetRecentErrMsg());            \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

int main(void) {
    const int64_t outShape[5] = {1, 1, 1, 1, 1}, inShape[5] = {1, 1, 2, 2, 2};
    const int64_t two[3] = {2, 2, 2}, zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    const float gradOutHost[1] = {0.4757f};
    const int32_t indicesHost[1] = {6};
    float result[8];
    void *gradOutData = NULL, *selfData = NULL, *indicesData = NULL, *gradInData = NULL;
    aclTensor *gradOut, *self, *indices, *gradIn;
    aclIntArray *kernelSize, *stride, *padding, *dilation;
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    aclrtStream stream = NULL;
    int i;

    CHECK(aclInit(NULL) == ACL_SUCCESS, "aclInit");
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice");
    CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS, "aclrtCreateStream");
    CHECK(aclrtMalloc(&gradOutData, sizeof gradOutHost, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "aclrtMalloc");
    CHECK(aclrtMalloc(&selfData, sizeof result, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "aclrtMalloc");
    CHECK(aclrtMalloc(&indicesData, sizeof indicesHost, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "aclrtMalloc");
    CHECK(aclrtMalloc(&gradInData, sizeof result, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "aclrtMalloc");
    CHECK(aclrtMemcpy(gradOutData, sizeof gradOutHost, gradOutHost, sizeof gradOutHost, ACL_MEMCPY_HOST_TO_DEVICE) ==
              ACL_SUCCESS, "aclrtMemcpy");
    CHECK(aclrtMemcpy(indicesData, sizeof indicesHost, indicesHost, sizeof indicesHost, ACL_MEMCPY_HOST_TO_DEVICE) ==
              ACL_SUCCESS, "aclrtMemcpy");
    CHECK(aclrtMemset(selfData, sizeof result, 0, sizeof result) == ACL_SUCCESS, "aclrtMemset");
    CHECK(aclrtMemset(gradInData, sizeof result, 0x7f, sizeof result) == ACL_SUCCESS, "aclrtMemset");

    gradOut = aclCreateTensor(outShape, 5, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, outShape, 5, gradOutData);
    self = aclCreateTensor(inShape, 5, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, inShape, 5, selfData);
    indices = aclCreateTensor(outShape, 5, ACL_INT32, NULL, 0, ACL_FORMAT_ND, outShape, 5, indicesData);
    gradIn = aclCreateTensor(inShape, 5, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, inShape, 5, gradInData);
    CHECK(gradOut && self && indices && gradIn, "aclCreateTensor");
    kernelSize = aclCreateIntArray(two, 3);
    stride = aclCreateIntArray(two, 3);
    padding = aclCreateIntArray(zero, 3);
    dilation = aclCreateIntArray(one, 3);
    CHECK(kernelSize && stride && padding && dilation, "aclCreateIntArray");

    CHECK(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOut, self, indices, kernelSize, stride, padding, dilation,
                                                          false, gradIn, &workspaceSize, &executor) == ACLNN_SUCCESS,
          "aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize");
    CHECK(workspaceSize == 0, "workspaceSize == 0 on the CPU backend");
    CHECK(aclnnMaxPool3dWithArgmaxBackward(NULL, 0, executor, stream) == ACLNN_SUCCESS,
          "aclnnMaxPool3dWithArgmaxBackward");
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "aclrtSynchronizeStream");
    CHECK(aclrtMemcpy(result, sizeof result, gradInData, sizeof result, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS,
          "aclrtMemcpy");
    for (i = 0; i < 8; i++) printf("result[%ld] is: %f\n", (long)i, result[i]);

    aclDestroyTensor(gradOut);
    aclDestroyTensor(self);
    aclDestroyTensor(indices);
    aclDestroyTensor(gradIn);
    aclDestroyIntArray(kernelSize);
    aclDestroyIntArray(stride);
    aclDestroyIntArray(padding);
    aclDestroyIntArray(dilation);
    aclrtFree(gradOutData);
    aclrtFree(selfData);
    aclrtFree(indicesData);
    aclrtFree(gradInData);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
