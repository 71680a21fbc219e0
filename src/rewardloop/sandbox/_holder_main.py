# ruff: noqa: ANN001, UP031, F821
"""The mount holder of the ``unshare`` backend: runs as root in its own mount namespace (``unshare
--mount``, ``python -I -S``; :mod:`._backends` runs this file's source after ``_mountcheck.py``'s, which
defines ``unsafe_mounts``; rewardloop is never imported here). It sets the mounts up, answers
``mk NAME SIZE INODES UID [BUILD]`` / ``rm NAME`` requests on stdin, and exits (dropping the namespace)
at EOF. Set-up fails closed: if any mount the runs can reach is not nosuid and nodev, it says so and
exits.
"""

import ctypes
import json
import os
import re
import stat
import sys

cfg = json.loads(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = (ctypes.c_char_p,) * 3 + (ctypes.c_ulong, ctypes.c_char_p)
libc.umount2.argtypes = (ctypes.c_char_p, ctypes.c_int)
libc.syscall.restype = ctypes.c_long
RDONLY, NOSUID, NODEV, NOEXEC, REMOUNT, BIND, REC, DETACH = 1, 2, 4, 8, 32, 4096, 16384, 2
SYS_MOUNT_SETATTR, AT_FDCWD, AT_RECURSIVE = 442, -100, 0x8000
ATTR_RDONLY, ATTR_NOSUID, ATTR_NODEV = 1, 2, 4
DEVICES = cfg["devices"]


def enc(s):
    return None if s is None else s.encode()


def mount(src, dst, fstype, flags, data):
    if libc.mount(enc(src), enc(dst), enc(fstype), flags, enc(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), dst)


def mountinfo():
    with open("/proc/self/mountinfo") as fh:
        return fh.read()


def read_only_nosuid_nodev_everywhere():
    # The host's mounts become read-only (a world-writable host directory such as /var/crash would
    # keep state across runs, outside every quota), nosuid and nodev. The tmpfs mounts made below
    # stay writable for root only (the runs' uids cannot write to them) and the runs' own tmpfs.
    # One call for the whole tree, mounts hidden under others included (Linux >= 5.12) ...
    attr = (ctypes.c_uint64 * 4)(ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV, 0, 0, 0)
    args = (ctypes.c_long(SYS_MOUNT_SETATTR), ctypes.c_int(AT_FDCWD), b"/", ctypes.c_uint(AT_RECURSIVE))
    if libc.syscall(*args, ctypes.byref(attr), ctypes.c_size_t(32)) == 0:
        return
    # ... else one remount per mount point, keeping each one's other flags; the check below fails
    # closed on any mount this misses.
    st_to_ms = {1: RDONLY, 8: NOEXEC, 1024: 1024, 2048: 2048, 4096: 1 << 21}
    for line in mountinfo().splitlines():
        point = line.split()[4].replace("\\040", " ")
        try:
            st = os.statvfs(point).f_flag
            flags = REMOUNT | BIND | RDONLY | NOSUID | NODEV
            flags |= sum(ms for bit, ms in st_to_ms.items() if st & bit)
            mount(None, point, None, flags, None)
        except OSError:
            pass


def private_dev():
    # A fresh /dev: the harmless device nodes, each bound in from the host's, and nothing else.
    nodes = [(path, os.open(path, os.O_PATH)) for path in DEVICES if os.path.exists(path)]
    mount("tmpfs", "/dev", "tmpfs", NOSUID | NODEV, "mode=755,size=64k,nr_inodes=64")
    for path, fd in nodes:
        open(path, "w").close()
        mount("/proc/self/fd/%d" % fd, path, None, BIND, None)
        mount(None, path, None, REMOUNT | BIND | NOSUID, None)  # nodev is what a device node cannot have
        os.close(fd)
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        os.symlink(target, "/dev/" + name)
    os.mkdir("/dev/shm", 0o755)
    os.mkdir("/dev/pts", 0o755)


def bind_read_only(source, target):
    mount(source, target, None, BIND | REC, None)
    mount(None, target, None, REMOUNT | BIND | RDONLY | NOSUID | NODEV, None)


def setup():
    fds = [(target, os.open(source, os.O_PATH)) for target, source in cfg["exposed"]]
    cache = os.open(cfg["cache"], os.O_PATH | os.O_DIRECTORY) if cfg["cache"] else None
    read_only_nosuid_nodev_everywhere()
    for path in cfg["hidden"]:
        if path != "/dev" and not path.startswith("/dev/"):
            mount("tmpfs", path, "tmpfs", NOSUID | NODEV, "mode=755,size=4m,nr_inodes=65536")
    for target, fd in fds:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            os.makedirs(target, mode=0o755, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
            open(target, "a").close()
        bind_read_only("/proc/self/fd/%d" % fd, target)
        os.close(fd)
    # host FIFOs and Unix sockets in the visible trees: an empty read-only file over each (a read-only
    # mount stops neither a FIFO's writer nor a socket's connect)
    blank = "/tmp/.rewardloop-blank"
    with open(blank, "w"):
        pass
    os.chmod(blank, 0o444)
    for path in cfg["blanked"]:
        if os.path.lexists(path) and not os.path.isdir(path):
            bind_read_only(blank, path)
    private_dev()
    ws = cfg["workspace"]
    os.makedirs(ws, mode=0o711, exist_ok=True)
    os.chmod(ws, 0o711)
    bad = unsafe_mounts(mountinfo(), DEVICES)
    if bad:
        raise OSError("mounts the sandbox cannot make nosuid,nodev: " + ", ".join(bad))
    return cache


BUILD = re.compile(r"^[0-9a-f]{16,64}/[A-Za-z0-9_]+$")


def make(path, size, inodes, uid, build):
    os.mkdir(path, 0o700)
    opts = "size=%d,nr_inodes=%d,mode=700,uid=%d,gid=%d" % (size, inodes, uid, uid)
    mount("tmpfs", path, "tmpfs", NOSUID | NODEV, opts)
    if build is None:
        return
    if cache is None or not BUILD.match(build):
        raise ValueError("bad build %r" % build)
    source = "/proc/self/fd/%d/%s" % (cache, build)
    target = path + "/" + build.split("/")[1]
    if os.path.isdir(source):
        os.mkdir(target, 0o755)
    else:
        open(target, "w").close()
    bind_read_only(source, target)


try:
    cache = setup()
except Exception as exc:
    print(("err %s" % exc).replace("\n", " "), flush=True)
    sys.exit(1)
print("ok", flush=True)
for line in sys.stdin:
    try:
        op, name, *rest = line.split()
        if not name.isalnum():
            raise ValueError("bad name %r" % name)
        path = cfg["workspace"] + "/" + name
        if op == "mk":
            size, inodes, uid = (int(x) for x in rest[:3])
            make(path, size, inodes, uid, rest[3] if len(rest) > 3 else None)
        elif op == "rm":
            if libc.umount2(enc(path), DETACH) != 0:
                err = ctypes.get_errno()
                raise OSError(err, os.strerror(err), path)
            os.rmdir(path)
        else:
            raise ValueError("unknown request %r" % op)
        print("ok", flush=True)
    except Exception as exc:
        print(("err %s" % exc).replace("\n", " "), flush=True)
