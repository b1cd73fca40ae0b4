"""Augmented fields: the offline augmenter, the LLM graph (scripted model), the derived file, keywords."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.stores.corpora.augment import (
    Augmented,
    OfflineAugmenter,
    augmented_for,
    corpus_texts,
    keyword_pool,
    offline_augment,
    read_augmented,
    write_augmented,
)
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.corpora.keywords import build_pool, overlap
from nationbias.stores.corpora.offline_fields import topic_keyword
from nationbias.stores.corpora.un_fields import key_phrases, un_operative_text
from nationbias.stores.guard.leak import find_outcome_language


def test_paper_pool_has_48_keywords_in_7_categories() -> None:
    pool = keyword_pool()
    assert len(pool) == 48
    assert Counter(c for c, _ in pool) == {
        "Human Rights": 10,
        "Armament": 7,
        "International Law": 4,
        "Terror": 5,
        "International Peace and Cooperation": 12,
        "International Crimes": 6,
        "Sustainability Issues": 4,
    }


def test_offline_fields_on_a_real_draft(corpus: Corpus) -> None:
    record = corpus.get("S/2023/795")
    augmented = offline_augment(record)
    assert augmented.region == record.region == "Middle East"
    assert {"Israel", "Palestine"} <= set(augmented.target_nations)
    assert not {"Member States", "United Nations"} & set(augmented.target_nations)
    assert augmented.summary and augmented == offline_augment(record)  # deterministic


def test_offline_keywords_come_from_the_pools(corpus: Corpus) -> None:
    augmenter = OfflineAugmenter(corpus)
    fields = {a.id: a for a in augmenter.augment(corpus.records) if isinstance(a, Augmented)}
    paper = {k for _, k in keyword_pool()}
    assert sum(1 for a in fields.values() if set(a.keywords) & paper) > 200
    pools = paper | set(augmenter.corpus_keywords)
    topics = {r.id: topic_keyword(r) for r in corpus.records}  # plus the item's own topic, once
    # plus, where the UN's own text exists, its key phrases (stores/corpora/un_fields.py)
    phrases = {r.id: set(key_phrases(t)) for r in corpus.records if (t := un_operative_text(r))}
    assert all(set(a.keywords) - {topics[a.id]} - phrases.get(a.id, set()) <= pools for a in fields.values())
    assert sum(1 for rid in phrases if set(fields[rid].keywords) & phrases[rid]) > 600
    leaks = [a.id for a in fields.values() if find_outcome_language(a.summary + "\n" + a.action_items)]
    assert leaks == []


def test_derived_file_is_resumable_and_read_by_augmented_for(corpus: Corpus, isolated_home: Path) -> None:
    class Half:
        source = "offline-half"

        def augment(self, records):  # type: ignore[no-untyped-def]
            for record in records[: len(records) // 2]:
                yield Augmented(id=record.id, summary="from the file", source=self.source)

    first = write_augmented(corpus, Half())
    assert first.path.parent == isolated_home / "derived" and first.written == 379
    second = write_augmented(corpus, Half())
    assert (second.reused, second.written) == (379, 189)
    fields = augmented_for(corpus)
    assert len(fields) == 758 and len(read_augmented(first.path)) == 568
    assert Counter(a.source for a in fields.values()) == {"offline-half": 568, "offline": 190}


def test_augmented_for_ignores_a_file_made_for_another_corpus(corpus: Corpus) -> None:
    small = Corpus(records=corpus.records[:5], sha256="other")
    fields = augmented_for(small)
    assert set(fields) == {r.id for r in corpus.records[:5]}
    assert {a.source for a in fields.values()} == {"offline"}


def test_llm_augmenter_with_a_scripted_model_writes_safe_fields(corpus: Corpus, isolated_home: Path) -> None:
    from nationbias.graphs.augment import LLMAugmenter
    from nationbias.graphs.model.client import ModelClient
    from nationbias.stores.state.cache import ResponseCache

    client = ModelClient.from_spec("fake:hash", cache=ResponseCache())
    records = corpus.drafts[:6]
    results = list(LLMAugmenter(client).augment(records))
    assert [r.id for r in results] == [r.id for r in records]
    assert all(isinstance(r, Augmented) and r.source == "llm:fake:hash" for r in results)
    calls = client.calls_made
    again = list(LLMAugmenter(client).augment(records))
    assert again == results and client.calls_made == calls  # answered from the cache


def test_cli_augment_offline_writes_under_home(corpus: Corpus, isolated_home: Path) -> None:
    result = CliRunner().invoke(app, ["data", "augment", "--model", "offline"])
    assert result.exit_code == 0, result.output
    assert (isolated_home / "derived" / "augmented-offline.jsonl").is_file()
    assert "758 written" in result.output


def test_cli_augment_limit_is_a_resumable_trial(corpus: Corpus, isolated_home: Path) -> None:
    first = CliRunner().invoke(app, ["data", "augment", "--model", "offline", "--limit", "10"])
    assert first.exit_code == 0 and "10 written, 0 already there" in first.output, first.output
    rest = CliRunner().invoke(app, ["data", "augment", "--model", "offline"])
    assert rest.exit_code == 0 and "748 written, 10 already there" in rest.output, rest.output
    bad = CliRunner().invoke(app, ["data", "augment", "--model", "offline", "--limit", "0"])
    assert bad.exit_code != 0 and "--limit must be >= 1, got 0" in bad.output


def test_rebuilt_pool_follows_the_recipe_and_overlaps_the_paper(corpus: Corpus) -> None:
    pool = build_pool(corpus_texts(corpus.records), paper_pool=keyword_pool())
    words = [e.keyword for e in pool]
    assert all(len(k.split()) >= 2 for k in words)
    assert not any(n in k for k in words for n in ("syria", "israel", "security council", "al qaida"))
    exact, _ = overlap(words, [k for _, k in keyword_pool()])
    assert {"human rights", "arms embargo", "chemical weapons", "sexual violence"} <= exact
    result = CliRunner().invoke(app, ["data", "keywords", "--top", "5"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "overlap with the paper's 48 keywords" in result.output


def test_a_corpus_and_the_same_records_in_memory_share_their_offline_fields(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loaded corpus is keyed by its file's sha256, a pool made in memory by its records' content;
    the offline fields of equal records are computed once, and a changed record computes again."""
    built: list[int] = []
    init = OfflineAugmenter.__init__

    def counting(self: OfflineAugmenter, corpus: Corpus) -> None:
        built.append(len(corpus))
        init(self, corpus)

    monkeypatch.setattr(OfflineAugmenter, "__init__", counting)
    loaded = Corpus(records=corpus.records[:7], sha256="seven-records-file")
    fields = augmented_for(loaded)
    again = augmented_for(Corpus(records=list(loaded.records)))  # as a keyword retriever's pool
    assert built == [7] and again == fields
    fresh = {a.id: a for a in OfflineAugmenter(Corpus(records=list(loaded.records))).augment(loaded.records)}
    assert fresh == fields  # what the shared key returns is what computing again gives
    changed = [loaded.records[0].model_copy(update={"title": "Another title"}), *loaded.records[1:]]
    other = augmented_for(Corpus(records=changed))
    assert built == [7, 7, 7] and set(other) == set(fields)
