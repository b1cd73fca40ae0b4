"""The project's own error for bad input: what a user can fix (an option, a file, a variable).

The CLI turns an :class:`InputError` into one line and exit status 2; any other exception is a bug and
keeps its traceback. It is a ``ValueError`` so library callers who catch that still do.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input, named with what is wrong and where."""
