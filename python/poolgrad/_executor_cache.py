"""Repeatable executors kept per thread: phase 1 once per problem, then only phase 2 on each call.

A call through run_operator makes 4-5 descriptors, its attribute arrays and a phase 1, runs phase 2 and
destroys it all again: about 35-40 µs of Python and ctypes per operator call, more than the kernels take
on small tensors. poolgrad.torch calls the same few problems again and again (each layer of a model, every
step), so it keeps, per thread, the last CAPACITY problems it ran: the descriptors, and the executor that
phase 1 made of them and aclSetAclOpExecutorRepeatable made reusable. A call of a problem seen before
points the executor's operands at the new tensors' memory (aclSetInputTensorAddr / aclSetOutputTensorAddr,
for every operand whose address changed) and runs phase 2 only.

The key is the caller's: it must determine every argument of phase 1 but the addresses (operator name,
each tensor's shape, strides, dtype and format, each attribute). Phase 2 checks the memory rules again with
the new addresses (no output overlapping an input, ...) and plans again where the alignment asks for it, so
a reused executor gives the results and the errors a fresh call would.

Each thread has its own cache: an executor is only ever run by the thread that made it. The library
settings phase 1 reads (threads, streaming stores, a forced implementation, the plan cache) are changed
through poolgrad.controls, whose setters call invalidate(): every thread drops its executors at its next
call. A refused call drops its entry; evicted and dropped entries destroy their executor and descriptors.
Tensors with no elements (whose address may be null) are run afresh, without the cache.
"""

import collections
import os
import threading

from . import _library
from ._tensors import Arguments, _entry_points, _recent_message, phase_one, run_operator, run_phase_two, \
    workspace_for
from .errors import PoolgradError

_library_handle = _library.library
_make_repeatable = _library_handle.aclSetAclOpExecutorRepeatable
_destroy_executor = _library_handle.aclDestroyAclOpExecutor
if _library.HAS_TENSOR_ADDRESS_SETTERS:
    _set_input_address = _library_handle.aclSetInputTensorAddr
    _set_output_address = _library_handle.aclSetOutputTensorAddr

# Problems kept per thread (POOLGRAD_EXECUTOR_CACHE_SIZE; 0 runs every call afresh).
CAPACITY = int(os.environ.get("POOLGRAD_EXECUTOR_CACHE_SIZE", "32"))

# Bumped by invalidate(); each thread's cache compares it on every call.
_generation = 0
_generation_lock = threading.Lock()
# Executors alive in all threads' caches (live_executors()).
_live = 0
_live_lock = threading.Lock()


def _count_live(change: int) -> None:
    global _live
    with _live_lock:
        _live += change


class _Entry:
    """One problem: the descriptors (owned by `arguments`), its repeatable executor, and the addresses the
    executor's operands point at now, inputs then outputs in the operator's C parameter order."""

    __slots__ = ("name", "arguments", "executor", "descriptors", "input_count", "addresses", "workspace",
                 "workspace_address", "workspace_size", "phase_two")

    def destroy(self) -> None:
        executor, self.executor = self.executor, None
        if executor:
            _destroy_executor(executor)
            _count_live(-1)
        self.arguments.destroy()


class _ThreadCache:
    def __init__(self):
        self.entries = collections.OrderedDict()  # key -> _Entry, least recently used first
        self.generation = _generation
        self.hits = self.misses = self.evictions = self.invalidations = self.address_updates = 0

    def clear(self) -> None:
        entries, self.entries = self.entries, collections.OrderedDict()
        for entry in entries.values():
            entry.destroy()

    def __del__(self):  # the thread ended: its executors go with it
        try:
            self.clear()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass


_local = threading.local()


def _thread_cache() -> _ThreadCache:
    try:
        cache = _local.cache
    except AttributeError:
        cache = _local.cache = _ThreadCache()
    if cache.generation != _generation:
        cache.generation = _generation
        cache.invalidations += 1
        cache.clear()
    return cache


def invalidate() -> None:
    """Every thread drops its executors at its next call (a library setting that phase 1 reads changed).
    Called by poolgrad.controls after the setting has changed."""
    global _generation
    with _generation_lock:
        _generation += 1


def clear() -> None:
    """Destroys this thread's executors now."""
    _thread_cache().clear()


def statistics() -> dict:
    """This thread's counters: hits, misses (phase 1 run, refused or not), evictions, invalidations
    (settings changed), address_updates (operands pointed at new memory), entries (problems kept now),
    capacity."""
    cache = _thread_cache()
    return {"hits": cache.hits, "misses": cache.misses, "evictions": cache.evictions,
            "invalidations": cache.invalidations, "address_updates": cache.address_updates,
            "entries": len(cache.entries), "capacity": CAPACITY}


def entries():
    """This thread's problems, least recently used first: [(operator name, the addresses its executor
    points its operands at now, inputs then outputs)]."""
    return [(entry.name, entry.addresses) for entry in _thread_cache().entries.values()]


def live_executors() -> int:
    """Executors kept by all threads together (a thread's go when it ends)."""
    return _live


def enabled() -> bool:
    return CAPACITY > 0 and _library.HAS_TENSOR_ADDRESS_SETTERS


def run(name: str, key, operand_addresses, build_arguments) -> None:
    """Runs operator `name` on the operands at `operand_addresses` (inputs, then outputs, in the order of its
    C parameters), with the executor kept for `key` when there is one.

    build_arguments(arguments) makes the descriptors of a first call (owned by `arguments`, pointing at
    `operand_addresses`) and returns (phase 1's arguments, the input descriptors, the output descriptors),
    the descriptors in the same order as the addresses. Raises PoolgradError as run_operator does."""
    if CAPACITY <= 0 or not _library.HAS_TENSOR_ADDRESS_SETTERS or not all(operand_addresses):
        run_operator(name, lambda arguments: build_arguments(arguments)[0])
        return
    cache = _thread_cache()
    entry = cache.entries.get(key)
    if entry is None:
        cache.misses += 1
        _insert(cache, key, _first_run(name, operand_addresses, build_arguments))
        return
    cache.entries.move_to_end(key)
    try:
        if entry.addresses != operand_addresses:
            _point_at(cache, entry, operand_addresses)
        run_phase_two(name, entry.phase_two, entry.workspace_address, entry.workspace_size, entry.executor)
    except BaseException:
        # The executor may point at part of the new memory, or the library refused it: it goes.
        cache.entries.pop(key, None)
        entry.destroy()
        raise
    cache.hits += 1


def _point_at(cache, entry, operand_addresses) -> None:
    """Points every operand whose address differs at its new address; a failure raises PoolgradError."""
    input_count = entry.input_count
    executor = entry.executor
    for position, (old, new) in enumerate(zip(entry.addresses, operand_addresses)):
        if old == new:
            continue
        descriptor = entry.descriptors[position]
        if position < input_count:
            status = _set_input_address(executor, position, descriptor, new)
            function = "aclSetInputTensorAddr"
        else:
            status = _set_output_address(executor, position - input_count, descriptor, new)
            function = "aclSetOutputTensorAddr"
        if status != 0:
            raise PoolgradError(status, _recent_message(), function)
        cache.address_updates += 1
    entry.addresses = tuple(operand_addresses)


def _first_run(name, operand_addresses, build_arguments) -> _Entry:
    """Descriptors, phase 1, aclSetAclOpExecutorRepeatable and a first phase 2: the new entry."""
    entry = _Entry()
    entry.name = name
    entry.arguments = Arguments()
    entry.executor = None
    try:
        phase_one_arguments, inputs, outputs = build_arguments(entry.arguments)
        entry.descriptors = tuple(inputs) + tuple(outputs)
        if len(entry.descriptors) != len(operand_addresses):
            raise ValueError(f"poolgrad: {name}: {len(entry.descriptors)} descriptors for "
                             f"{len(operand_addresses)} addresses")
        entry.input_count = len(inputs)
        entry.addresses = tuple(operand_addresses)
        entry.executor, entry.workspace_size = phase_one(name, phase_one_arguments)
        _count_live(1)
        status = _make_repeatable(entry.executor)
        if status != 0:
            raise PoolgradError(status, _recent_message(), "aclSetAclOpExecutorRepeatable")
        entry.workspace, entry.workspace_address = workspace_for(entry.workspace_size)
        entry.phase_two = _entry_points(name)[1]
        run_phase_two(name, entry.phase_two, entry.workspace_address, entry.workspace_size, entry.executor)
    except BaseException:
        entry.destroy()
        raise
    return entry


def _insert(cache, key, entry) -> None:
    entries = cache.entries
    old = entries.pop(key, None)
    if old is not None:  # not expected (the caller found none), but never leak one
        old.destroy()
    entries[key] = entry
    while len(entries) > CAPACITY:
        _, evicted = entries.popitem(last=False)
        evicted.destroy()
        cache.evictions += 1
