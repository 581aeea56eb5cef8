"""Signed sheets (sheet.signing): Ed25519 over the digest, carried inside the sheet JSON.

The signature is checked with ``cryptography`` directly here (an independent verification of
what the module wrote), and every way a signed sheet can go wrong is refused: an edit after
signing (with the digest recomputed), a forged signature, another owner's key, a malformed
block, and signing without the optional dependency.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import stat
from pathlib import Path

import pytest
from sheet_versions import as_version

import causalcost as cc
from causalcost.errors import CausalCostError, SheetError
from causalcost.sheet import signature
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.digest import content_digest
from causalcost.sheet.loading import load_sheet
from causalcost.sheet.signing import (
    SignatureError,
    SigningUnavailableError,
    generate_signing_key,
    sign_sheet,
    verify_sheet,
)

pytest.importorskip("cryptography")
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey  # noqa: E402

COSTS = cc.CostMatrix(fn=5, fp=1)
CANDIDATE = cc.Confusion(tp=50, fn=50, fp=100, tn=100)


@pytest.fixture(scope="module")
def sheet() -> CostSheet:
    return cc.sheet_from_network("thesis_and", COSTS)


@pytest.fixture()
def keys(tmp_path: Path) -> tuple[Path, Path]:
    return generate_signing_key(tmp_path / "owner.pem", tmp_path / "owner.pub.pem")


@pytest.fixture()
def signed(sheet: CostSheet, keys: tuple[Path, Path], tmp_path: Path) -> Path:
    return sign_sheet(sheet.save(tmp_path / "sheet.json"), keys[0])


def read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def write(path: Path, d: dict) -> Path:
    path.write_text(json.dumps(d, indent=2), encoding="utf-8")
    return path


def test_the_signature_verifies_with_cryptography_itself(signed: Path, keys: tuple[Path, Path],
                                                         sheet: CostSheet) -> None:
    d = read(signed)
    block = d["signature"]
    assert block["algorithm"] == "ed25519" and set(block) == {"algorithm", "public_key", "value"}
    public = serialization.load_pem_public_key(keys[1].read_bytes())
    assert isinstance(public, Ed25519PublicKey)
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    assert base64.b64decode(block["public_key"]) == raw
    public.verify(base64.b64decode(block["value"]), d["digest"]["sha256"].encode("ascii"))
    # signing adds the block and changes nothing else
    assert {k: v for k, v in d.items() if k != "signature"} == {
        k: v for k, v in sheet.to_dict().items() if k != "signature"}


def test_verify_sheet_returns_the_sheet_and_reports_echo_its_digest(
        signed: Path, keys: tuple[Path, Path], sheet: CostSheet) -> None:
    verified = verify_sheet(signed, keys[1])
    assert verified.sheet == load_sheet(signed) and verified.digest == sheet.digest
    assert verified.sheet.signature_checked and verified.fingerprint == verified.sheet.signed_by
    assert verified.to_dict()["sha256"] == sheet.digest and len(verified.to_frame()) == 1
    assert "VerifiedSheet(slot='clinical_history'" in repr(verified)
    report = cc.evaluate(verified.sheet, CANDIDATE)
    assert report.sheet_digest == sheet.digest and report.eval1 == pytest.approx(320)
    assert not report.warnings


def test_the_private_key_is_private_and_never_overwritten(keys: tuple[Path, Path]) -> None:
    private, public = keys
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert b"BEGIN PRIVATE KEY" in private.read_bytes()
    assert b"BEGIN PUBLIC KEY" in public.read_bytes()
    before = private.read_bytes()
    with pytest.raises(SignatureError, match="never overwritten"):
        generate_signing_key(private, public.with_name("other.pub.pem"))
    assert private.read_bytes() == before


def test_an_edit_after_signing_is_refused_even_with_a_new_digest(signed: Path) -> None:
    d = read(signed)
    d["costs"][0][1] = 50.0
    d["derived"] = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=50, fp=1)).to_dict()[
        "derived"]
    d["digest"] = {"sha256": content_digest(d)}  # an editor who knows the digest rule
    with pytest.raises(SignatureError, match="signature does not verify.*changed after it was "
                                             "signed"):
        load_sheet(write(signed, d))


def test_a_forged_signature_value_is_refused(signed: Path) -> None:
    d = read(signed)
    value = bytearray(base64.b64decode(d["signature"]["value"]))
    value[0] ^= 1
    d["signature"]["value"] = base64.b64encode(bytes(value)).decode()
    with pytest.raises(SignatureError, match="does not verify"):
        load_sheet(write(signed, d))


def test_a_sheet_re_signed_with_another_key_loads_but_does_not_verify(
        signed: Path, keys: tuple[Path, Path], tmp_path: Path) -> None:
    other, _ = generate_signing_key(tmp_path / "mallory.pem", tmp_path / "mallory.pub.pem")
    sign_sheet(signed, other)
    assert load_sheet(signed).signature_checked  # consistent with the key it carries ...
    with pytest.raises(SignatureError, match="signed with key ed25519:.*does not come from"):
        verify_sheet(signed, keys[1])  # ... but not the owner's


def test_an_unsigned_sheet_does_not_verify(sheet: CostSheet, keys: tuple[Path, Path],
                                           tmp_path: Path) -> None:
    with pytest.raises(SignatureError, match="not signed"):
        verify_sheet(sheet.save(tmp_path / "plain.json"), keys[1])


@pytest.mark.parametrize(("block", "match"), [
    ({"algorithm": "rsa"}, "signature.algorithm"),
    ({"public_key": "not base64!"}, "signature.public_key.*base64"),
    ({"value": base64.b64encode(b"short").decode()}, "signature.value.*64 bytes"),
    ({"extra": 1}, "unknown"),
])
def test_a_malformed_signature_block_is_named(signed: Path, block: dict, match: str) -> None:
    d = read(signed)
    d["signature"].update(block)
    with pytest.raises(SheetError, match=match):
        load_sheet(write(signed, d))


def test_signing_needs_a_version_2_sheet_and_an_ed25519_private_key(
        sheet: CostSheet, keys: tuple[Path, Path], tmp_path: Path) -> None:
    old = write(tmp_path / "v1.json", as_version(sheet, 1))
    with pytest.raises(SheetError, match="version 1 sheet has no digest to sign"):
        sign_sheet(old, keys[0])
    with pytest.raises(SignatureError, match="not a readable unencrypted PEM private key"):
        sign_sheet(sheet.save(tmp_path / "s.json"), keys[1])  # the public key
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("hello", encoding="utf-8")
    with pytest.raises(SignatureError, match="garbage.pem: not a readable"):
        verify_sheet(sheet.save(tmp_path / "s.json"), garbage)


def test_a_signed_sheet_saved_again_keeps_a_valid_signature(signed: Path, keys: tuple[Path, Path],
                                                            tmp_path: Path) -> None:
    loaded = load_sheet(signed)
    again = loaded.save(tmp_path / "again.json")
    assert verify_sheet(again, keys[1]).sheet == loaded
    changed = dataclasses.replace  # a changed sheet cannot carry the old signature
    with pytest.raises(SignatureError, match="does not verify"):
        changed(loaded, system_name="another")


def test_without_cryptography_signing_says_what_to_install(
        signed: Path, keys: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    def missing() -> None:
        raise SigningUnavailableError("signing cost sheets needs the optional package "
                                      "'cryptography': pip install 'causalcost[sign]'")

    monkeypatch.setattr(signature, "crypto", missing)
    for call in (lambda: generate_signing_key(tmp_path / "k.pem", tmp_path / "k.pub"),
                 lambda: sign_sheet(signed, keys[0]), lambda: verify_sheet(signed, keys[1])):
        with pytest.raises(SigningUnavailableError, match=r"pip install 'causalcost\[sign\]'"):
            call()
    assert issubclass(SigningUnavailableError, (CausalCostError, ImportError))
    # a signed sheet still loads; every report says its signature was not checked
    loaded = load_sheet(signed)
    assert not loaded.signature_checked
    report = cc.evaluate(loaded, CANDIDATE)
    assert any("signature was not checked" in w for w in report.to_dict()["warnings"])


def test_the_real_import_error_is_turned_into_the_install_hint(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives.asymmetric", None)
    with pytest.raises(SigningUnavailableError, match="causalcost\\[sign\\]"):
        signature.crypto()


def test_a_signed_version_2_sheet_still_verifies(sheet: CostSheet, keys: tuple[Path, Path],
                                                 tmp_path: Path) -> None:
    """A version 2 file signed before version 4: its digest is checked in the version 2 form
    and its signature over that digest verifies; reports echo it. Written again, it is a
    version 4 sheet with a new digest and no signature (the old one covers the old digest)."""
    old = sign_sheet(write(tmp_path / "v2.json", as_version(sheet, 2)), keys[0])
    d = read(old)
    assert d["version"] == 2
    verified = verify_sheet(old, keys[1])
    loaded = verified.sheet
    assert loaded.read_version == 2 and loaded.signature_checked
    assert verified.digest == loaded.digest == d["digest"]["sha256"] != sheet.digest
    report = cc.evaluate(loaded, CANDIDATE)
    assert report.to_dict()["sheet_sha256"] == d["digest"]["sha256"]
    assert report.eval1 == cc.evaluate(sheet, CANDIDATE).eval1
    again = loaded.to_dict()
    assert again["version"] == 4 and again["signature"] is None
    assert CostSheet.from_dict(again) == loaded == sheet
