"""The self-contained HTML report (``conformance/html_report.py``).

Every page tested here renders a document a real run wrote: ``plancheck run
... --report out.json`` in a subprocess, on a few operations, against

* ``tests/faulty_backend.py`` (size-0 refusals and three injected faults),
  with the per-plan coverage matrix added to the document the way the plugin
  is meant to add it (``coverage[backend]["matrix"]``, see ``_MATRIX_FIELD``);
* ``numpy-native`` (1-2 ULP errors in exp: data for the ULP plot) together with
  a hostile backend whose exception message carries ``<script>``, an ``<img>``
  with an outside URL and ANSI escapes;
* ``cpu`` and the faulty backend with ``--unsupported zero-size`` and a
  deviations file that marks the remaining class known (``conforms except 1
  known deviation class``), and ``cpu`` alone (``conforms``).

The browser tests open the pages in headless Chromium (Debian's ``chromium``)
and check the screenshot (decoded with zlib and numpy) and Chromium's network
log; they are skipped with the reason where Chromium is not installed.
"""

from __future__ import annotations

import copy
import html
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conformance.report.html import FAIL_COLOUR, render_html, verdict_of, write_html

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FAULTY = "faulty_backend:SizeZeroRefusing"

#: a pytest plugin (``-p matrix_field``) that puts the whole coverage matrix into the
#: report's coverage summary: what ``PlancheckState._coverage`` would do with
#: ``summary["matrix"] = matrix.as_dict()`` (a no-op once the plugin does it)
_MATRIX_FIELD = """
from conformance.judge.coverage import CoverageMatrix

_as_dict = CoverageMatrix.as_dict


def as_dict(self):
    data = _as_dict(self)
    data["summary"].setdefault("matrix", {k: data[k] for k in ("format", "classes", "plans")})
    return data


CoverageMatrix.as_dict = as_dict
"""

#: untrusted backend text: markup, an outside URL, terminal escapes
HOSTILE_MESSAGE = (
    "<script>alert('pwned')</script>\x1b[2J\x1b]0;owned\x07"
    "<img src=http://example.invalid/x.png onerror=alert(1)> & done"
)
_HOSTILE_BACKEND = f"""
import backends

MESSAGE = {HOSTILE_MESSAGE!r}


class Hostile:
    name = "hostile"

    def __init__(self):
        self._cpu = backends.get("cpu")

    def from_tensor(self, tensor):
        return self._cpu.from_tensor(tensor)

    def to_tensor(self, native):
        return self._cpu.to_tensor(native)

    def execute(self, operation, *args, **options):
        raise ValueError(MESSAGE)
"""


# ---------------------------------------------------------------------------
# Real documents
# ---------------------------------------------------------------------------


def _run(folder: Path, name: str, *arguments: str) -> dict[str, Any]:
    """``plancheck run ARGUMENTS --report folder/name.json``; the document it wrote."""
    report = folder / f"{name}.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(folder), str(TESTS), str(ROOT),
                                         env.get("PYTHONPATH", "")])  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--workers", "0",
         "--report", str(report), *arguments],
        cwd=folder, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(report.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("html-report")
    (folder / "matrix_field.py").write_text(_MATRIX_FIELD, encoding="utf-8")
    (folder / "hostile.py").write_text(_HOSTILE_BACKEND, encoding="utf-8")
    (folder / "known.xfail").write_text(
        "floor: this library loses the sign of zero results\n", encoding="utf-8"
    )
    return {
        "faulty": _run(folder, "faulty", "--backend", FAULTY, "--op", "floor", "--op", "exp",
                       "--op", "sqrt", "--", "-p", "matrix_field"),
        "mixed": _run(folder, "mixed", "--backend", "numpy-native", "--backend",
                      "hostile:Hostile", "--op", "exp"),
        "known": _run(folder, "known", "--backend", "cpu", "--backend", FAULTY, "--op", "floor",
                      "--unsupported", "zero-size", "--xfail", str(folder / "known.xfail"),
                      "--", "-p", "matrix_field"),
        "conforming": _run(folder, "conforming", "--backend", "cpu", "--op", "neg"),
    }  # fmt: skip


# ---------------------------------------------------------------------------
# Reading a page back
# ---------------------------------------------------------------------------

#: elements without an end tag
_VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "wbr", "source"}


class Page(HTMLParser):
    """The elements of a page, checked for nesting while they are read."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.elements: list[tuple[str, dict[str, str], list[str]]] = []  # tag, attrs, path
        self.problems: list[str] = []
        self.text: list[str] = []
        self._titles: list[list[str]] = []
        self.titles: list[str] = []  # the text of every SVG <title>
        self.ids: dict[str, int] = {}
        self.feed(text)
        self.close()
        if self.open:
            self.problems.append(f"never closed: {self.open}")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        self.elements.append((tag, attributes, list(self.open)))
        if "id" in attributes:
            self.ids[attributes["id"]] = self.ids.get(attributes["id"], 0) + 1
        if tag not in _VOID:
            self.open.append(tag)
        if tag == "title":
            self._titles.append([])

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}, list(self.open)))

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        if not self.open or self.open[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.open[-1:] or 'nothing'}")
            return
        self.open.pop()
        if tag == "title":
            self.titles.append("".join(self._titles.pop()))

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        for parts in self._titles:
            parts.append(data)

    def all(self, tag: str, cls: str | None = None) -> list[dict[str, str]]:
        return [a for t, a, _ in self.elements
                if t == tag and (cls is None or cls in a.get("class", "").split())]  # fmt: skip

    @property
    def plain(self) -> str:
        return "".join(self.text)


def _page(document: dict[str, Any]) -> tuple[str, Page]:
    text = render_html(document)
    page = Page(text)
    assert page.problems == []
    return text, page


# ---------------------------------------------------------------------------
# Structure and content
# ---------------------------------------------------------------------------


def test_page_is_one_well_formed_self_contained_document(runs):
    text, page = _page(runs["faulty"])
    assert text.startswith("<!DOCTYPE html>")
    assert [t for t, _, _ in page.elements].count("body") == 1
    assert all(n == 1 for n in page.ids.values()), page.ids
    # nothing is fetched: no script, stylesheet link, image, frame or URL anywhere
    assert not {t for t, _, _ in page.elements} & {"script", "link", "img", "iframe", "object"}
    assert not [a for _, attrs, _ in page.elements for a in attrs if a in ("src", "srcset")]
    assert all(a["href"].startswith("#") for a in page.all("a") if "href" in a)
    assert "http:" not in text and "https:" not in text and "url(" not in text
    (policy,) = [a["content"] for a in page.all("meta") if a.get("http-equiv")]
    assert "default-src 'none'" in policy


def test_every_deviation_class_has_its_block_with_example_bits_and_repro(runs):
    document = runs["faulty"]
    classes = document["deviation_classes"]
    names = {f"{c['operation']}@{c['class']}" for c in classes}
    # the faulty backend's three injected faults and its size-0 refusals, all found
    assert {"floor@wrong-value:signed-zero", "sqrt@input-modified"} <= names
    assert any(n.startswith("exp@warning") for n in names)
    _, page = _page(document)
    plain = page.plain
    for index, entry in enumerate(classes):
        assert page.ids.get(f"class-{index}") == 1
        assert f"{entry['operation']}@{entry['class']}" in plain
        assert f"{entry['count']:,} call" in plain
        assert entry["repro"] in plain  # the whole command, unescaped, as one text
        for shown in entry["example"]["inputs"]:
            assert shown in plain
    # bit patterns of the signed-zero example: expected -0 (0x80000000), got +0
    (signed,) = [c for c in classes if c["class"] == "wrong-value:signed-zero"]
    mismatch = signed["example"]["mismatches"][0]
    assert "0x80000000" in mismatch["expected"] and mismatch["expected"] in plain
    assert mismatch["actual"] in plain
    # the repro lines are selectable commands
    assert len(page.all("pre", "repro")) == len(classes)


def test_operation_table_colours_fail_rows(runs):
    document = runs["faulty"]
    text, page = _page(document)
    rows = document["table"][FAULTY]
    assert {row["status"] for row in rows.values()} == {"FAIL"}
    assert len(page.all("td", "fail")) == len(rows)
    assert FAIL_COLOUR in text
    # each operation's row links to its first class block; the class list links to each
    operations = {c["operation"] for c in document["deviation_classes"]}
    links = [a["href"] for a in page.all("a")]
    assert len(links) == len(document["deviation_classes"]) + len(operations)
    assert all(page.ids.get(link[1:]) == 1 for link in links)
    _, conforming = _page(runs["known"])
    assert conforming.all("td", "fail") == []
    assert len(conforming.all("td", "known")) == 1  # the faulty floor, known deviation


def test_header_verdicts(runs):
    faulty = runs["faulty"]
    count = len(faulty["deviation_classes"])
    assert verdict_of(faulty) == (f"{count} deviation classes", "fail")
    assert verdict_of(runs["known"]) == ("conforms except 1 known deviation class", "known")
    assert verdict_of(runs["conforming"]) == ("conforms", "ok")
    unfinished = dict(faulty, complete=False, result="running")
    assert verdict_of(unfinished) == (f"INCOMPLETE: {count} deviation classes so far", "incomplete")
    # finished without a verdict on the backend, and non-conforming without a class
    conforming = runs["conforming"]
    assert verdict_of(dict(conforming, result="oracle errors")) == (
        "INCOMPLETE (oracle errors)", "incomplete"
    )  # fmt: skip
    gap = copy.deepcopy(conforming)
    gap["result"] = "not conforming"
    gap["coverage"]["cpu"]["missing"] = ["neg(Float32) bit_copy -> Float32: NEGATIVE_ZERO"]
    assert verdict_of(gap) == ("not conforming: coverage gaps", "fail")
    _, page = _page(runs["known"])
    (badge,) = page.all("span", "verdict")
    assert "known" in badge["class"]
    plain = page.plain
    for fact in ("cpu", FAULTY, "ci", runs["known"]["started"]):
        assert fact in plain


def test_unfinished_run_renders_as_incomplete_without_coverage(runs):
    # what the report file holds while a run goes on: no coverage summary yet
    document = dict(runs["faulty"], complete=False, result="running", coverage={})
    _, page = _page(document)
    (badge,) = page.all("span", "verdict")
    assert "incomplete" in badge["class"]
    assert "INCOMPLETE" in page.plain and "no coverage data" in page.plain
    assert page.all("svg", "heatmap") == []
    assert len(page.all("section", "class")) == len(document["deviation_classes"])


def test_version_and_seed_are_shown_when_the_document_has_them(runs):
    document = dict(runs["conforming"], plancheck_version="9.8.7", seed=123456789)
    _, page = _page(document)
    assert "9.8.7" in page.plain and "123456789" in page.plain
    _, without = _page(runs["conforming"])
    assert "seed" not in without.plain


def test_not_supported_features_are_counted_per_backend(runs):
    document = runs["known"]
    _, page = _page(document)
    for counts in document["not_supported"].values():
        assert counts["zero-size"] > 0
        assert f"zero-size ({counts['zero-size']:,} calls)" in page.plain
    assert len(page.all("p", "not-supported")) == len(document["not_supported"])


def test_coverage_heat_map_shows_every_plan_and_class_count(runs):
    document = runs["faulty"]
    matrix = document["coverage"][FAULTY]["matrix"]
    _, page = _page(document)
    assert len(page.all("svg", "heatmap")) == 1
    columns = {name for row in matrix["plans"] for name in row["applicable"]}
    assert len(page.all("rect")) == len(matrix["plans"]) * len(columns)
    titles = set(page.titles)
    for row in matrix["plans"]:
        for name, hits in row["hits"].items():
            word = "call" if hits == 1 else "calls"
            assert f"{row['plan']} x {name}: {hits:,} {word}" in titles
    assert not [t for t in titles if "MISSING" in t]  # the run's coverage is complete


def test_heat_map_marks_an_unhit_pair_as_a_gap(runs):
    document = copy.deepcopy(runs["faulty"])
    summary = document["coverage"][FAULTY]
    row = summary["matrix"]["plans"][0]
    name = next(iter(row["hits"]))
    del row["hits"][name]
    summary["missing"].append(f"{row['plan']}: {name}")
    _, page = _page(document)
    assert f"{row['plan']} x {name}: MISSING: applicable, never hit" in page.titles


def test_heat_map_tells_unsupported_pairs_from_gaps(runs):
    document = runs["known"]  # --unsupported zero-size: floor's empty shapes are not judged
    _, page = _page(document)
    assert len(page.all("svg", "heatmap")) == 2
    excused = [t for t in page.titles if t.endswith("not judged: needs an unsupported feature")]
    expected = sum(s["pairs_not_supported"] for s in document["coverage"].values())
    assert expected == 2 and len(excused) == expected
    assert all(" x SHAPE_EMPTY: " in t for t in excused)
    assert not [t for t in page.titles if "MISSING" in t]


def test_document_without_the_matrix_says_why_there_is_no_heat_map(runs):
    document = copy.deepcopy(runs["mixed"])
    assert "matrix" in document["coverage"]["numpy-native"]  # the plugin writes it
    for summary in document["coverage"].values():
        del summary["matrix"]  # as an older report's coverage
    _, page = _page(document)
    assert page.all("svg", "heatmap") == []
    assert "coverage summary only" in page.plain


def test_ulp_plot_has_one_point_per_listed_mismatching_element(runs):
    document = runs["mixed"]
    expected = set()
    for example in [c["example"] for c in document["deviation_classes"]] + document["failures"]:
        if example["backend"] == "numpy-native" and example["conformance"] == "correctly rounded":
            for m in example["mismatches"]:
                if m["ulp"]:
                    expected.add((example["plan"], m["inputs"], m["expected_bits"], m["ulp"]))
    if not expected:  # numpy's float32 exp is 1-2 ULP off somewhere, on every CPU seen so far
        pytest.skip("numpy's float32 exp rounded every input correctly here: no ULP data")
    _, page = _page(document)
    assert len(page.all("svg", "ulp-plot")) == 1  # numpy-native only: the hostile one has no data
    points = [t for t in page.titles if t.startswith("exp: ")]
    assert len(points) == len(expected)
    assert sorted(int(t.split()[1]) for t in points) == sorted(u for *_, u in expected)
    assert "nothing to plot" in page.plain  # the hostile backend's section


def test_hostile_backend_text_renders_inert(runs):
    document = runs["mixed"]
    from conformance.model.sanitize import terminal_text

    # the document already holds the message with its control characters made visible
    shown = terminal_text(HOSTILE_MESSAGE)
    assert any(shown in c["example"]["actual"] for c in document["deviation_classes"])
    text, page = _page(document)
    tags = {t for t, _, _ in page.elements}
    assert "script" not in tags and "img" not in tags
    assert not [a for _, attrs, _ in page.elements for a in attrs if a.startswith("on")]
    assert "\x1b" not in text and "\x07" not in text
    # shown as text: the markup literally, the escapes as visible \x1b
    assert "<script>alert('pwned')</script>\\x1b[2J\\x1b]0;owned\\x07<img src=" in page.plain
    assert html.escape("<script>") in text


def test_bad_input_is_refused_before_anything_is_written(runs, tmp_path):
    with pytest.raises(TypeError, match="expected a report document"):
        render_html([runs["conforming"]])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a plancheck-report/1 document"):
        render_html({"format": "plancheck-coverage/1"})
    with pytest.raises(ValueError, match="not a plancheck-report/1"):
        write_html({}, tmp_path / "out.html")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(FileNotFoundError):
        write_html(runs["conforming"], tmp_path / "missing" / "out.html")
    assert not (tmp_path / "missing").exists()


def test_write_html_writes_the_rendered_page_atomically(runs, tmp_path):
    path = write_html(runs["faulty"], tmp_path / "report.html")
    assert path.read_text(encoding="utf-8") == render_html(runs["faulty"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


# ---------------------------------------------------------------------------
# In a real browser
# ---------------------------------------------------------------------------

CHROMIUM = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="headless Chromium is not installed (Debian: apt-get install chromium)",
)
WIDTH, HEIGHT = 1280, 900


def _png_pixels(data: bytes) -> np.ndarray:
    """The RGB(A) pixels of an 8-bit, non-interlaced PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks, header = 8, [], b""
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and interlace == 0 and colour in (2, 6), (depth, colour, interlace)
    step = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(chunks)), np.uint8)
    raw = raw.reshape(height, width * step + 1)
    pixels = np.zeros((height, width * step), np.int64)
    previous = np.zeros(width * step, np.int64)
    for y in range(height):
        kind, row = raw[y, 0], raw[y, 1:].astype(np.int64)
        if kind == 0:
            current = row
        elif kind == 1:  # Sub: a running sum along the row, per channel
            current = np.cumsum(row.reshape(width, step), axis=0).reshape(-1) % 256
        elif kind == 2:  # Up
            current = (row + previous) % 256
        else:  # Average or Paeth: each byte depends on the one to its left
            out, up = [0] * len(row), previous.tolist()
            for i, value in enumerate(row.tolist()):
                left = out[i - step] if i >= step else 0
                corner = up[i - step] if i >= step else 0
                if kind == 3:
                    predicted = (left + up[i]) >> 1
                else:
                    pa, pb = abs(up[i] - corner), abs(left - corner)
                    pc = abs(left + up[i] - 2 * corner)
                    predicted = left if pa <= pb and pa <= pc else up[i] if pb <= pc else corner
                out[i] = (value + predicted) & 255
            current = np.array(out, np.int64)
        pixels[y] = current
        previous = current
    return pixels.reshape(height, width, step)[:, :, :3].astype(np.uint8)


def _chromium(page: Path, folder: Path, *extra: str) -> subprocess.CompletedProcess:
    sandbox = ["--no-sandbox"] if os.geteuid() == 0 else []  # Chromium refuses root otherwise
    return subprocess.run(
        [CHROMIUM, "--headless", *sandbox, "--disable-gpu", "--hide-scrollbars",
         "--no-first-run", "--disable-extensions", "--disable-background-networking",
         f"--user-data-dir={folder / 'profile'}", "--host-resolver-rules=MAP * ~NOTFOUND",
         *extra, page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def _screenshot(document: dict[str, Any], folder: Path) -> np.ndarray:
    page = write_html(document, folder / "report.html")
    shot = folder / "shot.png"
    done = _chromium(page, folder, f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}")
    assert shot.exists(), done.stderr[-2000:]
    return _png_pixels(shot.read_bytes())


def _fail_cells(pixels: np.ndarray) -> int:
    """How many FAIL-coloured bands lie one under the other (one per table cell: rows
    of the table are separated by a grey border line)."""
    colour = np.array([int(FAIL_COLOUR[i : i + 2], 16) for i in (1, 3, 5)])
    rows = (np.abs(pixels.astype(np.int64) - colour).max(axis=2) <= 3).sum(axis=1) > 0
    return int((rows[1:] & ~rows[:-1]).sum() + rows[0])


@needs_chromium
def test_browser_screenshot_shows_the_report_with_fail_coloured(runs, tmp_path):
    pixels = _screenshot(runs["faulty"], tmp_path)
    assert pixels.shape == (HEIGHT, WIDTH, 3)
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 50  # text and tables, not blank
    assert (pixels == 255).all(axis=2).mean() > 0.5  # a white page with content on it
    failing = [r for r in runs["faulty"]["table"][FAULTY].values() if r["status"] == "FAIL"]
    assert _fail_cells(pixels) == len(failing) == 3  # the colour of FAIL cells, and only theirs


@needs_chromium
def test_browser_screenshot_of_a_run_with_known_classes_has_no_fail_colour(runs, tmp_path):
    pixels = _screenshot(runs["known"], tmp_path)
    assert pixels.shape == (HEIGHT, WIDTH, 3)
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 50
    assert _fail_cells(pixels) == 0


def _page_requests(net_log: Path) -> list[str]:
    """The URLs other than ``file:`` that a ``file://`` page asked for (Chromium's net log;
    the browser's own background requests have another network isolation key)."""
    log = json.loads(net_log.read_text(encoding="utf-8"))
    kinds = {number: name for name, number in log["constants"]["logEventTypes"].items()}
    urls = []
    for event in log["events"]:
        params = event.get("params") or {}
        if kinds.get(event["type"]) != "URL_REQUEST_START_JOB" or "url" not in params:
            continue
        from_page = str(params.get("network_isolation_key", "")).startswith("file://")
        if from_page and not params["url"].startswith("file:"):
            urls.append(params["url"])
    return urls


@needs_chromium
def test_browser_loads_the_hostile_report_without_a_network_request(runs, tmp_path):
    # the check itself sees a page's request: a page with an outside image
    control = tmp_path / "control.html"
    control.write_text(
        '<!DOCTYPE html><p>x</p><img src="http://example.invalid/pixel.png">', encoding="utf-8"
    )
    _chromium(control, tmp_path, f"--log-net-log={tmp_path / 'control.json'}", "--dump-dom")
    assert _page_requests(tmp_path / "control.json") == ["http://example.invalid/pixel.png"]
    page = write_html(runs["mixed"], tmp_path / "report.html")
    done = _chromium(page, tmp_path, f"--log-net-log={tmp_path / 'net.json'}", "--dump-dom")
    assert _page_requests(tmp_path / "net.json") == []
    # the DOM Chromium built has the hostile text as text, no script or image element
    dom = Page(done.stdout)
    assert "<script>alert('pwned')</script>" in dom.plain
    assert not {t for t, _, _ in dom.elements} & {"script", "img"}
