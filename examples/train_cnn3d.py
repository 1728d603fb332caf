"""Trains a small 3-D CNN on real data twice -- with PyTorch's max pooling and with poolgrad's -- and shows
the losses are identical step for step, how long a step takes, and the pooling share of it; then trains
the poolgrad model again and checks the weights come out bit-identical.

Data: scikit-learn's bundled handwritten digits (load_digits: 1,797 8x8 images, 10 classes, shipped inside
the package, nothing downloaded), each image upsampled to 16x16 and extruded into an 8-deep volume whose
slices shift the digit by one pixel per slice, so the network sees (1, 8, 16, 16) volumes.

    python examples/train_cnn3d.py [--steps 200] [--batch 16]
    torchrun --nnodes=... --nproc-per-node=... examples/train_cnn3d.py --distributed   (docs/distributed.md)
"""

import argparse
import os
import sys
import time

import torch
import torch.nn as nn

import poolgrad.torch as pooling


def load_volumes():
    """(volumes float32 (1797, 1, 8, 16, 16) scaled to [0, 1], labels int64 (1797,))."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    images = torch.from_numpy(digits.images).float() / 16.0
    images = images.repeat_interleave(2, dim=1).repeat_interleave(2, dim=2)  # 16x16
    slices = [torch.roll(images, shifts=depth - 4, dims=2) for depth in range(8)]
    volumes = torch.stack(slices, dim=1).unsqueeze(1)
    return volumes.contiguous(), torch.from_numpy(digits.target).long()


class TimedPooling(nn.Module):
    """Wraps a pooling layer and adds its forward time, and (through gradient hooks on its output and its
    input) its backward time, to `seconds`."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer
        self.seconds = 0.0

    def forward(self, x):
        start = time.perf_counter()
        out = self.layer(x)
        self.seconds += time.perf_counter() - start
        if torch.is_grad_enabled() and x.requires_grad:
            began = []
            out.register_hook(lambda grad: began.append(time.perf_counter()))
            x.register_hook(lambda grad: self._add_backward(began))
        return out

    def _add_backward(self, began):
        if began:
            self.seconds += time.perf_counter() - began[0]


def build_model(use_poolgrad, seed=0):
    """conv -> max_pool3d(2) -> conv -> adaptive_max_pool3d(1, 2, 2) -> linear, the same weights for a seed."""
    torch.manual_seed(seed)
    pool_module = pooling.MaxPool3d if use_poolgrad else nn.MaxPool3d
    adaptive_module = pooling.AdaptiveMaxPool3d if use_poolgrad else nn.AdaptiveMaxPool3d
    return nn.Sequential(
        nn.Conv3d(1, 8, kernel_size=3, padding=1), nn.ReLU(),
        TimedPooling(pool_module(kernel_size=2)),
        nn.Conv3d(8, 16, kernel_size=3, padding=1), nn.ReLU(),
        TimedPooling(adaptive_module((1, 2, 2))),
        nn.Flatten(), nn.Linear(64, 10))


def pooling_seconds(model):
    return sum(m.seconds for m in model.modules() if isinstance(m, TimedPooling))


def batches(count, steps, batch, seed=1):
    """The same sequence of sample indices for every run with this seed."""
    generator = torch.Generator().manual_seed(seed)
    return [torch.randint(0, count, (batch,), generator=generator) for _ in range(steps)]


def train(use_poolgrad, steps, batch, data=None, seed=0):
    """(losses per step, the model, seconds in total, seconds in pooling)."""
    volumes, labels = data if data is not None else load_volumes()
    model = build_model(use_poolgrad, seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    start = time.perf_counter()
    for indices in batches(len(labels), steps, batch):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(volumes[indices]), labels[indices])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, model, time.perf_counter() - start, pooling_seconds(model)


def weights_identical(first, second):
    return all(a.dtype == b.dtype and torch.equal(a.view(torch.int32), b.view(torch.int32))
               for a, b in zip(first.state_dict().values(), second.state_dict().values()))


def compare(steps, batch):
    data = load_volumes()
    print(f"data: scikit-learn digits as volumes {tuple(data[0].shape)}, {steps} steps of batch {batch}, "
          f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    runs = {}
    for name, use_poolgrad in (("torch pooling", False), ("poolgrad pooling", True)):
        losses, model, seconds, pool_seconds = train(use_poolgrad, steps, batch, data)
        runs[name] = (losses, model)
        print(f"{name:>17}: first loss {losses[0]:.6f}, last loss {losses[-1]:.6f}, "
              f"{1000 * seconds / steps:.2f} ms/step, pooling {1000 * pool_seconds / steps:.2f} ms/step "
              f"({100 * pool_seconds / seconds:.1f}% of the step)")
    torch_losses, poolgrad_losses = runs["torch pooling"][0], runs["poolgrad pooling"][0]
    differing = [i for i, (a, b) in enumerate(zip(torch_losses, poolgrad_losses)) if a != b]
    print(f"losses identical step for step: {'yes' if not differing else 'NO'} "
          f"({steps - len(differing)} of {steps} steps equal)")
    repeat_losses, repeat_model, _, _ = train(True, steps, batch, data)
    same = weights_identical(runs["poolgrad pooling"][1], repeat_model) and repeat_losses == poolgrad_losses
    print(f"poolgrad run repeated: weights bit-identical: {'yes' if same else 'NO'}")
    return not differing and same


def distributed(steps, batch):
    """One process of a torchrun job: each rank trains on its share of every global batch."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    volumes, labels = load_volumes()
    model = DistributedDataParallel(build_model(True))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step, indices in enumerate(batches(len(labels), steps, batch * world)):
        mine = indices[rank * batch:(rank + 1) * batch]
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(volumes[mine]), labels[mine])
        loss.backward()
        optimizer.step()
        if rank == 0 and (step % 50 == 0 or step == steps - 1):
            print(f"step {step}: rank-0 loss {loss.item():.6f}", flush=True)
    dist.destroy_process_group()
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=16, help="samples per step (per process with --distributed)")
    parser.add_argument("--distributed", action="store_true", help="run as one process of a torchrun job")
    arguments = parser.parse_args(argv)
    torch.use_deterministic_algorithms(True)
    if arguments.distributed or "TORCHELASTIC_RUN_ID" in os.environ:
        return 0 if distributed(arguments.steps, arguments.batch) else 1
    return 0 if compare(arguments.steps, arguments.batch) else 1


if __name__ == "__main__":
    sys.exit(main())
