"""poolgrad in PyTorch: max pooling whose forward and backward run poolgrad on the tensors' own memory.

Functions shaped like torch.nn.functional (max_pool3d, max_pool2d, adaptive_max_pool3d, adaptive_max_pool2d,
and the TensorFlow-style max_pool2d_tf) and nn.Modules of the same names (MaxPool3d, ...). CPU tensors of
float32, float16 or bfloat16, any non-negative strides (channels-last included), outputs in the input's
memory format. The operators are also registered as torch.ops.poolgrad.* where torch.library exists
(REGISTERED). Errors raise poolgrad.PoolgradError (a RuntimeError) with the library's message.
"""

from ..errors import PoolgradError
from ._autograd import DOUBLE_BACKWARD_MESSAGE
from ._registration import REGISTERED
from .functional import adaptive_max_pool2d, adaptive_max_pool3d, max_pool2d, max_pool2d_tf, max_pool3d
from .modules import AdaptiveMaxPool2d, AdaptiveMaxPool3d, MaxPool2d, MaxPool2dTF, MaxPool3d

__all__ = [
    "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "DOUBLE_BACKWARD_MESSAGE", "MaxPool2d", "MaxPool2dTF", "MaxPool3d",
    "PoolgradError", "REGISTERED", "adaptive_max_pool2d", "adaptive_max_pool3d", "max_pool2d", "max_pool2d_tf",
    "max_pool3d"
]
