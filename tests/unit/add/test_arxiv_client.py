"""The arXiv client against a local server replaying recorded arXiv answers."""

from __future__ import annotations

import pytest

from survey_tools.scholarly.arxiv_client import ArxivClient, ArxivFetchError, ClientConfig


def client(url: str, **kw: float) -> ArxivClient:
    return ArxivClient(ClientConfig(url=url, delay=0.0, **kw))


def test_found(arxiv_server) -> None:
    p = client(arxiv_server.url).fetch("1605.08386")
    assert p.arxiv_id == "1605.08386"
    assert p.version == 1
    assert p.title == "Heat-bath random walks with Markov bases"
    assert p.authors == ("Caprice Stanley", "Tobias Windisch")
    assert p.year == 2016
    assert p.published == "2016-05-26"
    assert p.primary_category == "math.CO"
    assert p.doi is None and p.journal_ref is None
    assert p.abs_url == "https://arxiv.org/abs/1605.08386"
    assert p.abstract.startswith("Graphs on lattice points")
    assert "id_list=1605.08386" in arxiv_server.requests[0]


@pytest.mark.parametrize(
    ("mode", "arxiv_id", "message"),
    [
        ("replay", "0000.0000", "arXiv has no paper with the id 0000.0000"),
        ("replay", "abc", "arXiv refused the id 'abc' (HTTP 400: incorrect id format for abc)"),
        (
            "truncated",
            "1605.08386",
            "arXiv's answer for 1605.08386 was cut off (not well-formed XML) after 4 tries; "
            "try again later",
        ),
    ],
)
def test_failures(arxiv_server, mode: str, arxiv_id: str, message: str) -> None:
    arxiv_server.mode = mode
    with pytest.raises(ArxivFetchError) as err:
        client(arxiv_server.url).fetch(arxiv_id)
    assert str(err.value) == message


def test_503_then_success_is_retried(arxiv_server) -> None:
    arxiv_server.mode = "flaky"
    arxiv_server.failures_left = 2
    p = client(arxiv_server.url).fetch("1605.08386")
    assert p.title == "Heat-bath random walks with Markov bases"
    assert len(arxiv_server.requests) == 3


def test_503_for_ever(arxiv_server) -> None:
    arxiv_server.mode = "flaky"
    arxiv_server.failures_left = 99
    with pytest.raises(ArxivFetchError) as err:
        client(arxiv_server.url).fetch("1605.08386")
    assert str(err.value) == (
        "arXiv answered HTTP 503 for 1605.08386 after 4 tries; try again later"
    )


def test_timeout(arxiv_server) -> None:
    arxiv_server.mode = "hang"
    with pytest.raises(ArxivFetchError) as err:
        client(arxiv_server.url, timeout=0.3).fetch("1605.08386")
    expected = f"arXiv did not answer within 0.3 s ({arxiv_server.url}); try again later"
    assert str(err.value) == expected


def test_nothing_listening(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SURVEY_NET_ALLOW", "127.0.0.1")
    url = "http://127.0.0.1:9/api/query"  # the discard port: nothing answers there
    cfg = ClientConfig(url=url, delay=0.0, retries=0)
    with pytest.raises(ArxivFetchError) as err:
        ArxivClient(cfg).fetch("1605.08386")
    assert str(err.value) == (
        f"cannot reach arXiv at {url} (connection refused); check the network or SURVEY_ARXIV_URL"
    )


def test_loopback_is_refused_without_the_allowance(arxiv_server, monkeypatch) -> None:
    monkeypatch.delenv("SURVEY_NET_ALLOW")
    with pytest.raises(ArxivFetchError) as err:
        client(arxiv_server.url).fetch("1605.08386")
    assert str(err.value) == (
        f"arXiv at {arxiv_server.url} for 1605.08386: refused to connect to a loopback address "
        "(127.0.0.1); SURVEY_NET_ALLOW allows it")
    assert arxiv_server.requests == []



def _served(arxiv_server, entry_id: str = "http://arxiv.org/abs/1605.08386v1",
            **swap: str) -> None:
    status, body = arxiv_server.responses["1605.08386"]
    text = body.decode().replace("http://arxiv.org/abs/1605.08386v1", entry_id, 1)
    for old, new in swap.items():
        text = text.replace(old, new, 1)
    arxiv_server.responses["1605.08386"] = (status, text.encode())


@pytest.mark.parametrize(
    ("entry_id", "swap", "message"),
    [
        ("http://arxiv.org/abs/1605.08386v" + "9" * 300, {},
         "the id 'http://arxiv.org/abs/1605.08386v9999999999999999999999999999999999999999999999"),
        ("http://arxiv.org/abs/../../etc/passwd", {}, "is not an arXiv abs URL with a well-formed id"),
        ("http://arxiv.org/abs/", {}, "is not an arXiv abs URL with a well-formed id"),
        ("http://evil.example/abs/1605.08386v1", {}, "is not an arXiv abs URL"),
        ("http://arxiv.org/abs/1605.08386v1", {"2016-05-26T17:59:46Z": "0x2016-05-26"},
         "updated '0x2016-05-26' is not a date"),
        ("http://arxiv.org/abs/1605.08386v1",
         {"<title>Heat-bath random walks with Markov bases</title>": "<title> </title>"},
         "no title or no authors"),
    ],
)
def test_hostile_entries_are_one_clear_error(arxiv_server, entry_id: str, swap: dict[str, str],
                                             message: str) -> None:
    _served(arxiv_server, entry_id, **swap)
    with pytest.raises(ArxivFetchError) as err:
        client(arxiv_server.url).fetch("1605.08386")
    assert str(err.value).startswith("arXiv's answer for 1605.08386, entry 1 is unusable: ")
    assert message in str(err.value)
    assert len(str(err.value)) < 300
