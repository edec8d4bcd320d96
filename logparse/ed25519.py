"""The Ed25519 public key of a 32-byte seed (RFC 8032, section 5.1.5), in pure Python.

:mod:`logparse.secrets` uses it to tell a Solana keypair (``id.json``: 64 bytes, the
seed then its public key) from any other array of 64 numbers under 256 (a pixel row, a
histogram).  Only key derivation: nothing here signs or verifies, and nothing secret
leaves the function.  About 2 ms a call (255 doublings and additions of big integers).
"""

from __future__ import annotations

import hashlib

__all__ = ["public_key", "is_keypair"]

_P = 2**255 - 19
_D = -121665 * pow(121666, _P - 2, _P) % _P
_Point = tuple[int, int, int, int]
"""Extended homogeneous coordinates ``(X, Y, Z, T)``, ``x = X/Z``, ``y = Y/Z``, ``xy = T/Z``."""


def _base() -> _Point:
    y = 4 * pow(5, _P - 2, _P) % _P
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * pow(2, (_P - 1) // 4, _P) % _P
    if x & 1:
        x = _P - x
    return (x, y, 1, x * y % _P)


_B = _base()


def _add(p: _Point, q: _Point) -> _Point:
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a = (y1 - x1) * (y2 - x2) % _P
    b = (y1 + x1) * (y2 + x2) % _P
    c = 2 * t1 * t2 * _D % _P
    d = 2 * z1 * z2 % _P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def public_key(seed: bytes) -> bytes:
    """The 32-byte public key of the 32-byte private ``seed``."""
    h = hashlib.sha512(seed).digest()
    a = int.from_bytes(h[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    acc: _Point = (0, 1, 1, 0)
    q = _B
    while a:
        if a & 1:
            acc = _add(acc, q)
        q = _add(q, q)
        a >>= 1
    x, y, z, _ = acc
    zi = pow(z, _P - 2, _P)
    x, y = x * zi % _P, y * zi % _P
    return (y | (x & 1) << 255).to_bytes(32, "little")


def is_keypair(values: list[int]) -> bool:
    """Whether 64 bytes are a seed followed by its public key (a Solana keypair)."""
    if len(values) != 64 or any(not 0 <= v < 256 for v in values):
        return False
    return public_key(bytes(values[:32])) == bytes(values[32:])
