"""A link urllib cannot take apart (``http://[x``: an unclosed IPv6 bracket, which
urllib.parse refuses with ValueError) never ends a command in an internal fault: found by
tests/stress/hardening/test_fuzz.py splicing a ``[`` into an exclusion's url. Validation
names it (tests/data/exclusions/invalid/E912.expected); every other reader of links takes it
as what it is: no host, no anchor, nothing to follow, nothing to clean."""

from __future__ import annotations

import pytest

from survey_tools.adopt.markdown_list import _anchor, _followable
from survey_tools.corpus.checks import cleaned_link
from survey_tools.curate.links import host_of
from survey_tools.render.model import link_label

BAD = ["http://[x/y", "https://[arxiv.org/abs/2401.09999", "https://a]b/c"]


@pytest.mark.parametrize("link", BAD)
def test_an_unparseable_link_is_read_as_nothing(link: str) -> None:
    assert cleaned_link(link) == link
    assert host_of(link) == ""
    assert link_label(link) == link
    assert not _followable(link)
    assert not _anchor(link)
