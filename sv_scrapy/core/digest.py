"""The one text digest the store and the page's kept shapes seal their texts with."""

from __future__ import annotations

import hashlib


def sha256_hex(text: str) -> str:
    """sha256 of ``text``'s UTF-8 bytes, in hex.

    >>> sha256_hex("")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
