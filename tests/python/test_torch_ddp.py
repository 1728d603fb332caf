"""poolgrad layers under PyTorch's DistributedDataParallel: 2 processes, gloo on the loopback address.

After one step on a global batch split across the two ranks, every rank's all-reduced gradients must equal
the gradients of one process on the whole batch, to the rounding of the float32 all-reduce (DDP sums the
ranks' gradients and divides by the world size; one process sums all samples at once). The ranks and the
single process run the example model of examples/train_cnn3d.py, whose pooling layers are poolgrad's.
"""

import datetime
import importlib.util
import os
import socket
import time
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_cnn3d.py"
WORLD = 2
PER_RANK = 6
TIMEOUT_SECONDS = 120


def example():
    spec = importlib.util.spec_from_file_location("train_cnn3d", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def global_batch():
    """Deterministic inputs (no data set needed here): volumes (12, 1, 8, 16, 16) with many ties, labels."""
    generator = torch.Generator().manual_seed(5)
    volumes = torch.randint(0, 4, (WORLD * PER_RANK, 1, 8, 16, 16), generator=generator).float() / 4
    labels = torch.randint(0, 10, (WORLD * PER_RANK,), generator=generator)
    return volumes, labels


def gradients(model):
    return {name: p.grad.detach().clone() for name, p in model.named_parameters()}


def rank_main(rank, port, out_dir):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=WORLD,
                            timeout=datetime.timedelta(seconds=TIMEOUT_SECONDS))
    try:
        from torch.nn.parallel import DistributedDataParallel
        model = DistributedDataParallel(example().build_model(use_poolgrad=True, seed=3))
        volumes, labels = global_batch()
        mine = slice(rank * PER_RANK, (rank + 1) * PER_RANK)
        nn.functional.cross_entropy(model(volumes[mine]), labels[mine]).backward()
        torch.save(gradients(model.module), os.path.join(out_dir, f"rank{rank}.pt"))
    finally:
        dist.destroy_process_group()


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_ddp_gradients_equal_single_process_gradients(tmp_path):
    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("this torch has no gloo backend")
    context = mp.spawn(rank_main, args=(free_port(), str(tmp_path)), nprocs=WORLD, join=False)
    deadline = time.monotonic() + TIMEOUT_SECONDS
    while not context.join(timeout=1):
        if time.monotonic() > deadline:
            for process in context.processes:
                process.kill()
            pytest.fail(f"the {WORLD} DDP processes did not finish in {TIMEOUT_SECONDS} s")

    single = example().build_model(use_poolgrad=True, seed=3)
    assert any(type(m.layer).__module__.startswith("poolgrad.torch") for m in single.modules()
               if hasattr(m, "layer")), "the model must pool with poolgrad"
    volumes, labels = global_batch()
    nn.functional.cross_entropy(single(volumes), labels).backward()
    expected = gradients(single)
    for rank in range(WORLD):
        reduced = torch.load(tmp_path / f"rank{rank}.pt")
        assert reduced.keys() == expected.keys()
        for name, grad in expected.items():
            scale = grad.abs().max().item()
            # Two halves averaged vs one sum: a few float32 roundings of the gradient's magnitude.
            assert torch.allclose(reduced[name], grad, rtol=1e-5, atol=1e-6 * scale), \
                f"rank {rank} {name}: max difference {(reduced[name] - grad).abs().max().item():.3g} " \
                f"(gradient magnitude {scale:.3g})"
    assert torch.equal(torch.load(tmp_path / "rank0.pt")["0.weight"], torch.load(tmp_path / "rank1.pt")["0.weight"])
