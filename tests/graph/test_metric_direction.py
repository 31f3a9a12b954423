"""Which way a metric is better, from metric names as the gold results and abstracts write them."""

from __future__ import annotations

import pytest

from paperkg.graph.metric_direction import metric_direction


@pytest.mark.parametrize(("metric", "direction"), [
    ("rank-1 accuracy", "higher"), ("pass@1", "higher"), ("$mAP_{0.5}$", "higher"), ("PSNR", "higher"),
    ("success rate", "higher"), ("throughput", "higher"), ("samples per second", "higher"),
    ("confidence", "higher"),            # holds `fid`, but as no word
    ("timesteps", "higher"), (None, "higher"), ("", "higher"),
    ("word error rate", "lower"), ("WER", "lower"), ("top-1 error", "lower"), ("FID-50k", "lower"),
    ("Perplexity", "lower"), ("RMSE", "lower"), ("MAE", "lower"), ("inference latency", "lower"),
    ("training losses", "lower"), ("Equal Error Rate", "lower"), ("false positive rate", "lower"),
    ("miss rate", "lower"), ("bits per dim", "lower"), ("GPU memory", "lower"), ("FLOPs", "lower"),
])
def test_direction_from_the_name(metric: str | None, direction: str) -> None:
    assert metric_direction(metric) == direction
