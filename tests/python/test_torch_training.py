"""Training with poolgrad's pooling layers (the model of examples/train_cnn3d.py).

- The same model, seed and batches trained with PyTorch's pooling and with poolgrad's give identical losses
  at every step and bit-identical weights (poolgrad's forward and float32 backward are PyTorch's to the bit,
  ties after ReLU included).
- Training twice with poolgrad gives bit-identical weights (determinism).
"""

import importlib.util
from pathlib import Path

import pytest
import torch

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_cnn3d.py"
STEPS = 25


def example():
    spec = importlib.util.spec_from_file_location("train_cnn3d", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def synthetic_data():
    """Volumes with many ties (quarter steps) and 10 classes, so the test needs no data set package."""
    generator = torch.Generator().manual_seed(11)
    volumes = torch.randint(0, 4, (200, 1, 8, 16, 16), generator=generator).float() / 4
    return volumes, torch.randint(0, 10, (200,), generator=generator)


@pytest.fixture(scope="module")
def runs():
    train = example()
    torch.use_deterministic_algorithms(True)
    data = synthetic_data()
    return {
        "torch": train.train(False, STEPS, 16, data),
        "poolgrad": train.train(True, STEPS, 16, data),
        "poolgrad again": train.train(True, STEPS, 16, data),
    }, train


def test_model_pools_with_poolgrad():
    model = example().build_model(use_poolgrad=True)
    layers = [m.layer for m in model.modules() if hasattr(m, "layer")]
    assert [type(layer).__module__ for layer in layers] == ["poolgrad.torch.modules"] * 2


def test_losses_identical_step_for_step_with_torch_pooling(runs):
    results, train = runs
    torch_losses, poolgrad_losses = results["torch"][0], results["poolgrad"][0]
    assert len(poolgrad_losses) == STEPS
    assert poolgrad_losses == torch_losses
    assert train.weights_identical(results["torch"][1], results["poolgrad"][1])


def test_training_twice_gives_bit_identical_weights(runs):
    results, train = runs
    assert results["poolgrad again"][0] == results["poolgrad"][0]
    assert train.weights_identical(results["poolgrad"][1], results["poolgrad again"][1])


def test_real_data_is_shipped_by_scikit_learn():
    pytest.importorskip("sklearn")
    volumes, labels = example().load_volumes()
    assert volumes.shape == (1797, 1, 8, 16, 16) and labels.shape == (1797,)
    assert set(labels.tolist()) == set(range(10)) and 0.0 <= volumes.min() and volumes.max() <= 1.0
