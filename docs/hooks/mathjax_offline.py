"""MkDocs hook: the site renders its formulas with MathJax served from the site itself.

``pymdownx.arithmatex`` (``generic: true``) leaves every formula as TeX in an element of class
``arithmatex`` (``\\(...\\)`` inline, ``\\[...\\]`` displayed); a browser needs a renderer to
typeset them. The site loads nothing from outside, so the renderer is MathJax 3 as shipped by
the PyPI package ``django-static-mathjax`` (the official MathJax distribution as package data,
no dependencies; installed by the ``docs`` extra), copied into the site at build time:

- ``assets/mathjax/config.js``: the configuration (generated here; it must run first), which
  typesets only the ``arithmatex`` elements, so dollar signs in the notebooks' text or code are
  left alone, and shows a formula MathJax cannot read (an unknown macro, a missing brace) as
  an error, which the check below finds;
- ``assets/mathjax/tex-svg-full.js``: MathJax with every TeX extension built in (no extension is
  fetched on demand) and SVG output (no web fonts to fetch), with MathJax's licence beside it.

The notebooks' pages (mkdocs-jupyter) come with nbconvert's own head scripts: an empty
MathJax 2 loader with its configuration, and a module that would import Mermaid from a CDN
when a notebook holds a Mermaid diagram (none does). Both are taken out of every page, so no
page names a script from outside.

``docs/hooks/check_math.py`` opens built pages in headless Chromium and checks that every
formula was typeset.
"""

from __future__ import annotations

import re
import shutil
from importlib import util
from pathlib import Path
from typing import Any

#: Where the renderer lands in the site, and the files the pages load, in order.
FOLDER = "assets/mathjax"
CONFIG = f"{FOLDER}/config.js"
SCRIPT = f"{FOLDER}/tex-svg-full.js"
PACKAGE = "mathjax"          # the import name of django-static-mathjax
DISTRIBUTION = "django-static-mathjax"

CONFIG_JS = r"""window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
    packages: {"[-]": ["noerrors", "noundefined"]}
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex"
  },
  svg: { fontCache: "global" }
};
"""


#: nbconvert's MathJax 2 loader and configuration, and its Mermaid module (from a CDN).
NOTEBOOK_SCRIPTS = re.compile(
    r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->"
    r"|<script type=\"module\">(?:(?!</script>).)*?import\(\"https://[^\"]*mermaid"
    r"(?:(?!</script>).)*</script>", re.S)


def mathjax_root() -> Path:
    """The folder of the installed MathJax distribution (``es5/``); a clear error if the
    package is missing or is not the MathJax distribution."""
    spec = util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the docs need MathJax from the {DISTRIBUTION!r} package: "
                           "pip install '.[docs]'")
    root = Path(next(iter(spec.submodule_search_locations))) / "static" / PACKAGE / "es5"
    if not (root / Path(SCRIPT).name).is_file():
        raise RuntimeError(f"{root} holds no {Path(SCRIPT).name}: reinstall {DISTRIBUTION!r}")
    return root


def copy_renderer(site_dir: str | Path) -> list[Path]:
    """Write the configuration and copy MathJax (and its licence) into ``site_dir``; returns
    the files written."""
    root = mathjax_root()
    target = Path(site_dir) / FOLDER
    target.mkdir(parents=True, exist_ok=True)
    written = [target / "config.js", target / Path(SCRIPT).name, target / "LICENSE"]
    written[0].write_text(CONFIG_JS, encoding="utf-8")
    shutil.copyfile(root / Path(SCRIPT).name, written[1])
    shutil.copyfile(root.parent / "LICENSE", written[2])
    return written


def on_config(config: Any, **_: Any) -> Any:
    """Load the configuration, then MathJax, on every page (fails early if MathJax is not
    installed)."""
    mathjax_root()
    for script in (CONFIG, SCRIPT):
        if script not in [str(s) for s in config["extra_javascript"]]:
            config["extra_javascript"].append(script)
    return config


def on_post_build(config: Any, **_: Any) -> None:
    copy_renderer(config["site_dir"])


def on_post_page(output: str, **_: Any) -> str:
    """Take nbconvert's MathJax 2 and Mermaid head scripts out of a notebook's page."""
    return NOTEBOOK_SCRIPTS.sub("", output)
