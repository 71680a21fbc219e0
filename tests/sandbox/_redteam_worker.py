"""Worker for tests/sandbox/test_redteam_round3.py: runs the public sandbox API in a process of its own,
as root (``unshare``) or as an unprivileged uid (``bwrap``), and answers one JSON request per line.

Standalone on purpose (no pytest, no package import besides rewardloop), so that it runs under the
system interpreter as ``nobody``. Requests: ``{"op": "run" | "run_tests" | "score" | "hello", ...}``;
replies ``{"ok": true, "result": ...}`` or ``{"ok": false, "error": "<type>: <message>"}``.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import traceback


def _files(spec: dict | None) -> dict | None:
    if spec is None:
        return None
    return {k: (base64.b64decode(v["b64"]) if isinstance(v, dict) else v) for k, v in spec.items()}


def _result(r: object) -> dict:
    return {
        "status": r.status.value,
        "exit_code": r.exit_code,
        "signal": r.signal,
        "stdout": r.stdout[:20000],
        "stderr": r.stderr[:4000],
        "truncated": r.truncated,
        "error": r.error,
        "stdout_len": len(r.stdout),
        "compile": None
        if r.compile is None
        else {"status": r.compile.status.value, "error": r.compile.error},
    }


def main() -> None:
    isolation = sys.argv[1]
    # Things of the caller a run must never see: an environment canary and an inheritable descriptor.
    canary_file = os.environ.get("RT_FD_CANARY_FILE")
    if canary_file:
        fd = os.open(canary_file, os.O_RDONLY)
        os.set_inheritable(fd, True)
        r, w = os.pipe()
        os.set_inheritable(r, True)
        os.set_inheritable(w, True)
        os.write(w, os.environ.get("RT_CANARY", "x").encode())
    from rewardloop.sandbox import Limits, Sandbox
    from rewardloop.sandbox.harness import run_tests

    sb = None
    for line in sys.stdin:
        req = json.loads(line)
        try:
            op = req["op"]
            if op == "hello":
                sb = Sandbox(isolation=isolation)
                out = {"uid": os.getuid(), "languages": sb.languages()}
            elif op == "run":
                r = sb.run(
                    req["code"],
                    req.get("language", "python"),
                    stdin=req.get("stdin", ""),
                    limits=Limits(**req.get("limits", {})),
                    files=_files(req.get("files")),
                )
                out = _result(r)
            elif op == "run_tests":
                rs = run_tests(
                    req["code"],
                    req["tests"],
                    language=req.get("language", "python"),
                    limits=Limits(**req.get("limits", {})),
                    sandbox=sb,
                    **req.get("kw", {}),
                )
                out = [{"status": t.status.value, "detail": t.detail} for t in rs]
            elif op == "score":
                from rewardloop import default_compute_score

                out = default_compute_score(req["data_source"], req["response"], req["ground_truth"])
                if not isinstance(out, (int, float)):
                    out = {k: v for k, v in dict(out).items() if isinstance(v, (int, float, str, bool))}
            else:
                raise ValueError(op)
            reply = {"ok": True, "result": out}
        except BaseException as exc:
            reply = {
                "ok": False,
                "error": f"{type(exc).__name__}: {exc}",
                "tb": traceback.format_exc()[-3000:],
            }
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    if sb is not None:
        sb.close()


if __name__ == "__main__":
    main()
