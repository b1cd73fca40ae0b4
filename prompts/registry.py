"""Named, versioned prompt templates kept in files.

A template file ``templates/<name>.v<N>.txt`` has ``[system]`` and ``[user]`` sections and
``{placeholders}``; its SHA-256 goes into every run's config so a result names the exact words
that produced it. ``get_prompt(name)`` returns the highest version unless one is asked for.
"""

from __future__ import annotations

import hashlib
import re
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

TEMPLATE_DIR = Path(__file__).parent / "templates"
_FILE = re.compile(r"^(?P<name>[a-z0-9_]+)\.v(?P<version>\d+)\.txt$")
_SECTION = re.compile(r"^\[(system|user)\]\s*$", re.MULTILINE)


class PromptError(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Prompt:
    name: str
    version: int
    system: str
    user: str
    sha256: str

    @property
    def ref(self) -> str:
        """``name@vN:hash8``: what a run config records."""
        return f"{self.name}@v{self.version}:{self.sha256[:8]}"

    @property
    def fields(self) -> set[str]:
        found: set[str] = set()
        for text in (self.system, self.user):
            found |= {f for _, f, _, _ in string.Formatter().parse(text) if f}
        return found

    def render(self, **values: object) -> list[dict[str, str]]:
        """Fill the placeholders; a missing or unexpected value is an error, not a silent blank."""
        missing = self.fields - values.keys()
        extra = values.keys() - self.fields
        if missing or extra:
            raise PromptError(
                f"prompt {self.ref}: missing values {sorted(missing)}; unexpected {sorted(extra)}"
            )
        messages = []
        if self.system.strip():
            messages.append({"role": "system", "content": self.system.format(**values).strip()})
        messages.append({"role": "user", "content": self.user.format(**values).strip()})
        return messages


def _parse(path: Path) -> Prompt:
    match = _FILE.match(path.name)
    if not match:
        raise PromptError(f"{path}: template files are named <name>.v<N>.txt")
    text = path.read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    sections = {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}
    if "user" not in sections:
        raise PromptError(f"{path}: a template needs a [user] section")
    return Prompt(
        name=match["name"],
        version=int(match["version"]),
        system=sections.get("system", ""),
        user=sections["user"],
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
    )


@cache
def all_prompts() -> dict[tuple[str, int], Prompt]:
    return {(p.name, p.version): p for p in map(_parse, sorted(TEMPLATE_DIR.glob("*.txt")))}


def get_prompt(name: str, version: int | None = None) -> Prompt:
    """The named template (latest version by default)."""
    versions = sorted(v for (n, v) in all_prompts() if n == name)
    if not versions:
        names = sorted({n for n, _ in all_prompts()})
        raise PromptError(f"no prompt named {name!r}; known: {', '.join(names)}")
    chosen = versions[-1] if version is None else version
    if (name, chosen) not in all_prompts():
        raise PromptError(f"prompt {name!r} has no version {chosen}; versions: {versions}")
    return all_prompts()[(name, chosen)]


def prompt_versions(*names: str) -> dict[str, str]:
    """``{name: ref}`` for the run config."""
    return {name: get_prompt(name).ref for name in names}
