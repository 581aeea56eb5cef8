"""Sign a sheet, and check that a sheet comes from the system owner who issued it.

The digest (:mod:`causalcost.sheet.digest`) makes any edit of a sheet visible, but whoever
edits a sheet can also write a new digest. A signature closes that gap: the system owner signs
the sheet's digest with an Ed25519 private key that only they hold, and a model owner checks it
against the owner's public key, received by another channel. The signature travels inside the
sheet JSON::

    "signature": {"algorithm": "ed25519", "public_key": "<base64, 32 bytes>",
                  "value": "<base64, 64 bytes>"}

``value`` signs the ASCII bytes of the digest (``"sha256:<hex>"``), and ``public_key`` is the
key that made it. Loading a signed sheet (:func:`~causalcost.load_sheet`) refuses a signature
that does not verify against the key it carries (a sheet edited after signing);
:func:`verify_sheet` also checks that this key is the owner's. Keys are PEM files (PKCS#8 for the
private key, SubjectPublicKeyInfo for the public one), made with :func:`generate_signing_key`.

Signing needs the optional dependency ``cryptography`` (``pip install 'causalcost[sign]'``);
it is imported only when a signature is made or checked (:mod:`causalcost.sheet.signature`).
Without it a signed sheet still loads and every report says its signature was not checked.

Examples
--------
>>> import tempfile, causalcost as cc
>>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
>>> with tempfile.TemporaryDirectory() as tmp:
...     private, public = cc.generate_signing_key(f"{tmp}/owner.pem", f"{tmp}/owner.pub.pem")
...     signed = cc.sign_sheet(sheet.save(f"{tmp}/sheet.json"), private)
...     verified = cc.verify_sheet(signed, public)
>>> verified.digest == sheet.digest, verified.sheet.signature_checked
(True, True)
"""

from __future__ import annotations

import base64
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from causalcost.display import html_table
from causalcost.errors import CausalCostError, CausalCostWarning, InputTypeError, SheetError
from causalcost.files import output_target, read_text_file, write_atomic
from causalcost.sheet import signature
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.digest import strict_json_loads
from causalcost.sheet.loading import sheet_from_dict
from causalcost.sheet.signature import (
    SIGNATURE_ALGORITHM,
    SignatureError,
    SigningUnavailableError,
    check_signature,
    key_fingerprint,
)

if TYPE_CHECKING:
    from causalcost.sheet.score_sheet import ScoreSheet

__all__ = [
    "SIGNATURE_ALGORITHM",
    "SignatureError",
    "SigningUnavailableError",
    "VerifiedSheet",
    "generate_signing_key",
    "key_fingerprint",
    "sign_sheet",
    "verify_sheet",
]


# --------------------------------------------------------------------------------- keys
def _path(name: str, value: object, what: str) -> Path:
    """``value`` as a Path; anything else (key bytes, None) refused naming the argument."""
    if isinstance(value, bytes):
        raise InputTypeError(f"{name} must be the path of {what} (str or os.PathLike), got "
                             "bytes: write the key or sheet to a file and pass its path")
    if not isinstance(value, (str, os.PathLike)):
        raise InputTypeError(f"{name} must be the path of {what} (str or os.PathLike), got "
                             f"{type(value).__name__}")
    return Path(value)


def _key_file(path: Path, private: bool) -> Any:
    ed25519, serialization, _ = signature.crypto()
    what = "private" if private else "public"
    data = read_text_file(path, f"{what} key").encode("utf-8")
    try:
        key = (serialization.load_pem_private_key(data, password=None) if private
               else serialization.load_pem_public_key(data))
    except (ValueError, TypeError) as exc:
        raise SignatureError(f"{path.name}: not a readable unencrypted PEM {what} key "
                             f"({str(exc).split('.')[0]}); make one with "
                             "cc.generate_signing_key") from None
    kind = ed25519.Ed25519PrivateKey if private else ed25519.Ed25519PublicKey
    if not isinstance(key, kind):
        raise SignatureError(f"{path.name}: a {type(key).__name__}, not an Ed25519 {what} key")
    return key


def _raw_public(key: Any) -> bytes:
    """The 32 raw bytes of a public key, or of a private key's public half."""
    _, serialization, _ = signature.crypto()
    key = key.public_key() if hasattr(key, "public_key") else key
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def generate_signing_key(private_path: str | os.PathLike[str],
                         public_path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Make an Ed25519 key pair: the private key (keep it) and the public one (hand it out).

    The private key file is readable by its owner only; an existing one is never overwritten.
    The two paths must name two files (the same file by two names is refused: the public key
    would replace the private one). An existing public key file is replaced, with a
    :class:`~causalcost.errors.CausalCostWarning` saying so. Both paths are checked before
    either file is written (:func:`~causalcost.files.output_target`).

    Returns
    -------
    (Path, Path)
        The private and the public key files (PEM).

    Raises
    ------
    SigningUnavailableError
        Without ``cryptography``.
    SignatureError
        If ``private_path`` exists, or names the same file as ``public_path``.
    FileError
        If a path is not a regular file or a new one in an existing folder (a device, a named
        pipe, a folder).

    Examples
    --------
    >>> import tempfile, causalcost as cc
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     cc.generate_signing_key(f"{tmp}/same.pem", f"{tmp}/same.pem")
    Traceback (most recent call last):
    causalcost.sheet.signature.SignatureError: private_path and public_path name the same file ...
    """
    ed25519, serialization, _ = signature.crypto()
    private_path = _path("private_path", private_path, "the private key file to write")
    public_path = _path("public_path", public_path, "the public key file to write")
    if _same_file(private_path, public_path):
        raise SignatureError(f"private_path and public_path name the same file "
                             f"{str(private_path)!r}: the public key would replace the private "
                             "one; give two paths")
    if private_path.exists() or private_path.is_symlink():
        raise SignatureError(f"{str(private_path)!r} exists: a signing key is never overwritten; "
                             "choose another path, or delete the old key yourself")
    output_target(private_path)
    output_target(public_path)
    if public_path.exists():
        warnings.warn(f"{str(public_path)!r} exists and is replaced by the new public key",
                      CausalCostWarning, stacklevel=2)
    key = ed25519.Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(serialization.Encoding.PEM,
                                    serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
    public_pem = key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
    write_atomic(private_path, private_pem, mode=0o600)  # never readable by others, not briefly
    write_atomic(public_path, public_pem, mode=0o644)
    return private_path, public_path


def _same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file: equal once links and ``..`` are resolved, or (when
    both exist) the same file by two names (a hard link).

    Examples
    --------
    >>> _same_file("/tmp/a.pem", "/tmp/../tmp/a.pem"), _same_file("/tmp/a.pem", "/tmp/b.pem")
    (True, False)
    """
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist yet
        return False


# ------------------------------------------------------------------------------- sheets
def _read_sheet(path: Path) -> tuple[dict[str, Any], CostSheet | ScoreSheet]:
    try:
        data = strict_json_loads(read_text_file(path, "sheet"))
        sheet = sheet_from_dict(data)
    except CausalCostError as exc:
        cls = type(exc) if isinstance(exc, SheetError) else SheetError
        raise cls(f"{path.name}: {exc}") from None
    return data, sheet


def sign_sheet(sheet_path: str | os.PathLike[str], private_key_path: str | os.PathLike[str],
               output: str | os.PathLike[str] | None = None) -> Path:
    """Sign a saved sheet with the system owner's private key.

    The sheet is read and validated first (format, digest, every field), then the signature
    over its digest is added as the ``signature`` field; the content and digest are unchanged.
    An earlier signature is replaced.

    Parameters
    ----------
    sheet_path : path
        A sheet (version 2 or later) written by :meth:`~causalcost.CostSheet.save`, or a
        score sheet written by :meth:`~causalcost.ScoreSheet.save`: the same path for both,
        the signature covers the digest.
    private_key_path : path
        The PEM private key from :func:`generate_signing_key`.
    output : path, optional
        Where to write the signed sheet; by default over ``sheet_path`` (atomically).

    Returns
    -------
    Path
        The signed sheet.

    Raises
    ------
    SheetError
        If the sheet does not load, or is a version 1 sheet (no digest to sign: load and save
        it again first).
    SignatureError
        If the key file is not an unencrypted Ed25519 private key.
    SigningUnavailableError
        Without ``cryptography``.
    """
    signature.crypto()
    path = _path("sheet_path", sheet_path, "the sheet to sign")
    data, sheet = _read_sheet(path)
    if not sheet.verified:
        raise SheetError(f"{path.name}: a version {sheet.read_version} sheet has no digest to "
                         "sign; write it as version 4 first (cc.load_sheet(path).save(path))")
    key = _key_file(_path("private_key_path", private_key_path, "the PEM private key file"),
                    private=True)
    digest = sheet.digest
    data["signature"] = {
        "algorithm": SIGNATURE_ALGORITHM,
        "public_key": base64.b64encode(_raw_public(key)).decode("ascii"),
        "value": base64.b64encode(key.sign(digest.encode("ascii"))).decode("ascii"),
    }
    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    return write_atomic(path if output is None else output, text)


@dataclass(frozen=True)
class VerifiedSheet:
    """A sheet whose signature verified against the system owner's public key.

    Attributes
    ----------
    sheet : CostSheet or ScoreSheet
        The sheet, loaded and checked.
    digest : str
        The digest the signature covers (``"sha256:<hex>"``), as every report echoes it.
    fingerprint : str
        :func:`key_fingerprint` of the key that signed it.
    path : Path
        The file it was read from.
    """

    sheet: CostSheet | ScoreSheet
    digest: str
    fingerprint: str
    path: Path

    def to_dict(self) -> dict[str, Any]:
        """``{"path", "slot", "sha256", "signed_by"}``."""
        return {"path": str(self.path), "slot": self.sheet.slot, "sha256": self.digest,
                "signed_by": self.fingerprint}

    def _repr_html_(self) -> str:
        return html_table(self.to_frame(), caption=repr(self))

    def to_frame(self) -> pd.DataFrame:
        """One row: the fields of :meth:`to_dict`."""
        return pd.DataFrame([self.to_dict()])

    def __repr__(self) -> str:
        return (f"VerifiedSheet(slot={self.sheet.slot!r}, digest={self.digest[:19]}..., "
                f"signed_by={self.fingerprint!r})")


def verify_sheet(sheet_path: str | os.PathLike[str],
                 public_key_path: str | os.PathLike[str]) -> VerifiedSheet:
    """Load a signed sheet and check that the system owner's key signed it.

    Parameters
    ----------
    sheet_path : path
        The signed sheet (:func:`sign_sheet`).
    public_key_path : path
        The system owner's PEM public key, received by another channel than the sheet.

    Returns
    -------
    VerifiedSheet

    Raises
    ------
    SignatureError
        If the sheet is not signed, was signed with another key, or its signature does not
        verify (it was changed after signing).
    SheetError
        If the sheet does not load.
    SigningUnavailableError
        Without ``cryptography``.
    """
    path = _path("sheet_path", sheet_path, "the signed sheet")
    trusted = _raw_public(_key_file(_path("public_key_path", public_key_path,
                                          "the system owner's PEM public key file"),
                                    private=False))
    _, sheet = _read_sheet(path)
    block = sheet.signature
    if block is None:
        raise SignatureError(f"{path.name}: the sheet is not signed; ask the system owner for "
                             "the signed sheet (cc.sign_sheet)")
    carried = base64.b64decode(block["public_key"])
    if carried != trusted:
        raise SignatureError(
            f"{path.name}: signed with key {key_fingerprint(carried)}, not with the key in "
            f"{Path(public_key_path).name} ({key_fingerprint(trusted)}): it does not come from "
            "that system owner")
    check_signature(block, sheet.digest)
    return VerifiedSheet(sheet=sheet, digest=sheet.digest, fingerprint=key_fingerprint(trusted),
                         path=path)
