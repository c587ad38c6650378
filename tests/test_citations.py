"""Citations and documentation pointers across every tracked text file.

Papers are cited by authors and year; internal file names of papers or of working notes mean nothing to a
reader. Every "docs/<page>.md §x" pointer must lead to a heading of that page, and every "§5, decision N"
to a numbered decision of docs/methods.md §5.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BINARY = {".csv", ".parquet", ".png", ".jpg", ".jpeg", ".gif", ".ico", ".pdf", ".gz", ".zip", ".npy", ".npz"}

# Built from pieces so that this file does not match itself.
FORBIDDEN = [
    ("a paper cited by its file number", re.compile("se" + r"ed[\s_-]*00", re.IGNORECASE)),
    ("a working note cited by name", re.compile(r"\b(?:" + "FORMU" + "LAS|" + "PUBLI" + r"SHED)\b")),
]

NUM = r"\d+(?:\.\d+)?"
POINTER = re.compile(r"docs/(?P<page>methods|metrics|reproductions|references)\.md")
SECTION = re.compile(rf"\)?\s*§(?P<num>{NUM})(?:\s?\(?(?P<sub>[a-c])\)?(?![\w]))?(?:-(?P<end>{NUM}))?"
                     rf"(?:,?\s*decisions?\s+(?P<dec>\d+)(?:-(?P<dec_end>\d+))?)?")
NEXT = re.compile(r",\s*(?=§)")
HEADING = re.compile(rf"^#{{1,6}}\s+§(?P<id>{NUM}[a-c]?)(?![\w.])", re.MULTILINE)
DECISION = re.compile(r"^(\d+)\.\s", re.MULTILINE)


def tracked_text_files() -> dict[str, str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    texts = {}
    for name in filter(None, names.decode().split("\0")):
        path = ROOT / name
        if path.suffix.lower() in BINARY or not path.is_file():
            continue
        raw = path.read_bytes()
        if b"\0" in raw:
            continue
        try:
            texts[name] = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return texts


def headings(page: str) -> set[str]:
    return set(HEADING.findall((ROOT / "docs" / f"{page}.md").read_text(encoding="utf-8")))


def decisions() -> set[int]:
    text = (ROOT / "docs" / "methods.md").read_text(encoding="utf-8")
    start = re.search(r"^## §5\b.*$", text, re.MULTILINE)
    assert start, "docs/methods.md has no §5 (ambiguities and decisions)"
    body = text[start.end():]
    end = re.search(r"^## ", body, re.MULTILINE)
    return {int(n) for n in DECISION.findall(body[: end.start()] if end else body)}


def pointers(text: str):
    """(page, section ids, decision numbers) of every docs pointer in ``text``."""
    for m in POINTER.finditer(text):
        pos = m.end()
        while (s := SECTION.match(text, pos)) is not None:
            ids = [s["num"] + (s["sub"] or "")]
            if s["end"]:
                ids.append(s["end"])
            dec = list(range(int(s["dec"]), int(s["dec_end"] or s["dec"]) + 1)) if s["dec"] else []
            yield m["page"], ids, dec
            nxt = NEXT.match(text, s.end())
            if nxt is None:
                break
            pos = nxt.end()


def test_no_paper_file_numbers_or_working_note_names():
    found = []
    for name, text in tracked_text_files().items():
        for what, pattern in FORBIDDEN:
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{name}:{line}: {what}: {m.group(0)!r}")
    assert not found, "cite papers by authors and year (docs/references.md):\n" + "\n".join(found)


def broken_pointers(texts: dict[str, str]) -> tuple[list[str], int]:
    """The pointers of ``texts`` (file name -> text) whose section or decision does not exist, and the count."""
    targets = {page: headings(page) for page in ("methods", "metrics", "reproductions")}
    known_decisions = decisions()
    broken, seen = [], 0
    for name, text in texts.items():
        for page, ids, decs in pointers(text):
            seen += 1
            if page == "references":
                continue
            missing = [i for i in ids if i not in targets[page]]
            missing += [f"5, decision {d}" for d in decs if page != "methods" or d not in known_decisions]
            if missing:
                broken.append(f"{name}: docs/{page}.md §{', §'.join(missing)}")
    return broken, seen


def test_every_docs_pointer_resolves():
    texts = tracked_text_files()
    texts.pop(Path(__file__).resolve().relative_to(ROOT).as_posix(), None)  # its examples are deliberately broken
    broken, seen = broken_pointers(texts)
    assert seen > 50, f"only {seen} pointers found: the pattern no longer matches the way the code cites"
    assert not broken, "pointers to sections that do not exist:\n" + "\n".join(broken)


def test_a_pointer_to_a_missing_section_or_decision_is_reported():
    broken, seen = broken_pointers({"x.py": "docs/methods.md §2.99; docs/metrics.md §4.6d; docs/metrics.md §4.6c; "
                                            "docs/methods.md §5, decision 99"})
    assert seen == 4
    assert broken == ["x.py: docs/methods.md §2.99", "x.py: docs/methods.md §5, decision 99"]


def test_the_documentation_pages_exist_and_are_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in ("references", "methods", "metrics", "reproductions"):
        assert (ROOT / "docs" / f"{page}.md").is_file()
        assert f"(docs/{page}.md)" in readme, f"README does not link docs/{page}.md"


def test_pointer_parser_reads_the_forms_the_code_uses():
    text = ("docs/metrics.md §4.6(b) and docs/metrics.md §4.6 b; docs/methods.md §2.1-2.4, "
            "docs/methods.md §2.9, §2.11 and docs/methods.md §5, decision 17; docs/reproductions.md §3-5: x")
    assert list(pointers(text)) == [
        ("metrics", ["4.6b"], []), ("metrics", ["4.6b"], []), ("methods", ["2.1", "2.4"], []),
        ("methods", ["2.9"], []), ("methods", ["2.11"], []), ("methods", ["5"], [17]),
        ("reproductions", ["3", "5"], []),
    ]
    assert list(pointers("docs/metrics.md §4.3 table")) == [("metrics", ["4.3"], [])]
    assert list(pointers("[docs/reproductions.md](docs/reproductions.md) §7")) == [("reproductions", ["7"], [])]
