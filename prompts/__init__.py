"""Named, versioned prompt templates."""

from prompts.registry import Prompt, PromptError, get_prompt, prompt_versions

__all__ = ["Prompt", "PromptError", "get_prompt", "prompt_versions"]
