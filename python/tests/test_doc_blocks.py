"""Issue #71: every `python` and `pycon` block of README.md and docs/**/*.md runs.

Each page runs in a folder of its own holding a copy of configs/, its blocks in page
order in one namespace (a `pycon` transcript goes on from the blocks above it). A
`python` block runs statement by statement, as a notebook would: a bare expression is
evaluated and shown (its repr, and its `_repr_html_` / `_repr_png_` where it has one), and
where its line's comment starts with a value (`r.mean  # 12.24459876543 ...`,
`rollsim.__version__  # "0.1.0" ...`), the expression is that value (a number to the
digits shown). A `pycon` transcript runs each `>>>` input; the lines shown after it are an
excerpt of what Python prints (the traceback too, `...` for lines left out), and its last
line is the last line printed. The fences' other roles are in tests/doc_blocks.rs.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shutil
import traceback
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(page: Path) -> list[tuple[int, str, str]]:
    """(line of the fence, language, body) of each fenced block of a page."""
    out = []
    lines = page.read_text().splitlines()
    i = 0
    while i < len(lines):
        t = lines[i].lstrip()
        if not t.startswith("```"):
            i += 1
            continue
        indent = len(lines[i]) - len(t)
        start, info = i + 1, t[3:].strip()
        body = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][indent:])
            i += 1
        i += 1
        lang = info.split()[0] if info else ""
        out.append((start, lang, "\n".join(body) + "\n"))
    return out


PAGES = [p for p in pages() if any(lang in ("python", "pycon") for _, lang, _ in blocks(p))]


def test_the_pages_with_python_are_found() -> None:
    names = [str(p.relative_to(ROOT)) for p in PAGES]
    assert "README.md" in names and "docs/python.md" in names, names


def shown_value(comment: str):
    """The value a comment starts with (`12.24459876543 (exact ...)`, `"0.1.0", as ...`),
    as (value, decimals shown), or None."""
    m = re.match(r'\s*("[^"]*"|-?\d+(?:\.\d+)?)(?![\w.])', comment)
    if not m:
        return None
    text = m.group(1)
    if text.startswith('"'):
        return ast.literal_eval(text), None
    decimals = len(text.split(".")[1]) if "." in text else 0
    return float(text), decimals


def trailing_comment(source: str, node: ast.stmt) -> str | None:
    """The comment at the end of a statement's last line."""
    line = source.splitlines()[node.end_lineno - 1]
    rest = line[node.end_col_offset:]
    i = rest.find("#")
    return rest[i + 1:] if i >= 0 else None


def show(value) -> None:
    """What a notebook does with a cell's value."""
    repr(value)
    for name in ("_repr_html_", "_repr_png_"):
        method = getattr(value, name, None)
        if callable(method):
            method()


def run_python(where: str, source: str, ns: dict) -> None:
    tree = ast.parse(source)
    for node in tree.body:
        at = f"{where}, line {node.lineno} of the block"
        code = ast.get_source_segment(source, node)
        try:
            if isinstance(node, ast.Expr):
                value = eval(compile(ast.Expression(node.value), at, "eval"), ns)
                show(value)
                comment = trailing_comment(source, node)
                want = shown_value(comment) if comment else None
                if want is not None:
                    expected, decimals = want
                    if decimals is None:
                        assert value == expected, f"{code}: {value!r}, the docs say {expected!r}"
                    else:
                        assert abs(float(value) - expected) <= 0.5 * 10 ** -decimals + 1e-15, (
                            f"{code}: {value!r}, the docs say {expected!r}"
                        )
            else:
                exec(compile(ast.Module([node], []), at, "exec"), ns)
        except AssertionError:
            raise
        except Exception as e:
            raise AssertionError(f"{at}: `{code}` raised {type(e).__name__}: {e}") from e


def line_matches(shown: str, got: str) -> bool:
    if "..." not in shown:
        return shown == got
    pattern = ".*".join(re.escape(p) for p in shown.split("..."))
    return re.fullmatch(pattern, got, re.S) is not None


def run_pycon(where: str, body: str, ns: dict) -> None:
    """Each `>>>` input run; the lines after it an excerpt of what it prints, the last one
    the last line printed."""
    steps: list[tuple[list[str], list[str]]] = []
    for line in body.splitlines():
        if line.startswith(">>> "):
            steps.append(([line[4:]], []))
        elif line.startswith("... ") and steps and not steps[-1][1]:
            steps[-1][0].append(line[4:])
        elif steps:
            steps[-1][1].append(line)
    assert steps, f"{where}: a pycon block without `>>>`"
    for code_lines, shown in steps:
        code = "\n".join(code_lines)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                node = ast.parse(code, mode="single")
                exec(compile(node, "<stdin>", "single"), ns)
            except Exception:
                buf.write(traceback.format_exc())
        printed = [l.rstrip() for l in buf.getvalue().splitlines()]
        want = [l.rstrip() for l in shown if l.strip()]
        at = 0
        for w in want:
            if w.strip() == "...":
                continue
            k = next((k for k in range(at, len(printed)) if line_matches(w, printed[k])), None)
            assert k is not None, f"{where}: `{code}` printed\n{buf.getvalue()}\nnot the line\n{w}"
            at = k + 1
        if want:
            assert printed and line_matches(want[-1], printed[-1]), (
                f"{where}: `{code}` printed\n{buf.getvalue()}\nits last line is not\n{want[-1]}"
            )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_python_blocks_of_a_page_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    monkeypatch.chdir(tmp_path)
    ns: dict = {"__name__": "__main__"}
    ran = 0
    for line, lang, body in blocks(page):
        where = f"{page.relative_to(ROOT)}:{line}"
        if lang == "python":
            run_python(where, body, ns)
            ran += 1
        elif lang == "pycon":
            run_pycon(where, body, ns)
            ran += 1
    assert ran
    assert (tmp_path / "configs").is_dir(), "a block removed configs/"


def test_the_checks_catch_a_wrong_value(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run_python("t", "x = 1.25\nx   # 1.25, as said\n'a'  # \"a\"\n", {})
    with pytest.raises(AssertionError):
        run_python("t", "x = 1.25\nx   # 1.5 is wrong\n", {})
    with pytest.raises(AssertionError):
        run_python("t", "'a'  # \"b\"\n", {})
    with pytest.raises(AssertionError, match="ZeroDivisionError"):
        run_python("t", "1 / 0\n", {})
    run_pycon("t", ">>> 1 / 0\nTraceback (most recent call last):\n  ...\nZeroDivisionError: division by zero\n", {})
    with pytest.raises(AssertionError):
        run_pycon("t", ">>> 1 / 0\nValueError: division by zero\n", {})
    run_pycon("t", ">>> print('a'); print('b')\nb\n", {})
    with pytest.raises(AssertionError):
        run_pycon("t", ">>> print('a'); print('b')\na\n", {})
    assert shown_value(' "0.1.0", as `rollsim --version` says') == ("0.1.0", None)
    assert shown_value(" 12.24459876543 (exact where there is one)") == (12.24459876543, 11)
    assert shown_value(" the headline number, a float") is None
    assert shown_value(" {file stem: DataFrame}") is None
