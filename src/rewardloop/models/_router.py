"""A health-checked HTTP router in front of N reward-model servers (vLLM, SGLang, or the embedded server).

What it does, per request: pick the healthy server with the fewest requests in flight (ties rotate), forward
the body with an allowlist of headers, and on a connection error, a timeout or a 5xx retry on *another*
server (up to ``attempts`` servers). A connection refusal ejects the server at once; a background task
probes every server's ``GET /health`` each ``health_interval_s``, ejects a server after
``unhealthy_after`` failed probes in a row, and re-admits it after ``healthy_after`` good ones.

Endpoints of its own: ``GET /health`` (200 while at least one server is healthy, else 503),
``GET /metrics`` (Prometheus text: requests, errors by kind, retries, in-flight, health and a latency
histogram, per server) and ``GET /router/status`` (the same as JSON). Every other path is forwarded.

Use it in-process (``Router`` + :func:`create_app`, e.g. served by
:class:`~rewardloop.models.ServerThread`) or as ``rewardloop router --worker URL ...``.

Limits: requests and responses are buffered (no streaming); only the ``Content-Type`` of the answer is
passed back; the retried request is re-sent whole, so non-idempotent endpoints may run twice.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..clients import import_httpx as _httpx
from ..clients import normalize_url

__all__ = ["SAFE_HEADERS", "Router", "RouterConfig", "create_app"]

log = logging.getLogger(__name__)

#: request headers forwarded to servers; everything else (cookies, hop-by-hop headers, Host, proxy
#: headers, client-supplied X-Forwarded-*) stays at the router
SAFE_HEADERS = frozenset({"accept", "authorization", "content-type", "user-agent", "x-request-id"})

_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


@dataclass(frozen=True)
class RouterConfig:
    """Router timeouts, retries and health checks. Each default is defined here only."""

    timeout_s: float = 120.0
    connect_timeout_s: float = 3.0
    attempts: int = 3
    health_interval_s: float = 2.0
    health_timeout_s: float = 2.0
    health_path: str = "/health"
    unhealthy_after: int = 2
    healthy_after: int = 1
    max_connections: int = 1024

    def __post_init__(self) -> None:
        for name in ("timeout_s", "connect_timeout_s", "health_interval_s", "health_timeout_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"RouterConfig.{name} must be > 0, got {getattr(self, name)!r}")
        for name in ("attempts", "unhealthy_after", "healthy_after", "max_connections"):
            if getattr(self, name) < 1:
                raise ValueError(f"RouterConfig.{name} must be >= 1, got {getattr(self, name)!r}")


class _Worker:
    def __init__(self, url: str) -> None:
        self.url = url
        self.healthy = True
        self.in_flight = 0
        self.requests = 0
        self.errors: dict[str, int] = {}
        self.fails_in_row = 0
        self.oks_in_row = 0
        self.latency_sum = 0.0
        self.buckets = [0] * (len(_BUCKETS) + 1)

    def observe(self, seconds: float) -> None:
        self.latency_sum += seconds
        self.buckets[bisect.bisect_left(_BUCKETS, seconds)] += 1

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    def status(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "healthy": self.healthy,
            "in_flight": self.in_flight,
            "requests": self.requests,
            "errors": dict(self.errors),
            "latency_sum_s": round(self.latency_sum, 6),
        }


@dataclass(frozen=True)
class Forwarded:
    """What the router answers: status code, body bytes, content type, and the server that answered."""

    status_code: int
    content: bytes
    content_type: str
    worker: str | None


class Router:
    """Least-in-flight, health-checked balancing over ``workers`` (URLs or ``host:port``).

    Call :meth:`start` inside the event loop that serves requests (the ASGI app does it in its lifespan)
    and :meth:`aclose` at the end.
    """

    def __init__(self, workers: Iterable[str], config: RouterConfig | None = None) -> None:
        urls = [normalize_url(w) for w in workers]
        if not urls:
            raise ValueError("a router needs at least one worker URL")
        if len(set(urls)) != len(urls):
            raise ValueError(f"duplicate worker URLs: {urls}")
        self.config = config or RouterConfig()
        self.workers = [_Worker(u) for u in urls]
        self.retries = 0
        self.rejected = 0  # answered 503 because no server was available
        self._rr = 0
        self._client: Any = None
        self._health_task: asyncio.Task[None] | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        httpx = _httpx()
        cfg = self.config
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(cfg.timeout_s, connect=cfg.connect_timeout_s),
            limits=httpx.Limits(
                max_connections=cfg.max_connections, max_keepalive_connections=cfg.max_connections
            ),
        )
        self._health_task = asyncio.create_task(self._health_loop())

    async def aclose(self) -> None:
        if self._health_task is not None:
            self._health_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._health_task
            self._health_task = None
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def __aenter__(self) -> Router:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- choosing and forwarding -----------------------------------------------------------------

    def _pick(self, tried: set[str]) -> _Worker | None:
        candidates = [w for w in self.workers if w.healthy and w.url not in tried]
        if not candidates:
            # every healthy server was tried (or none is healthy): a possibly-dead one beats failing now
            candidates = [w for w in self.workers if w.url not in tried]
            if not candidates or tried:
                return None
        least = min(w.in_flight for w in candidates)
        ties = [w for w in candidates if w.in_flight == least]
        self._rr += 1
        return ties[self._rr % len(ties)]

    async def forward(
        self,
        method: str,
        path: str,
        body: bytes = b"",
        headers: Mapping[str, str] | None = None,
        query: str = "",
    ) -> Forwarded:
        """Forward one request; never raises for a server failure (the answer carries 502/503/504)."""
        if self._client is None:
            raise RuntimeError("Router.start() was not awaited")
        httpx = _httpx()
        fwd = {k: v for k, v in (headers or {}).items() if k.lower() in SAFE_HEADERS}
        tried: set[str] = set()
        last = (503, "no healthy reward-model server")
        for attempt in range(self.config.attempts):
            worker = self._pick(tried)
            if worker is None:
                break
            if attempt:
                self.retries += 1
            tried.add(worker.url)
            worker.in_flight += 1
            worker.requests += 1
            start = time.perf_counter()
            try:
                url = worker.url + path + (f"?{query}" if query else "")
                resp = await self._client.request(method, url, content=body, headers=fwd)
            except httpx.ConnectError as exc:
                worker.error("connect")
                self._eject(worker, f"connection failed: {exc}")
                last = (502, f"{worker.url}: connection failed")
                continue
            except httpx.TimeoutException:
                worker.error("timeout")
                last = (504, f"{worker.url}: no answer within {self.config.timeout_s:g} s")
                continue
            except httpx.TransportError as exc:
                # a reset mid-request: the server may have died, or just closed an idle keep-alive
                # connection as we reused it; the health checks (and the next connect) tell which
                worker.error("transport")
                last = (502, f"{worker.url}: {type(exc).__name__}: {exc}")
                continue
            finally:
                worker.in_flight -= 1
                worker.observe(time.perf_counter() - start)
            if resp.status_code >= 500:
                worker.error(f"http_{resp.status_code}")
                last = (resp.status_code, resp.text[:500])
                continue
            ctype = resp.headers.get("content-type", "application/json")
            return Forwarded(resp.status_code, resp.content, ctype, worker.url)
        if not tried:
            self.rejected += 1
        status, message = last
        return Forwarded(status, _error_body(message, tried), "application/json", None)

    # -- health ----------------------------------------------------------------------------------

    def _eject(self, worker: _Worker, why: str) -> None:
        worker.oks_in_row = 0
        worker.fails_in_row = max(worker.fails_in_row, self.config.unhealthy_after)
        if worker.healthy:
            worker.healthy = False
            log.warning("router: ejected %s (%s)", worker.url, why)

    def _failed_probe(self, worker: _Worker, why: str) -> None:
        worker.oks_in_row = 0
        worker.fails_in_row += 1
        if worker.healthy and worker.fails_in_row >= self.config.unhealthy_after:
            worker.healthy = False
            log.warning(
                "router: ejected %s after %d failed checks (%s)", worker.url, worker.fails_in_row, why
            )

    def _good_probe(self, worker: _Worker) -> None:
        worker.fails_in_row = 0
        worker.oks_in_row += 1
        if not worker.healthy and worker.oks_in_row >= self.config.healthy_after:
            worker.healthy = True
            log.warning("router: re-admitted %s", worker.url)

    async def _probe(self, worker: _Worker) -> None:
        httpx = _httpx()
        try:
            resp = await self._client.get(
                worker.url + self.config.health_path, timeout=self.config.health_timeout_s
            )
        except httpx.HTTPError as exc:
            self._failed_probe(worker, type(exc).__name__)
            return
        if resp.status_code == 200:
            self._good_probe(worker)
        else:
            self._failed_probe(worker, f"HTTP {resp.status_code}")

    async def check_health(self) -> None:
        """Probe every server once (the background task calls this every ``health_interval_s``)."""
        await asyncio.gather(*(self._probe(w) for w in self.workers))

    async def _health_loop(self) -> None:
        while True:
            try:
                await self.check_health()
            except Exception:  # pragma: no cover - keep probing whatever happens
                log.exception("router: health check round failed")
            await asyncio.sleep(self.config.health_interval_s)

    # -- reporting -------------------------------------------------------------------------------

    @property
    def healthy_workers(self) -> list[str]:
        return [w.url for w in self.workers if w.healthy]

    def status(self) -> dict[str, Any]:
        return {
            "workers": [w.status() for w in self.workers],
            "healthy": len(self.healthy_workers),
            "retries": self.retries,
            "rejected": self.rejected,
        }

    def metrics_text(self) -> str:
        """Prometheus exposition text of the counters."""
        out = [
            "# TYPE rewardloop_router_requests_total counter",
            *(f'rewardloop_router_requests_total{{worker="{w.url}"}} {w.requests}' for w in self.workers),
            "# TYPE rewardloop_router_errors_total counter",
            *(
                f'rewardloop_router_errors_total{{worker="{w.url}",kind="{kind}"}} {n}'
                for w in self.workers
                for kind, n in sorted(w.errors.items())
            ),
            "# TYPE rewardloop_router_retries_total counter",
            f"rewardloop_router_retries_total {self.retries}",
            "# TYPE rewardloop_router_rejected_total counter",
            f"rewardloop_router_rejected_total {self.rejected}",
            "# TYPE rewardloop_router_in_flight gauge",
            *(f'rewardloop_router_in_flight{{worker="{w.url}"}} {w.in_flight}' for w in self.workers),
            "# TYPE rewardloop_router_worker_healthy gauge",
            *(f'rewardloop_router_worker_healthy{{worker="{w.url}"}} {int(w.healthy)}' for w in self.workers),
            "# TYPE rewardloop_router_request_seconds histogram",
        ]
        for w in self.workers:
            out.extend(_histogram(w))
        return "\n".join(out) + "\n"


def _histogram(w: _Worker) -> list[str]:
    lines, running = [], 0
    for bound, count in zip((*_BUCKETS, float("inf")), w.buckets, strict=True):
        running += count
        le = "+Inf" if bound == float("inf") else f"{bound:g}"
        lines.append(f'rewardloop_router_request_seconds_bucket{{worker="{w.url}",le="{le}"}} {running}')
    lines.append(f'rewardloop_router_request_seconds_sum{{worker="{w.url}"}} {w.latency_sum:.6f}')
    lines.append(f'rewardloop_router_request_seconds_count{{worker="{w.url}"}} {running}')
    return lines


def _error_body(message: str, tried: Sequence[str] | set[str]) -> bytes:
    import json

    return json.dumps({"error": {"message": message, "tried": sorted(tried)}}).encode()


def create_app(router: Router) -> Any:
    """A Starlette ASGI app serving ``router``; its lifespan starts and closes the router."""
    try:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse, PlainTextResponse, Response
        from starlette.routing import Route
    except ImportError as exc:
        from ..errors import MissingExtraError

        raise MissingExtraError("starlette", "server") from exc

    async def health(request: Request) -> Response:
        ok = bool(router.healthy_workers)
        return JSONResponse({"status": "ok" if ok else "no healthy server"}, status_code=200 if ok else 503)

    async def metrics(request: Request) -> Response:
        return PlainTextResponse(router.metrics_text(), media_type="text/plain; version=0.0.4")

    async def status(request: Request) -> Response:
        return JSONResponse(router.status())

    async def proxy(request: Request) -> Response:
        body = await request.body()
        path = "/" + request.path_params["path"]
        out = await router.forward(request.method, path, body, dict(request.headers), request.url.query)
        return Response(out.content, status_code=out.status_code, media_type=out.content_type)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        await router.start()
        try:
            yield
        finally:
            await router.aclose()

    return Starlette(
        routes=[
            Route("/health", health, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"]),
            Route("/router/status", status, methods=["GET"]),
            Route("/{path:path}", proxy, methods=["GET", "POST", "PUT", "DELETE"]),
        ],
        lifespan=lifespan,
    )
