"""The CANN sample of aclnnMaxPool3dWithArgmaxBackward, from Python: the forward gives the argmax of a
2x2x2 input, the backward sends the gradient 0.4757 to it. Prints what the C sample prints."""

import numpy as np

import poolgrad

self = np.array([0.0850, -0.5147, -0.0212, -0.5654, -0.3222, 0.5847, 1.7510, 0.9954],
                dtype=np.float32).reshape(1, 1, 2, 2, 2)
out, indices = poolgrad.max_pool3d_with_argmax(self, kernel_size=[2, 2, 2], stride=[2, 2, 2], padding=[0, 0, 0])
grad_output = np.full(out.shape, 0.4757, dtype=np.float32)
grad_input = poolgrad.max_pool3d_with_argmax_backward(grad_output, self, indices, [2, 2, 2], [2, 2, 2], [0, 0, 0])
for i, value in enumerate(grad_input.ravel()):
    print(f"result[{i}] is: {value:f}")
