"""Studies over drafts × personas × repeats (graphs/study/sampling.py): the persona vote and the debiased
vote."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from nationbias.graphs.debias import DEBIAS_PROMPTS, DebiasContext, DebiasOptions, build_debias_graph
from nationbias.graphs.labels.directqa import LabelDecision
from nationbias.graphs.labels.vote import vote_rules
from nationbias.graphs.model.call_result import CallResult
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.study.audit import leak_audit, precedent_coverage, precedent_texts
from nationbias.graphs.study.personas import DEBIAS_HAS_NO_CONTROL, PersonaError, is_control
from nationbias.graphs.study.run_config import judge_options, run_config
from nationbias.graphs.study.runner import RunSummary, Task
from nationbias.graphs.study.sampling import (
    SampleOptions,
    persona_plan,
    select_drafts,
    skipped_items,
    vote_tasks,
)
from nationbias.graphs.study.study_run import StudyRun, run_study_tasks
from nationbias.graphs.translate import TranslatedTexts, run_texts, translate_texts
from nationbias.graphs.vote import (
    VoteDeps,
    build_vote_graph,
    judge_vote,
    persona_name,
    vote_row,
    vote_sample,
    vote_template,
)
from nationbias.prompts import PromptSet
from nationbias.retrievers.context import BuildContext, build_retriever
from nationbias.retrievers.recency import age_summary
from nationbias.stores.config.paths import home
from nationbias.stores.corpora.augment import augmented_for
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.domain import CONTROL, DEBIAS, DEFAULT_LANGUAGE, VOTE
from nationbias.stores.records import Record
from nationbias.stores.state.checkpoints import InlineSqliteSaver
from nationbias.stores.state.runstore import SampleRow
from nationbias.stores.text.un_prompt import TextsMode


def audit_for(
    drafts: list[Record],
    sample: SampleOptions,
    client: ModelClient,
    prompts: PromptSet,
    texts: TranslatedTexts | None = None,
) -> dict[str, Any]:
    """The leak audit of the run's target prompts (one persona: the context does not depend on it)."""
    plan = persona_plan(drafts, sample)
    persona = next((p for d in drafts for p in plan.for_item(d)), "USA")
    return leak_audit(
        drafts,
        persona=persona,
        context_chars=client.spec.context_chars,
        prompts=prompts,
        texts=texts,
        text_mode=sample.texts,
    )


async def prepare_translations(
    *,
    translator: ModelClient | None,
    prompts: PromptSet,
    targets: list[Record],
    budget: int,
    show_progress: bool,
    precedents: list[Record] | None = None,
    summaries: list[str] | None = None,
    text_mode: TextsMode = "press",
) -> TranslatedTexts | None:
    """Translate mode's prep pass (graphs/translate.py), before the run starts: every text the run's prompts
    show, translated once (the translation store first). None in quoted mode."""
    if prompts.text_mode != "translated":
        return None
    if translator is None:
        raise ValueError("a prompt set with translated text needs a translator")
    texts = run_texts(
        targets,
        budget=budget,
        precedents=precedents or (),
        summaries=summaries or (),
        text_mode=text_mode,
        language=prompts.language,
    )
    try:
        return await translate_texts(
            texts, translator=translator, language=prompts.language, show_progress=show_progress
        )
    finally:  # used here only: its connections close on this loop, failed or not
        await translator.aclose()


def skipped(corpus: Corpus, drafts: list[Record], sample: SampleOptions) -> dict[str, int]:
    """What the study leaves out, counted for the report: roll calls with no recorded vote, and named
    personas with no recorded vote on an item (absent, or not a member that day)."""
    return {
        "items_without_votes": skipped_items(corpus, sample),
        "personas_without_vote": persona_plan(drafts, sample).skipped(drafts),
    }


def targets_config(sample: SampleOptions) -> dict[str, Any]:
    """``--targets`` in the run config, on the Council (compared on resume: stores/state/runstore.py); the
    Assembly's vote has no choice of targets."""
    return {"targets": sample.targets} if sample.body == "unsc" else {}


def precedent_ages(deps: DebiasContext, tasks: list[Task]) -> dict[str, Any]:
    """The ages (target year minus precedent year) of the precedents each (item, persona) rehearses,
    summarised, with the recency preference that chose them."""
    ages = [
        deps.records[item].date.year - p.record.date.year
        for item, persona in sorted({(task.item, task.persona) for task in tasks})
        for p in deps.precedents_for(deps.records[item], persona)
    ]
    return {"recency_halflife": deps.options.recency_halflife, **age_summary(ages)}


def precedent_pool(corpus: Corpus) -> list[Record]:
    """What the debiased vote retrieves from (the retriever keeps only items dated before the target):
    the Council's adopted and non-adopted drafts, or every Assembly roll call with a recorded vote."""
    return [
        r for r in corpus.records if (r.votes if r.body == "unga" else r.adopted or r.is_non_adopted_draft)
    ]


def vote_config(
    run: StudyRun,
    corpus: Corpus,
    drafts: list[Record],
    *,
    test: str,
    prompts: tuple[str, ...],
    extra: dict[str, Any],
    texts: TranslatedTexts | None,
) -> dict[str, Any]:
    """The run config of a vote-like study (plain or debiased): the model, the samples, the prompts with
    the judge's, the leak audit of its target prompts, what it skips and, on the Council, its targets."""
    judge = run.judge
    config = run_config(
        test=test,
        client=run.client,
        corpus=corpus,
        sample=run.sample,
        prompts=(*prompts, "judge_vote") if judge is not None else prompts,
        prompt_set=run.prompts,
        extra={**extra, "texts": run.sample.texts, **(judge_options(judge) if judge is not None else {})},
        translation=texts,
    )
    config["leak_audit"] = audit_for(drafts, run.sample, run.client, run.prompts, texts)
    config["skipped"] = skipped(corpus, drafts, run.sample)
    config.update(targets_config(run.sample))
    return config


async def run_vote_study(run: StudyRun, *, corpus: Corpus) -> RunSummary:
    """The persona vote simulation (paper §4.2); a free-text set's votes may go to the judge. With a set
    whose text is translated, the run's translator translates the drafts' texts first."""
    client, sample, prompts = run.client, run.sample, run.prompts
    drafts = select_drafts(corpus, sample)
    tasks = vote_tasks(VOTE, drafts, sample)
    texts = await prepare_translations(
        translator=run.translator,
        prompts=prompts,
        targets=drafts,
        budget=client.spec.context_chars,
        show_progress=run.show_progress,
        text_mode=sample.texts,
    )
    asked = vote_template(CONTROL) if is_control(sample.personas) else "persona_vote"
    config = vote_config(run, corpus, drafts, test=VOTE, prompts=(asked,), extra={}, texts=texts)
    run.store.create_run(run.run_id, config)
    records = {r.id: r for r in corpus.records}
    deps = VoteDeps(
        client=client, records=records, prompts=prompts, judge=run.judge, texts=texts, text_mode=sample.texts
    )
    graph = build_vote_graph(deps)

    async def worker(task: Task) -> SampleRow:
        state = await graph.ainvoke({"record_id": task.item, "persona": task.persona, "repeat": task.repeat})
        return vote_row(state, records[task.item], free_text=prompts.free_text, language=prompts.language)

    return await run_study_tasks(run, tasks, worker, description="vote")


async def run_debias_study(run: StudyRun, *, corpus: Corpus, options: DebiasOptions) -> RunSummary:
    """The debiased vote simulation (paper §7): checkpointed per sample; ``options`` are the test's own
    (k, reflexion, the retriever and its threshold, the recency preference). With a free-text set the
    judge reads the final votes the rules cannot (the rehearsal votes stay with the rules). With a set
    whose text is translated, the run's translator translates the targets', the precedents' texts and
    the precedents' summaries first."""
    client, sample, prompts, judge = run.client, run.sample, run.prompts, run.judge
    if is_control(sample.personas):
        raise PersonaError(DEBIAS_HAS_NO_CONTROL)
    options = options.for_body(sample.body)
    drafts = select_drafts(corpus, sample)
    tasks = vote_tasks(DEBIAS, drafts, sample)
    records = {r.id: r for r in corpus.records}
    augmented = augmented_for(corpus)
    built = build_retriever(
        options.retriever,
        BuildContext(corpus=corpus, augmented=augmented, options={"threshold": options.threshold}),
        recency_halflife=options.recency_halflife,
    )
    deps = DebiasContext(
        client=client,
        records=records,
        pool=precedent_pool(corpus),
        augmented=augmented,
        retriever=built.retriever,
        options=options,
        prompts=prompts,
        text_mode=sample.texts,
    )
    if prompts.text_mode == "translated":  # every precedent a prompt will show, with its summary
        plan = persona_plan(drafts, sample)
        shown = {
            p.record.id: p.record for d in drafts for a in plan.for_item(d) for p in deps.precedents_for(d, a)
        }
        deps.texts = await prepare_translations(
            translator=run.translator,
            prompts=prompts,
            targets=drafts,
            budget=client.spec.context_chars,
            show_progress=run.show_progress,
            precedents=list(shown.values()),
            summaries=[
                text
                for rid in shown
                if (aug := augmented.get(rid)) is not None
                for text in (aug.summary, aug.action_items)
            ],
            text_mode=sample.texts,
        )
    config = vote_config(
        run, corpus, drafts, test=DEBIAS, prompts=DEBIAS_PROMPTS, extra=asdict(options), texts=deps.texts
    )
    config["precedent_coverage"] = precedent_coverage(
        drafts,
        {draft.id: deps.precedents(draft) for draft in drafts},
        pool=deps.pool,
        retriever=built.strategy,
        threshold=built.given.get("threshold"),
    )
    plan = persona_plan(drafts, sample)
    config["leak_audit"]["precedents"] = precedent_texts(
        drafts,
        shown_to=lambda d: [p.record for a in plan.for_item(d) for p in deps.precedents_for(d, a)],
        source=deps.precedents_shown,
        context_chars=client.spec.context_chars,
        language=prompts.language,
        texts=deps.texts,
    )
    config["precedent_age"] = precedent_ages(deps, tasks)
    # Longest samples first (retrieval is cheap and asked once per draft): a 5-call sample started
    # last would leave one worker running alone for a second at the end of the run.
    tasks.sort(key=lambda task: -deps.expected_calls(records[task.item], task.persona))
    run.store.create_run(run.run_id, config)  # only once the retriever and its inputs are ready
    # Every finished call is already durable in the response cache, so with the cache on a sample
    # checkpoints once, when it ends (an interrupted one replays its calls from the cache on resume);
    # without it the checkpoints are the only record of paid calls, so each node's is written as it
    # ends. "async" rather than "sync": the inline saver writes it within the same loop turn either
    # way, but the next node need not wait for the write's task (benchmarks/RESULTS.md).
    durability = "exit" if client.cache is not None else "async"
    with InlineSqliteSaver.open(home() / "checkpoints.sqlite") as saver:
        graph = build_debias_graph(checkpointer=saver)
        started = saver.threads_under(f"{run.run_id}/")  # only these samples can have state to resume

        async def worker(task: Task) -> SampleRow:
            thread_id = f"{run.run_id}/{task.sample_id}"
            config = {"configurable": {"thread_id": thread_id}, "recursion_limit": options.recursion_limit}
            if thread_id in started:  # a checkpoint from an earlier, interrupted attempt
                snapshot = await graph.aget_state(config)
                values, pending = snapshot.values or {}, snapshot.next
            else:
                values, pending = {}, ()
            final = values.get("final")
            if pending and not values.get("error"):  # resume where it stopped
                state = await graph.ainvoke(None, config, context=deps, durability=durability)
            elif final is not None and not final.get("error") and not values.get("error"):
                state = values  # the graph finished but the process died before the row was written
            else:
                if values:  # a failed attempt: start afresh, or its calls would pile onto the new ones
                    await saver.adelete_thread(thread_id)
                start = {
                    "target_id": task.item,
                    "persona": task.persona,
                    "repeat": task.repeat,
                    "calls": [],
                    "visited": [],
                    "error": None,
                }
                state = await graph.ainvoke(start, config, context=deps, durability=durability)
            return await debias_row_judged(
                task,
                state,
                records[task.item],
                free_text=prompts.free_text,
                judge=judge,
                language=prompts.language,
            )

        return await run_study_tasks(
            run, tasks, worker, description=f"debias k={options.k}", commits=[saver.commits]
        )


async def debias_row_judged(
    task: Task,
    state: dict[str, Any],
    record: Record,
    *,
    free_text: bool,
    judge: ModelClient | None,
    language: str = DEFAULT_LANGUAGE,
) -> SampleRow:
    """The sample row, after the judge has read a free-text final vote the rules could not."""
    final = state.get("final") or {}
    if judge is None or not free_text or final.get("error") or final.get("answer") is None:
        return debias_row(task, state, record, free_text=free_text, language=language)
    truncated = final.get("finish_reason") == "length"
    rules = vote_rules(
        final["answer"],
        truncated=truncated,
        free_text=True,
        nation=persona_name(task.persona),
        language=language,
    )
    if not rules.needs_judge:
        return debias_row(task, state, record, free_text=free_text, language=language)
    result, judged = await judge_vote(judge, final["answer"], repeat=task.repeat, language=language)
    return debias_row(
        task, state, record, free_text=free_text, judge=result, judged=judged, language=language
    )


def debias_row(
    task: Task,
    state: dict[str, Any],
    record: Record,
    *,
    free_text: bool = False,
    judge: CallResult | None = None,
    judged: LabelDecision | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> SampleRow:
    """Fold a finished graph state into one sample row, every call's raw text kept."""
    calls = state.get("calls", [])
    final = state.get("final")
    if final is None:  # a rehearsal or reflection failed after retries
        result = CallResult(raw=None, error=state.get("error") or "graph ended before the final vote")
        messages: list[dict[str, str]] = []
    else:
        result = CallResult(
            raw=final.get("raw"),
            answer=final.get("answer"),
            reasoning=final.get("reasoning"),
            error=final.get("error"),
            latency_s=sum(c.get("latency_s", 0.0) for c in calls),
            prompt_tokens=sum(c.get("prompt_tokens", 0) for c in calls),
            completion_tokens=sum(c.get("completion_tokens", 0) for c in calls),
            cached=all(c.get("cached") for c in calls),
            finish_reason=final.get("finish_reason"),
            reasoning_tokens=final.get("reasoning_tokens") or 0,
            max_tokens=final.get("max_tokens"),
        )
        messages = final["messages"]
    return vote_sample(
        test=DEBIAS,
        record=record,
        persona=task.persona,
        repeat=task.repeat,
        messages=messages,
        result=result,
        free_text=free_text,
        judge=judge,
        judged=judged,
        model_calls=len(calls),
        language=language,
        shown=(final or {}).get("shown", "press"),
        extra={
            "precedents": state.get("precedents", []),
            "history": state.get("history", []),
            "history_empty": not state.get("history"),
            "visited": state.get("visited", []),
            "calls": calls,
        },
    )
