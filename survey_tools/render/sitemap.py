"""The published site's files for crawlers: ``sitemap.xml`` (every page's address) and
``robots.txt`` (which names it). Both need the site's absolute address (``survey.site.url`` or
GitHub Pages' default), so a site without one has neither."""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape


def sitemap_xml(addresses: Sequence[str]) -> str:
    """A sitemaps.org 0.9 URL set of ``addresses``, in their order (no dates: the file changes
    only when the pages do)."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ]
    lines += [f"  <url><loc>{escape(a)}</loc></url>" for a in addresses]
    return "\n".join([*lines, "</urlset>"]) + "\n"


def robots_txt(sitemap: str) -> str:
    """Every page may be crawled; the sitemap's address. A crawler reads robots.txt only at a
    host's root: for a project site under ``/REPO/`` this copy serves a custom domain or a user
    site, and the sitemap is submitted by its address."""
    return f"User-agent: *\nAllow: /\n\nSitemap: {sitemap}\n"
