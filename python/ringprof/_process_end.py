"""The session ends at Python's own exit, not at the C library's: an interpreter ended by an
uncaught KeyboardInterrupt finalises, runs its atexit functions, then kills itself with SIGINT
(exit status 130 in a shell), so the C exit handler that writes ringprof's files never runs
there. Ending the session from atexit writes every output whole (the timelines closed and
renamed) on every ending that runs atexit functions: a normal end, sys.exit(), an uncaught
exception, Ctrl-C. The exit status stays Python's own.

Registered at import, so it runs after every atexit function registered later (LIFO): scopes
recorded by those are still in the files. Markers after it record nothing."""
import atexit as _atexit

from . import _ringprof


def _end_session():
    _ringprof._stop_session()


_atexit.register(_end_session)
