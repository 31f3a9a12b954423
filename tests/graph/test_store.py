"""`graph.store.collector_paused`: the cyclic collector off for bulk loads, and what a load keeps
frozen before it comes back (else the first collection walks every object the load made)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from paperkg.graph.store import collector_paused


@pytest.fixture(autouse=True)
def _collector_state() -> Iterator[None]:
    """Each case starts with the collector on and nothing frozen, and leaves it so."""
    was = gc.isenabled()
    gc.unfreeze()
    gc.enable()
    yield
    gc.unfreeze()
    if not was:
        gc.disable()


@pytest.mark.parametrize(("keep", "frozen"), [(False, False), (True, True)])
def test_a_load_pauses_the_collector_and_freezes_only_what_it_keeps(keep: bool, frozen: bool) -> None:
    with collector_paused(keep=keep):
        assert not gc.isenabled()
        made = [{"i": i} for i in range(1000)]
    assert gc.isenabled()
    assert (gc.get_freeze_count() >= len(made)) is frozen


def test_overlapping_loads_restore_the_collector_and_freeze_when_the_last_ends() -> None:
    outer = collector_paused(keep=True)
    outer.__enter__()
    with collector_paused():
        made = [{"i": i} for i in range(1000)]
    assert not gc.isenabled() and gc.get_freeze_count() == 0    # the first load is still running
    outer.__exit__(None, None, None)
    assert gc.isenabled() and gc.get_freeze_count() >= len(made)


def test_a_collector_off_before_stays_off() -> None:
    gc.disable()
    with collector_paused(keep=True):
        pass
    assert not gc.isenabled()
