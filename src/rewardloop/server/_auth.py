"""Bearer-token checking for the reward service.

One shared token (``Authorization: Bearer <token>``), compared in constant time. This is access control
for a service on a private network, not user management: put TLS in front of it (a reverse proxy) when
the network between trainers and the service is not trusted, since the token travels in clear text.
"""

from __future__ import annotations

import hmac

__all__ = ["check_bearer"]


def check_bearer(expected: str | None, header: str | None) -> bool:
    """True when no token is configured, or ``header`` is ``Bearer <expected>``."""
    if expected is None:
        return True
    if not header:
        return False
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), expected.encode())
