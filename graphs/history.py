"""The rehearsal history as the vote prompts show it (paper Appendix A.2, Eq. 8; Appendix F, Table 15)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

NO_HISTORY = "(none: no earlier text passed the retriever's threshold)"


def _one_line(text: object) -> str:
    """A field on one line: a summary or a model's reflection with line breaks would put blank lines
    inside the prompt's history list."""
    return " ".join(str(text).split())


def _rendered(
    history: list[dict[str, Any]],
    *,
    reflexion: bool,
    heading: Callable[[dict[str, Any]], str],
    action_items: str,
) -> str:
    """One block per rehearsal: ``heading``, summary, action items (named ``action_items``), the vote
    beside the real one and, with reflexion, the reflection; the prompt sets differ only in the two.
    The blocks follow one another without blank lines: each starts with its heading."""
    if not history:
        return NO_HISTORY
    blocks = []
    for entry in history:
        lines = [heading(entry)]
        if entry.get("summary"):
            lines.append(f"Summary : {_one_line(entry['summary'])}")
        if entry.get("action_items"):
            lines.append(f"{action_items} : {_one_line(entry['action_items'])}")
        lines.append(f"My vote / Ground Truth: {entry['predicted']} / {entry['truth']}")
        if reflexion and entry.get("reflection"):
            lines.append(f"Reflection: {_one_line(entry['reflection'])}")
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def _structured_heading(entry: dict[str, Any]) -> str:
    """ "Rehearsal <label> (<date>, <outcome>)"; the date once only, when the label already names it
    (an Assembly roll call: "roll call 936 of 1966-12-07")."""
    date = "" if entry["date"] in entry["label"] else f"{entry['date']}, "
    return f"Rehearsal {entry['label']} ({date}{entry['outcome']})"


def history_text(history: list[dict[str, Any]], *, reflexion: bool) -> str:
    """The structured set's history block of the rehearsal and final prompts."""
    return _rendered(
        history,
        reflexion=reflexion,
        heading=_structured_heading,
        action_items="Action items",
    )


def history_block(history: list[dict[str, Any]], *, reflexion: bool) -> str:
    """The structured rehearsal prompt's optional section, ending in a line break (the template puts
    it at the start of the context's line): nothing at all, not a blank line, before the first rehearsal."""
    if not history:
        return ""
    return "- previous vote prediction:\n" + history_text(history, reflexion=reflexion) + "\n"


def paper_history_text(history: list[dict[str, Any]], *, reflexion: bool) -> str:
    """The paper set's history, in Table 15's words ("Rehearsal Resolution : 2334", "Summary : …").

    The table prints no action items; Eq. 8 puts them in the history, so they are shown as
    Appendix C names the field ("Action Item").
    """
    return _rendered(
        history,
        reflexion=reflexion,
        heading=lambda entry: f"Rehearsal Resolution : {entry.get('symbol') or entry['label']}",
        action_items="Action Item",
    )
