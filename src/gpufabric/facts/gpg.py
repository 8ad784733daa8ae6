"""Check a vendor's repository signing key by its fingerprint before apt trusts it.

Input: `gpg --show-keys --with-colons --with-fingerprint KEYFILE` of the downloaded key (gpg's
machine-readable listing, doc/DETAILS in GnuPG: `pub` starts a primary key, the `fpr` record
after it carries the fingerprint in field 10). The expected fingerprint is an input the
operator takes from the vendor's documentation; nothing is trusted on first use.
"""

from __future__ import annotations

import re

from gpufabric.errors import UserError


def primary_fingerprints(colons: str) -> list[str]:
    """The fingerprints of the primary keys in gpg's --with-colons listing."""
    found, want_fpr = [], False
    for line in colons.splitlines():
        fields = line.split(":")
        if fields[0] == "pub":
            want_fpr = True
        elif fields[0] == "sub":
            want_fpr = False
        elif fields[0] == "fpr" and want_fpr and len(fields) > 9:
            found.append(fields[9].upper())
            want_fpr = False
    return found


def normalize(fingerprint: str) -> str:
    value = re.sub(r"\s+", "", str(fingerprint)).upper()
    if not re.fullmatch(r"[0-9A-F]{40}|[0-9A-F]{64}", value):
        raise UserError(
            f"{fingerprint!r} is not a full key fingerprint (40 or 64 hex digits); "
            "short key ids can be forged"
        )
    return value


def check_fingerprint(colons: str, expected: str, key: str) -> str:
    """The key's fingerprint when it is exactly the one expected; UserError naming `key`."""
    if not str(expected).strip():
        raise UserError(f"{key}: not set; the repository key is trusted only by its fingerprint")
    want = normalize(expected)
    found = primary_fingerprints(colons)
    if found != [want]:
        got = ", ".join(found) or "no key"
        raise UserError(f"{key}: the downloaded key is {got}, not {want}; not trusted")
    return want
