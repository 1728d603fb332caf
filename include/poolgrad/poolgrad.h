/*
 * poolgrad — poolgrad/poolgrad.h: library controls that CANN does not have.
 */
#ifndef POOLGRAD_POOLGRAD_H_
#define POOLGRAD_POOLGRAD_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Sets how many threads operators use (>= 1), or 0 to return to the default: the environment variable
 * POOLGRAD_NUM_THREADS if set, else the number of processors OpenMP reports. The caller's own OpenMP
 * settings are never changed. Results are bit-identical for every thread count. Negative: 100000.
 */
ACL_FUNC_VISIBILITY aclError poolgradSetNumThreads(int32_t numThreads);
/**
 * Sets how many elements of work a thread must have before an operator wakes it (>= 1), or 0 for the
 * default (32768): smaller problems run on fewer threads, down to the calling thread alone, because
 * waking a thread costs more than they take. 1 makes every problem use all threads (tests use it to
 * check that results do not depend on the thread count). Negative: 100000.
 */
ACL_FUNC_VISIBILITY aclError poolgradSetParallelThreshold(int64_t elementsPerThread);
/** The number of threads operators will use now. */
ACL_FUNC_VISIBILITY int32_t poolgradGetNumThreads(void);
/**
 * Whether outputs are written with streaming (non-temporal) stores, which bypass the caches. AUTOMATIC
 * streams outputs over 4 MiB (a forward's values and indices: over 2 MiB together): fastest when the operands
 * come from DRAM. NEVER suits loops that run the same buffers again and again while they fit in the
 * last-level cache: streaming would send the output
 * to DRAM each time, and ordinary stores leave it in the cache (1.1-2.3x faster there, 1.2-2.0x slower
 * from DRAM, measured on 8-16 MiB outputs). ALWAYS streams every output. Either way a kernel streams
 * only where its vectors fill whole cache lines (otherwise a line would be read back from memory), and
 * results are bit-identical for every choice; AUTOMATIC also leaves MaxPoolV3Grad's channels-last 3x3 stride-2
 * rows unstreamed where vectors are narrower than a line (AVX2 and below), measured faster there from DRAM
 * too. DEFAULT returns to the environment variable
 * POOLGRAD_STREAMING_STORES ("automatic", "never" or "always") if set, else AUTOMATIC. Phase 1 reads the
 * choice: executors made earlier keep theirs. Another value: 100000.
 */
#define POOLGRAD_STREAMING_STORES_DEFAULT 0
#define POOLGRAD_STREAMING_STORES_AUTOMATIC 1
#define POOLGRAD_STREAMING_STORES_NEVER 2
#define POOLGRAD_STREAMING_STORES_ALWAYS 3
ACL_FUNC_VISIBILITY aclError poolgradSetStreamingStores(int32_t choice);
/** The choice phase 1 will use now: POOLGRAD_STREAMING_STORES_AUTOMATIC, _NEVER or _ALWAYS. */
ACL_FUNC_VISIBILITY int32_t poolgradGetStreamingStores(void);
/**
 * Implementations of the operators, in the order they are tried (fastest first, the reference last).
 * poolgradImplementationName returns nullptr for an index outside [0, poolgradImplementationCount()).
 */
ACL_FUNC_VISIBILITY int32_t poolgradImplementationCount(void);
ACL_FUNC_VISIBILITY const char *poolgradImplementationName(int32_t index);
/**
 * The kind of problem implementation `index` solves: "argmax-forward" (every forward),
 * "index-scatter-backward" (every indices-based backward), "recompute-argmax-backward"
 * (MaxPoolV3Grad) or "zero-fill" (empty inputs); nullptr for an index outside the list.
 */
ACL_FUNC_VISIBILITY const char *poolgradImplementationTask(int32_t index);
/**
 * Restricts phase 1 of the operators called from this thread to the implementation named (nullptr or
 * "": no restriction), for problems of the kind it implements (others, such as the zero-fill of an
 * empty input, keep their usual choice). If it declines a problem, phase 1 fails with 561003 and the
 * message gives its reason. For testing every implementation and for benchmarks. Unknown names: 100000.
 */
ACL_FUNC_VISIBILITY aclError poolgradForceImplementation(const char *name);
/**
 * What phase 2 of the last operator run on this thread did: the implementation phase 1 chose, the plan it
 * made there (strategy and sizes, as POOLGRAD_VERBOSE prints it), and the fallback the data forced on the
 * plan ("" when the plan ran as made; otherwise "<implementation that ran instead>: <why>", e.g. when
 * indices leave their own windows), and the status phase 2 returned. Before any run: empty strings.
 * The strings stay valid until the next operator run on this thread. Null report: 100000.
 */
typedef struct poolgradRunReport {
    const char *implementation;
    const char *plan;
    const char *fallback;
    int32_t status;
} poolgradRunReport;
ACL_FUNC_VISIBILITY aclError poolgradGetLastRunReport(poolgradRunReport *report);
/**
 * Forgets the plans phase 1 remembered on this thread. Each thread keeps the last 8 implementation choices
 * and plans it made for problems whose planes have up to 65536 positions, and reuses one when the same
 * problem (operator, shapes, strides, types, operand alignment) comes again under the same settings
 * (threads, parallel threshold, streaming stores, SIMD target); forced implementations are never kept.
 * Arguments are checked on every call all the same. For releasing the plans' memory, and for tests.
 */
ACL_FUNC_VISIBILITY void poolgradClearPlanCache(void);
/** The library version, "MAJOR.MINOR.PATCH". */
ACL_FUNC_VISIBILITY const char *poolgradVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_POOLGRAD_H_ */
