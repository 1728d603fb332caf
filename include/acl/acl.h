/*
 * poolgrad — acl/acl.h: the umbrella header of the ACL runtime API, as CANN programs include it.
 */
#ifndef POOLGRAD_ACL_ACL_H_
#define POOLGRAD_ACL_ACL_H_

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Initialises the runtime. configPath may be nullptr. A second call without aclFinalize: 100002. */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
/** Releases runtime state. Without a matching aclInit: 100037. */
ACL_FUNC_VISIBILITY aclError aclFinalize(void);
/**
 * The message of the most recent failure on the calling thread (an empty string when there was
 * none). It names the argument, the rule it broke and the values involved. The pointer stays valid
 * until the next library call on this thread.
 */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACL_ACL_H_ */
