"""What the hub derives from consecutive ``ndbinfo`` samples: the page buffer's hit ratios,
the per-second rates of the panels read in rotation, and the history series of both the hit
ratios and the per-thread CPU."""

from __future__ import annotations

from ndbtop.collect.series import BetweenReadings, SeriesRecorder
from ndbtop.model.derive import (
    HitRatio,
    activity_rates,
    hit_ratios,
    io_lag_rates,
    link_rates,
    redo_fill_rates,
)
from ndbtop.model.ndbinfo import NdbinfoSample


class SampleRates:
    """The rates of the samples taken so far, recorded into ``series`` as they come."""

    def __init__(self, series: SeriesRecorder) -> None:
        self.hit_ratios: tuple[HitRatio, ...] = ()
        self.links = BetweenReadings("links", link_rates)
        self.activity = BetweenReadings("activity", activity_rates)
        self.io_lag = BetweenReadings("disk_write_speed", io_lag_rates)
        self.redo_fill = BetweenReadings("log_spaces", redo_fill_rates)
        self._series = series
        self._threads_read_at: float | None = None

    def update(self, previous: NdbinfoSample | None, sample: NdbinfoSample) -> None:
        """Take ``sample``, the one after ``previous`` (None: the first)."""
        seconds = sample.taken_at - previous.taken_at if previous is not None else 0.0
        before = previous.disk_page_buffer if previous is not None else None
        self.hit_ratios = hit_ratios(before, sample.disk_page_buffer, seconds)
        self.links.update(sample, sample.links)
        self.activity.update(sample, sample.activity)
        self.io_lag.update(sample, sample.disk_write_speed)
        self.redo_fill.update(sample, sample.log_spaces)
        for h in self.hit_ratios:
            self._series.record(f"hit.interval.{h.node_id}", h.interval_pct)
        read_at = sample.panel_read_at("threads")
        if sample.threads and (read_at is None or read_at != self._threads_read_at):
            self._series.add_threads(sample.threads)
        elif read_at is not None and read_at == self._threads_read_at:
            # The threads of an earlier sample, kept: these seconds were not read.
            self._series.gap_threads()
        self._threads_read_at = read_at
