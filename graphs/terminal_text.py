"""Text from outside (a server's message, a model's answer, a corpus field) as the terminal may show it.

rich reads ``[...]`` as markup: a server's error message holding ``[/x]`` raised ``MarkupError`` and lost
the summary line, and the literal text ``[redacted]`` vanished as an unknown style. A terminal obeys
escape sequences: an ESC in a message could clear the screen or set the window's title. :func:`plain`
makes any such text inert: control characters (ESC, BEL, C1, bidi overrides) written as visible
``\\x1b`` escapes, then rich's markup escaped, so the text prints exactly as it was, only harmless.
Every command prints outside text through it.
"""

from __future__ import annotations

import re

from rich.markup import escape

# C0 controls but tab and newline, DEL, C1 controls, and the bidi controls that reorder what follows
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def controls_escaped(text: str) -> str:
    """``text`` with every control character written out (``\\x1b``), nothing else changed."""
    return _CONTROL.sub(_visible, text)


def plain(text: object) -> str:
    """``text`` for ``console.print``: control characters written out, rich markup escaped."""
    return escape(controls_escaped(str(text)))
