#!/usr/bin/env bash
# System packages some tests use; every one of them is optional: tests that need a missing one skip.
#   bubblewrap  the sandbox's namespace isolation (tests marked sandbox)
#   chromium    headless rendering of the HTML reports (tests/tools/test_report_render.py)
# Idempotent: installs only what is missing, runs `apt-get update` at most once, only as root on a
# system with apt-get, and never fails the build (exit 0 whatever happens).
set -u

PACKAGES=(bubblewrap chromium)

missing=()
for pkg in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-system-deps: not root or no apt-get; missing (tests needing them skip): ${missing[*]}" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || echo "install-system-deps: apt-get update failed" >&2
for pkg in "${missing[@]}"; do
    apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null 2>&1 \
        || echo "install-system-deps: could not install $pkg (tests needing it skip)" >&2
done
exit 0
