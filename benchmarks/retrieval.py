"""Retrieval at scale: per-query latency, index build time and peak memory of each strategy.

Pools: the UNSC corpus, the UNGA roll calls, and a 100k pool of perturbed UNGA copies. Each
(strategy, pool) runs in its own subprocess (``python -m benchmarks.retrieval STRATEGY POOL ...``)
so peak resident memory (``ru_maxrss``) is that strategy's alone.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from benchmarks.common import REPO, Section, fmt_s

STRATEGIES = ("keyword", "keyword-naive", "bm25", "dense", "hybrid")
POOLS = ("unsc", "unga", "100k")
KEYWORD_TARGETS = {"unsc": 0.001, "100k": 0.050}
SCALE_TARGET = 0.050  # every strategy under 50 ms a query on the Assembly pool and at 100k items
BIG = 100_000
SURROGATE_NOISE = 0.02  # per dimension: a perturbed copy's vector keeps cosine ≈ 0.93 with its source's


def _pool(name: str, quick: bool) -> tuple[list[Any], dict[str, Any]]:
    """The records of a pool and their keyword-strategy fields."""
    if name == "unsc":
        from nationbias.stores.corpora.augment import augmented_for
        from nationbias.stores.corpora.corpus import load_corpus

        corpus = load_corpus()
        return list(corpus.records), augmented_for(corpus)
    from benchmarks.unga import augment, load_unga, perturbed_pool

    base = load_unga(limit=800 if quick else None)
    fields = augment(base)
    if name == "unga":
        return base, fields
    return perturbed_pool(base, fields, 3000 if quick else BIG)


def _surrogate_embedder(pool: list[Any], chroma: str) -> Any:
    """An embedder for the 100k pool that looks vectors up instead of running MiniLM on 100k texts.

    Embedding 100k texts on 2 cores takes about an hour (the UNGA build's rate, reported beside), and
    the model's cost per text does not depend on the pool: what grows with the pool is the index. So
    each perturbed copy gets its UNGA source's real MiniLM vector (read from the UNGA collection the
    dense run built just before) plus small Gaussian noise, renormalised; chromadb then indexes and
    queries 100k real-shaped vectors. Only the query targets' texts would be embedded for real, and
    they are in the collection, so none are.
    """
    import numpy as np

    from benchmarks.unga import load_unga
    from nationbias.retrievers.dense import SUBJECT_SUFFIX, DenseRetriever
    from nationbias.retrievers.embeddings import OnnxMiniLM
    from nationbias.retrievers.text import dense_subject_text, dense_text

    base = load_unga()
    source = DenseRetriever(path=os.path.join(os.path.dirname(chroma), "unga", "chroma"))
    collection = source.collection(base)  # the UNGA dense run's: opened (embedded only if missing)
    # each item has two vectors (its text's and its subject line's, retrievers/dense.py): both looked up
    stored = collection.get(
        ids=[r.id + suffix for r in base for suffix in ("", SUBJECT_SUFFIX)], include=["embeddings"]
    )
    embeddings = stored["embeddings"]
    assert embeddings is not None
    vectors = {rid: np.asarray(v, dtype=np.float32) for rid, v in zip(stored["ids"], embeddings, strict=True)}
    rng = np.random.default_rng(0)
    by_text: dict[str, Any] = {}
    for record in pool:
        source_id = record.id.rsplit("-p", 1)[0]
        if source_id not in vectors:  # an amendment: in neither pool part, so never indexed
            continue
        for key, text in (
            (source_id, dense_text(record)),
            (source_id + SUBJECT_SUFFIX, dense_subject_text(record)),
        ):
            vector = vectors[key] + rng.normal(0, SURROGATE_NOISE, 384)
            by_text[text] = (vector / np.linalg.norm(vector)).astype(np.float32)

    class LookupMiniLM(OnnxMiniLM):
        def __call__(self, input: Any) -> Any:
            texts = [input] if isinstance(input, str) else list(input)
            if all(text in by_text for text in texts):
                return [by_text[text] for text in texts]
            return super().__call__(texts)

    return LookupMiniLM()


def _maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(strategy: str, pool_name: str, queries: int, quick: bool, chroma: str) -> dict[str, Any]:
    """Runs in the subprocess: build the strategy's index over the pool, then time queries."""
    os.environ["NATIONBIAS_HOME"] = chroma
    pool, fields = _pool(pool_name, quick)
    import gc

    from nationbias.retrievers import get_retriever
    from tests.support.keyword_reference import retrieve_naive

    naive = strategy == "keyword-naive"  # the scorer before the index: every earlier item scored
    options: dict[str, Any] = {"augmented": fields} if strategy.startswith("keyword") else {}
    surrogate = strategy in ("dense", "hybrid") and pool_name == "100k"
    if strategy in ("dense", "hybrid"):
        path = os.path.join(chroma, "chroma")
        if not surrogate:
            options["path"] = path
        elif strategy == "dense":
            options.update(path=path, embedder=_surrogate_embedder(pool, chroma))
        else:
            from nationbias.retrievers.dense import DenseRetriever

            options["dense"] = DenseRetriever(path=path, embedder=_surrogate_embedder(pool, chroma))
    retriever: Any = get_retriever("keyword" if naive else strategy, **options)
    gc.collect()
    base_rss = _maxrss_mb()  # the pool (and, for 100k dense, its surrogate vectors) is loaded
    started = time.perf_counter()
    if naive:
        pass
    elif strategy in ("keyword", "bm25", "dense"):
        retriever.index(pool)
    else:
        retriever.bm25.index(pool)
        retriever.dense.index(pool)
    build_s = time.perf_counter() - started
    # Targets from the later half of the pool (by date), so each query has earlier items to rank.
    ordered = sorted(pool, key=lambda r: (r.date, r.id))
    later = ordered[len(ordered) // 2 :]
    step = max(1, len(later) // queries)
    targets = later[::step][:queries]
    found = 0
    started = time.perf_counter()
    for target in targets:
        if naive:
            found += len(retrieve_naive(target, pool, 1, threshold=retriever.threshold, augmented=fields))
        else:
            found += len(retriever.retrieve(target, pool, 1))
    query_s = (time.perf_counter() - started) / max(1, len(targets))
    return {
        "strategy": strategy,
        "pool": pool_name,
        "size": len(pool),
        "build_s": build_s,
        "query_s": query_s,
        "queries": len(targets),
        "precedents": found,
        "base_rss_mb": base_rss,
        "peak_rss_mb": _maxrss_mb(),
        "surrogate": surrogate,
    }


def _spawn(strategy: str, pool: str, queries: int, quick: bool, chroma: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.retrieval", strategy, pool, str(queries), chroma]
    if quick:
        command.append("--quick")
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"{strategy} on {pool} failed:\n{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run(quick: bool = False) -> Section:
    section = Section("retrieval", "Retrieval at scale (per query, k=1; index build; peak RSS)")
    results: dict[tuple[str, str], dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="nb-bench-retrieval-") as folder:
        for pool in POOLS:
            chroma = os.path.join(folder, pool)  # dense and hybrid of one pool share one collection
            os.makedirs(chroma, exist_ok=True)
            for strategy in STRATEGIES:
                dense = strategy in ("dense", "hybrid")
                queries = 10 if dense else 5 if strategy == "keyword-naive" else 30
                if dense and quick and pool != "unsc":
                    continue  # quick mode: dense only on the corpus
                results[(strategy, pool)] = _spawn(strategy, pool, queries, quick, chroma)
    unga = results.get(("dense", "unga"))
    rate = unga["size"] / unga["build_s"] if unga else None
    for (strategy, pool), r in results.items():
        build = f"build {fmt_s(r['build_s'])}"
        if r.get("surrogate"):
            embed = f" + embedding ≈ {fmt_s(r['size'] / rate)} at the UNGA rate" if rate else ""
            build = f"build {fmt_s(r['build_s'])} (index only, surrogate vectors{embed})"
        target = KEYWORD_TARGETS.get(pool) if strategy == "keyword" else None
        if target is None and strategy != "keyword-naive" and pool in ("unga", "100k"):
            target = SCALE_TARGET
        if quick and pool == "100k":
            target = None
        section.add(
            f"{strategy} on {pool} ({r['size']:,} items): per query",
            fmt_s(r["query_s"]),
            f"< {fmt_s(target)}" if target else "",
            (r["query_s"] < target) if target else None,
            f"{build}; peak RSS {r['peak_rss_mb']:.0f} MB "
            f"(+{r['peak_rss_mb'] - r['base_rss_mb']:.0f} MB over the loaded pool); "
            f"{r['queries']} queries, {r['precedents']} precedents",
        )
    section.notes.append(
        "Each (strategy, pool) runs in its own subprocess: peak RSS is `ru_maxrss` of that process (pool "
        "loading included; the '+' figure is the growth after the pool was loaded). Hybrid reuses the "
        "dense collection built just before it for the same pool, so its build time is BM25 plus opening "
        "that collection. UNGA items: kind 'draft', adopted alternating by rcid parity, region None, "
        "context = descr, title = short; keyword fields built directly (nations + keyword-pool phrases). "
        "The 100k pool repeats UNGA with new ids, dates shifted ±2 years and 15% word dropout. "
        "UNGA items have no region, so at the paper's threshold (3) keyword finds no precedent there: "
        "the index still gathers every candidate sharing a nation or keyword, which is what is timed. "
        "Dense and hybrid on 100k index surrogate vectors: each copy's UNGA source's real MiniLM vector "
        f"plus N(0, {SURROGATE_NOISE}²) noise per dimension, renormalised (embedding 100k texts on 2 cores "
        "would take about an hour, and the model's cost per text does not grow with the pool; the index "
        "does). Their build time is chromadb's insert and HNSW build alone; the embedding time is "
        "extrapolated from the UNGA build's rate. "
        "BM25 was ~2 s a query at 100k (rank_bm25's `get_scores` walks every document in Python once "
        "per query word, and every match was explained): rank_bm25 still fits the model, its BM25+ "
        "formula is laid out as a sparse word × document matrix, and the leakage rule and the cut to k "
        "run on arrays, so only the kept items are explained; tests hold scores and picks to the "
        "rank_bm25 reference. Hybrid's time at 100k is now the dense query's."
    )
    return section


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.retrieval")
    parser.add_argument("strategy", choices=STRATEGIES)
    parser.add_argument("pool", choices=POOLS)
    parser.add_argument("queries", type=int)
    parser.add_argument("chroma")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    print(json.dumps(child(args.strategy, args.pool, args.queries, args.quick, args.chroma)))


if __name__ == "__main__":
    main()
