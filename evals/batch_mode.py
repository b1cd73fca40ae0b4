"""``--batch`` for a bias test: its checks before anything is opened, and its rounds
(graphs/study/batch_rounds.py).

The library (evals/api.py ``arun``) comes through here, so ``run``, ``study``, ``ablate`` and a
notebook get batch mode alike; ``--batch-offline`` records each round for ``nationbias batch
export`` / ``import`` (an offline runner such as vLLM's) instead of submitting it.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from nationbias.stores.errors import InputError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from nationbias.evals.bias_tests import RunContext
    from nationbias.graphs.study.runner import RunSummary


async def check_batch(
    specs: list[tuple[str, str | Sequence[str] | None]], *, no_cache: bool, offline: bool
) -> None:
    """Bad input before any store is opened or any batch submitted: no cache, a provider with no
    batch endpoint, or an OpenAI-compatible server that does not offer ``/v1/batches``."""
    from nationbias.graphs.model.batch.api import BatchClient, check_provider
    from nationbias.graphs.model.batch.calls import Endpoint
    from nationbias.graphs.model.providers import PROVIDERS
    from nationbias.graphs.model.registry import parse_spec

    if no_cache:
        raise InputError("--batch needs the response cache (answers arrive through it): drop --no-cache")
    for model, base_url in specs:
        spec = parse_spec(model, base_url=base_url)
        check_provider(spec.provider)
        if spec.replicas:  # a batch goes to one server's Files + Batches API
            raise InputError(f"--batch takes one --base-url, got {len(spec.urls)}: {', '.join(spec.urls)}")
        if PROVIDERS[spec.provider].batch_probe and not offline:
            async with BatchClient(Endpoint(spec.provider, spec.model, spec.base_url), timeout=30) as api:
                await api.probe()


async def run_test(
    bias: Any,
    ctx: RunContext,
    *,
    batch: bool,
    offline: bool,
    show_progress: bool,
    resume: Callable[[str], tuple[str, list[str] | None]],
) -> RunSummary:
    """The test's run, in rounds of batches when asked (else as it is). ``resume`` (the caller's hook,
    evals/api.py ``Hooks.resume``) names the id and the command line that resume it."""
    if not (batch or offline):
        summary: RunSummary = await bias.arun(ctx)
        return summary
    from nationbias.graphs.study.batch_rounds import BatchRun, run_rounds
    from nationbias.stores.state.batches import BatchStore

    if ctx.client.cache is None:  # checked before; a library caller may pass a client of its own
        raise InputError("--batch needs the response cache: drop --no-cache")
    resume_id, argv = resume(ctx.run_id)
    store = BatchStore()
    for rid in dict.fromkeys((ctx.run_id, resume_id)):  # `runs resume` takes either
        store.note_run(rid, argv)
    if ctx.request.retry_errors:
        store.forgive(ctx.run_id)
    run = BatchRun(
        run_id=ctx.run_id,
        store=store,
        cache=ctx.client.cache,
        offline=offline,
        show_progress=show_progress,
        resume=shlex.join(argv) if argv else "",
    )
    try:
        return await run_rounds(run, lambda: bias.arun(ctx))
    finally:
        store.close()
