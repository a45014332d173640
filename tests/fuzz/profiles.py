"""The fuzzing profiles and the time bound every input is held to.

Two Hypothesis profiles, registered by ``conftest.py`` and chosen with ``SV_FUZZ_PROFILE``:

* ``sv-fuzz-short`` (the default: ``make test``): a few dozen inputs per reader, the same inputs every
  run (``derandomize``: CI never goes red on an input it did not see before) and no example
  database, so nothing is written beside the tests;
* ``sv-fuzz`` (``make fuzz``): 10,000 inputs per reader, fresh ones each run, failures kept in
  ``_local/hypothesis`` (git-ignored) and replayed first by the next run.

The fuzz tests take their settings from :func:`fuzz_settings`, never from Hypothesis's global
default, so the profile chosen here never changes another test's settings (nor theirs ours).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from testing.commands import PROJECT_DIR

PROFILE_ENV = "SV_FUZZ_PROFILE"
SHORT = "sv-fuzz-short"
LONG = "sv-fuzz"
LONG_EXAMPLES = 10_000

# generated pages and PDFs are large and some readers are slow on purpose-built bad input: the
# bound that matters is ours (within), not Hypothesis's health checks or its per-example deadline
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]


def register() -> None:
    settings.register_profile(SHORT, max_examples=40, derandomize=True, database=None, deadline=None,
                              suppress_health_check=_QUIET, print_blob=True)
    settings.register_profile(LONG, max_examples=LONG_EXAMPLES, derandomize=False, deadline=None,
                              database=DirectoryBasedExampleDatabase(str(PROJECT_DIR / "_local" / "hypothesis")),
                              suppress_health_check=_QUIET, print_blob=True)


def profile_name() -> str:
    name = os.environ.get(PROFILE_ENV, "") or SHORT
    if name not in (SHORT, LONG):
        raise ValueError(f"{PROFILE_ENV}={name!r}: expected {SHORT!r} or {LONG!r}")
    return name


def fuzz_settings(short_examples: int | None = None) -> settings:
    """The chosen profile's settings; ``short_examples`` scales the short run of a slow reader
    (the long run always makes ``LONG_EXAMPLES``)."""
    chosen = settings.get_profile(profile_name())  # registered by conftest.py
    if short_examples is not None and profile_name() == SHORT:
        return settings(chosen, max_examples=short_examples)
    return chosen


class Overran(AssertionError):
    """A reader spent longer on one input than its bound."""


@contextmanager
def within(seconds: float, what: str) -> Iterator[None]:
    """Fail when the block takes more than ``seconds`` of CPU time; stop it there if it would go on.

    CPU time, not the wall: the suite runs on 4 workers beside other jobs, and a loaded machine
    stretches the wall of a correct reader, while a quadratic, backtracking or looping one burns CPU
    whatever the load. The readers are pure (no I/O, no sleep), so their CPU time is their cost. A
    profiling timer (``ITIMER_PROF``: this process's CPU) interrupts a reader that would never
    return, at twice the bound, in the main thread where Python delivers signals.
    """

    def overran(signum: int, frame: object) -> None:
        raise Overran(f"{what}: stopped after {2 * seconds} s of CPU on one input (bound {seconds} s)")

    timed = threading.current_thread() is threading.main_thread()
    if timed:
        previous = signal.signal(signal.SIGPROF, overran)
        signal.setitimer(signal.ITIMER_PROF, 2 * seconds)
    start = time.thread_time()
    try:
        yield
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous)
    spent = time.thread_time() - start
    if spent > seconds:
        raise Overran(f"{what}: {spent:.2f} s of CPU on one input (bound {seconds} s)")
