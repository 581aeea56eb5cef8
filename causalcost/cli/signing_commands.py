"""Subcommands that sign cost sheets: ``keygen``, ``sign``, ``verify``.

A system owner makes a key pair once (``keygen``), signs every sheet they issue (``sign``) and
hands the public key to model owners by another channel; a model owner checks a sheet against
it (``verify``). Signing needs the optional dependency ``cryptography``
(``pip install 'causalcost[sign]'``); without it these commands say so in one line.
"""

from __future__ import annotations

import argparse
from typing import Any

from causalcost.cli.common import examples, print_json
from causalcost.errors import ValidationError

__all__ = ["register"]


def _key_paths(args: argparse.Namespace) -> tuple[str, str]:
    """PRIVATE and PUBLIC given as words or as --private/--public, not both."""
    private = _one_of(args.private_word, args.private, "PRIVATE.pem", "--private")
    public = _one_of(args.public_word, args.public, "PUBLIC.pem", "--public")
    return private, public


def _one_of(word: str | None, flag: str | None, name: str, option: str) -> str:
    if word is not None and flag is not None:
        raise ValidationError(f"give {name} once: as a word or with {option}, not both")
    if word is None and flag is None:
        raise ValidationError(f"keygen needs {option} {name} (the file to write)")
    return word if word is not None else flag  # type: ignore[return-value]


def _cmd_keygen(args: argparse.Namespace) -> int:
    from causalcost.sheet.signing import generate_signing_key

    private, public = generate_signing_key(*_key_paths(args))
    print(f"wrote {private} (keep it secret) and {public} (give it to model owners)")
    return 0


def _cmd_sign(args: argparse.Namespace) -> int:
    from causalcost.sheet.signing import sign_sheet

    out = sign_sheet(args.sheet, args.key, args.output)
    print(f"signed {out}")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from causalcost.sheet.signing import verify_sheet

    verified = verify_sheet(args.sheet, args.public_key)
    if args.json:
        print_json(verified.to_dict())
    else:
        info = verified.to_dict()
        print(f"{info['path']}: signature valid; slot {info['slot']!r}, {info['sha256']}, "
              f"signed by {info['signed_by']}")
    return 0


def register(sub: Any) -> None:
    """Add ``keygen``, ``sign`` and ``verify`` to the ``causalcost`` parser."""
    p = sub.add_parser("keygen", help="make an Ed25519 key pair for signing sheets",
                       description="Write a private key (mode 0600, never overwritten) and its "
                                   "public key as PEM files: causalcost keygen --private "
                                   "owner.pem --public owner.pub.pem (or the two paths as "
                                   "words). Needs causalcost[sign].")
    p.add_argument("private_word", metavar="PRIVATE.pem", nargs="?", default=None,
                   help="the private key to write (or --private)")
    p.add_argument("public_word", metavar="PUBLIC.pem", nargs="?", default=None,
                   help="the public key to write (or --public)")
    p.add_argument("--private", metavar="PRIVATE.pem", default=None,
                   help="the private key to write; keep it secret")
    p.add_argument("--public", metavar="PUBLIC.pem", default=None,
                   help="the public key to write; give it to model owners")
    p.epilog = examples("causalcost keygen owner.pem owner.pub.pem")
    p.set_defaults(func=_cmd_keygen)

    p = sub.add_parser("sign", help="sign a cost sheet with a private key",
                       description="Add an Ed25519 signature over the sheet's digest; the sheet "
                                   "is rewritten atomically (or written to -o OUT.json).")
    p.add_argument("sheet", metavar="SHEET.json", help="a sheet written by 'causalcost derive'")
    p.add_argument("--key", required=True, metavar="PRIVATE.pem",
                   help="the private key made by 'causalcost keygen'")
    p.add_argument("-o", "--output", metavar="OUT.json",
                   help="write the signed sheet here (default: sign SHEET.json in place)")
    p.epilog = examples("causalcost sign sheet.json --key owner.pem")
    p.set_defaults(func=_cmd_sign)

    p = sub.add_parser("verify", help="check a sheet's signature against a public key",
                       description="Check that the sheet was signed by the holder of the "
                                   "public key's private key, and is unchanged since. Exits "
                                   "with status 2 and one line if not.")
    p.add_argument("sheet", metavar="SHEET.json", help="the signed sheet to check")
    p.add_argument("--public-key", required=True, metavar="PUBLIC.pem",
                   help="the system owner's public key, received by another channel")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.epilog = examples("causalcost verify sheet.json --public-key owner.pub.pem")
    p.set_defaults(func=_cmd_verify)
