/*
 * poolgrad — aclnn/acl_meta.h: tensor, scalar and array descriptors of the aclnn operator API.
 * Descriptors hold metadata and a data address; destroying one never frees the data it points to.
 *
 * Every aclTensor, aclScalar, aclIntArray, aclFloatArray, aclBoolArray, aclTensorList and aclOpExecutor
 * pointer the library returns is an opaque handle, not an address: never dereference it. A handle is never
 * issued twice, so passing a destroyed (or already run) handle to any function is detected and returns
 * 161001 (nullptr from a create function) with a message, however many objects were created since.
 */
#ifndef POOLGRAD_ACLNN_ACL_META_H_
#define POOLGRAD_ACLNN_ACL_META_H_

#include <stdbool.h>
#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclTensorList aclTensorList;
typedef struct aclOpExecutor aclOpExecutor;

/** Status of every aclnn* function: 0 on success, one of the ACLNN_ERR_* codes otherwise. */
typedef int32_t aclnnStatus;

/**
 * Describes a strided view of device memory. Element (i0,...,ik) lives at byte address
 * tensorData + (offset + sum(ij * stride[j])) * sizeof(dataType). stride == nullptr means contiguous
 * row-major; offset and strides count elements and must be non-negative. storageDims describe the
 * allocation; operators check that every element of the view lies inside it. Returns nullptr on
 * invalid arguments (null dims with a non-zero count, a negative dim, stride or offset, an unknown
 * dtype, more than 8 dims) and on sizes that overflow: the element count, a row-major stride, the
 * offset of the furthest element or its byte offset must fit in int64, the view must end inside the
 * address space, and the byte size of storageDims must fit in int64.
 */
ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                               const int64_t *stride, int64_t offset, aclFormat format,
                                               const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData);
/** Creates a scalar holding a copy of *value interpreted as dataType. */
ACL_FUNC_VISIBILITY aclScalar *aclCreateScalar(void *value, aclDataType dataType);
/** Copies size int64 values; size 0 (value may be nullptr) creates a valid empty array. */
ACL_FUNC_VISIBILITY aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
/** Copies size float values; size 0 creates a valid empty array. */
ACL_FUNC_VISIBILITY aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size);
/** Copies size bool values; size 0 creates a valid empty array. */
ACL_FUNC_VISIBILITY aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size);
/**
 * Creates a list of size tensors (null entries allowed). The list holds copies of the tensor descriptors:
 * destroying a member tensor afterwards leaves the list intact, and destroying the list leaves the member
 * handles alive, to be destroyed by the caller. A destroyed member handle: nullptr.
 */
ACL_FUNC_VISIBILITY aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size);

/**
 * Each destroy function frees the descriptor only; nullptr is accepted and returns 0. A handle already
 * destroyed (or not made by the matching create function): 161001, nothing is freed.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor *tensor);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalar(const aclScalar *scalar);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyIntArray(const aclIntArray *array);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyFloatArray(const aclFloatArray *array);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyBoolArray(const aclBoolArray *array);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensorList(const aclTensorList *array);

/**
 * The device address a tensor records (its tensorData), and a new one for it: a program that keeps its
 * descriptors (same shape, strides, dtype and format) from call to call re-points them instead of creating
 * new ones. Call them before a phase 1 or after a phase 2, not in between: an executor keeps the addresses
 * its phase 1 saw (re-point an executor's operands with aclSetInputTensorAddr / aclSetOutputTensorAddr).
 * Null tensor or addr, a destroyed handle: 161001. aclSetRawTensorAddr refuses (161002) an address from
 * which the view would run past the end of the address space, as aclCreateTensor does.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr);
ACL_FUNC_VISIBILITY aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr);

/**
 * Queries. Arrays returned through int64_t** are allocated by the library with C++ new[]; a C++
 * caller frees them with delete[] (as with CANN). Null arguments and destroyed handles return 161001.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims,
                                                   uint64_t *storageDimsNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue,
                                                  uint64_t *stridesNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset);
ACL_FUNC_VISIBILITY aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format);
ACL_FUNC_VISIBILITY aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType);
ACL_FUNC_VISIBILITY aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size);
ACL_FUNC_VISIBILITY aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size);
ACL_FUNC_VISIBILITY aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size);
ACL_FUNC_VISIBILITY aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACLNN_ACL_META_H_ */
