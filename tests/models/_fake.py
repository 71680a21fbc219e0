"""Scriptable HTTP servers on 127.0.0.1 for client, router and judge tests (real uvicorn, in a thread)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from rewardloop.models import ServerThread

Handler = Callable[[Request, dict[str, Any]], Awaitable[Response]]


class FakeServer:
    """Records every request (path, headers, JSON body) and answers with ``handler``."""

    def __init__(self, handler: Handler, port: int | None = None) -> None:
        self.handler = handler
        self.requests: list[dict[str, Any]] = []
        self.healthy = True
        self.in_flight = 0
        self.max_in_flight = 0

        async def health(request: Request) -> Response:
            return JSONResponse({"ok": self.healthy}, status_code=200 if self.healthy else 503)

        async def any_path(request: Request) -> Response:
            raw = await request.body()
            body = json.loads(raw) if raw else {}
            self.requests.append({"path": request.url.path, "headers": dict(request.headers), "body": body})
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                return await self.handler(request, body)
            finally:
                self.in_flight -= 1

        app = Starlette(
            routes=[
                Route("/health", health, methods=["GET"]),
                Route("/{path:path}", any_path, methods=["GET", "POST"]),
            ]
        )
        self.thread = ServerThread(app, port=port)

    @property
    def url(self) -> str:
        return self.thread.url

    @property
    def address(self) -> str:
        return self.thread.address

    def paths(self, path: str) -> int:
        return sum(1 for r in self.requests if r["path"] == path)

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.thread.stop()


def classify_answer(value: float) -> dict[str, Any]:
    return {"object": "list", "data": [{"index": 0, "probs": [value], "num_classes": 1}]}


def chat_answer(text: str) -> dict[str, Any]:
    return {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]
    }


async def sleep_then(seconds: float, response: Response) -> Response:
    await asyncio.sleep(seconds)
    return response
