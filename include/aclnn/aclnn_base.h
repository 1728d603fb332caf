/*
 * poolgrad — aclnn/aclnn_base.h: status codes and executor control of the aclnn operator API.
 *
 * Every operator Xxx is a pair of calls: aclnnXxxGetWorkspaceSize checks all arguments and builds an
 * executor (it never reads tensor data); aclnnXxx runs it. An executor is single-use unless it was
 * made repeatable with aclSetAclOpExecutorRepeatable. Executor handles are never reused: running,
 * destroying or making repeatable an executor that was already run or destroyed returns 161001.
 */
#ifndef POOLGRAD_ACLNN_ACLNN_BASE_H_
#define POOLGRAD_ACLNN_ACLNN_BASE_H_

#include "aclnn/acl_meta.h"

#if defined(_WIN32)
#define ACLNN_API __declspec(dllexport)
#else
#define ACLNN_API __attribute__((visibility("default")))
#endif

#define ACLNN_SUCCESS 0
#define ACLNN_ERR_PARAM_NULLPTR 161001
#define ACLNN_ERR_PARAM_INVALID 161002
#define ACLNN_ERR_RUNTIME_ERROR 361001
#define ACLNN_ERR_INNER 561000
#define ACLNN_ERR_INNER_INFERSHAPE_ERROR 561001
#define ACLNN_ERR_INNER_TILING_ERROR 561002
#define ACLNN_ERR_INNER_FIND_KERNEL_ERROR 561003
#define ACLNN_ERR_INNER_CREATE_EXECUTOR 561101
#define ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR 561102
#define ACLNN_ERR_INNER_NULLPTR 561103
#define ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE 561104
#define ACLNN_ERR_INNER_KEY_CONFLICT 561105
#define ACLNN_ERR_INNER_KEY_CONFILICT 561105
#define ACLNN_ERR_INNER_INVALID_IMPL_MODE 561106
#define ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND 561107
#define ACLNN_ERR_INNER_LOAD_JSON_FAILED 561108
#define ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND 561109
#define ACLNN_ERR_INNER_JSON_FORMAT_INVALID 561110
#define ACLNN_ERR_INNER_JSON_DTYPE_INVALID 561111
#define ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND 561112
#define ACLNN_ERR_INNER_OP_FILE_INVALID 561113
#define ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND 561114
#define ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH 561115
#define ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE 561116
#define ACLNN_ERR_INNER_INPUT_JSON_IS_NULL 561117
#define ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID 561118
#define ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID 561119

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Makes an executor reusable: call it between phase 1 and phase 2. A repeatable executor may be run
 * any number of times (each run re-reads the current tensor data) and is freed only by
 * aclDestroyAclOpExecutor. Null: 561103; an executor that is not live: 161001.
 */
ACLNN_API aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);
/**
 * Point input `index` (resp. output `index`) of an executor at new memory: the operator's aclTensor inputs
 * (outputs) count from 0 in parameter order, e.g. aclnnMaxPool3dWithArgmaxBackward has inputs gradOutput,
 * self, indices and output gradInput. `tensor` must be the handle passed there in phase 1; it records addr
 * too (aclGetRawTensorAddr). The view (shape, strides, offset, dtype) stays the one phase 1 checked. The next
 * run checks the operator's memory rules again with the new addresses (non-null, aligned, no output
 * overlapping an operand: 161001 / 161002, nothing written) and plans the problem again if that changed
 * anything. For repeatable executors run many times on new memory, as in a training loop. As in CANN's
 * sample, phase 1 may be given tensors with null data and the addresses set here before the first run
 * (a run without them: 161001, nothing written).
 * Null executor or tensor: 561103; an executor that is not live: 161001; an index out of range, another
 * tensor than the one passed there, or a position passed as null in phase 1: 161002.
 */
ACLNN_API aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr);
ACLNN_API aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor,
                                             void *addr);
/** Frees an executor (repeatable or not yet run). Null: 561103; an executor that is not live: 161001. */
ACLNN_API aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACLNN_ACLNN_BASE_H_ */
