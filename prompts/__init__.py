"""Named, versioned prompt templates, grouped in prompt sets."""

from nationbias.prompts.registry import (
    DEFAULT_SET,
    PROMPT_SETS,
    Prompt,
    PromptError,
    PromptSet,
    get_prompt,
    prompt_set,
    prompt_versions,
)

__all__ = [
    "DEFAULT_SET",
    "PROMPT_SETS",
    "Prompt",
    "PromptError",
    "PromptSet",
    "get_prompt",
    "prompt_set",
    "prompt_versions",
]
