"""What a run records about itself: the model, the prompt set and every template's hash, the token
budget, the sample and the data's hash. Enough to reproduce it, and nothing secret."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.study.runner import package_version
from nationbias.prompts import PromptSet, language_note
from nationbias.prompts import prompt_set as default_prompt_set
from nationbias.prompts.registry import text_language
from nationbias.stores.corpora.corpus import Corpus

if TYPE_CHECKING:
    from nationbias.graphs.study.sampling import SampleOptions
    from nationbias.graphs.translate import TranslatedTexts


def run_config(
    *,
    test: str,
    client: ModelClient,
    corpus: Corpus,
    sample: SampleOptions,
    prompts: tuple[str, ...],
    prompt_set: PromptSet | None = None,
    extra: dict[str, Any] | None = None,
    extra_versions: dict[str, str] | None = None,
    translation: TranslatedTexts | None = None,
) -> dict[str, Any]:
    """What a run records about itself: enough to reproduce it, and nothing secret.

    ``prompt_set`` and ``budget`` are compared on resume like the prompt versions (stores/state/runstore.py).
    ``translation`` (``--translate-with``): who translated the record's text, with which template, and what
    its leak guard removed.
    """
    chosen = prompt_set or default_prompt_set()
    translated = {} if translation is None else {"translation": translation.config()}
    template = {} if translation is None else {"translate": translation.template_ref}
    return {
        "test": test,
        "model": client.label,
        "base_url": client.spec.base_url,  # the cache key's; replicas beside (graphs/model/endpoints.py)
        **({"replicas": list(client.spec.replicas)} if client.spec.replicas else {}),
        "embedded": client.spec.is_embedded,
        "params": {k: v for k, v in client.params.as_dict().items() if k != "timeout"},
        "timeout_s": client.params.timeout,  # --timeout: not an answer's setting, so not compared on resume
        "prompt_set": chosen.name,
        # --language: the instructions' language; the record's own text is the English draft, quoted, or
        # its translation (--translate-with: graphs/translate.py)
        "language": chosen.language,
        "text_language": text_language(chosen.language, translation.translator if translation else None),
        "language_note": language_note(chosen.language),
        "budget": {
            "reasoning_max_tokens": client.reasoning_max_tokens,
            "reasoning_by_name": client.spec.is_reasoning,
        },
        "prompt_versions": {**chosen.versions(*prompts), **(extra_versions or {}), **template},
        "seed": sample.seed,
        "sample": asdict(sample),
        "data_sha256": corpus.sha256,
        "package_version": package_version(),
        "options": extra or {},
        **translated,
    }


def note_learned_reasoning(store: Any, run_id: str, client: ModelClient) -> None:
    """Record that the model showed reasoning during the run (graphs/model/budget.py, rule 2). Not a resume
    key: the budget each sample was sent with is in its row."""
    if client.reasoning_seen and not client.spec.is_reasoning:
        store.update_config(run_id, reasoning_learned=True)


def judge_options(judge: ModelClient | None) -> dict[str, Any]:
    """The judge as a run config records it (its key never)."""
    if judge is None:
        return {"judge": None}
    params = {k: v for k, v in judge.params.as_dict().items() if k != "timeout"}
    return {"judge": judge.label, "judge_base_url": judge.spec.base_url, "judge_params": params}
