"""poolgrad's own controls (poolgrad/poolgrad.h): threads, implementation list, version."""

from contextlib import contextmanager

import ctypes

from ._library import RunReport, library
from ._tensors import _recent_message
from .errors import PoolgradError


def version() -> str:
    return library.poolgradVersion().decode()


def set_num_threads(count: int) -> None:
    """Threads per operator call (0 = all processors)."""
    status = library.poolgradSetNumThreads(int(count))
    if status != 0:
        raise PoolgradError(status, _recent_message(), "poolgradSetNumThreads")


def get_num_threads() -> int:
    return int(library.poolgradGetNumThreads())


def implementations():
    """[(name, task)] in dispatch order: fastest first, the reference of each task last."""
    return [(library.poolgradImplementationName(i).decode(), library.poolgradImplementationTask(i).decode())
            for i in range(library.poolgradImplementationCount())]


def force_implementation(name) -> None:
    """Restricts the dispatcher, for name's task only, to that implementation (None clears it)."""
    status = library.poolgradForceImplementation(None if name is None else name.encode())
    if status != 0:
        raise PoolgradError(status, _recent_message(), "poolgradForceImplementation")


@contextmanager
def forced_implementation(name):
    force_implementation(name)
    try:
        yield
    finally:
        force_implementation(None)


def last_run_report() -> dict:
    """What the last operator run on this thread did: {"implementation", "plan", "fallback", "status"}
    (poolgradGetLastRunReport). "fallback" is "" when the plan ran as made."""
    report = RunReport()
    status = library.poolgradGetLastRunReport(ctypes.byref(report))
    if status != 0:
        raise PoolgradError(status, _recent_message(), "poolgradGetLastRunReport")
    return {"implementation": report.implementation.decode(), "plan": report.plan.decode(),
            "fallback": report.fallback.decode(), "status": int(report.status)}
