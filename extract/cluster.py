"""Extraction as tasks on a Dask distributed cluster (`paperkg build --dask ADDRESS`).

Extraction is the whole cost of a build and each abstract is independent, so it is the part that moves
to a cluster; resolution and the build state stay with the one process that writes them. Dask is used
as it is meant to be: a `WorkerPlugin` loads the spaCy pipeline once per worker when the worker joins
(the models are never pickled into tasks), batches of abstracts are submitted with a bounded number in
flight (input is consumed only as results come back, so memory stays bounded whatever the corpus size),
and results are yielded in input order. When a worker dies, the scheduler hands the batches it held to
another worker (Dask's `distributed.scheduler.allowed-failures` decides how often); the build goes on.

Every worker reports the extractor fingerprint it runs: a worker with another paperkg version or other
models would silently give another graph, so the build stops with a message instead.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from distributed import CancelledError, Client, LocalCluster, WorkerPlugin, get_worker
from distributed.scheduler import KilledWorker

from paperkg.extract.version import extractor_fingerprint
from paperkg.graph.errors import ClusterUnavailableError

PLUGIN_NAME = "paperkg-pipeline"
# Batches in flight per worker thread: enough to hide a round trip, few enough to bound memory.
IN_FLIGHT_PER_THREAD = 3


class PipelinePlugin(WorkerPlugin):
    """Builds the extraction pipeline on each worker as it joins (and again on a restarted one)."""

    name = PLUGIN_NAME

    def __init__(self, mode: str, paths: dict[str, str | None]) -> None:
        self.mode = mode
        self.paths = paths
        self.nlp: Any = None
        self.fingerprint = ""

    def setup(self, worker: Any) -> None:
        from paperkg.extract.pipeline import build_nlp

        self.nlp = build_nlp(self.mode, **self.paths)
        self.fingerprint = extractor_fingerprint(self.mode)


def extract_batch(batch: list) -> tuple[str, list]:
    """The task: one batch of pieces through the worker's pipeline; plain records come back."""
    from paperkg.extract.pipeline import run_batch

    plugin: PipelinePlugin = get_worker().plugins[PLUGIN_NAME]
    return plugin.fingerprint, run_batch(plugin.nlp, batch)


def connect(address: str) -> Client:
    """A client of the scheduler at `address`, or of a new local cluster for `local`."""
    try:
        if address == "local":
            cluster = LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1,
                                   processes=True, dashboard_address=None)
            return Client(cluster, set_as_default=False)
        return Client(address, timeout="10s", set_as_default=False)
    except (OSError, TimeoutError) as err:
        raise ClusterUnavailableError(
            f"cannot reach the Dask scheduler at {address}: {err}",
            "start one with `dask scheduler` and workers with `dask worker ADDRESS`, or use --dask local",
        ) from err


def run_batches(address: str, mode: str, paths: dict[str, str | None],
                batches: Iterable[list]) -> Iterator[list]:
    """Each batch's results, in input order, extracted on the cluster at `address`."""
    expected = extractor_fingerprint(mode)
    client = connect(address)
    try:
        client.register_plugin(PipelinePlugin(mode, paths), name=PLUGIN_NAME)
        threads = sum(client.nthreads().values())
        if not threads:
            raise ClusterUnavailableError(f"the Dask scheduler at {address} has no workers",
                                          "start workers with `dask worker ADDRESS`")
        in_flight = threads * IN_FLIGHT_PER_THREAD
        pending: deque = deque()
        source = iter(batches)

        def submit_next() -> None:
            batch = next(source, None)
            if batch is not None:
                pending.append(client.submit(extract_batch, batch, pure=False))

        for _ in range(in_flight):
            submit_next()
        while pending:
            future = pending.popleft()
            try:
                fingerprint, results = future.result()
            except (KilledWorker, CancelledError) as err:
                raise ClusterUnavailableError(
                    f"the Dask cluster at {address} lost a batch: {type(err).__name__}: {err}",
                    "check the workers' logs (memory, crashes) and run the build again: "
                    "what was extracted before is not lost",
                ) from err
            future.release()
            if fingerprint != expected:
                raise ClusterUnavailableError(
                    f"a Dask worker runs extractor {fingerprint}, this build {expected}",
                    "install the same paperkg version on every worker",
                )
            submit_next()
            yield results
    finally:
        cluster = client.cluster
        client.close()
        if cluster is not None:
            cluster.close()
