"""A sheet's signature block: read it, and check it against the key it carries.

The low-level half of signing (:mod:`causalcost.sheet.signing` makes keys and signs and
verifies sheet files): the ``signature`` field's shape, the check that its Ed25519 ``value``
signs the sheet's digest with its ``public_key``, key fingerprints, and the lazy import of the
optional ``cryptography`` package with its install hint. The sheet reader
(:mod:`causalcost.sheet.schema`) and :class:`~causalcost.CostSheet` use it on every load.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping
from typing import Any

from causalcost.errors import CausalCostError, SheetError

__all__ = [
    "SIGNATURE_ALGORITHM",
    "SignatureError",
    "SignedSheet",
    "SigningUnavailableError",
    "check_signature",
    "crypto",
    "key_fingerprint",
    "read_signature",
    "signing_available",
]

#: The one signature algorithm sheets use.
SIGNATURE_ALGORITHM = "ed25519"
_FIELDS = ("algorithm", "public_key", "value")
_INSTALL = "pip install 'causalcost[sign]'"


class SignatureError(SheetError):
    """A sheet whose signature does not verify, is missing, or was made with another key."""


class SigningUnavailableError(CausalCostError, ImportError):
    """Signing or checking a signature without the optional ``cryptography`` package."""


def crypto() -> Any:
    """The ``cryptography`` modules signing needs (a clear error when it is not installed)."""
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise SigningUnavailableError(
            f"signing cost sheets needs the optional package 'cryptography': {_INSTALL}") \
            from None
    return ed25519, serialization, InvalidSignature


def signing_available() -> bool:
    """Whether ``cryptography`` is installed, so signatures can be made and checked."""
    try:
        crypto()
    except SigningUnavailableError:
        return False
    return True


# ------------------------------------------------------------------------- the JSON block
def _b64(text: object, where: str, size: int) -> bytes:
    if not isinstance(text, str):
        raise SignatureError(f"field {where!r} must be a base64 string, got {text!r}")
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise SignatureError(f"field {where!r} is not valid base64") from None
    if len(raw) != size:
        raise SignatureError(f"field {where!r} must hold {size} bytes, got {len(raw)}")
    return raw


def read_signature(value: Any) -> dict[str, str]:
    """The ``signature`` block of a sheet, checked field by field (not yet verified).

    Examples
    --------
    >>> read_signature({"algorithm": "rsa", "public_key": "", "value": ""})
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    causalcost.sheet.signature.SignatureError: field 'signature.algorithm' must be 'ed25519', ...
    """
    if not isinstance(value, Mapping):
        raise SignatureError(f"field 'signature' must be an object, got {type(value).__name__}")
    missing = [f"signature.{k}" for k in _FIELDS if k not in value]
    unknown = sorted(f"signature.{k}" for k in set(value) - set(_FIELDS))
    if missing or unknown:
        raise SignatureError(f"field 'signature' must have exactly {', '.join(_FIELDS)}"
                             + (f"; missing {missing}" if missing else "")
                             + (f"; unknown {unknown}" if unknown else ""))
    if value["algorithm"] != SIGNATURE_ALGORITHM:
        raise SignatureError(f"field 'signature.algorithm' must be {SIGNATURE_ALGORITHM!r}, got "
                             f"{value['algorithm']!r}")
    _b64(value["public_key"], "signature.public_key", 32)
    _b64(value["value"], "signature.value", 64)
    return {k: str(value[k]) for k in _FIELDS}


def key_fingerprint(public_key: str | bytes) -> str:
    """A short name of a public key: ``"ed25519:"`` and 16 hex digits of its SHA-256.

    Examples
    --------
    >>> key_fingerprint(bytes(32))
    'ed25519:66687aadf862bd77'
    """
    raw = public_key if isinstance(public_key, bytes) else base64.b64decode(public_key)
    return f"{SIGNATURE_ALGORITHM}:{hashlib.sha256(raw).hexdigest()[:16]}"


def check_signature(block: Mapping[str, str], digest: str) -> bool:
    """Verify ``block`` over ``digest`` with the key it carries.

    Returns True when it verifies and False when ``cryptography`` is not installed (the
    signature is then unchecked); raises :class:`SignatureError` when it does not verify.
    """
    if not signing_available():
        return False
    ed25519, _, invalid = crypto()
    key = ed25519.Ed25519PublicKey.from_public_bytes(
        _b64(block["public_key"], "signature.public_key", 32))
    try:
        key.verify(_b64(block["value"], "signature.value", 64), digest.encode("ascii"))
    except invalid:
        raise SignatureError(
            f"the sheet's signature does not verify (key {key_fingerprint(block['public_key'])}): "
            "the sheet was changed after it was signed; ask the system owner for the sheet "
            "they issued") from None
    return True


class SignedSheet:
    """What every sheet kind shares about its signature: the check on construction and the
    views :attr:`signature_checked` and :attr:`signed_by`.

    A sheet class (a frozen dataclass with ``signature`` and ``digest``) calls
    :meth:`_take_signature` at the end of ``__post_init__``: the block is read field by field
    and, when ``cryptography`` is installed, verified against the sheet's digest with the key it
    carries (a sheet changed after signing is refused with :class:`SignatureError`).
    """

    signature: dict[str, str] | None
    digest: str

    def _take_signature(self) -> None:
        if self.signature is not None:
            object.__setattr__(self, "signature", read_signature(self.signature))
        checked = self.signature is not None and check_signature(self.signature, self.digest)
        object.__setattr__(self, "_signature_checked", checked)

    @property
    def signature_checked(self) -> bool:
        """Whether the sheet is signed and its signature verified against the key it carries
        (False for an unsigned sheet, and for a signed one without ``cryptography``)."""
        return bool(getattr(self, "_signature_checked", False))

    @property
    def signed_by(self) -> str | None:
        """:func:`key_fingerprint` of the key that signed the sheet, or None."""
        return None if self.signature is None else key_fingerprint(self.signature["public_key"])
