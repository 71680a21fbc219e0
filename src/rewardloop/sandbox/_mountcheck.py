# ruff: noqa: ANN001
"""The mount check: which mounts a process can reach lack ``nosuid``/``nodev``, from its
``/proc/self/mountinfo``. Standard library only and no imports at all: the unshare holder runs this
file's source (prepended to ``_holder_main.py``'s) as root without importing rewardloop, and
:mod:`._backends` imports it for the tests and for its own callers.
"""


def unsafe_mounts(mountinfo, device_nodes=()):
    # Every mount a process can reach must be nosuid and nodev; ``device_nodes`` (mount points of
    # single device nodes bound in, and a private devpts) only need nosuid. A mount is reachable when its
    # parent is, nothing is mounted on top of it, and no sibling covers a directory on its way.
    mounts = {}
    for line in mountinfo.splitlines():
        left, _, _ = line.partition(" - ")
        fields = left.split()
        if len(fields) < 6:
            continue
        point = fields[4]
        for code in ("\\040", "\\011", "\\012", "\\134"):
            point = point.replace(code, chr(int(code[1:], 8)))
        mounts[fields[0]] = (fields[1], point, set(fields[5].split(",")))

    def under(path, root):
        return path != root and (root == "/" or path.startswith(root + "/"))

    def reachable(mid, seen=()):
        parent, point, _ = mounts[mid]
        if mid in seen:
            return False
        if any(p == mid and q == point for p, q, _ in mounts.values()):
            return False  # something is mounted on top of it
        if parent not in mounts:
            return True  # the root of this namespace
        siblings = [q for k, (p, q, _) in mounts.items() if p == parent and k != mid]
        if any(under(point, q) for q in siblings):
            return False
        return reachable(parent, (*seen, mid))

    bad = []
    for mid, (_, point, options) in mounts.items():
        if not reachable(mid):
            continue
        missing = [flag for flag in ("nosuid", "nodev") if flag not in options]
        if point in device_nodes:
            missing = [flag for flag in missing if flag != "nodev"]
        if missing:
            bad.append(f"{point} (no {', '.join(missing)})")
    return sorted(bad)
