"""Service metrics in the Prometheus text exposition format (version 0.0.4), written by hand.

Counters and histograms live on one :class:`Metrics` instance per app (no process-global registry), so
several apps in one process (tests) never mix. With ``workers > 1`` each worker process reports its own
numbers: scrape every worker, or run one worker per port.

Exposed series (all prefixed ``rewardloop_``): ``requests_total{endpoint,code}``,
``request_duration_seconds{endpoint}`` (histogram), ``samples_total{endpoint,status}``,
``rejected_total{reason}`` (auth, too_large, overloaded, draining, invalid), ``in_flight_samples``,
``in_flight_requests`` and ``max_in_flight_samples`` (gauges: the queue depth against its bound),
``errors_total`` (unhandled exceptions turned into 500s).
"""

from __future__ import annotations

import bisect
import threading
from collections import defaultdict

__all__ = ["BUCKETS", "Metrics"]

BUCKETS: tuple[float, ...] = (
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
    60.0,
    300.0,
)


def _labels(**labels: str) -> str:
    inner = ",".join(f'{k}="{_escape(str(v))}"' for k, v in labels.items())
    return "{" + inner + "}" if inner else ""


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _num(value: float) -> str:
    return repr(float(value)) if value != int(value) else str(int(value))


class _Histogram:
    def __init__(self) -> None:
        self.counts = [0] * (len(BUCKETS) + 1)  # the last slot is +Inf
        self.sum = 0.0
        self.n = 0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(BUCKETS, value)] += 1
        self.sum += value
        self.n += 1


class Metrics:
    """The service's counters, gauges and latency histograms. Thread-safe."""

    def __init__(self, max_in_flight: int = 0) -> None:
        self._lock = threading.Lock()
        self.requests: dict[tuple[str, int], int] = defaultdict(int)
        self.samples: dict[tuple[str, str], int] = defaultdict(int)
        self.rejected: dict[str, int] = defaultdict(int)
        self.latency: dict[str, _Histogram] = defaultdict(_Histogram)
        self.errors = 0
        self.in_flight_samples = 0
        self.in_flight_requests = 0
        self.max_in_flight = max_in_flight

    def request_done(self, endpoint: str, code: int, seconds: float) -> None:
        with self._lock:
            self.requests[(endpoint, code)] += 1
            self.latency[endpoint].observe(seconds)

    def count_samples(self, endpoint: str, statuses: dict[str, int]) -> None:
        with self._lock:
            for status, n in statuses.items():
                if n:
                    self.samples[(endpoint, status)] += n

    def reject(self, reason: str) -> None:
        with self._lock:
            self.rejected[reason] += 1

    def error(self) -> None:
        with self._lock:
            self.errors += 1

    def render(self) -> str:
        """All series in the text format."""
        with self._lock:
            lines: list[str] = []
            self._render_counters(lines)
            self._render_histograms(lines)
            self._render_gauges(lines)
        return "\n".join(lines) + "\n"

    def _render_counters(self, out: list[str]) -> None:
        out += [
            "# HELP rewardloop_requests_total HTTP requests by endpoint and status code.",
            "# TYPE rewardloop_requests_total counter",
        ]
        for (endpoint, code), n in sorted(self.requests.items()):
            out.append(f"rewardloop_requests_total{_labels(endpoint=endpoint, code=str(code))} {n}")
        out += [
            "# HELP rewardloop_samples_total Scored samples by endpoint and final status.",
            "# TYPE rewardloop_samples_total counter",
        ]
        for (endpoint, status), n in sorted(self.samples.items()):
            out.append(f"rewardloop_samples_total{_labels(endpoint=endpoint, status=status)} {n}")
        out += [
            "# HELP rewardloop_rejected_total Requests refused before scoring, by reason.",
            "# TYPE rewardloop_rejected_total counter",
        ]
        for reason, n in sorted(self.rejected.items()):
            out.append(f"rewardloop_rejected_total{_labels(reason=reason)} {n}")
        out += [
            "# HELP rewardloop_errors_total Unhandled exceptions answered with HTTP 500.",
            "# TYPE rewardloop_errors_total counter",
            f"rewardloop_errors_total {self.errors}",
        ]

    def _render_histograms(self, out: list[str]) -> None:
        out += [
            "# HELP rewardloop_request_duration_seconds Request latency by endpoint.",
            "# TYPE rewardloop_request_duration_seconds histogram",
        ]
        for endpoint, hist in sorted(self.latency.items()):
            running = 0
            for bound, n in zip((*BUCKETS, float("inf")), hist.counts, strict=True):
                running += n
                le = "+Inf" if bound == float("inf") else _num(bound)
                out.append(
                    f"rewardloop_request_duration_seconds_bucket{_labels(endpoint=endpoint, le=le)} {running}"
                )
            out.append(f"rewardloop_request_duration_seconds_sum{_labels(endpoint=endpoint)} {hist.sum!r}")
            out.append(f"rewardloop_request_duration_seconds_count{_labels(endpoint=endpoint)} {hist.n}")

    def _render_gauges(self, out: list[str]) -> None:
        for name, value, help_ in (
            ("in_flight_samples", self.in_flight_samples, "Samples being scored now (the queue depth)."),
            ("in_flight_requests", self.in_flight_requests, "Requests being handled now."),
            ("max_in_flight_samples", self.max_in_flight, "The bound on in-flight samples (429 beyond)."),
        ):
            out += [
                f"# HELP rewardloop_{name} {help_}",
                f"# TYPE rewardloop_{name} gauge",
                f"rewardloop_{name} {value}",
            ]
