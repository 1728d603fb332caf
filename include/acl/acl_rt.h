/*
 * poolgrad — acl/acl_rt.h: devices, streams, memory and runtime options.
 * On the CPU backend device 0 is the host: "device memory" is aligned host memory and every memcpy
 * kind is a plain copy. Streams exist so that CANN programs run unchanged; work is executed
 * synchronously when it is enqueued.
 */
#ifndef POOLGRAD_ACL_ACL_RT_H_
#define POOLGRAD_ACL_ACL_RT_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Direction of an aclrtMemcpy; all kinds are plain copies on the CPU backend. */
typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
    ACL_MEMCPY_DEFAULT = 4,
    ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE = 5,
    ACL_MEMCPY_INNER_DEVICE_TO_DEVICE = 6,
    ACL_MEMCPY_INTER_DEVICE_TO_DEVICE = 7
} aclrtMemcpyKind;

/** Page policy of aclrtMalloc; accepted and ignored by the CPU backend. */
typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5
} aclrtMemMallocPolicy;

/** Makes deviceId the calling thread's current device. Negative ids: 100000; ids >= count: 200002. */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
/** Releases the calling thread's use of deviceId (same id rules as aclrtSetDevice). */
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
/** Writes the calling thread's current device (0 when none was set). */
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);
/** Writes the number of devices; the CPU backend always has exactly one (device 0). */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);
/** Waits until every stream of the current device has finished its work. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);

/** Creates a stream on the current device; null stream pointer: 100000. */
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);
/**
 * Destroys a stream created by aclrtCreateStream. A stream handle is never reused: a destroyed or unknown
 * handle gives 100000 here and in aclrtSynchronizeStream, and 161001 from an operator's phase 2.
 */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
/** Waits until all work enqueued on stream (nullptr: the default stream) has finished. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);

/**
 * Allocates size bytes of device memory, aligned to at least 64 bytes. Like CANN, the block holds size
 * rounded up to a multiple of 32 bytes plus 32 more, all readable and writable. size 0 or null devPtr:
 * 100000; a size that cannot be allocated (too large, or out of memory): ACL_ERROR_RT_MEMORY_ALLOCATION.
 */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
/** Frees memory returned by aclrtMalloc; null or unknown pointers: 100000. */
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);
/**
 * Allocates host memory (pinned on accelerator backends), aligned to at least 64 bytes and padded like
 * aclrtMalloc. size 0 or null hostPtr: 100000; a size that cannot be allocated: ACL_ERROR_RT_MEMORY_ALLOCATION.
 */
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);
/** Frees memory returned by aclrtMallocHost. */
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);
/** Copies count bytes from src to dst. Null pointers or count > destMax: 100000. */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind);
/** Sets count bytes at devPtr to the low byte of value. Null devPtr or count > maxCount: 100000. */
ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);

/** Stores a runtime option for the current context. ACL_OPT_DETERMINISTIC accepts 0 and 1. */
ACL_FUNC_VISIBILITY aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value);
/** Reads a runtime option of the current context (0 when never set). */
ACL_FUNC_VISIBILITY aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value);
/** Stores a process-wide runtime option. */
ACL_FUNC_VISIBILITY aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value);
/** Reads a process-wide runtime option (0 when never set). */
ACL_FUNC_VISIBILITY aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACL_ACL_RT_H_ */
