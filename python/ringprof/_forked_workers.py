"""Fork-started multiprocessing workers (ML-Agents' SubprocessEnvManager, Pool) end with
os._exit: the exit handler that writes a process's files never runs there. multiprocessing runs
its finalizers before that os._exit, so each forked worker gets one that ends its session (final
files written, temporary files closed) after every other finalizer."""
import os as _os
import sys as _sys

from . import _ringprof

# After the others: a finalizer that still records (priority >= -100) is counted.
_EXIT_PRIORITY = -100


class _Registration:
    """The object multiprocessing's after-fork registry holds (weakly) for us: alive as long
    as this module."""

    registered = False


_registration = _Registration()


def _stop_session():
    _ringprof._stop_session()


def _in_worker(_registration):
    # multiprocessing calls this in the new worker after it has dropped the finalizers it
    # inherited, so the one made here is the worker's own.
    import multiprocessing.util as mp_util
    mp_util.Finalize(None, _stop_session, exitpriority=_EXIT_PRIORITY)


def _after_fork_in_child():
    # multiprocessing imports its util module before it forks a worker; a plain os.fork() with
    # no multiprocessing around needs nothing here (its child runs the exit handler on exit()).
    mp_util = _sys.modules.get("multiprocessing.util")
    if mp_util is None or _registration.registered:
        return  # registered in an ancestor: the registry entry came along with the fork
    mp_util.register_after_fork(_registration, _in_worker)
    _registration.registered = True


_os.register_at_fork(after_in_child=_after_fork_in_child)
