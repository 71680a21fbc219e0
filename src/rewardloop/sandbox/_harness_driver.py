# ruff: noqa: ANN001
# (no annotations: this file runs as a script in the sandbox, and importing typing would slow every run)
"""The trusted driver of the Python test harnesses. It is not imported by rewardloop: its source is the
program that :mod:`rewardloop.sandbox.harness` runs in the sandbox (standard library only).

Two processes, split before anything secret or untrusted exists:

* the **checker** (this process) makes itself non-dumpable, forks, then reads the request from stdin: a
  random nonce, the tests and the program's code. It runs the tests (HumanEval's ``check``, an MBPP
  assert, a call with the case's arguments) as trusted code and never executes the program's code;
* the **program process** (the fork) points its stdin at ``/dev/null`` and its stdout at stderr,
  closes every other descriptor but its two pipes, and serves requests: load the code, look up a
  name, call, get an attribute, iterate, index.

Only plain data crosses the pipes (``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``,
``bytes``, ``list``, ``tuple``, ``dict``, ``set``, ``frozenset``), as JSON with tags for the non-JSON
types, and the checker rebuilds it with its own constructors: whatever the program returns, the test
compares values of exact built-in types. Anything else stays in the program process and is seen by the
checker as a handle that can only be called, indexed, iterated, measured, turned into a string and
compared by identity; asking a handle for its truth value is a protocol violation. A violation (an
exit or ``SystemExit`` during a request, a malformed reply, a handle's truth value) fails the test
even when the test code catches the exception it raises.

The checker writes exactly one line to stdout, ``<nonce> <verdict JSON>``, after the checks returned;
the program process has no descriptor for that stdout and cannot read the nonce (it was forked before
the nonce was read, and the checker is not dumpable, so ``/proc/<pid>/mem`` and ``fd/`` are closed to it).
The host believes only that line.
"""

import builtins
import os
import sys

_PLAIN_SCALARS = (type(None), bool, int, float, str)
_DETAIL = 600
_EXIT_EXCEPTIONS = ("SystemExit", "KeyboardInterrupt", "GeneratorExit")


# ------------------------------------------------------------------------------------------ wire format


def _codec():
    """``(dumps, dumps_plain, loads)`` on JSON text. The C accelerator alone: importing ``json`` pulls in
    ``re`` and ``enum``, which would double the start-up time of every run (the module is the fallback)."""

    def dumps_with(default):
        encode = _json.make_encoder(None, default, _json.encode_basestring_ascii, None, ":", ",", 0, 0, 1)
        return lambda value: "".join(encode(value, 0))

    def loads(text):
        if type(text) is bytes:
            text = text.decode("utf-8")
        try:
            value, end = scan(text, 0)
        except StopIteration:
            raise ValueError("not JSON") from None
        if text[end:].strip():
            raise ValueError("extra data after the JSON value")
        return value

    try:
        import _json

        scan = _json.make_scanner(_ScanContext())
        dumps, dumps_plain = dumps_with(None), dumps_with(_plain)
        probe = [1, -2.5, "\u00e9\ud800", {"T": [None, True, 10**30]}]
        if loads(dumps(probe)) != probe or dumps_plain({3}) != "[3]":
            raise ValueError("the JSON accelerator does not round-trip")
        return dumps, dumps_plain, loads
    except Exception:
        import json

        return json.dumps, lambda value: json.dumps(value, default=_plain), json.loads


class _ScanContext:
    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int, parse_constant = float, int, float
    memo = {}  # type: ignore[var-annotated]  # noqa: RUF012 - the scanner's own cache of key strings


def _encode(value, other, depth=0, names=True):
    """``value`` as JSON data; ``other`` turns a non-plain value into JSON data (or raises). ``names``: a
    built-in class or function may travel by name (the checker's to the program only: a name from the
    program would make the checker rebuild, and later call, its own object)."""
    kind = type(value)
    if kind in _PLAIN_SCALARS:
        return value
    if depth > 200:
        raise ValueError("the value is nested too deeply to cross the sandbox boundary")
    if kind is list:
        return [_encode(v, other, depth + 1, names) for v in value]
    if kind is tuple:
        return {"T": [_encode(v, other, depth + 1, names) for v in value]}
    if kind is dict:
        items = value.items()
        return {
            "D": [
                [_encode(k, other, depth + 1, names), _encode(v, other, depth + 1, names)] for k, v in items
            ]
        }
    if kind is set or kind is frozenset:
        return {"S" if kind is set else "Z": [_encode(v, other, depth + 1, names) for v in value]}
    if kind is bytes:
        return {"B": value.hex()}
    if kind is complex:
        return {"C": [value.real, value.imag]}
    if kind is slice:
        return {"L": [_encode(v, other, depth + 1, names) for v in (value.start, value.stop, value.step)]}
    builtin = _builtin_name(value) if names else None
    return {"N": builtin} if builtin is not None else other(value, depth)


def _builtin_name(value):
    name = getattr(value, "__name__", None)
    if type(name) is str and not name.startswith("_") and getattr(builtins, name, None) is value:
        return name
    return None


def _decode(data, handle, module, names=True):
    """Rebuild JSON data with this process's own constructors; ``handle(id, type_name)`` and
    ``module(name)`` resolve the two reference tags; ``names``: accept built-ins by name (the program
    side only: the checker never turns anything the program sent into one of its own callables).
    Raises ValueError on anything malformed."""
    kind = type(data)
    if kind in _PLAIN_SCALARS:
        return data
    if kind is list:
        return [_decode(v, handle, module, names) for v in data]
    if kind is not dict or len(data) != 1:
        raise ValueError(f"malformed value of type {kind.__name__}")
    ((tag, body),) = data.items()
    if tag in "TSZ" and type(body) is list:
        items = [_decode(v, handle, module, names) for v in body]
        return tuple(items) if tag == "T" else set(items) if tag == "S" else frozenset(items)
    if tag == "L" and type(body) is list and len(body) == 3:
        return slice(*(_decode(v, handle, module, names) for v in body))
    if tag == "D" and type(body) is list:
        pairs = [_decode_pair(p, handle, module, names) for p in body]
        return dict(pairs)
    if tag == "B" and type(body) is str:
        return bytes.fromhex(body)
    if tag == "C" and type(body) is list and len(body) == 2 and all(type(x) in (int, float) for x in body):
        return complex(body[0], body[1])
    if tag == "H" and type(body) is list and len(body) == 2 and type(body[0]) is int and type(body[1]) is str:
        return handle(body[0], body[1][:100])
    if tag == "M" and type(body) is str:
        return module(body)
    if names and tag == "N" and type(body) is str and not body.startswith("_") and hasattr(builtins, body):
        return getattr(builtins, body)  # a built-in class or function, by name: this process's own
    raise ValueError(f"malformed value tag {str(tag)[:20]!r}")


def _decode_pair(pair, handle, module, names):
    if type(pair) is not list or len(pair) != 2:
        raise ValueError("malformed dict item")
    return _decode(pair[0], handle, module, names), _decode(pair[1], handle, module, names)


def _send(fd, message):
    data = (_dumps(message) + "\n").encode()
    while data:
        data = data[os.write(fd, data) :]


# ------------------------------------------------------------------------------------------ program side


class _Program:
    """The fork that runs the program's code: it serves one request per line until its pipe closes."""

    def __init__(self, requests, replies):
        self.requests = os.fdopen(requests, "rb")
        self.replies = replies
        self.namespace = {"__name__": "__main__", "__builtins__": builtins}
        self.objects = {}
        self.source = ""

    def serve(self):
        for line in self.requests:
            self.answer(_loads(line))
        os._exit(0)

    def answer(self, request):
        try:
            reply = {"r": _encode(self.dispatch(request), self.reference, names=False)}
        except StopIteration:
            reply = {"stop": 1} if request["op"] == "next" else {"e": ["StopIteration", ""]}
        except BaseException as exc:
            if request["op"] in ("load", "call"):  # the program's own failures; not len() probes
                self.report(exc)
            reply = {"e": [type(exc).__name__, _clip(str(exc))]}
        _send(self.replies, reply)

    def dispatch(self, request):
        op, args = request["op"], request.get("a")
        if op == "load":
            self.source = args
            exec(compile(args, "<solution>", "exec"), self.namespace)
            return None
        if op == "get":
            if args not in self.namespace:
                raise NameError(f"name {args!r} is not defined")
            return self.namespace[args]
        if op == "entry":  # call-based: a module-level function, else Solution().<name> (LeetCode)
            found = self.namespace.get(args)
            if callable(found):
                return found
            cls = self.namespace.get("Solution")
            if cls is None or not hasattr(cls, args):
                raise NameError(f"no function or Solution method named {args}")
            return getattr(cls(), args)
        target = self.objects[request["h"]]
        value = _decode(args, self.resolve, _no_module) if args is not None else None
        if op == "call":
            kwargs = {k: _decode(v, self.resolve, _no_module) for k, v in request.get("k", {}).items()}
            return target(*value, **kwargs)
        if op == "getattr":
            return getattr(target, value)
        if op == "setattr":  # MBPP's setup code builds trees of the program's Node objects
            setattr(target, value[0], value[1])
            return None
        if op == "iter":
            return iter(target)
        if op == "next":
            return next(target)
        if op == "len":
            return len(target)
        if op == "getitem":
            return target[value]
        if op == "str":
            return str(target)
        raise ValueError(f"unknown request {op!r}")

    def resolve(self, ident, _name):
        return self.objects[ident]

    def reference(self, value, depth):
        """Convert what has a plain equivalent (subclasses, numpy scalars); keep the rest as a handle."""
        for base in (bool, int, float, str, bytes, list, tuple, dict, set, frozenset):
            if isinstance(value, base):
                return _encode(base(value), self.reference, depth + 1, False)
        module = type(value).__module__ or ""
        if module.startswith("numpy") and hasattr(value, "item") and getattr(value, "ndim", None) == 0:
            return _encode(value.item(), self.reference, depth + 1, False)
        if type(value) is type(os):
            return {"M": value.__name__}
        ident = len(self.objects) + 1
        self.objects[ident] = value
        return {"H": [ident, type(value).__name__]}

    def report(self, exc):
        try:
            import linecache
            import traceback

            lines = self.source.splitlines(True)
            linecache.cache["<solution>"] = (len(self.source), None, lines, "<solution>")
            traceback.print_exception(exc, file=sys.stderr)
        except BaseException:
            pass


def _no_module(name):
    raise ValueError("the checker sends no modules")


# ------------------------------------------------------------------------------------------ checker side


class Violation(BaseException):
    """The program broke the protocol; the test fails whatever the test code does with this."""


class ProgramError(Exception):
    """An exception of the program that has no built-in equivalent here."""


class _Checker:
    def __init__(self, requests, replies):
        self.requests = requests
        self.replies = os.fdopen(replies, "rb")
        self.violation = None
        self.modules = {}

    def violate(self, message):
        if self.violation is None:
            self.violation = message
        raise Violation(message)

    def ask(self, op, args=None, handle=None, kwargs=None):
        if self.violation is not None:
            raise Violation(self.violation)
        request = {"op": op, "a": args, "h": handle}
        if kwargs:
            request["k"] = kwargs
        try:
            _send(self.requests, request)
            line = self.replies.readline()
        except OSError:
            line = b""
        if not line:
            self.violate("the program exited during a request")
        try:
            reply = _loads(line)
            if type(reply) is dict and "r" in reply and len(reply) == 1:
                return _decode(reply["r"], self.handle, self.module, names=False)
        except (ValueError, TypeError, RecursionError, MemoryError) as exc:
            self.violate(f"the program sent a malformed reply ({type(exc).__name__})")
        if type(reply) is dict and reply.get("stop") == 1 and op == "next":
            return _STOP
        if type(reply) is dict and type(reply.get("e")) is list and len(reply["e"]) == 2:
            name, message = (str(x)[:_DETAIL] for x in reply["e"])
            raise self.exception(name, message, op)
        self.violate("the program sent a malformed reply")

    def exception(self, name, message, op):
        if name in _EXIT_EXCEPTIONS:
            self.violate(f"the program raised {name} during a request")
        if name in ("StopIteration", "StopAsyncIteration"):
            return RuntimeError(f"the program raised {name}")  # never ends the test's own loops
        cls = getattr(builtins, name, None) if name.isidentifier() else None
        if isinstance(cls, type) and issubclass(cls, Exception):
            try:
                return cls(message)
            except Exception:
                pass
        return ProgramError(f"{name}: {message}")

    def handle(self, ident, type_name):
        return _Remote(self, ident, type_name)

    def module(self, name):
        if not all(part.isidentifier() for part in name.split(".")):
            self.violate("the program sent a malformed module name")
        return _ModuleRef(self, name)

    def import_module(self, ref, bound_as):
        """The checker's own copy of a module the program imported under a name the test uses, when
        that name is the module's own (``math``) or its usual alias (``np``); else None."""
        if bound_as not in (ref.name, ref.name.rsplit(".", 1)[-1]) and _ALIASES.get(bound_as) != ref.name:
            return None
        return _import(ref.name)

    def argument(self, value, depth):
        if type(value) is _Remote and value._checker is self:
            return {"H": [value._ident, value._type]}
        raise TypeError(f"a {type(value).__name__} cannot be passed to the program (only plain data)")

    def send_value(self, value):
        return _encode(value, self.argument)


_STOP = object()
_ALIASES = {"np": "numpy", "pd": "pandas", "plt": "matplotlib.pyplot"}
# sys.stdlib_module_names is Python 3.10+; a remote sandbox (SandboxFusion) may run an older one
_STDLIB = getattr(sys, "stdlib_module_names", None) or frozenset(
    [
        "abc",
        "array",
        "bisect",
        "calendar",
        "cmath",
        "collections",
        "copy",
        "datetime",
        "decimal",
        "fractions",
        "functools",
        "hashlib",
        "heapq",
        "itertools",
        "json",
        "math",
        "operator",
        "random",
        "re",
        "statistics",
        "string",
        "sys",
        "time",
        "typing",
        "unicodedata",
    ]
)


class _ModuleRef:
    """A module named by the program; only :func:`_bind_free` turns it into the checker's own module."""

    __slots__ = ("_checker", "name")

    def __init__(self, checker, name):
        self._checker, self.name = checker, name

    def __bool__(self):
        self._checker.violate("the test asked for the truth value of a module reference")


class _Remote:
    """A value that stays in the program process. Its comparisons are identity; it has no truth value."""

    __slots__ = ("_checker", "_ident", "_type")

    def __init__(self, checker, ident, type_name):
        self._checker, self._ident, self._type = checker, ident, type_name

    def _ask(self, op, args=None, kwargs=None):
        return self._checker.ask(op, args, self._ident, kwargs)

    def __call__(self, *args, **kwargs):
        send = self._checker.send_value
        return self._ask("call", send(list(args)), {k: send(v) for k, v in kwargs.items()})

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._ask("getattr", name)

    def __setattr__(self, name, value):
        if name in _Remote.__slots__:
            object.__setattr__(self, name, value)
        else:
            self._ask("setattr", [name, self._checker.send_value(value)])

    def __iter__(self):
        found = self._ask("iter")
        return found if type(found) is _Remote else iter(found)

    def __next__(self):
        found = self._ask("next")
        if found is _STOP:
            raise StopIteration
        return found

    def __len__(self):
        found = self._ask("len")
        if type(found) is not int or found < 0:
            self._checker.violate("the program's __len__ returned something other than an int >= 0")
        return found

    def __getitem__(self, key):
        return self._ask("getitem", self._checker.send_value(key))

    def __str__(self):
        found = self._ask("str")
        if type(found) is not str:
            self._checker.violate("the program's __str__ returned something other than a str")
        return found

    def __repr__(self):
        return f"<{self._type} object of the program>"

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    __hash__ = object.__hash__

    def __bool__(self):
        self._checker.violate(f"the test asked for the truth value of a {self._type} object of the program")


# ------------------------------------------------------------------------------------------ the checks


def _run(checker, request):
    kind, free = request["kind"], request.get("free", [])
    namespace = {"__name__": "__main__"}
    if kind == "humaneval":
        _exec_prompt(request.get("prompt", ""), namespace)
        exec(compile(request["test"], "<test>", "exec"), namespace)
        checker.ask("load", request["code"])
        namespace[request["entry"]] = checker.ask("get", request["entry"])
        _bind_free(checker, namespace, free)
        exec(compile(f"check({request['entry']})", "<test>", "exec"), namespace)
        return {"v": "passed"}
    if kind == "mbpp":
        setup = compile(request.get("setup", ""), "<setup>", "exec")
        assertion = compile(request["test"], "<test>", "exec")
        checker.ask("load", request["code"])
        _bind_free(checker, namespace, free, request.get("shadow", ()))  # the setup may build Node trees
        exec(setup, namespace)
        exec(assertion, namespace)
        return {"v": "passed"}
    function = (checker.ask("load", request["code"]), checker.ask("entry", request["fn_name"]))[1]
    result = function(*request["args"])
    try:
        return {"v": "result", "value": _loads(_dumps_plain(result))}
    except (TypeError, ValueError) as exc:
        return {"v": "unserialisable", "detail": _clip(str(exc))}


def _exec_prompt(prompt, namespace):
    """The prompt's helpers (HumanEval/38's ``encode_cyclic``) must be the dataset's, not the program's.
    A prompt that ends in a bare signature gets a body so that it compiles."""
    for text in (prompt, prompt.rstrip() + "\n    pass\n"):
        try:
            code = compile(text, "<prompt>", "exec")
        except SyntaxError:
            continue
        exec(code, namespace)
        return


def _bind_free(checker, namespace, names, shadow=()):
    """Names the test uses but neither it nor the prompt defines come from the program (as data,
    handles, or modules the checker imports itself). Builtins and modules are never the program's:
    a name that is a standard module (or ``np``, ``pd``) is the checker's own import of it. The one
    exception, ``shadow``, is an MBPP function under test named like a builtin (``def sum(a, b)``)."""
    for name in names:
        if name in namespace or (hasattr(builtins, name) and name not in shadow):
            continue
        if name in _STDLIB or name in _ALIASES:  # never the program's "math"
            try:  # noqa: SIM105 - contextlib would cost every run an import
                namespace[name] = _import(_ALIASES.get(name, name))
            except ImportError:
                pass
            continue
        try:
            value = checker.ask("get", name)
        except NameError:
            continue
        if type(value) is _ModuleRef:
            value = checker.import_module(value, name)
            if value is None:
                continue
        namespace[name] = value


def _import(name):
    import importlib  # late: most runs never need it (sys.path no longer holds the program's directory)

    return importlib.import_module(name)


def _plain(value):
    if type(value) in (set, frozenset):
        try:
            return sorted(value)
        except TypeError:
            return list(value)
    raise TypeError(
        f"result of type {getattr(value, '_type', type(value).__name__)} is not JSON serialisable"
    )


def _clip(text):
    return text if len(text) <= _DETAIL else text[:_DETAIL] + "..."


def _describe(exc, request):
    """``AssertionError`` plus where the test failed, without any host path."""
    where = ""
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name in ("<test>", "<setup>", "<prompt>"):
            line = tb.tb_lineno
            text = request.get("test" if name == "<test>" else name.strip("<>"), "") or ""
            lines = text.splitlines()
            source = lines[line - 1].strip() if 0 < line <= len(lines) else ""
            where = f" at {name.strip('<>')} line {line}: {source}"
        tb = tb.tb_next
    message = str(exc)
    return _clip(f"{type(exc).__name__}{': ' + message if message else ''}{where}")


# ------------------------------------------------------------------------------------------ main


def _become_program(requests, replies):
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(2, 1)
        keep = sorted({0, 1, 2, requests, replies})
        bounds = [*keep, 1 << 16]  # (no zip(strict=...): a remote sandbox may run an older Python)
        for i in range(len(keep)):
            os.closerange(bounds[i] + 1, bounds[i + 1])
        _Program(requests, replies).serve()
    finally:
        os._exit(1)


def _refuse_breakpoint(*args, **kwargs):
    raise Violation("breakpoint() was called in the checker")


def _confine_checker():
    """Nothing the program wrote may steer the checker: its cwd and HOME (where pdb, readline and
    friends look for rc files) become directories the program cannot write, and ``breakpoint()`` (from
    the test, or from anything else in the checker) fails the test instead of starting pdb."""
    os.chdir("/")
    os.environ["HOME"] = "/nonexistent"
    os.environ["PYTHONBREAKPOINT"] = "0"
    sys.breakpointhook = _refuse_breakpoint


def _undumpable():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE = 4
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def main():
    here = os.path.dirname(os.path.realpath(sys.argv[0]))
    # nothing the program can write may be imported by the checker later
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != here]
    try:
        _undumpable()
        program_reads, to_program = os.pipe()
        checker_reads, to_checker = os.pipe()
        child = os.fork()
    except BaseException as exc:
        request = _loads(sys.stdin.buffer.read())
        _emit(request["nonce"], {"v": "harness_error", "detail": _clip(f"{type(exc).__name__}: {exc}")})
        os._exit(1)
    if child == 0:
        os.close(to_program)
        os.close(checker_reads)
        _become_program(program_reads, to_checker)
    os.close(program_reads)
    os.close(to_checker)
    _confine_checker()
    request = _loads(sys.stdin.buffer.read())
    os.close(0)
    # the verdict gets a descriptor of its own; what the test code prints goes to stderr
    global _VERDICT_FD
    _VERDICT_FD = os.dup(1)
    os.dup2(2, 1)
    checker = _Checker(to_program, checker_reads)
    try:
        verdict = _run(checker, request)
    except BaseException as exc:
        verdict = {"v": "failed", "detail": _describe(exc, request)}
    if checker.violation is not None:
        verdict = {"v": "failed", "detail": "the program broke the harness protocol: " + checker.violation}
    try:
        os.kill(child, 9)
        os.waitpid(child, 0)
    except OSError:
        pass
    if verdict["v"] == "failed":
        os.write(2, ("\n" + verdict["detail"] + "\n").encode(errors="replace"))
    _emit(request["nonce"], verdict)
    os._exit(0 if verdict["v"] in ("passed", "result") else 1)


_VERDICT_FD = 1


def _emit(nonce, verdict):
    data = f"{nonce} {_dumps(verdict)}\n".encode()
    while data:
        data = data[os.write(_VERDICT_FD, data) :]


if __name__ == "__main__":
    _dumps, _dumps_plain, _loads = _codec()
    main()
