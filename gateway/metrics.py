"""Prometheus metrics, one registry per app so several apps (tests, workers) never collide."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector


@dataclass
class Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        self.decisions = Counter(
            "acteon_decisions", "Dispatch decisions by outcome and action type",
            ["outcome", "action_type"], registry=self.registry,
        )
        self.decision_seconds = Histogram(
            "acteon_decision_seconds", "Time to decide one dispatch, Redis round trip included",
            registry=self.registry,
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
        )
        self.store_errors = Counter(
            "acteon_store_errors", "Requests answered 503 because Redis was unreachable", registry=self.registry,
        )
        self.rule_reloads = Counter(
            "acteon_rule_reloads", "Rule packs (re)loaded, by scope", ["scope"], registry=self.registry,
        )
        self.console_subscribers = Gauge(
            "acteon_console_subscribers", "Open live feeds of the operator console (SSE connections)",
            registry=self.registry,
        )
        self.console_dropped = Counter(
            "acteon_console_dropped", "Console feeds dropped because the browser fell too far behind",
            registry=self.registry,
        )

    def count_from(self, name: str, documentation: str, label: str, read: Callable[[], Mapping[str, int]]) -> None:
        """Expose counters another part keeps as plain integers (the shell analyzer's, the webhooks'), read at
        each scrape: that part stays free of Prometheus, and nothing is counted twice."""
        self.registry.register(_ReadAtScrape(name, documentation, label, read))


class _ReadAtScrape(Collector):
    def __init__(self, name: str, documentation: str, label: str, read: Callable[[], Mapping[str, int]]) -> None:
        self._name, self._documentation, self._label, self._read = name, documentation, label, read

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(self._name, self._documentation, labels=[self._label])
        for value, count in self._read().items():
            family.add_metric([value], count)
        yield family
