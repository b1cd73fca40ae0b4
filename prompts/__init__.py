"""Named, versioned prompt templates, grouped in prompt sets."""

from nationbias.prompts.registry import (
    DEFAULT_SET,
    PROMPT_SETS,
    Prompt,
    PromptError,
    PromptSet,
    check_language,
    get_prompt,
    language_note,
    prompt_set,
    prompt_versions,
)

__all__ = [
    "DEFAULT_SET",
    "PROMPT_SETS",
    "Prompt",
    "PromptError",
    "PromptSet",
    "check_language",
    "get_prompt",
    "language_note",
    "prompt_set",
    "prompt_versions",
]
