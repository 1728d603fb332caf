"""poolgrad from Python: CANN's max-pooling operators (forward and gradient) on numpy arrays.

Every operator of the C library is a function here, with the aclnn operator's arguments in the same order
(see poolgrad.operators). Arrays are float32, float16 or ml_dtypes.bfloat16 (max_pool also takes the integer types, adaptive_max_pool2d
float64); indices int32 or int64. A
refused call raises PoolgradError carrying the aclnn status and the library's aclGetRecentErrMsg() text.
"""

from .controls import (clear_plan_cache, force_implementation, forced_implementation, get_num_threads,
                       get_streaming_stores, implementations, last_run_report, set_num_threads, set_streaming_stores,
                       version)
from .errors import PoolgradError
from .operators import (adaptive_max_pool2d, adaptive_max_pool2d_backward, adaptive_max_pool3d,
                        adaptive_max_pool3d_backward, max_pool2d_with_indices, max_pool2d_with_indices_backward,
                        max_pool2d_with_mask, max_pool2d_with_mask_backward, max_pool3d_with_argmax,
                        max_pool3d_with_argmax_backward, max_pool, max_pool_v3, max_pool_v3_grad,
                        max_pool_v3_with_attrs)

__all__ = [
    "PoolgradError", "adaptive_max_pool2d", "adaptive_max_pool2d_backward", "adaptive_max_pool3d",
    "adaptive_max_pool3d_backward", "clear_plan_cache", "force_implementation", "forced_implementation",
    "get_num_threads", "get_streaming_stores",
    "implementations", "last_run_report", "max_pool2d_with_indices", "max_pool2d_with_indices_backward", "max_pool2d_with_mask",
    "max_pool2d_with_mask_backward", "max_pool3d_with_argmax", "max_pool3d_with_argmax_backward",
    "max_pool", "max_pool_v3", "max_pool_v3_grad", "max_pool_v3_with_attrs", "set_num_threads",
    "set_streaming_stores", "version"
]
