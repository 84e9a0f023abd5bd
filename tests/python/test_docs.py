"""Runs the examples of README.md and docs/*.md, so that the documents stay true.

Each document's code blocks run in order, in one temporary directory that holds a link to
data/, so a block may use what an earlier block of the same document made:

- ```python blocks run in a fresh interpreter (this one's, with ocgraph installed);
- ```sh / ```bash blocks run in bash with ``set -euo pipefail`` and the release CLI
  (``OCGRAPH_BIN``, default target/release/ocgraph) first on PATH.

A block fenced as ```python no-run or ```sh no-run (any info string with ``no-run`` after the
language) is shown but not run: use it for set-up commands, long runs and examples that need
data or machines the tests do not have. Every other python or sh block must run in a few
seconds.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OCGRAPH_BIN = Path(os.environ.get("OCGRAPH_BIN", ROOT / "target" / "release" / "ocgraph"))
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
LANGUAGES = {"python": "python", "py": "python", "sh": "sh", "bash": "sh", "shell": "sh"}


def blocks(doc: Path) -> list[tuple[str, int, str]]:
    """The runnable blocks of ``doc``: (language, 1-based line of the fence, code)."""
    text = doc.read_text()
    out = []
    for m in FENCE.finditer(text):
        info = m.group(1).split()
        if not info or info[0] not in LANGUAGES or "no-run" in info[1:]:
            continue
        out.append((LANGUAGES[info[0]], text.count("\n", 0, m.start()) + 1, m.group(2)))
    return out


def test_the_block_parser():
    doc = "x\n```python\nprint(1)\n```\n```python no-run\nboom\n```\n```sh\necho hi\n```\n```text\nz\n```\n"
    p = Path(os.environ.get("TMPDIR", "/tmp")) / f"ocgraph-doc-parser-{os.getpid()}.md"
    p.write_text(doc)
    try:
        assert blocks(p) == [("python", 2, "print(1)\n"), ("sh", 8, "echo hi\n")]
    finally:
        p.unlink()


@pytest.mark.parametrize("doc", DOCUMENTS, ids=[d.relative_to(ROOT).as_posix() for d in DOCUMENTS])
def test_document_examples_run(tmp_path, doc):
    found = blocks(doc)
    if not found:
        pytest.skip(f"{doc.name} has no runnable examples")
    if any(lang == "sh" for lang, _, _ in found) and not OCGRAPH_BIN.exists():
        pytest.skip(f"{OCGRAPH_BIN} is not built (make cli)")
    (tmp_path / "data").symlink_to(ROOT / "data")
    env = dict(os.environ, PATH=f"{OCGRAPH_BIN.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    for lang, line, code in found:
        if lang == "python":
            cmd = [sys.executable, "-c", code]
        else:
            cmd = ["bash", "-c", "set -euo pipefail\n" + code]
        r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        where = f"{doc.relative_to(ROOT)}:{line}"
        assert r.returncode == 0, (
            f"the {lang} block at {where} failed:\n{code}\n--- stderr:\n{r.stderr[-3000:]}"
        )
