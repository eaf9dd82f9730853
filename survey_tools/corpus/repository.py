"""The survey's public repository, configured once: ``survey.repository: {url, branch}`` in
taxonomy/survey.yaml. CONTRIBUTING's web-editor links, the pre-commit example and the issue
links are built from it; while it is missing or still a placeholder, those texts fall back to
relative links and `survey validate` warns."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.net.hrefs import href_problem, safe_href

# What the documentation's examples write for a repository nobody has chosen yet.
PLACEHOLDERS = ("OWNER/REPO", "OWNER/NAME", "<", "example.com", "example.org")


@dataclass(frozen=True)
class Repository:
    url: str  # https://github.com/OWNER/REPO, no trailing slash
    branch: str

    def new_file(self, folder: str) -> str:
        """GitHub's "new file" page in ``folder`` (the web editor's starting point)."""
        return f"{self.url}/new/{self.branch}/{folder.strip('/')}"

    def blob(self, path: str) -> str:
        return f"{self.url}/blob/{self.branch}/{path}"

    @property
    def new_issue(self) -> str:
        return f"{self.url}/issues/new/choose"


def _raw(tax: Taxonomy) -> tuple[str, str]:
    repo = tax.survey.get("repository")
    if not isinstance(repo, Mapping):
        return "", "main"
    return str(repo.get("url") or "").rstrip("/"), str(repo.get("branch") or "main")


def repository(tax: Taxonomy) -> Repository | None:
    """The configured repository, or None while it is missing or a placeholder."""
    url, branch = _raw(tax)
    if not url or any(p in url for p in PLACEHOLDERS) or href_problem(url):
        # A url validate refuses (javascript:, credentials) never becomes the pages' links.
        return None
    return Repository(url, branch)


def repository_warning(tax: Taxonomy) -> str | None:
    """One line for `survey validate` while the repository is not configured."""
    url, _ = _raw(tax)
    if repository(tax) is not None:
        return None
    what = f"is still a placeholder ({url})" if url else "is not set"
    return (f"taxonomy/survey.yaml: survey.repository {what}: set `repository: {{url: "
            f"https://github.com/OWNER/REPO, branch: main}}` under `survey:` so that CONTRIBUTING, "
            f"the page and the pre-commit example link to the list's public repository")


def _site_conf(tax: Taxonomy) -> Mapping[str, object]:
    site = tax.survey.get("site")
    return site if isinstance(site, Mapping) else {}


def pages_default(repo: Repository | None) -> str:
    """GitHub Pages' own address of a github.com repository (``https://owner.github.io/REPO``;
    Pages lowercases the owner), "" for a repository elsewhere or none."""
    if repo is None:
        return ""
    m = re.fullmatch(r"https://github\.com/([A-Za-z0-9-]+)/([A-Za-z0-9._-]+?)(?:\.git)?", repo.url)
    if not m:
        return ""
    owner, name = m.group(1).lower(), m.group(2)
    # A repository named OWNER.github.io is served at the root of that host.
    return f"https://{owner}.github.io" if name.lower() == f"{owner}.github.io" else f"https://{owner}.github.io/{name}"


def site_url(tax: Taxonomy) -> str:
    """The published address of the site's folder (no trailing slash): ``survey.site.url``, else
    GitHub Pages' default for the configured repository, else "" (the site links relatively)."""
    # the href rule once more (net/hrefs.py): validate refuses any other value
    url = safe_href(str(_site_conf(tax).get("url") or "")).rstrip("/")
    if url:
        return url
    return pages_default(repository(tax))


def site_url_warning(tax: Taxonomy) -> str | None:
    """One line while ``survey.site.url`` is unset: what the build assumes instead."""
    if str(_site_conf(tax).get("url") or ""):
        return None
    guess = pages_default(repository(tax))
    if guess:
        return (f"taxonomy/survey.yaml: survey.site.url is not set: the site's canonical links, cards, feed "
                f"and sitemap assume GitHub Pages' default {guess}/; set `url:` under `survey.site` if it is "
                f"published elsewhere")
    return ("taxonomy/survey.yaml: survey.site.url is not set: the README links to the site's files in the "
            "repository and the site has no canonical links, card address, sitemap or absolute feed links; "
            "set `url:` under `survey.site` to the address the site is published at")
