"""Shared pytest settings for the Python tests: which seeds the randomized suites use.

Every randomized test is parametrized over SEEDS: two fixed seeds (the same cases every run) and one
rotating seed that changes each run and appears in the test id and the pytest header, so a failure can be
replayed with POOLGRAD_ROTATING_SEED=<seed>.
"""

import collections
import os
import time

import numpy as np
import pytest

FIXED_SEEDS = (20261130, 7)
ROTATING_SEED = int(os.environ.get("POOLGRAD_ROTATING_SEED", int(time.time()) % 1_000_000_007))
SEEDS = FIXED_SEEDS + (ROTATING_SEED,)


def pytest_report_header(config):
    return [f"poolgrad: fixed seeds {FIXED_SEEDS}, rotating seed {ROTATING_SEED} "
            f"(replay with POOLGRAD_ROTATING_SEED={ROTATING_SEED})"]


def case_generators(seed, count):
    """`count` independent generators for one seed: case i of a seed is always the same case."""
    return (np.random.default_rng([seed, i]) for i in range(count))


@pytest.fixture(params=SEEDS, ids=lambda seed: f"seed{seed}")
def seed(request):
    return request.param


# (framework, operator family) -> random conformance cases that agreed in this run; printed at the end.
AGREEING_CASES = collections.Counter()


def pytest_terminal_summary(terminalreporter):
    if not AGREEING_CASES:
        return
    terminalreporter.section("conformance: random cases that agreed in this run")
    for (framework, family), count in sorted(AGREEING_CASES.items()):
        terminalreporter.write_line(f"{framework:<10} {family:<28} {count:>6}")
