"""The poolgrad operators as PyTorch custom operators, torch.ops.poolgrad.*, where torch.library exists
(torch >= 1.13): each has a CPU kernel (poolgrad on the tensors' memory) and an Autograd kernel (the
autograd functions of _autograd.py): operators of the dispatcher like aten's.

`OPS` maps each name to the callable the functional API uses: torch.ops.poolgrad.<name> when registered,
else the same autograd function called directly.
"""

import torch

from . import _autograd, _kernels

_SCHEMAS = {
    "max_pool3d_with_indices": "(Tensor self, int[] kernel_size, int[] stride, int[] padding, int[] dilation, "
                               "bool ceil_mode) -> (Tensor, Tensor)",
    "max_pool3d_with_indices_backward": "(Tensor grad_output, Tensor self, Tensor indices, int[] kernel_size, "
                                        "int[] stride, int[] padding, int[] dilation, bool ceil_mode) -> Tensor",
    "max_pool2d_with_indices": "(Tensor self, int[] kernel_size, int[] stride, int[] padding, int[] dilation, "
                               "bool ceil_mode) -> (Tensor, Tensor)",
    "max_pool2d_with_indices_backward": "(Tensor grad_output, Tensor self, Tensor indices, int[] kernel_size, "
                                        "int[] stride, int[] padding, int[] dilation, bool ceil_mode) -> Tensor",
    "adaptive_max_pool3d": "(Tensor self, int[] output_size) -> (Tensor, Tensor)",
    "adaptive_max_pool3d_backward": "(Tensor grad_output, Tensor self, Tensor indices) -> Tensor",
    "adaptive_max_pool2d": "(Tensor self, int[] output_size) -> (Tensor, Tensor)",
    "adaptive_max_pool2d_backward": "(Tensor grad_output, Tensor self, Tensor indices) -> Tensor",
    "max_pool2d_tf": "(Tensor self, int[] kernel_size, int[] stride, str padding, str data_format) -> Tensor",
    "max_pool2d_tf_backward": "(Tensor grad_output, Tensor self, Tensor output, int[] kernel_size, int[] stride, "
                              "str padding, str data_format) -> Tensor",
}


def _kernels_by_name():
    """name -> (CPU kernel, autograd kernel)."""
    table = {}
    for axes in (2, 3):
        def regular(self, k, s, p, d, c, axes=axes):
            return _kernels.max_pool_with_indices(axes, self, k, s, p, d, c)

        def regular_autograd(self, k, s, p, d, c, axes=axes):
            return _autograd.MaxPoolWithIndices.apply(self, axes, k, s, p, d, c)

        def regular_backward(g, self, i, k, s, p, d, c, axes=axes):
            return _kernels.max_pool_with_indices_backward(axes, g, self, i, k, s, p, d, c)

        def regular_backward_autograd(*arguments, axes=axes, kernel=regular_backward):
            return _autograd._backward(f"max_pool{axes}d", kernel, *arguments)

        def adaptive(self, size, axes=axes):
            return _kernels.adaptive_max_pool(axes, self, size)

        def adaptive_autograd(self, size, axes=axes):
            return _autograd.AdaptiveMaxPool.apply(self, axes, size)

        def adaptive_backward(g, self, i, axes=axes):
            return _kernels.adaptive_max_pool_backward(axes, g, self, i)

        def adaptive_backward_autograd(*arguments, axes=axes, kernel=adaptive_backward):
            return _autograd._backward(f"adaptive_max_pool{axes}d", kernel, *arguments)

        table[f"max_pool{axes}d_with_indices"] = (regular, regular_autograd)
        table[f"max_pool{axes}d_with_indices_backward"] = (regular_backward, regular_backward_autograd)
        table[f"adaptive_max_pool{axes}d"] = (adaptive, adaptive_autograd)
        table[f"adaptive_max_pool{axes}d_backward"] = (adaptive_backward, adaptive_backward_autograd)

    def tf_autograd(self, k, s, p, f):
        return _autograd.MaxPool2dTF.apply(self, k, s, p, f)

    def tf_backward_autograd(*arguments):
        return _autograd._backward("max_pool2d_tf", _kernels.max_pool2d_tf_backward, *arguments)

    table["max_pool2d_tf"] = (_kernels.max_pool2d_tf, tf_autograd)
    table["max_pool2d_tf_backward"] = (_kernels.max_pool2d_tf_backward, tf_backward_autograd)
    return table


def _register():
    """(library handle or None, name -> callable). The handle must stay alive for the ops to stay."""
    table = _kernels_by_name()
    direct = {name: autograd for name, (_, autograd) in table.items()}
    library_class = getattr(getattr(torch, "library", None), "Library", None)
    if library_class is None:
        return None, direct
    try:
        library = library_class("poolgrad", "DEF")
        for name, schema in _SCHEMAS.items():
            library.define(name + schema)
            kernel, autograd = table[name]
            library.impl(name, kernel, "CPU")
            library.impl(name, autograd, "Autograd")
    except (RuntimeError, TypeError, ValueError):
        # An older torch without Python kernels for these keys, or the namespace taken by a second copy of
        # poolgrad in this process: the autograd functions still work, without torch.ops.poolgrad.
        return None, direct
    namespace = torch.ops.poolgrad
    return library, {name: getattr(namespace, name) for name in _SCHEMAS}


LIBRARY, OPS = _register()
REGISTERED = LIBRARY is not None
