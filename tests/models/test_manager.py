"""RewardModelManager: launch commands (all backends), health-wait with a deadline, and two real embedded
servers behind the router, one killed mid-batch without losing a sample."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from rewardloop import Runner, Sample, Status
from rewardloop.errors import ConfigError, InfraError
from rewardloop.models import (
    RewardModelManager,
    RewardModelServerConfig,
    RouterConfig,
    free_port,
    launch_command,
    router_command,
    wait_healthy,
)

pytestmark = pytest.mark.server


# -- command construction (the engines are not installed here) --------------------------------------


def test_vllm_command_for_a_reward_model():
    cfg = RewardModelServerConfig(
        model_path="/m/rm", backend="vllm", gpus_per_server=2, served_model_name="rm", python="py"
    )
    cmd = launch_command(cfg, 9001)
    assert cmd[:3] == ["py", "-m", "vllm.entrypoints.openai.api_server"]
    assert cmd[cmd.index("--model") + 1] == "/m/rm"
    assert cmd[cmd.index("--port") + 1] == "9001" and cmd[cmd.index("--tensor-parallel-size") + 1] == "2"
    assert cmd[cmd.index("--runner") + 1] == "pooling" and cmd[cmd.index("--convert") + 1] == "classify"
    assert cmd[cmd.index("--served-model-name") + 1] == "rm"


def test_vllm_command_for_a_judge_has_no_pooling_flags():
    cmd = launch_command(RewardModelServerConfig(model_path="/m/judge", backend="vllm", kind="generate"), 1)
    assert "--runner" not in cmd and "--convert" not in cmd


def test_sglang_command():
    cfg = RewardModelServerConfig(
        model_path="/m/rm", backend="sglang", extra_args=("--mem-fraction-static", "0.5")
    )
    cmd = launch_command(cfg, 30000)
    assert cmd[1:3] == ["-m", "sglang.launch_server"]
    assert cmd[cmd.index("--model-path") + 1] == "/m/rm" and "--is-embedding" in cmd
    assert cmd[cmd.index("--tp-size") + 1] == "1" and cmd[-2:] == ["--mem-fraction-static", "0.5"]
    judge = launch_command(RewardModelServerConfig(model_path="/m/j", backend="sglang", kind="generate"), 1)
    assert "--is-embedding" not in judge


def test_embedded_command_and_gpu_slices():
    from rewardloop.models._manager import _server_env

    cfg = RewardModelServerConfig(model_path="/m/rm", num_servers=2, gpus_per_server=2, gpu_ids=(4, 5, 6, 7))
    cmd = launch_command(cfg, 8000)
    assert cmd[1:3] == ["-m", "rewardloop.models._server"] and cmd[cmd.index("--device") + 1] == "auto"
    assert _server_env(cfg, 0)["CUDA_VISIBLE_DEVICES"] == "4,5"
    assert _server_env(cfg, 1)["CUDA_VISIBLE_DEVICES"] == "6,7"
    cpu = launch_command(RewardModelServerConfig(model_path="/m/rm"), 8000)
    assert cpu[cpu.index("--device") + 1] == "cpu"


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"model_path": "m", "backend": "tgi"}, "one of embedded, vllm, sglang, external"),
        ({"model_path": "m", "kind": "reward"}, "one of classify, generate"),
        ({"model_path": "m", "router_mode": "inline"}, "one of process, thread"),
        ({"backend": "vllm"}, "needs model_path"),
        ({"backend": "external"}, "needs urls"),
        ({"model_path": "m", "num_servers": 2, "ports": (1,)}, "2 servers"),
        ({"model_path": "m", "num_servers": 2, "gpus_per_server": 2, "gpu_ids": (0, 1)}, "need 4 gpu_ids"),
    ],
)
def test_config_errors_name_the_allowed_values(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        RewardModelServerConfig(**kwargs)


def test_router_command_carries_the_router_config():
    from rewardloop.cli.main import build_parser

    cfg = RewardModelServerConfig(
        model_path="m", router=RouterConfig(timeout_s=9, unhealthy_after=4, health_path="/ping")
    )
    cmd = router_command(cfg, ["http://127.0.0.1:1", "http://127.0.0.1:2"], 7000)
    assert cmd[1:4] == ["-m", "rewardloop.cli.main", "router"]
    args = build_parser().parse_args(cmd[3:])
    assert args.worker == ["http://127.0.0.1:1", "http://127.0.0.1:2"] and args.port == 7000
    assert args.timeout == 9 and args.unhealthy_after == 4 and args.health_path == "/ping"


def test_wait_healthy_fails_fast_when_the_server_exits(tmp_path):
    import subprocess

    log = tmp_path / "server.log"
    log.write_text("CUDA out of memory\n")
    proc = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    start = time.monotonic()
    with pytest.raises(InfraError, match=r"(?s)exited with code 3.*CUDA out of memory"):
        wait_healthy(f"http://127.0.0.1:{free_port()}", time.monotonic() + 60, proc, str(log))
    assert time.monotonic() - start < 30


def test_wait_healthy_respects_its_deadline():
    with pytest.raises(InfraError, match="deadline"):
        wait_healthy(f"http://127.0.0.1:{free_port()}", time.monotonic() + 0.5)


def test_external_backend_starts_only_the_router():
    from ._fake import FakeServer, classify_answer

    async def handler(request, body):
        from starlette.responses import JSONResponse

        return JSONResponse(classify_answer(1.25))

    with (
        FakeServer(handler) as server,
        RewardModelManager(backend="external", urls=(server.address,), router_mode="thread") as manager,
    ):
        assert manager.processes == [] and manager.server_urls == [server.url]
        assert manager.router.healthy_workers == [server.url]
        import httpx

        got = httpx.post(manager.router_url + "/classify", json={"input": "x"}).json()
        assert got["data"][0]["probs"][0] == 1.25
    with pytest.raises(RuntimeError, match="closed"):
        _ = manager.router_address


# -- two real embedded servers ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def manager(rm_path):
    """Two embedded servers in subprocesses (each imports torch + transformers: the slow part)."""
    cfg = RewardModelServerConfig(
        model_path=str(rm_path),
        num_servers=2,
        served_model_name="tiny-rm",
        startup_timeout_s=120,
        env={"OMP_NUM_THREADS": "1"},
        router=RouterConfig(health_interval_s=0.2, timeout_s=30),
    )
    with RewardModelManager(cfg) as m:
        yield m
    assert all(p.poll() is not None for p in m.processes)


def samples(n):
    return [
        Sample(
            response=f"the answer is {i % 10} . </s>",
            prompt=[{"role": "user", "content": f"what is {i % 10} plus {i % 7} ?"}],
        )
        for i in range(n)
    ]


@pytest.mark.slow
def test_manager_exposes_what_verl_passes_to_custom_functions(manager):
    host, port = manager.router_address.rsplit(":", 1)
    assert host == "127.0.0.1" and int(port) > 0
    assert manager.tokenizer.eos_token == "</s>" and manager.tokenizer.chat_template
    assert len(manager.pids) == 2 and manager.router_status()["healthy"] == 2


@pytest.mark.slow
def test_scores_through_the_router_match_a_single_server(manager):
    from rewardloop.scorers.reward_model import RewardModelScorer

    batch = samples(8)
    via_router = Runner(max_concurrency=8).run_sync(manager.scorer(), batch)
    direct = RewardModelScorer(manager.server_urls[0], manager.model_name, manager.tokenizer)
    one = Runner(max_concurrency=8).run_sync(direct, batch)
    assert via_router.stats["status"]["ok"] == 8
    assert [s.value for s in via_router] == pytest.approx([s.value for s in one], abs=1e-4)


@pytest.mark.slow
def test_killing_a_server_mid_batch_loses_no_sample(manager):
    """Last test of the module: it kills one of the two servers."""
    batch = samples(120)
    victim = manager.processes[1]

    def kill_soon():
        # wait until the victim has taken some requests, then kill it by PID
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and manager.router_status()["workers"][1]["requests"] < 5:
            time.sleep(0.01)
        os.kill(victim.pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_soon)
    killer.start()
    result = Runner(max_concurrency=16, retries=3).run_sync(manager.scorer(), batch)
    killer.join()
    assert victim.poll() is not None
    assert [s.status for s in result] == [Status.OK] * len(batch)
    status = manager.router_status()
    assert status["workers"][1]["requests"] >= 5 and status["retries"] >= 1
    assert [w["url"] for w in status["workers"] if w["healthy"]] == [manager.server_urls[0]]
