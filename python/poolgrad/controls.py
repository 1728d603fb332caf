"""poolgrad's own controls (poolgrad/poolgrad.h): threads, streaming stores, implementation list, version.

Phase 1 reads the settings (threads, streaming stores, a forced implementation, the plans it kept), and the
executors poolgrad.torch keeps were made by earlier phase 1s: every setter here therefore drops them, on
every thread (_executor_cache.invalidate), once the setting has changed.
"""

from contextlib import contextmanager

import ctypes

from . import _executor_cache
from ._library import RunReport, library
from ._tensors import _recent_message
from .errors import PoolgradError


def version() -> str:
    return library.poolgradVersion().decode()


def set_num_threads(count: int) -> None:
    """Threads per operator call (0 = all processors)."""
    status = library.poolgradSetNumThreads(int(count))
    _executor_cache.invalidate()
    if status != 0:
        raise PoolgradError(status, _recent_message(), "poolgradSetNumThreads")


def get_num_threads() -> int:
    return int(library.poolgradGetNumThreads())


# poolgradSetStreamingStores' choices (POOLGRAD_STREAMING_STORES_*), by the names the environment variable takes.
_STREAMING_CHOICES = {"default": 0, "automatic": 1, "never": 2, "always": 3}


def set_streaming_stores(choice) -> None:
    """Whether large outputs bypass the caches: "automatic" (outputs over 4 MiB; a forward's values and indices
    over 2 MiB together), "never" (loops over the same cache-resident buffers), "always", or "default"
    (POOLGRAD_STREAMING_STORES, else automatic).
    Results are the same for every choice; phase 1 of each call reads it."""
    # An unknown name goes to the library as -1, so that its own refusal names the rule.
    code = _STREAMING_CHOICES.get(choice, -1) if isinstance(choice, str) else int(choice)
    status = library.poolgradSetStreamingStores(code)
    _executor_cache.invalidate()
    if status != 0:
        raise PoolgradError(status, _recent_message() + f" (choice {choice!r}; names: "
                            + ", ".join(_STREAMING_CHOICES) + ")", "poolgradSetStreamingStores")


def get_streaming_stores() -> str:
    """The choice in force: "automatic", "never" or "always"."""
    code = int(library.poolgradGetStreamingStores())
    return next(name for name, value in _STREAMING_CHOICES.items() if value == code)


def implementations():
    """[(name, task)] in dispatch order: fastest first, the reference of each task last."""
    return [(library.poolgradImplementationName(i).decode(), library.poolgradImplementationTask(i).decode())
            for i in range(library.poolgradImplementationCount())]


def force_implementation(name) -> None:
    """Restricts the dispatcher, for name's task only, to that implementation (None clears it)."""
    status = library.poolgradForceImplementation(None if name is None else name.encode())
    _executor_cache.invalidate()
    if status != 0:
        raise PoolgradError(status, _recent_message(), "poolgradForceImplementation")


@contextmanager
def forced_implementation(name):
    force_implementation(name)
    try:
        yield
    finally:
        force_implementation(None)


def clear_plan_cache() -> None:
    """Forgets the plans phase 1 kept on this thread for problems it saw before (poolgradClearPlanCache), and
    the executors poolgrad.torch keeps on every thread."""
    library.poolgradClearPlanCache()
    _executor_cache.invalidate()


def last_run_report() -> dict:
    """What the last operator run on this thread did: {"implementation", "plan", "fallback", "status"}
    (poolgradGetLastRunReport). "fallback" is "" when the plan ran as made."""
    report = RunReport()
    status = library.poolgradGetLastRunReport(ctypes.byref(report))
    if status != 0:
        raise PoolgradError(status, _recent_message(), "poolgradGetLastRunReport")
    return {"implementation": report.implementation.decode(), "plan": report.plan.decode(),
            "fallback": report.fallback.decode(), "status": int(report.status)}
