"""`nationbias data …`: validate, inspect, augment and import the corpus.

Every command reads the data (the packaged copy, or an override folder) read-only and writes derived
files only under ``NATIONBIAS_HOME``; a command that finds the corpus invalid writes nothing and exits 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from nationbias.evals.cli.common import (
    BaseUrlOpt,
    DataOpt,
    NoCacheOpt,
    cli_errors,
    console,
    err_console,
    make_client,
)
from nationbias.evals.cli.table_output import print_table
from nationbias.graphs.debias_options import DebiasOptions
from nationbias.graphs.terminal_text import plain
from nationbias.stores.domain import DEFAULT_TEXTS
from nationbias.stores.errors import InputError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from nationbias.stores.corpora.corpus import Corpus
    from nationbias.stores.records import Record

CorpusArg = Annotated[str | None, typer.Argument(help="A corpus JSONL file (default: the shared corpus).")]

data_app = typer.Typer(help="Validate, inspect, augment and import the UNSC corpus.", no_args_is_help=True)


def _validated(path: str | None) -> Corpus:
    """The corpus at ``path`` (or the configured one), validated; exit 2 with every problem if bad."""
    from nationbias.stores.corpora.bundled import corpus_file
    from nationbias.stores.corpora.corpus import load_corpus
    from nationbias.stores.corpora.validate import validate_file

    file = corpus_file(path)
    report = validate_file(file)
    for warning in report.warnings:
        err_console.print(f"warning: {plain(warning)}", highlight=False, soft_wrap=True)
    if not report.ok:
        for problem in report.errors:
            err_console.print(f"error: {plain(problem)}", highlight=False, soft_wrap=True)
        err_console.print(f"{len(report.errors)} error(s) in {file}; nothing was written.", highlight=False)
        raise typer.Exit(2)
    return load_corpus(file)


@data_app.command("validate")
@cli_errors
def validate(
    path: CorpusArg = None,
    data: DataOpt = None,
) -> None:
    """Check every record, and the UN's texts in each language; one line per problem (file:line: field
    …). Exit 2 on any error."""
    corpus = _validated(path)
    console.print(f"ok: {len(corpus.records)} records in {corpus.path}")
    if path is None:  # the data a run reads: the UN's texts beside the corpus too
        _validate_un_texts(corpus)


def _validate_un_texts(corpus: Corpus) -> None:
    """The UN's texts a run reads beside the corpus (``unsc/un_texts/*.jsonl``), each file read and checked
    line by line (stores/corpora/un_texts.py): one line per file; exit 2 naming the file and line of the first
    problem in each; an id the corpus lacks is a warning."""
    from nationbias.stores.config.paths import DataNotFoundError
    from nationbias.stores.corpora.un_texts import UN_LANGUAGES, read_un_texts, un_texts_file

    ids = {r.id for r in corpus.records}
    failed = 0
    for language in UN_LANGUAGES:
        file = un_texts_file(language)
        try:
            texts = read_un_texts(file)
        except (InputError, DataNotFoundError) as exc:
            err_console.print(f"error: {exc}", highlight=False, soft_wrap=True, markup=False)
            failed += 1
            continue
        other = [t.id for t in texts.values() if t.language != language]
        if other:
            err_console.print(
                f"error: {file}: {other[0]} says its language is not {language}",
                highlight=False,
                markup=False,
            )
            failed += 1
            continue
        unknown = sorted(set(texts) - ids)
        if unknown:
            err_console.print(
                f"warning: {file}: {len(unknown)} ids not in the corpus (first {unknown[0]})",
                highlight=False,
                markup=False,
            )
        console.print(f"ok: {len(texts)} UN texts in {language} ({file})", highlight=False, soft_wrap=True)
    if failed:
        err_console.print(f"{failed} UN text file(s) with errors; nothing was written.", highlight=False)
        raise typer.Exit(2)


def _print_copies() -> None:
    """Which copy of each data file is read (packaged, or an override folder), and its sha256.

    One ``sha256  file  (copy)`` line per file, never cut to the terminal: it compares with ``sha256sum``.
    """
    from nationbias.stores.config.paths import DataNotFoundError
    from nationbias.stores.corpora.bundled import ENV, override_folder, packaged_folder, shipped

    for group, variable in ENV.items():
        folder = override_folder(group)
        packaged = f"the packaged copy in {packaged_folder(group)} (set {variable} to override)"
        where = f"{folder} (from {variable})" if folder else packaged
        console.print(f"{group}: {where}", highlight=False, soft_wrap=True)
    for file in shipped():
        try:
            digest = file.sha256()
        except DataNotFoundError:
            digest = "missing".ljust(64)
        copy = "packaged" if file.path is None else str(file.path)
        console.print(f"  {digest}  {file.group}/{file.name}  ({copy})", highlight=False, soft_wrap=True)


@data_app.command("info")
@cli_errors
def info(path: CorpusArg = None, data: DataOpt = None) -> None:
    """Which data copy is in use (with sha256), counts, the P5 ground truth on the drafts, field coverage."""
    from nationbias.stores.corpora.corpus import field_coverage, ground_truth
    from nationbias.stores.guard.leak import context_for_prompt

    _print_copies()
    corpus = _validated(path)
    console.print(
        f"{len(corpus)} records: {len(corpus.drafts)} non-adopted drafts, {len(corpus.adopted)} adopted, "
        f"{len(corpus.amendments)} amendments  ({corpus.path}, sha256 {corpus.sha256[:12]})"
    )
    table = Table("member", "favour", "against", "abstain", title="P5 ground truth on the non-adopted drafts")
    for code, counts in ground_truth(corpus.drafts).items():
        table.add_row(code, str(counts["Y"]), str(counts["N"]), str(counts["A"]))
    print_table(table, console=console)
    coverage = Table("field", "drafts", "adopted", "amendments", "all", title="Field coverage")
    views = (corpus.drafts, corpus.adopted, corpus.amendments, corpus.records)
    per_view = [field_coverage(view) for view in views]
    for name in per_view[-1]:
        coverage.add_row(name, *(f"{c[name]}/{len(v)}" for c, v in zip(per_view, views, strict=True)))
    console.print(coverage)
    kinds = Table("prompt text", "drafts", "adopted", title="What a pre-vote prompt gets (leak-guarded)")
    for kind in ("context", "draft_text", "fallback"):
        kinds.add_row(
            kind, *(str(sum(1 for r in v if context_for_prompt(r).kind == kind)) for v in views[:2])
        )
    console.print(kinds)


@data_app.command("audit")
@cli_errors
def audit(
    k: Annotated[
        int, typer.Option("--k", help="Precedents per pool part, as in `study debias`.")
    ] = DebiasOptions.k,
    threshold: Annotated[
        float, typer.Option("--threshold", help="The keyword retriever's cut.")
    ] = DebiasOptions.threshold,
    changes: Annotated[
        bool, typer.Option("--changes", help="Print every changed sentence beside its original.")
    ] = False,
    retrievers: Annotated[
        str,
        typer.Option(
            "--retrievers", help="The retrievers whose quality is measured, comma-separated ('' for none)."
        ),
    ] = "keyword,bm25,dense",
    data: DataOpt = None,
) -> None:
    """The leak audit and precedent coverage of the non-adopted drafts, as a study records them."""
    from nationbias.graphs.study.audit import leak_audit, precedent_coverage
    from nationbias.retrievers import get_retriever
    from nationbias.stores.corpora.augment import augmented_for
    from nationbias.stores.guard.leak import context_for_prompt

    corpus = _validated(None)
    drafts = corpus.drafts
    report = leak_audit(drafts, text_mode=DEFAULT_TEXTS)
    console.print(
        f"{report['targets']} drafts: {report['prompts_with_markers']} prompts with outcome markers "
        f"({report['markers']} markers); {report['rewritten_sentences']} sentences rewritten in "
        f"{report['contexts_rewritten']} contexts, {report['removed_sentences']} removed; "
        f"{report['fallbacks']} fell back to title / agenda; kinds {report['kinds']}"
    )
    for row in report["rows"]:
        if row["markers"] or row["fallback_reason"]:
            why = "; ".join(row["markers"]) or row["fallback_reason"]
            console.print(plain(f"  {row['id']}: {row['kind']}: {why}"), highlight=False)
    _print_proposer_audit(drafts)
    from nationbias.stores.text.audit import audit_summary, text_audit

    texts = audit_summary(text_audit(drafts, text_mode=DEFAULT_TEXTS)).set_index("budget").T.astype(str)
    title = f"What of each draft's text reaches the model (chars per budget; --texts {DEFAULT_TEXTS})"
    budget_table = Table("", *(f"{b} chars" for b in texts.columns), title=title)
    for measure, values in texts.iterrows():
        budget_table.add_row(str(measure), *values)
    console.print(budget_table)
    if changes:
        for draft in drafts:
            for change in context_for_prompt(draft).changes:
                console.print(f"[bold]{draft.id}[/bold] ({', '.join(change.reasons)})")
                console.print(f"  - {change.original}", highlight=False, markup=False)
                console.print(f"  + {change.rewritten or '(removed)'}", highlight=False, markup=False)
    augmented = augmented_for(corpus)
    retriever = get_retriever("keyword", threshold=threshold, augmented=augmented)
    pool = [r for r in corpus.records if r.adopted or r.is_non_adopted_draft]
    found = {draft.id: retriever.retrieve(draft, pool, k) for draft in drafts}
    coverage = precedent_coverage(drafts, found, pool=pool, retriever=retriever, threshold=threshold)
    title = f"Precedents per draft (keyword > {threshold:g}, k={k})"
    table = Table("pool", "0 precedents", "1", "2+", title=title)
    for part, counts in coverage["per_pool"].items():
        table.add_row(part, *(str(counts[b]) for b in ("0", "1", "2+")))
    print_table(table, console=console)
    console.print(f"{len(coverage['no_precedent'])} drafts got no precedent at all")
    for miss in coverage["missing"]:
        line = f"  {miss['id']} ({miss['pool']}): {miss['why']}"
        console.print(line, highlight=False, markup=False, soft_wrap=True)
    _print_text_kinds(corpus, pool=pool, retrieve=lambda t, p: retriever.retrieve(t, p, k))
    _print_retrieval_quality(corpus, retrievers)
    _print_voice_audit(corpus)


def _print_proposer_audit(drafts: Sequence[Record]) -> None:
    """The proposer phrases the attribution test takes out of each draft's text (every arm alike), and the
    drafts it leaves out (graphs/attribution.py)."""
    from nationbias.graphs.attribution import proposer_audit

    found = proposer_audit(list(drafts), text_mode=DEFAULT_TEXTS)
    console.print(
        f"attribution: {found['phrases_rewritten']} proposer phrases rewritten in "
        f"{found['drafts_rewritten']} of {found['drafts']} drafts; {len(found['excluded'])} drafts left out; "
        f"{len(found['markers'])} drafts with outcome markers in an arm"
    )
    for rid, rewrites in found["rewrites"].items():
        for original, rewritten, reason in rewrites:
            line = f"  {rid}: {original!r} -> {rewritten or '(removed)'!r} ({reason})"
            console.print(line, highlight=False, markup=False, soft_wrap=True)
    for rid, why in found["excluded"].items():
        console.print(f"  {rid} left out: {why}", highlight=False, markup=False, soft_wrap=True)


def _print_retrieval_quality(corpus: Corpus, names: str) -> None:
    """Per retriever, both ways (as runs see the items; ``agenda_item`` and ``topic`` withheld): the failed
    drafts with no adopted precedent at k=1, and the share whose top adopted precedent is on their own
    agenda item (``nationbias.retrievers.quality``)."""
    from nationbias.retrievers import get_retriever
    from nationbias.retrievers.quality import precedent_quality

    title = "Retrieval quality: each failed draft's top adopted precedent (k=1, the whole corpus as pool)"
    table = Table("retriever", "reads", "no adopted precedent", "on the target's agenda item", title=title)
    for name in [n.strip() for n in names.split(",") if n.strip()]:
        for withheld in (False, True):
            quality = precedent_quality(get_retriever(name), corpus.records, withheld=withheld)
            reads = "agenda and topic withheld" if withheld else "as runs see the items"
            share = f"{quality.share:.2f} ({quality.on_agenda}/{quality.targets})"
            table.add_row(name, reads, f"{quality.without_adopted} of {quality.targets}", share)
    print_table(table, console=console)


def _print_text_kinds(
    corpus: Corpus, *, pool: list[Record], retrieve: Callable[[Record, Sequence[Record]], Any]
) -> None:
    """Text kind × outcome for the targets and the precedents their prompts show, under every --texts and
    every --targets: a kind that only one outcome gets would mark the item's outcome."""
    import pandas as pd

    from nationbias.graphs.study.audit import text_kind_audit
    from nationbias.graphs.study.sampling import TARGETS, council_targets
    from nationbias.stores.text.budget import TEXT_KIND_NAMES, TEXT_KINDS

    # "all" is the two other target sets together: its rows are their sums, not a third pass
    parts: dict[str, pd.DataFrame] = {
        targets: text_kind_audit(council_targets(corpus, targets), pool=pool, retrieve=retrieve)
        for targets in TARGETS
        if targets != "all"
    }
    keys = ["texts", "role", "outcome", "kind"]
    summed = pd.concat(parts.values()).groupby(keys, sort=False, as_index=False)["n"].sum()
    parts["all"] = pd.DataFrame(summed)
    frame = pd.concat([part.assign(targets=targets) for targets, part in parts.items()], ignore_index=True)
    title = (
        "Text kind × outcome under each --targets and --texts (targets and the precedents their prompts show)"
    )
    table = Table(
        "--targets", "--texts", "role", "outcome", *(TEXT_KIND_NAMES[k] for k in TEXT_KINDS), title=title
    )
    for (targets, mode, role, outcome), sub in frame.groupby(["targets", *keys[:3]], sort=False):
        per_kind = dict(zip(sub["kind"], sub["n"], strict=True))
        table.add_row(
            str(targets), str(mode), str(role), str(outcome), *(str(per_kind.get(k, 0)) for k in TEXT_KINDS)
        )
    print_table(table, console=console)


def _print_voice_audit(corpus: Corpus) -> None:
    """Wording, labels, reflection statements and the style-only classifier."""
    from nationbias.evals.style_audit import (
        document_style_audit,
        label_outcome_counts,
        save_style_audit,
        style_audit,
        wording_counts,
    )
    from nationbias.stores.domain import P5
    from nationbias.stores.text.statements import filtered_statements

    for group, n in wording_counts(corpus).items():
        console.print(
            f"{group} texts with press-voice wording (time words, adoption, 'the resolution', the Council in "
            f"the past tense): {n['before']} of {n['texts']} as stored -> {n['after']} as sent"
        )
    for name, n in label_outcome_counts(corpus).items():
        console.print(
            f"--prompts {name}: the label alone marks {n['label tells adopted']} of {n['precedents']} "
            "precedents as adopted"
        )
    pool = [r for r in corpus.records if r.adopted or r.is_non_adopted_draft]
    reasons = filtered_statements(pool, corpus.drafts, list(P5))["reason"].value_counts()
    console.print("reflection statements: " + ", ".join(f"{why} {n}" for why, n in reasons.items()))
    audit = style_audit(corpus)
    for line in audit.lines():
        console.print(line, highlight=False, markup=False)
    documents = document_style_audit(corpus)
    console.print("style-only classifier against the documents themselves (mean AUC ± sd, 5x10 CV, seed 0):")
    for found in documents:
        for line in found.lines():
            console.print(f"  {line}", highlight=False, markup=False)
    save_style_audit(audit, corpus, documents=documents)


@data_app.command("augment")
@cli_errors
def augment(
    model: Annotated[str, typer.Option("--model", "-m", help="A model spec, or 'offline' (deterministic).")],
    base_url: BaseUrlOpt = None,
    no_cache: NoCacheOpt = False,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Model calls in flight.")] = 4,
    limit: Annotated[
        int | None, typer.Option("--limit", help="Augment at most N records not done yet (a trial run).")
    ] = None,
    data: DataOpt = None,
) -> None:
    """Write the augmented fields (summary, action items, region, nations, keywords) under NATIONBIAS_HOME."""
    from nationbias.stores.corpora.augment import Augmenter, OfflineAugmenter, write_augmented

    corpus = _validated(None)
    augmenter: Augmenter
    if model == "offline":
        augmenter = OfflineAugmenter(corpus)
    else:
        from nationbias.graphs.augment import LLMAugmenter

        augmenter = LLMAugmenter(
            make_client(model, base_url=base_url, no_cache=no_cache), concurrency=concurrency
        )
    run = write_augmented(corpus, augmenter, limit=limit)
    console.print(
        f"{run.path}: {run.written} written, {run.reused} already there, {len(run.failures)} failed"
    )
    for failure in run.failures[:10]:
        err_console.print(plain(f"  failed {failure.id}: {failure.error}"), highlight=False)
    if run.failures:
        raise typer.Exit(1)


@data_app.command("keywords")
@cli_errors
def keywords(
    top: Annotated[int, typer.Option("--top", help="How many rebuilt keywords to print.")] = 40,
    threshold: Annotated[
        int | None, typer.Option("--threshold", help="Override the scaled frequency cut.")
    ] = None,
    data: DataOpt = None,
) -> None:
    """Rebuild a keyword pool from corpus text (paper, Appendix C.2) and compare it with the paper's."""
    import csv

    from nationbias.stores.corpora.augment import corpus_texts, derived_dir, keyword_pool
    from nationbias.stores.corpora.keywords import build_pool, count_ngrams, overlap, scaled_threshold

    corpus = _validated(None)
    texts = corpus_texts(corpus.records)
    paper = keyword_pool()
    cutoff = threshold if threshold is not None else scaled_threshold(count_ngrams(texts)[1])
    pool = build_pool(texts, paper_pool=paper, threshold=cutoff)
    out = derived_dir() / "keyword_pool_rebuilt.csv"
    with out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["category", "keyword", "count"])
        writer.writerows((e.category, e.keyword, e.count) for e in pool)
    table = Table("keyword", "count", "category", title=f"Rebuilt pool: {len(pool)} keywords (cut: {cutoff})")
    for entry in pool[:top]:
        table.add_row(entry.keyword, str(entry.count), entry.category)
    print_table(table, console=console)
    exact, partial = overlap([e.keyword for e in pool], [k for _, k in paper])
    console.print(
        f"overlap with the paper's {len(paper)} keywords: {len(exact)} exact, {len(partial)} partial"
    )
    console.print(f"  exact: {', '.join(sorted(exact))}")
    console.print(f"  partial: {', '.join(sorted(partial))}")
    console.print(f"written: {out}")


@data_app.command("import-undl")
@cli_errors
def import_undl_cmd(
    file: Annotated[Path, typer.Argument(help="A UN Digital Library wide export (.csv or .csv.gz).")],
    before: Annotated[
        int, typer.Option("--before", help="Keep Security Council resolutions before this year.")
    ] = 2013,
) -> None:
    """Import the export into corpus records; write the adopted pool before --before under NATIONBIAS_HOME."""
    from nationbias.stores.corpora.augment import derived_dir
    from nationbias.stores.corpora.undl import import_undl, write_records

    if not file.is_file():
        raise InputError(f"no such file: {file}")
    result = import_undl(file)
    for column, cells in result.unmapped_columns.items():
        err_console.print(
            f"unmapped column {column!r}: {cells} non-blank cell(s) not imported", highlight=False
        )
    for conflict in result.conflicts:
        err_console.print(plain(f"conflict: {conflict}"), highlight=False)
    pool = result.before(before)
    out = write_records(pool, derived_dir() / f"undl_adopted_before_{before}.jsonl")
    skipped = ", ".join(f"{n} {why}" for why, n in result.skipped_rows.items()) or "none"
    console.print(
        f"{len(result.records)} Security Council resolutions read ({skipped} rows skipped); "
        f"{len(result.columns)} country columns mapped "
        f"({len(result.merged_columns)} share a member with another column), "
        f"{len(result.unmapped_columns)} unmapped; {result.non_votes} non-votes (X) left out of the votes"
    )
    console.print(f"adopted pool before {before}: {len(pool)} records -> {out}")
