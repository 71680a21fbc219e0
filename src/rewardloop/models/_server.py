"""The embedded reward-model server: a transformers model behind the same HTTP protocols as vLLM / SGLang.

Meant for laptops, CI and small CPU/GPU jobs where a full inference engine is overkill. It serves

* a sequence-classification model (``AutoModelForSequenceClassification``, e.g. a one-label reward model)
  on ``POST /classify`` (vLLM's pooling shape; ``use_activation: false`` returns raw logits, as verl asks)
  and ``POST /v1/embeddings`` (SGLang's ``--is-embedding`` shape: the logits are the "embedding");
* a causal LM (``AutoModelForCausalLM``) on ``POST /v1/chat/completions`` (OpenAI shape, for judges);

plus ``GET /health``, ``GET /v1/models`` and ``GET /metrics``.

Dynamic batching: requests that arrive within ``batch_wait_ms`` of each other are run as one padded
forward pass (up to ``max_batch_size`` texts); chat requests are grouped by sampling parameters. One batch
runs at a time in a worker thread, so the event loop keeps accepting requests while the model computes.

Limits: no streaming, no KV-cache sharing across requests, no tensor parallelism; inputs longer than
``max_length`` tokens are truncated from the left for classification (the response end is what a reward
model reads) and rejected with HTTP 400 for chat. Run it as ``python -m rewardloop.models._server
--model PATH`` or through :class:`~rewardloop.models.RewardModelManager` (``backend="embedded"``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, MissingExtraError

__all__ = ["EmbeddedServerConfig", "ModelRunner", "create_server_app", "detect_kind", "main"]

log = logging.getLogger(__name__)

KINDS = ("auto", "classify", "generate")


@dataclass(frozen=True)
class EmbeddedServerConfig:
    """What the embedded server loads and how it batches."""

    model_path: str
    kind: str = "auto"
    device: str = "cpu"
    dtype: str = "auto"
    served_model_name: str | None = None
    max_batch_size: int = 32
    batch_wait_ms: float = 5.0
    max_length: int = 4096
    threads: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(f"kind={self.kind!r}; allowed: {', '.join(KINDS)}")
        if self.max_batch_size < 1:
            raise ConfigError("max_batch_size must be >= 1")
        if self.batch_wait_ms < 0:
            raise ConfigError("batch_wait_ms must be >= 0")

    @property
    def model_name(self) -> str:
        return self.served_model_name or self.model_path


def detect_kind(model_path: str) -> str:
    """``classify`` for ``*ForSequenceClassification`` checkpoints, ``generate`` for ``*ForCausalLM``."""
    try:
        archs = json.loads((Path(model_path) / "config.json").read_text()).get("architectures") or []
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {model_path}/config.json to detect the model kind: {exc}") from exc
    if any(a.endswith("ForSequenceClassification") for a in archs):
        return "classify"
    if any(a.endswith("ForCausalLM") or a.endswith("LMHeadModel") for a in archs):
        return "generate"
    raise ConfigError(f"cannot tell the kind of {archs or 'this'} model; pass kind='classify' or 'generate'")


class ModelRunner:
    """Loads the model and tokenizer and runs whole batches (called from one worker thread at a time)."""

    def __init__(self, config: EmbeddedServerConfig) -> None:
        try:
            import torch
            import transformers
        except ImportError as exc:
            raise MissingExtraError(exc.name or "transformers", "models") from exc
        self.config = config
        self.kind = detect_kind(config.model_path) if config.kind == "auto" else config.kind
        if config.threads:
            torch.set_num_threads(config.threads)
        self._torch = torch
        self.device = _device(torch, config.device)
        dtype = "auto" if config.dtype == "auto" else getattr(torch, config.dtype)
        cls = (
            transformers.AutoModelForSequenceClassification
            if self.kind == "classify"
            else transformers.AutoModelForCausalLM
        )
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(config.model_path)
        self.model = cls.from_pretrained(config.model_path, dtype=dtype).to(self.device).eval()
        self._fix_padding()

    def _fix_padding(self) -> None:
        tok = self.tokenizer
        if tok.pad_token is None:
            tok.pad_token = tok.eos_token or tok.unk_token
        if getattr(self.model.config, "pad_token_id", None) is None:
            # sequence classifiers find each row's last real token through pad_token_id
            self.model.config.pad_token_id = tok.pad_token_id

    def classify(self, texts: Sequence[str]) -> list[tuple[list[float], int]]:
        """Raw logits and token count of each text, in one padded forward pass."""
        tok = self.tokenizer
        tok.padding_side, tok.truncation_side = "right", "left"
        enc = tok(
            list(texts), padding=True, truncation=True, max_length=self.config.max_length, return_tensors="pt"
        )
        lengths = enc["attention_mask"].sum(dim=1).tolist()
        with self._torch.inference_mode():
            logits = self.model(**{k: v.to(self.device) for k, v in enc.items()}).logits
        return [(row, int(n)) for row, n in zip(logits.float().cpu().tolist(), lengths, strict=True)]

    def generate(
        self, conversations: Sequence[list[dict[str, str]]], params: tuple[Any, ...]
    ) -> list[tuple[str, str, int, int]]:
        """Greedy or sampled continuations: (text, finish_reason, prompt_tokens, completion_tokens) each."""
        max_tokens, temperature, top_p = params
        tok = self.tokenizer
        prompts = [
            tok.apply_chat_template(c, add_generation_prompt=True, tokenize=False) for c in conversations
        ]
        tok.padding_side = "left"
        enc = tok(prompts, padding=True, return_tensors="pt", add_special_tokens=False)
        if enc["input_ids"].shape[1] > self.config.max_length:
            raise ValueError(f"prompt is longer than max_length={self.config.max_length} tokens")
        sampling = (
            {"do_sample": True, "temperature": temperature, "top_p": top_p}
            if temperature > 0
            else {"do_sample": False}
        )
        with self._torch.inference_mode():
            out = self.model.generate(
                **{k: v.to(self.device) for k, v in enc.items()},
                max_new_tokens=max_tokens,
                pad_token_id=tok.pad_token_id,
                **sampling,
            )
        new = out[:, enc["input_ids"].shape[1] :].cpu()
        results: list[tuple[str, str, int, int]] = []
        for i, row in enumerate(new.tolist()):
            n_prompt = int(enc["attention_mask"][i].sum())
            ended = tok.eos_token_id is not None and tok.eos_token_id in row
            if ended:
                row = row[: row.index(tok.eos_token_id)]
            row = [t for t in row if t != tok.pad_token_id]
            text = str(tok.decode(row, skip_special_tokens=True))
            results.append((text, "stop" if ended else "length", n_prompt, len(row)))
        return results


def _device(torch: Any, device: str) -> Any:
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(device)


class _Batcher:
    """Collects submissions for up to ``wait_s`` (or ``max_size`` items) and runs them as one call."""

    def __init__(
        self, run: Callable[[list[Any]], list[Any]], max_size: int, wait_s: float, stats: dict[str, float]
    ) -> None:
        self._run = run
        self._max = max_size
        self._wait = wait_s
        self._queue: asyncio.Queue[tuple[Any, asyncio.Future[Any]]] = asyncio.Queue()
        self._stats = stats
        self._task: asyncio.Task[None] | None = None

    async def submit(self, item: Any) -> Any:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._loop())
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self._queue.put((item, fut))
        return await fut

    async def _collect(self) -> list[tuple[Any, asyncio.Future[Any]]]:
        batch = [await self._queue.get()]
        deadline = time.monotonic() + self._wait
        while len(batch) < self._max:
            left = deadline - time.monotonic()
            if left <= 0:
                while len(batch) < self._max and not self._queue.empty():
                    batch.append(self._queue.get_nowait())
                break
            try:
                batch.append(await asyncio.wait_for(self._queue.get(), left))
            except asyncio.TimeoutError:
                break
        return batch

    async def _loop(self) -> None:
        while True:
            batch = [(item, fut) for item, fut in await self._collect() if not fut.cancelled()]
            if not batch:
                continue
            self._stats["batches"] += 1
            self._stats["batched_items"] += len(batch)
            self._stats["max_batch"] = max(self._stats["max_batch"], len(batch))
            try:
                results = await asyncio.to_thread(self._run, [item for item, _ in batch])
            except Exception as exc:  # fail this batch's requests, keep serving
                log.exception("batch of %d failed", len(batch))
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc)
                continue
            if len(results) != len(batch):  # a runner bug must fail the requests, not hang them
                results = [RuntimeError(f"{len(results)} results for a batch of {len(batch)}")] * len(batch)
            for (_, fut), result in zip(batch, results, strict=True):
                if fut.done():
                    continue
                if isinstance(result, Exception):
                    fut.set_exception(result)
                else:
                    fut.set_result(result)

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


def _as_texts(value: Any) -> list[str]:
    texts = [value] if isinstance(value, str) else value
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) and t for t in texts):
        raise ValueError("'input' must be a non-empty string or a non-empty list of non-empty strings")
    return texts


def _activate(logits: list[float]) -> list[float]:
    import math

    if len(logits) == 1:
        return [1.0 / (1.0 + math.exp(-logits[0]))]
    top = max(logits)
    exps = [math.exp(x - top) for x in logits]
    total = sum(exps)
    return [e / total for e in exps]


def _generate(model: ModelRunner, params: tuple[Any, ...], conversations: list[Any]) -> list[Any]:
    return list(model.generate(conversations, params))


def create_server_app(config: EmbeddedServerConfig, runner: ModelRunner | None = None) -> Any:
    """The Starlette app of the embedded server. ``runner`` is loaded from ``config`` when not given."""
    try:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse, PlainTextResponse, Response
        from starlette.routing import Route
    except ImportError as exc:
        raise MissingExtraError("starlette", "server") from exc

    model = runner or ModelRunner(config)
    stats: dict[str, float] = {"requests": 0, "errors": 0, "batches": 0, "batched_items": 0, "max_batch": 0}
    wait_s = config.batch_wait_ms / 1000.0
    classify_batcher = _Batcher(model.classify, config.max_batch_size, wait_s, stats)
    chat_batchers: dict[tuple[Any, ...], _Batcher] = {}

    def error(status: int, message: str) -> Response:
        stats["errors"] += 1
        return JSONResponse({"error": {"message": message, "code": status}}, status_code=status)

    async def read_json(request: Request) -> dict[str, Any]:
        body = await request.json()
        if not isinstance(body, dict):
            raise ValueError("the request body must be a JSON object")
        return body

    async def pooled(request: Request, shape: str) -> Response:
        stats["requests"] += 1
        if model.kind != "classify":
            return error(400, f"this server runs a {model.kind} model; {request.url.path} needs a classifier")
        try:
            body = await read_json(request)
            texts = _as_texts(body.get("input"))
        except ValueError as exc:
            return error(400, str(exc))
        try:
            outs = await asyncio.gather(*(classify_batcher.submit(t) for t in texts))
        except Exception as exc:
            return error(500, f"{type(exc).__name__}: {exc}")
        tokens = sum(n for _, n in outs)
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        if shape == "classify":
            activate = body.get("use_activation", body.get("activation", True))
            data = []
            for i, (logits, _) in enumerate(outs):
                probs = _activate(logits) if activate else logits
                label = model.model.config.id2label.get(max(range(len(probs)), key=probs.__getitem__))
                data.append({"index": i, "label": label, "probs": probs, "num_classes": len(probs)})
            obj = {"id": f"classify-{uuid.uuid4().hex}", "object": "list", "created": int(time.time())}
        else:
            data = [
                {"object": "embedding", "index": i, "embedding": logits} for i, (logits, _) in enumerate(outs)
            ]
            obj = {"object": "list"}
        return JSONResponse({**obj, "model": config.model_name, "data": data, "usage": usage})

    async def classify(request: Request) -> Response:
        return await pooled(request, "classify")

    async def embeddings(request: Request) -> Response:
        return await pooled(request, "embeddings")

    async def chat(request: Request) -> Response:
        stats["requests"] += 1
        if model.kind != "generate":
            return error(400, "this server runs a classifier; /v1/chat/completions needs a causal LM")
        try:
            body = await read_json(request)
            messages = body.get("messages")
            if not isinstance(messages, list) or not messages:
                raise ValueError("'messages' must be a non-empty list")
            params = (
                int(body.get("max_tokens") or body.get("max_completion_tokens") or 256),
                float(body.get("temperature", 1.0) or 0.0),
                float(body.get("top_p", 1.0) or 1.0),
            )
        except (ValueError, TypeError) as exc:
            return error(400, str(exc))
        batcher = chat_batchers.get(params)
        if batcher is None:
            batcher = chat_batchers[params] = _Batcher(
                functools.partial(_generate, model, params), config.max_batch_size, wait_s, stats
            )
        try:
            text, finish, n_prompt, n_new = await batcher.submit(messages)
        except ValueError as exc:
            return error(400, str(exc))
        except Exception as exc:
            return error(500, f"{type(exc).__name__}: {exc}")
        return JSONResponse(
            {
                "id": f"chatcmpl-{uuid.uuid4().hex}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": config.model_name,
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
                ],
                "usage": {
                    "prompt_tokens": n_prompt,
                    "completion_tokens": n_new,
                    "total_tokens": n_prompt + n_new,
                },
            }
        )

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def models(request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": config.model_name, "object": "model"}]})

    async def metrics(request: Request) -> Response:
        lines = [f"rewardloop_rm_{k}_total {v:g}" for k, v in stats.items() if k != "max_batch"]
        lines.append(f"rewardloop_rm_max_batch {stats['max_batch']:g}")
        return PlainTextResponse("\n".join(lines) + "\n")

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        try:
            yield
        finally:
            for b in (classify_batcher, *chat_batchers.values()):
                await b.aclose()

    return Starlette(
        routes=[
            Route("/health", health, methods=["GET"]),
            Route("/v1/models", models, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"]),
            Route("/classify", classify, methods=["POST"]),
            Route("/v1/embeddings", embeddings, methods=["POST"]),
            Route("/v1/chat/completions", chat, methods=["POST"]),
        ],
        lifespan=lifespan,
    )


def build_arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m rewardloop.models._server", description=__doc__.split("\n")[0]
    )
    p.add_argument("--model", required=True, help="local model directory (transformers format)")
    p.add_argument("--kind", default="auto", choices=KINDS)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N or auto")
    p.add_argument("--dtype", default="auto", help="auto, float32, bfloat16, float16")
    p.add_argument("--served-model-name", default=None)
    p.add_argument("--max-batch-size", type=int, default=32)
    p.add_argument("--batch-wait-ms", type=float, default=5.0)
    p.add_argument("--max-length", type=int, default=4096)
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        import uvicorn
    except ImportError as exc:
        raise MissingExtraError("uvicorn", "server") from exc
    config = EmbeddedServerConfig(
        model_path=args.model,
        kind=args.kind,
        device=args.device,
        dtype=args.dtype,
        served_model_name=args.served_model_name,
        max_batch_size=args.max_batch_size,
        batch_wait_ms=args.batch_wait_ms,
        max_length=args.max_length,
        threads=args.threads,
    )
    from ._serving import KEEP_ALIVE_S

    app = create_server_app(config)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", timeout_keep_alive=KEEP_ALIVE_S)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
