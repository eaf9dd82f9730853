"""The href rule's fast path (net/hrefs._PLAIN) answers only for addresses the full rule accepts:
every string it matches, drawn from the pattern itself, gets None from the rule's every step."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from survey_tools.net import hrefs

_full = hrefs._str_problem.__wrapped__


@given(st.from_regex(hrefs._PLAIN, fullmatch=True))
def test_every_plain_address_passes_the_full_rule(url: str) -> None:
    assert _full(url) is None
    assert hrefs.href_problem(url) is None


def test_what_the_fast_path_leaves_to_the_full_rule() -> None:
    for url in (
        "https://user:pw@example.org/",
        "https://example.org:99999/",
        "https://-bad.example/",
        "https://exa mple.org/",
        "javascript:alert(1)",
        "https://example.org/\u00e9",
        "https://%65vil.example/",
        "https://[::1]/",
        "https://example..org/",
        " https://example.org/",
    ):
        assert hrefs._PLAIN.fullmatch(url) is None, url
    assert hrefs.href_problem("https://user:pw@example.org/") is not None
    assert hrefs.href_problem("https://example.org:99999/") is not None
    assert hrefs.href_problem("https://arxiv.org/abs/2401.00001v2?x=1#y") is None
