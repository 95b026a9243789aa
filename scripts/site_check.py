"""The built site seen as a reader sees it: served on 127.0.0.1, opened in headless Chromium, the home
page, a tutorial and an API page checked for their navigation, and the search asked a question.

Needs Debian's Chromium (`apt-get install chromium`) and Playwright's Python client driving it
(`pip install playwright`; its own browser download is not used). Not part of CI: a reader's check,
run after `mkdocs build`, whose screenshots go in the folder given.

    mkdocs build --site-dir /tmp/site && python scripts/site_check.py /tmp/site --shots /tmp/shots
"""

from __future__ import annotations

import argparse
import functools
import http.server
import threading
from pathlib import Path

PAGES = {
    "home": "",
    "tutorial": "tutorials/02-autograd/",
    "api": "api/nn/",
}
TABS = ["Home", "Tutorials", "Coming from", "Guides", "API reference", "Project"]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the files without a log line a request."""

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """The site on an ephemeral port of the loopback address, in a daemon thread."""
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def check(site: Path, shots: Path, browser_path: str, query: str) -> list[str]:
    """One line a check; raises AssertionError on the first that fails."""
    from playwright.sync_api import sync_playwright

    shots.mkdir(parents=True, exist_ok=True)
    server, root = serve(site)
    lines = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            for name, path in PAGES.items():
                page.goto(root + path)
                title = page.inner_text("article h1").rstrip("¶").strip()
                tabs = [t.strip() for t in page.locator(".md-tabs__link").all_inner_texts()]
                assert tabs == TABS, f"{name}: tabs {tabs}"
                links = page.locator("nav.md-nav--primary a.md-nav__link").count()
                code = page.locator("article pre code").count()
                assert links > 3 and code > 0, f"{name}: {links} navigation links, {code} code blocks"
                page.screenshot(path=str(shots / f"{name}.png"))
                lines.append(f"{name} ({path or '/'}): title {title!r}, {len(tabs)} tabs, {links} links in "
                             f"the sidebar, {code} code blocks")
            page.goto(root)
            page.fill("input.md-search__input", query)
            page.wait_for_selector(".md-search-result__item", timeout=30000)
            found = page.inner_text(".md-search-result__meta")
            first = page.locator(".md-search-result__item h1").first.inner_text()
            page.screenshot(path=str(shots / "search.png"))
            lines.append(f"search {query!r}: {found}; the first: {first!r}")
            browser.close()
    finally:
        server.shutdown()
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the folder mkdocs built")
    parser.add_argument("--shots", type=Path, default=Path("site_shots"), help="where the screenshots go")
    parser.add_argument("--browser", default="/usr/bin/chromium", help="the Chromium to drive")
    parser.add_argument("--query", default="gradcheck", help="what to search for")
    args = parser.parse_args(argv)
    for line in check(args.site, args.shots, args.browser, args.query):
        print(line)
    print(f"screenshots in {args.shots}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
