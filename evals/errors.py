"""The evals layer's own exception: bad input a user can fix (exit 2 on the command line)."""

from __future__ import annotations

from nationbias.stores.errors import InputError


class UsageError(InputError):
    """Bad input: an option, a combination of options or a name nothing registered."""
