"""The LLM augmenter's prompt is a versioned template: the same words as before, and its ref recorded."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

from nationbias.graphs.augment import augment_messages, augment_prompt
from nationbias.stores.corpora.augment import Augmented, write_augmented
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.guard.leak import context_for_prompt
from nationbias.stores.records import Record

SYSTEM = (
    "You annotate United Nations Security Council draft resolutions. Answer with one JSON object with "
    "the fields summary, action_items, region, target_nations and keywords."
)
INSTRUCTIONS = (
    "summary: two or three sentences on what the draft does. action_items: the key actions it "
    "proposes, separated by semicolons. region: the geopolitical region. target_nations: the states the "
    "draft is about (not 'Member States' or 'United Nations'). keywords: three to six domain keywords."
)


def test_the_template_renders_the_words_the_code_used_to_write(corpus: Corpus) -> None:
    for record in corpus.records[:50]:
        ctx = context_for_prompt(record)
        user = f"Draft {record.id} ({ctx.description}).\n\n{ctx.text}\n\n{INSTRUCTIONS}"
        assert augment_messages(record) == [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": user},
        ]
    assert augment_prompt().ref.startswith("augment@v1:") and len(augment_prompt().sha256) == 64


def test_the_derived_files_manifest_names_the_prompt(corpus: Corpus, isolated_home: Path) -> None:
    class Stub:
        source = "llm:stub"
        prompt = augment_prompt().ref

        def augment(self, records: Sequence[Record]) -> Iterator[Augmented]:
            for record in records:
                yield Augmented(id=record.id, summary="s", source=self.source)

    write_augmented(Corpus(records=corpus.records[:3], sha256="three"), Stub())
    manifest = json.loads((isolated_home / "derived" / "augmented.json").read_text(encoding="utf-8"))
    assert manifest["prompt"] == augment_prompt().ref and manifest["source"] == "llm:stub"
