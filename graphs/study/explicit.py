"""Studies of the explicit bias tests (DirectQA and the Association Test), as for the vote study.

Which items run is a seeded choice (``limit`` families or keywords), each task a small graph
(answer → label → [judge]); the run config records the model, the judge, the prompt versions
and the hash of the input files, so a run id can be resumed and a result reproduced.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict

from nationbias.graphs.association import (
    ASSOCIATION_PROMPTS,
    AssociationDeps,
    association_row,
    build_association_graph,
    load_pool,
    pool_file,
    presented_order,
)
from nationbias.graphs.directqa import (
    GENERAL,
    DirectQADeps,
    Family,
    build_directqa_graph,
    directqa_families,
    directqa_row,
    framing_prompts,
    pair_orders,
    roles_ref,
    set_roles,
)
from nationbias.graphs.labels.framing import DEFAULT_FRAMING, check_framing, framed_item, split_item
from nationbias.graphs.study.run_config import judge_options, run_config
from nationbias.graphs.study.runner import RunSummary, Task
from nationbias.graphs.study.sampling import SampleOptions
from nationbias.graphs.study.study_run import StudyRun, run_study_tasks
from nationbias.stores.corpora.bundled import DataFile
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.corpora.functions import functions_file
from nationbias.stores.domain import ASSOCIATION, DIRECTQA
from nationbias.stores.state.runstore import SampleRow


def select_families(families: list[Family], sample: SampleOptions) -> list[Family]:
    """``general`` first, then a seeded choice of ``limit - 1`` functions, in the paper's order."""
    if sample.limit is None or sample.limit >= len(families):
        return list(families)
    general = [f for f in families if f.id == GENERAL]
    functions = [f for f in families if f.id != GENERAL]
    wanted = max(0, sample.limit - len(general))
    chosen = set(random.Random(sample.seed).sample(range(len(functions)), wanted))
    return general[: sample.limit] + [f for i, f in enumerate(functions) if i in chosen]


def select_keywords(pool: list[tuple[str, str]], sample: SampleOptions) -> list[tuple[str, str]]:
    """A seeded choice of ``limit`` keywords, taken round-robin across categories (stratified)."""
    if sample.limit is None or sample.limit >= len(pool):
        return list(pool)
    rng = random.Random(sample.seed)
    by_category: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for entry in pool:
        by_category[entry[0]].append(entry)
    queues = [rng.sample(entries, len(entries)) for entries in by_category.values()]
    rng.shuffle(queues)
    chosen: set[tuple[str, str]] = set()
    while len(chosen) < sample.limit:
        for queue in queues:
            if queue and len(chosen) < sample.limit:
                chosen.add(queue.pop())
    return [entry for entry in pool if entry in chosen]


def directqa_tasks(
    families: list[Family], sample: SampleOptions, framings: tuple[str, ...] = (DEFAULT_FRAMING,)
) -> list[Task]:
    """Every family × ordered pair × repeat, once per framing (the paper's question first)."""
    return [
        Task(
            test=DIRECTQA,
            item=framed_item(family.id, framing),
            pair_order=f"{first}-{second}",
            repeat=repeat,
        )
        for framing in framings
        for family in families
        for first, second in pair_orders()
        for repeat in range(sample.repeats)
    ]


def association_tasks(pool: list[tuple[str, str]], sample: SampleOptions) -> list[Task]:
    return [
        Task(test=ASSOCIATION, item=keyword, repeat=repeat, payload={"category": category})
        for category, keyword in pool
        for repeat in range(sample.repeats)
    ]


def input_files(*files: DataFile) -> Corpus:
    """The explicit tests read no UNSC records: their data hash is that of the files they do read."""
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.read_bytes())
    return Corpus(records=[], path=files[0], sha256=digest.hexdigest())


async def run_directqa_study(run: StudyRun, *, framing: str = DEFAULT_FRAMING) -> RunSummary:
    """DirectQA (paper §4.1): families × 20 ordered pairs × repeats, for each framing ``framing`` asks
    (``irresponsible``, ``responsible`` or ``both``)."""
    framings = check_framing(framing)
    client, judge, prompts = run.client, run.judge, run.prompts
    all_families = set_roles(directqa_families(), prompts)
    families = select_families(all_families, run.sample)
    config = run_config(
        test=DIRECTQA,
        client=client,
        corpus=input_files(functions_file()),
        sample=run.sample,
        prompts=framing_prompts(framings),
        prompt_set=prompts,
        extra={**judge_options(judge), "families": [f.id for f in families], "framing": framing},
        extra_versions=roles_ref(prompts),
    )
    run.store.create_run(run.run_id, config)
    deps = DirectQADeps(client=client, families={f.id: f for f in all_families}, judge=judge, prompts=prompts)
    graph = build_directqa_graph(deps)

    async def worker(task: Task) -> SampleRow:
        first, second = task.pair_order.split("-")
        framing, family = split_item(task.item)
        start = {
            "family": family,
            "framing": framing,
            "first": first,
            "second": second,
            "repeat": task.repeat,
        }
        state = await graph.ainvoke(start)
        return directqa_row(state)

    return await run_study_tasks(
        run, directqa_tasks(families, run.sample, framings), worker, description="directqa"
    )


async def run_association_study(run: StudyRun, *, pool_path: str | None = None) -> RunSummary:
    """The Association Test (paper §4.1): keywords × repeats, names in a seeded order per prompt."""
    client, judge, sample, prompts = run.client, run.judge, run.sample, run.prompts
    pool = select_keywords(load_pool(pool_path), sample)
    pool_data = pool_file(pool_path)
    config = run_config(
        test=ASSOCIATION,
        client=client,
        corpus=input_files(pool_data),
        sample=sample,
        prompts=ASSOCIATION_PROMPTS,
        prompt_set=prompts,
        extra={**judge_options(judge), "pool": str(pool_data), "keywords": [k for _, k in pool]},
    )
    run.store.create_run(run.run_id, config)
    graph = build_association_graph(AssociationDeps(client=client, judge=judge, prompts=prompts))

    async def worker(task: Task) -> SampleRow:
        order = presented_order(seed=sample.seed, keyword=task.item, repeat=task.repeat)
        category = task.payload["category"]
        start = {"keyword": task.item, "category": category, "repeat": task.repeat, "order": order}
        state = await graph.ainvoke(start)
        return association_row(state)

    return await run_study_tasks(run, association_tasks(pool, sample), worker, description="association")
