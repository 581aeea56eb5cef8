"""The test tree has no ``__init__.py``: pytest imports every test file under its basename, so two
files with one name in different folders cannot both be collected. Caught here, by name."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_every_test_file_name_is_unique() -> None:
    names = Counter(p.name for p in TESTS.rglob("test_*.py"))
    assert [n for n, k in names.items() if k > 1] == []
