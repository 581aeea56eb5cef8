"""Check, in a real browser, that the built site typesets its formulas.

Usage (after ``mkdocs build``)::

    python docs/hooks/check_math.py SITE_DIR [--require method/index.html] [--chromium PATH]

Every page of ``SITE_DIR`` that holds formulas (elements of class ``arithmatex``, left by
``pymdownx.arithmatex``) is opened in headless Chromium from the file system, every network
request sent to a closed local port (the formulas must typeset from the site's own files),
and its DOM dumped once the page's scripts have run. A page passes when every formula became
a MathJax element (``mjx-container``), none is a TeX error (``merror``) and no raw ``\\(``
or ``\\[`` is left in the page's text (code blocks aside).
The pages named by ``--require`` must hold formulas (so a page that lost them fails too).
Prints one line per page with its counts; exits 1 on any failure, 2 without Chromium.

Not a MkDocs hook (``mkdocs.yml`` does not list it); it sits beside the hooks it checks.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

#: Chromium's flags: headless, no sandbox (CI runs as root), nothing fetched or synced in the
#: background, every network request sent to a closed local port (so a page that needed
#: anything from outside fails the check), and 10 s of virtual time for the page's scripts.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
         "--virtual-time-budget=10000")
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
#: Elements whose text is not prose: a ``\\(`` inside them is not an untypeset formula.
NOT_PROSE = {"script", "style", "pre", "code", "textarea", "mjx-container", "svg"}
RAW = ("\\(", "\\[")


class _Counter(HTMLParser):
    """Counts formulas left by arithmatex, MathJax's output, its errors and raw TeX in the
    page's prose."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.formulas = self.typeset = self.errors = 0
        self.raw: list[str] = []
        self._stack: list[tuple[str, bool]] = []  # (tag, arithmatex)
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        math = "arithmatex" in (found.get("class") or "").split()
        if tag == "mjx-container":
            self.typeset += 1
        if found.get("data-mml-node") == "merror" or "data-mjx-error" in found:
            self.errors += 1
        if tag in {"br", "img", "input", "meta", "link", "hr", "wbr", "source", "col",
                   "area", "base", "embed", "param", "track", "use", "path", "rect", "line"}:
            return
        self._stack.append((tag, math))
        self._skip += tag in NOT_PROSE

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if self._stack and self._stack[-1][0] == tag:  # <g/>: opened and closed at once
            self._stack.pop()
            self._skip -= tag in NOT_PROSE

    def handle_endtag(self, tag: str) -> None:
        if tag not in (name for name, _ in self._stack):
            return  # a stray or void end tag
        while self._stack:
            name, _ = self._stack.pop()
            self._skip -= name in NOT_PROSE
            if name == tag:
                break

    def handle_data(self, data: str) -> None:
        inside_math = any(math for _, math in self._stack)
        if inside_math and not self._skip:
            self.formulas += data.count("\\(") + data.count("\\[")
        if not self._skip:
            for mark in RAW:
                at = data.find(mark)
                if at >= 0:
                    self.raw.append(" ".join(data[max(0, at - 30):at + 50].split()))


@dataclass(frozen=True)
class Counts:
    """What one HTML document holds: formulas as TeX in arithmatex elements, typeset MathJax
    elements, TeX errors, and raw TeX snippets in the prose."""

    formulas: int
    typeset: int
    errors: int
    raw: tuple[str, ...]


def count(html: str) -> Counts:
    """Count the formulas, typeset elements, errors and raw TeX of ``html``.

    >>> count('<p><span class="arithmatex">\\\\(x\\\\)</span> and <code>\\\\(</code></p>')
    Counts(formulas=1, typeset=0, errors=0, raw=('\\\\(x\\\\)',))
    >>> count('<p><span class="arithmatex"><mjx-container>x</mjx-container></span></p>')
    Counts(formulas=0, typeset=1, errors=0, raw=())
    """
    parser = _Counter()
    parser.feed(html)
    parser.close()
    return Counts(parser.formulas, parser.typeset, parser.errors, tuple(parser.raw))


def find_chromium(given: str | None = None) -> str | None:
    """The browser to run: ``given``, ``$CHROMIUM``, or the first of :data:`BROWSERS` on PATH."""
    for name in (given, os.environ.get("CHROMIUM"), *BROWSERS):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def rendered_dom(chromium: str, page: Path, timeout: float = 120) -> str:
    """The DOM of ``page`` after its scripts ran, as headless Chromium dumps it."""
    with tempfile.TemporaryDirectory(prefix="check-math-") as profile:
        result = subprocess.run(
            [chromium, *FLAGS, f"--user-data-dir={profile}", "--dump-dom",
             page.resolve().as_uri()],
            capture_output=True, text=True, timeout=timeout, check=False)
    if result.returncode != 0 or "<html" not in result.stdout:
        raise RuntimeError(f"{chromium} could not open {page}: exit {result.returncode}, "
                           f"{result.stderr.strip()[-500:]}")
    return result.stdout


def pages_with_math(site: Path) -> list[Path]:
    """The site's HTML pages that hold at least one arithmatex element."""
    return sorted(p for p in site.rglob("*.html")
                  if 'class="arithmatex"' in p.read_text(encoding="utf-8", errors="replace"))


def check_page(chromium: str, site: Path, page: Path) -> list[str]:
    """Problems of one page (empty if every formula was typeset); prints its counts."""
    before = count(page.read_text(encoding="utf-8"))
    after = count(rendered_dom(chromium, page))
    name = page.relative_to(site).as_posix()
    print(f"{name}: {before.formulas} formulas in the HTML; in the browser {after.typeset} "
          f"typeset, {after.errors} TeX errors, {len(after.raw)} raw left")
    problems = []
    if after.typeset != before.formulas:
        problems.append(f"{name}: {before.formulas} formulas but {after.typeset} typeset")
    if after.errors:
        problems.append(f"{name}: {after.errors} formulas MathJax could not parse")
    problems += [f"{name}: raw TeX left: ...{snippet}..." for snippet in after.raw[:5]]
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="the built site (mkdocs build --site-dir)")
    parser.add_argument("--require", action="append", default=[], metavar="PAGE",
                        help="a page (relative to the site) that must hold formulas; "
                             "repeatable (default: method/index.html)")
    parser.add_argument("--chromium", help="the browser (default: $CHROMIUM, then chromium "
                                           "on PATH)")
    args = parser.parse_args(argv)
    chromium = find_chromium(args.chromium)
    if chromium is None:
        print("check_math: no Chromium found (apt-get install chromium)", file=sys.stderr)
        return 2
    pages = pages_with_math(args.site)
    problems = [f"{page}: holds no formula" for page in args.require or ["method/index.html"]
                if args.site / page not in pages]
    for page in pages:
        problems += check_page(chromium, args.site, page)
    total = sum(count(p.read_text(encoding="utf-8")).formulas for p in pages)
    print(f"{len(pages)} pages with {total} formulas checked in {Path(chromium).name}")
    for problem in problems:
        print("FAIL", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
