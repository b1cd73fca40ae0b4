"""The evals layer's own exception: bad input a user can fix (exit 2 on the command line)."""

from __future__ import annotations


class UsageError(ValueError):
    """Bad input: an option, a combination of options or a name nothing registered."""
