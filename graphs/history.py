"""The rehearsal history as the vote prompts show it (paper Appendix A.2, Eq. 8; Appendix F, Table 15)."""

from __future__ import annotations

from typing import Any

NO_HISTORY = "(none: no earlier text passed the retriever's threshold)"


def history_text(history: list[dict[str, Any]], *, reflexion: bool) -> str:
    """The structured set's history block of the rehearsal and final prompts."""
    if not history:
        return NO_HISTORY
    blocks = []
    for entry in history:
        lines = [f"Rehearsal {entry['label']} ({entry['date']}, {entry['outcome']})"]
        if entry.get("summary"):
            lines.append(f"Summary : {entry['summary']}")
        if entry.get("action_items"):
            lines.append(f"Action items : {entry['action_items']}")
        lines.append(f"My vote / Ground Truth: {entry['predicted']} / {entry['truth']}")
        if reflexion and entry.get("reflection"):
            lines.append(f"Reflection: {entry['reflection']}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def history_block(history: list[dict[str, Any]], *, reflexion: bool) -> str:
    """The structured rehearsal prompt's optional section: nothing before the first rehearsal."""
    if not history:
        return ""
    return "- previous vote prediction:\n" + history_text(history, reflexion=reflexion)


def paper_history_text(history: list[dict[str, Any]], *, reflexion: bool) -> str:
    """The paper set's history, in Table 15's words ("Rehearsal Resolution : 2334", "Summary : …").

    The table prints no action items; Eq. 8 puts them in the history, so they are shown as
    Appendix C names the field ("Action Item").
    """
    if not history:
        return NO_HISTORY
    blocks = []
    for entry in history:
        lines = [f"Rehearsal Resolution : {entry.get('symbol') or entry['label']}"]
        if entry.get("summary"):
            lines.append(f"Summary : {entry['summary']}")
        if entry.get("action_items"):
            lines.append(f"Action Item : {entry['action_items']}")
        lines.append(f"My vote / Ground Truth: {entry['predicted']} / {entry['truth']}")
        if reflexion and entry.get("reflection"):
            lines.append(f"Reflection: {entry['reflection']}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
