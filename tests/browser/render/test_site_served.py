"""The site as Pages publishes it: the built ``reports/site`` folder alone, served over loopback
HTTP under a sub-path (a project site lives at ``/<repository>/``), for this survey and for a
list made by ``survey init``. Every internal ``href`` and ``src`` of every page is followed (none
dead, every page reachable from the index), and Chromium loads the statistics page (every figure
drawn), follows the skip links of a filtered list and of a paper page (the filters and search
stay in the address), and follows a paper page's tag links."""

from __future__ import annotations

import http.server
import os
import shutil
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.error import HTTPError
from urllib.parse import urldefrag, urljoin, urlsplit
from urllib.request import urlopen

import pytest
from helpers.init_support import FIXTURES, run
from helpers.render_support import REPO

from survey_tools.build import build

SUB = "/published-site/"  # where the folder is served; anything else on the server is a 404
INIT_SOURCE = FIXTURES / "ports" / "entries.yaml"


class _Handler(http.server.SimpleHTTPRequestHandler):
    """The site's folder under SUB and nothing else (as Pages serves a project site)."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if not self.path.startswith(SUB):
            self.send_error(404)
            return
        self.path = "/" + self.path[len(SUB) :]
        local = Path(self.translate_path(self.path))
        lost = Path(self.directory) / "404.html"
        if not (local.is_file() or (local / "index.html").is_file()) and lost.is_file():
            # As Pages does: a missing address gets the site's own 404.html, with status 404.
            body = lost.read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def log_message(self, *args: object) -> None:
        pass


@dataclass
class Served:
    name: str
    folder: Path
    url: str  # the site's address, ending in "/"
    figures: int  # figures the statistics page should show


@pytest.fixture(scope="module", params=["survey", "init"])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    root = tmp_path_factory.mktemp(f"published-{request.param}") / "survey"
    if request.param == "survey":  # this survey, every record, built as `survey build` does
        for name in ("taxonomy", "corpus", "exclusions", "data"):
            shutil.copytree(REPO / name, root / name)
        build(root)
    else:  # a list made by `survey init` (which builds it)
        shutil.copy(INIT_SOURCE, root.parent / INIT_SOURCE.name)
        res = run(
            root,
            "init",
            str(root),
            "--from",
            str(root.parent / INIT_SOURCE.name),
            "--controlled",
            "task",
            "--distinct-titles",
        )
        assert res.exit_code == 0, res.output
    # Only the published folder is copied to where it is served: nothing else can answer.
    folder = tmp_path_factory.mktemp(f"pages-{request.param}") / "site"
    shutil.copytree(root / "reports" / "site", folder)
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(_Handler, directory=str(folder))
    )
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    figures = len(list((root / "reports" / "figures").glob("*.svg")))
    try:
        yield Served(
            request.param, folder, f"http://127.0.0.1:{server.server_address[1]}{SUB}", figures
        )
    finally:
        server.shutdown()
        server.server_close()


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.refs += [v for k, v in attrs if k in ("href", "src") and v]


def _refs(url: str, body: bytes, kind: str) -> list[str]:
    """Every address a page refers to, made absolute (an HTML page or the Atom feed)."""
    if "xml" in kind:
        feed = ET.fromstring(body)
        base = urljoin(url, feed.get("{http://www.w3.org/XML/1998/namespace}base") or "")
        return [
            urljoin(base, el.get("href") or "")
            for el in feed.iter("{http://www.w3.org/2005/Atom}link")
        ]
    parser = _Refs()
    parser.feed(body.decode("utf-8"))
    return [urljoin(url, r) for r in parser.refs]


def _get(url: str) -> tuple[int, str, bytes]:
    try:
        with urlopen(url, timeout=10) as res:  # noqa: S310 (the loopback server of the test)
            return res.status, res.headers.get_content_type(), res.read()
    except HTTPError as err:
        return err.code, "", err.read()


@dataclass
class Crawl:
    pages: set[str] = field(default_factory=set)  # HTML pages and the feed, read and followed
    links: int = 0  # internal hrefs and srcs, counted on every page
    targets: dict[str, int] = field(default_factory=dict)  # each internal address -> its status

    @property
    def dead(self) -> list[str]:
        return sorted(u for u, status in self.targets.items() if status != 200)


def crawl(start: str) -> Crawl:
    """Every page reachable from ``start``, each internal link requested once."""
    out, todo = Crawl(), [start]
    while todo:
        url = todo.pop()
        status, kind, body = _get(url)
        out.targets[url] = status
        if (
            status != 200
            or url in out.pages
            or kind not in ("text/html", "application/xml", "text/xml", "application/atom+xml")
        ):
            continue
        out.pages.add(url)
        for ref in _refs(url, body, kind):
            target = urldefrag(ref).url
            if (
                urlsplit(target).scheme not in ("http", "https")
                or urlsplit(target).netloc != urlsplit(start).netloc
            ):
                continue  # another site, a data: icon
            out.links += 1
            if target not in out.targets:
                out.targets[target] = 0
                todo.append(target)
    return out


def test_every_internal_link_of_the_published_folder_resolves(served: Served) -> None:
    result = crawl(served.url + "index.html")
    assert result.dead == [], result.dead
    # Every page of the folder is reachable from the index (papers/index.html included), and
    # every file in the folder is something a page refers to (bibtex.js: the list's script loads
    # it when a reader asks for BibTeX).
    files = {
        served.url + p.relative_to(served.folder).as_posix()
        for p in served.folder.rglob("*")
        if p.is_file()
    }
    # Files for crawlers and lost readers, which no page links: the 404 page, the sitemap,
    # robots.txt and the social card (named by og:image's absolute address).
    unlinked = {served.url + name for name in ("404.html", "sitemap.xml", "robots.txt", "card.png")}
    pages = {u for u in files if u.endswith((".html", ".xml"))} - unlinked
    assert pages <= result.pages, sorted(pages - result.pages)[:5]
    assert files - set(result.targets) <= {served.url + "bibtex.js"} | unlinked, sorted(
        files - set(result.targets)
    )[:5]
    assert len(result.pages) > 5 and result.links > len(result.pages)
    print(
        f"\n{served.name}: {len(result.pages)} pages, {result.links} internal links to "
        f"{len(result.targets)} files, {len(result.dead)} dead"
    )


def test_a_missing_address_gets_the_404_page_and_the_sitemap_names_every_page(
    served: Served,
) -> None:
    status, _kind, body = _get(served.url + "papers/no-such-paper.html")
    assert status == 404 and b"Page not found" in body
    sitemap = served.folder / "sitemap.xml"
    if served.name == "init":  # a list made by `survey init` has no address yet: no sitemap
        assert not sitemap.exists() and not (served.folder / "robots.txt").exists()
        return
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [e.text or "" for e in ET.fromstring(sitemap.read_bytes()).findall("s:url/s:loc", ns)]
    base = locs[0]
    assert base.startswith("https://") and base.endswith("/")
    for loc in locs:  # each address, served from here, is a page
        assert loc.startswith(base) and _get(served.url + loc[len(base) :])[0] == 200, loc
    pages = [p for p in served.folder.rglob("*.html") if p.name != "404.html"]
    assert len(locs) == len(pages)


def _open(browser: Any, url: str) -> Any:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    pg.failed, pg.warnings, pg.errors = [], [], []
    pg.on(
        "response", lambda r: pg.failed.append(f"{r.status} {r.url}") if r.status >= 400 else None
    )
    pg.on("requestfailed", lambda r: pg.failed.append(f"failed {r.url}"))
    pg.on(
        "console", lambda m: pg.warnings.append(m.text) if m.type in ("warning", "error") else None
    )
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.goto(url)
    return pg


def _shots(tmp_path: Path) -> Path:
    """Where the screenshots go: SURVEY_SCREENSHOTS names a folder to keep them, to look at."""
    keep = os.environ.get("SURVEY_SCREENSHOTS")
    folder = Path(keep) if keep else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_the_published_folder_in_chromium(browser: Any, served: Served, tmp_path: Path) -> None:
    # The statistics page: every figure loaded and drawn (lazy images scrolled to first).
    pg = _open(browser, served.url + "stats.html")
    images = pg.evaluate("""async () => {
      const out = [];
      for (const img of document.images) {
        img.scrollIntoView();
        try { await img.decode(); } catch (e) { /* reported by its width */ }
        out.push([img.getAttribute("src"), img.naturalWidth]);
      }
      return out;
    }""")
    assert served.figures > 0 and len(images) == served.figures, images
    assert all(width > 0 for _, width in images), images
    # Scrolled past them, the tables' row labels still stand by their own rows (not stuck together).
    pg.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    rows = pg.evaluate("""() => Array.from(document.querySelectorAll('table.bars tbody tr')).slice(0, 40)
      .map(tr => Math.abs(tr.querySelector('th').getBoundingClientRect().top - tr.querySelector('td').getBoundingClientRect().top))""")
    assert rows and max(rows) < 2, rows
    pg.evaluate("window.scrollTo(0, 0)")
    pg.screenshot(path=str(_shots(tmp_path) / f"{served.name}-stats.png"), full_page=True)

    # The list, filtered and searched: the skip link moves the focus and keeps the address.
    pg.goto(served.url + "index.html")
    box = pg.locator("#facets input[type=checkbox]:visible").first
    box.check()
    word = pg.locator("#rows a.title").first.inner_text().split()[0]
    pg.locator("#q").fill(word)
    pg.wait_for_function("location.hash.includes('q=')")
    hash_before = pg.evaluate("location.hash")
    # The Filters button counts the one facet value, not the search beside it.
    assert pg.locator("#active-count").text_content() == "1"
    history = pg.evaluate("history.length")
    pg.focus("a.skip")
    pg.keyboard.press("Enter")
    assert pg.evaluate("location.hash") == hash_before and pg.evaluate("history.length") == history
    assert pg.evaluate("document.activeElement.id") == "results"
    assert box.is_checked() and pg.locator("#q").input_value() == word
    if served.name == "survey":
        # The survey's headline (O5 learned, one paper) is offered without "Show all".
        pg.locator("#reset").click()
        assert pg.locator(
            'fieldset[data-facet="subdecisions"] input[value="O5:learned"]'
        ).is_visible()

    # A paper page reached with the list's filters: its skip link keeps them for "Show in the list".
    key = pg.locator("#rows tr[id^='p-']").first.get_attribute("id")[2:]
    filters = hash_before.lstrip("#")
    pg.goto(f"{served.url}papers/{key}.html#{filters}")
    pg.focus("a.skip")
    pg.keyboard.press("Enter")
    assert pg.evaluate("location.hash") == "#" + filters
    assert pg.evaluate("document.activeElement.id") == "main"
    show = pg.locator("a[data-anchor]").get_attribute("href")
    assert show == f"../index.html#{filters}&p-{key}", show
    pg.screenshot(path=str(_shots(tmp_path) / f"{served.name}-paper.png"), full_page=True)
    tags = pg.locator("a[rel=tag]")
    if served.name == "survey":
        assert tags.count() >= 1  # every paper has a category (the quick tests count them all)
    if tags.count():
        label = tags.first.inner_text()
        tags.first.click()
        pg.wait_for_load_state("load")
        assert label in pg.locator("h1").inner_text()
    assert pg.failed == [] and pg.errors == [], (pg.failed, pg.errors)
    assert pg.warnings == [], pg.warnings
    pg.context.close()
