#include "support/two_phase_run.h"

namespace test_support {

aclnnStatus runPhaseTwo(PhaseTwoFunction phaseTwo, uint64_t workspaceSize, aclOpExecutor *executor,
                        aclrtStream stream) {
    void *workspace = nullptr;
    if (workspaceSize > 0 && aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        aclDestroyAclOpExecutor(executor);
        return -2;
    }
    const aclnnStatus status = phaseTwo(workspace, workspaceSize, executor, stream);
    const aclError synchronised = aclrtSynchronizeStream(stream);
    if (workspace != nullptr) aclrtFree(workspace);
    if (status == 0 && synchronised != ACL_SUCCESS) return -3;
    return status;
}

}  // namespace test_support
