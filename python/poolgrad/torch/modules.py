"""nn.Module versions of poolgrad.torch.functional, with torch.nn's names and constructor arguments."""

import torch

from . import functional


class MaxPool3d(torch.nn.Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return functional.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                     self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool2d(MaxPool3d):
    def forward(self, input):
        return functional.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                     self.ceil_mode, self.return_indices)


class AdaptiveMaxPool3d(torch.nn.Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return functional.adaptive_max_pool3d(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(AdaptiveMaxPool3d):
    def forward(self, input):
        return functional.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class MaxPool2dTF(torch.nn.Module):
    def __init__(self, kernel_size, stride=None, padding="VALID", data_format="NCHW"):
        super().__init__()
        self.kernel_size, self.stride, self.padding, self.data_format = kernel_size, stride, padding, data_format

    def forward(self, input):
        return functional.max_pool2d_tf(input, self.kernel_size, self.stride, self.padding, self.data_format)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding!r}, "
                f"data_format={self.data_format!r}")
