"""The model layer's own fault: a backend that can answer nothing more.

Its own module so that a backend (the embedded worker) can raise it without importing the registry of
every provider, which imports that backend.
"""

from __future__ import annotations

from nationbias.stores.state.faults import RunFault


class BackendFatalError(RunFault):
    """A model backend that can answer nothing more (the embedded model's process died).

    Unlike a failed call, it is not recorded on the sample in flight: the client does not retry it,
    and the runner stops like for any run fault (what finished is kept, the summary line prints the
    command that resumes), so a rerun asks only what is missing.
    """
