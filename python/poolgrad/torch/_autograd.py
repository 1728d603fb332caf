"""Autograd for the poolgrad operators: forward and backward both run poolgrad.

Each forward is a torch.autograd.Function that saves what its backward needs. Where a backward runs with
grad mode on (`create_graph=True`), it is itself a Function whose own backward refuses (poolgrad has no
double backward), so the first derivative works and asking for the second raises an error that says why;
otherwise (a plain `loss.backward()`) it calls the backward kernel directly.
"""

import torch

from . import _kernels

DOUBLE_BACKWARD_MESSAGE = (
    "poolgrad: {op} has no double backward (the gradient of poolgrad's gradient is not implemented); "
    "use torch.nn.functional.{op} where second derivatives are needed")


class _NoDoubleBackward(torch.autograd.Function):
    """Runs a poolgrad backward kernel; differentiating it again raises."""

    @staticmethod
    def forward(ctx, op_name, kernel, *arguments):
        ctx.op_name = op_name
        return kernel(*arguments)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(DOUBLE_BACKWARD_MESSAGE.format(op=ctx.op_name))


def _backward(op_name, kernel, *arguments):
    """The backward kernel's result. Only where a graph is being built (create_graph=True, or a backward op
    called with grad mode on) does it go through _NoDoubleBackward, for the error a second derivative
    raises; a plain loss.backward() runs with grad mode off and calls the kernel directly."""
    if torch.is_grad_enabled():
        return _NoDoubleBackward.apply(op_name, kernel, *arguments)
    return kernel(*arguments)


class MaxPoolWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, self, axes, kernel_size, stride, padding, dilation, ceil_mode):
        out, indices = _kernels.max_pool_with_indices(axes, self, kernel_size, stride, padding, dilation, ceil_mode)
        ctx.save_for_backward(self, indices)
        ctx.attributes = (axes, kernel_size, stride, padding, dilation, ceil_mode)
        ctx.mark_non_differentiable(indices)
        return out, indices

    @staticmethod
    def backward(ctx, grad_output, _grad_indices):
        self, indices = ctx.saved_tensors
        axes, kernel_size, stride, padding, dilation, ceil_mode = ctx.attributes
        grad_input = _backward(f"max_pool{axes}d", _kernels.max_pool_with_indices_backward, axes, grad_output, self,
                               indices, kernel_size, stride, padding, dilation, ceil_mode)
        return grad_input, None, None, None, None, None, None


class AdaptiveMaxPool(torch.autograd.Function):
    @staticmethod
    def forward(ctx, self, axes, output_size):
        out, indices = _kernels.adaptive_max_pool(axes, self, output_size)
        ctx.save_for_backward(self, indices)
        ctx.axes = axes
        ctx.mark_non_differentiable(indices)
        return out, indices

    @staticmethod
    def backward(ctx, grad_output, _grad_indices):
        self, indices = ctx.saved_tensors
        grad_input = _backward(f"adaptive_max_pool{ctx.axes}d", _kernels.adaptive_max_pool_backward, ctx.axes,
                               grad_output, self, indices)
        return grad_input, None, None


class MaxPool2dTF(torch.autograd.Function):
    @staticmethod
    def forward(ctx, self, kernel_size, stride, padding, data_format):
        out = _kernels.max_pool2d_tf(self, kernel_size, stride, padding, data_format)
        ctx.save_for_backward(self, out)
        ctx.attributes = (kernel_size, stride, padding, data_format)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        self, out = ctx.saved_tensors
        grad_input = _backward("max_pool2d_tf", _kernels.max_pool2d_tf_backward, grad_output, self, out,
                               *ctx.attributes)
        return grad_input, None, None, None, None
