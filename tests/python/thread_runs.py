"""Two threads running the same problems at once: the concurrency tests of the executor-cache suites
(test_numpy_executor_cache.py, test_torch_executor_cache.py)."""

import threading

from poolgrad import _executor_cache


def cache_hits_on_two_threads(rounds, offsets=(0, 3)):
    """Runs rounds(offset) on one thread per offset, started together at a barrier; re-raises the first
    failure of any thread; returns how many executor-cache hits each thread had during its rounds."""
    barrier = threading.Barrier(len(offsets))
    failures, hits = [], []

    def worker(offset):
        try:
            before = _executor_cache.statistics()["hits"]
            barrier.wait(30)
            rounds(offset)
            hits.append(_executor_cache.statistics()["hits"] - before)
        except BaseException as error:  # reported by the calling thread
            failures.append(error)
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(offset,)) for offset in offsets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    if failures:
        raise failures[0]
    assert len(hits) == len(offsets), hits
    return hits
