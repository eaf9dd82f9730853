"""Writes tests/data/contrib-heldout2/*.yaml from good-record.yaml, one change each (round 6)."""
import sys
from pathlib import Path

import yaml

root = Path(sys.argv[1])
good = yaml.safe_load((root / "tests/data/contrib/good-record.yaml").read_text())["record"]
out = root / "tests/data/contrib-heldout2"
out.mkdir(exist_ok=True)

def rep(text, pairs):
    for a, b in pairs:
        assert a in text, a
        text = text.replace(a, b, 1)
    return text

T = '  title: "Relay Credit: Passing Team Rewards Along Tool Calls"  # inside the quotes'
T0 = 'title: "Relay Credit: Passing Team Rewards Along Tool Calls"  # inside the quotes'
AX = 'arxiv: "2606.01001"  # may stay empty if the work has no arXiv id'
LK = '- https://arxiv.org/abs/2606.01001'
NOAX = [(AX, 'arxiv: ""  # may stay empty if the work has no arXiv id'), (LK, '- https://relay-credit.github.io/')]

C = []
def case(name, mistake, seen, pairs, outcome, must_say, want, path="corpus/relay-credit.yaml", check="validate", also=None, saved=None):
    C.append(dict(name=name, mistake=mistake, seen=seen, check=check, path=path,
                  saved=saved or {"newlines": "lf", "bom": False, "final_newline": False},
                  record=rep(good, pairs), outcome=outcome, must_say=must_say, want=want, **({"also": also} if also else {})))

case("arxiv-with-version", "The arXiv id copied with its version (v2) from the abstract page.",
     "thunlp/GNNPapers#83 (arXiv links made uniform: versions removed)",
     [(AX, 'arxiv: "2606.01001v2"  # may stay empty if the work has no arXiv id')],
     "refuse", ["2606.01001'|2606.01001\"|arxiv: 2606.01001"], "write the id without v2: arxiv: '2606.01001'")
case("link-arxiv-pdf", "The link goes to the arXiv PDF (with a version) instead of the abstract page.",
     "thunlp/GNNPapers#83; arpitbansal297/Cold-Diffusion-Models#4 (please link the abstract, not the pdf); meta-pytorch/captum#995",
     [(LK, '- https://arxiv.org/pdf/2606.01001v2')],
     "warn-or-refuse", ["https://arxiv.org/abs/2606.01001"], "the abstract page, https://arxiv.org/abs/2606.01001 (published cleaned, or the line to write)")
case("doi-with-prefix", "The DOI written with its doi: prefix.",
     "I2PC/scipion#355 (a BibTeX doi field holding a resolver address); DOIs as cited in reference lists",
     [(AX, AX + '\n  doi: "doi:10.5555/relay.2026"')],
     "refuse-or-clean", ["10.5555/relay.2026"], "write doi: '10.5555/relay.2026' without doi:")
case("title-all-caps", "The title typed in capitals (copied from the PDF's first page).",
     "titles in capitals copied from PDF title pages into lists",
     [(T0, 'title: "RELAY CREDIT: PASSING TEAM REWARDS ALONG TOOL CALLS"  # inside the quotes')],
     "warn-or-refuse", ["capital"], "write the title as the paper's abstract page gives it, not in capitals")
case("author-and-joined", "Two authors on one line joined by 'and' (BibTeX habit).",
     "papis/papis#38 and retorquere/zotero-better-bibtex#33 (BibTeX's 'and' between names)",
     [('- Doe, Jane\n- Roe, Richard', '- Doe, Jane and Roe, Richard')],
     "refuse", ["- Doe, Jane", "- Roe, Richard"], "one author per line: - Doe, Jane / - Roe, Richard")
case("arxiv-colon-typo", "The arXiv id typed with a colon instead of the dot.",
     "typing slip; yaml/pyyaml#395 (colon numbers read as base 60)",
     [(AX, 'arxiv: 2606:01001  # may stay empty if the work has no arXiv id')],
     "refuse", ["2606.01001"], "write arxiv: '2606.01001' (a dot, in quotes)")
case("openreview-hex", "An OpenReview id that looks like a hexadecimal number, unquoted.",
     "jbeder/yaml-cpp#1065, mikefarah/yq#929 (0x values read as numbers)",
     [(AX, AX + '\n  openreview: 0x1Ab2E3c4')],
     "refuse", ["quotes", "0x1Ab2E3c4"], "put the id in quotes: openreview: '0x1Ab2E3c4'")
case("arxiv-old-leading-zero", "An old-style arXiv id starting with 0, unquoted (read as 704.0001).",
     "YAML 1.1 floats; arxiv-unquoted-number's leading-zero variant",
     [(AX, 'arxiv: 0704.0001  # may stay empty if the work has no arXiv id'), (LK, '- https://arxiv.org/abs/0704.0001'),
      ('year: 2026  # a number, without quotes', 'year: 2007  # a number, without quotes'), ('category: rl_method', 'category: classical_marl')],
     "refuse", ["0704.0001", "quotes"], "arxiv: '0704.0001'")
case("title-trailing-space", "A space left at the end of the title inside the quotes.",
     "trailing whitespace in pasted titles",
     [(T0, 'title: "Relay Credit: Passing Team Rewards Along Tool Calls "  # inside the quotes')],
     "clean-or-refuse", ["space"], "published without the space, or told to remove it")
case("good-trailing-spaces", "Spaces left at the end of several lines (outside quotes).",
     "trailing whitespace in web-editor pastes",
     [('year: 2026  # a number, without quotes', 'year: 2026   '), ('venue: "arXiv"  # inside the quotes', 'venue: "arXiv"   '), ('category: rl_method', 'category: rl_method  ')],
     "pass", [], "passes")
case("title-tab-inside", "A tab character inside the quoted title (pasted from a spreadsheet).",
     "tabs pasted from tables",
     [(T0, 'title: "Relay Credit:\tPassing Team Rewards Along Tool Calls"  # inside the quotes')],
     "refuse-or-clean", ["tab"], "replace the tab with a space")
case("title-bom-inside", "A byte-order mark (U+FEFF) pasted at the start of the title inside the quotes.",
     "BOMs carried in by copy from Windows files",
     [(T0, 'title: "\ufeffRelay Credit: Passing Team Rewards Along Tool Calls"  # inside the quotes')],
     "refuse-or-clean", ["invisible|byte-order|zero-width"], "remove the invisible character")
OTHER = rep(good, NOAX + [('key: relay-credit ', 'key: relay-credit-tools '), (AX.replace('"2606.01001"', '""'), 'arxiv: ""\n  doi: "10.5555/relay.2026"'),
                          (T0, 'title: "Relay Credit for Tool-Calling Agents"')])
case("duplicate-same-doi", "A second record of a paper already listed, found by its DOI (no arXiv id).",
     "duplicate entries in awesome-list pull requests (sindresorhus/awesome guidelines: search before adding)",
     NOAX + [(AX.replace('"2606.01001"', '""'), 'arxiv: ""\n  doi: "10.5555/relay.2026"')],
     "refuse", ["relay-credit-tools"], "name the other record and say what to do", also={"corpus/relay-credit-tools.yaml": OTHER})
case("field-name-with-space", "A field name written with a space instead of the underscore (is rl).",
     "field names retyped from the rendered table",
     [("is_rl: 'yes'", "is rl: 'yes'")], "refuse", ["is_rl"], "did you mean is_rl")
case("good-curly-apostrophe", "A curly apostrophe inside a title in straight double quotes (valid).",
     "titles pasted from word processors",
     [(T0, 'title: "Don’t Drop the Credit: Passing Team Rewards Along Tool Calls"  # inside the quotes')],
     "pass", [], "passes, read as typed")
case("year-venue-iclr", "A conference venue with its edition year, and a different year.",
     "issue 54 (years against the venue)",
     NOAX + [('venue: "arXiv"', 'venue: "ICLR 2025"'), ('year: 2026', 'year: 2023')],
     "refuse", ["2025"], "the year of ICLR 2025 is 2025: write year: 2025 or correct the venue")
case("year-venue-aamas", "A venue written 'AAMAS 2024' for a record with year 2026.",
     "issue 54",
     NOAX + [('venue: "arXiv"', 'venue: "AAMAS 2024"')],
     "refuse", ["2024"], "year: 2024 or correct the venue")
case("link-markdown", "A link written in Markdown as [Paper](address), as in an awesome list's README.",
     "awesome lists' README lines pasted into records",
     [(LK, '- [Paper](https://arxiv.org/abs/2606.01001)')],
     "refuse", ["- https://arxiv.org/abs/2606.01001"], "write only the address")
case("link-trailing-paren", "A link with the ')' of the Markdown around it left at its end.",
     "links copied out of Markdown",
     [(LK, '- https://arxiv.org/abs/2606.01001)')],
     "refuse-or-clean", ["https://arxiv.org/abs/2606.01001"], "remove the ) at the end")
case("author-email", "An author's e-mail address written after the name.",
     "author lines copied from the PDF's first page",
     [('- Roe, Richard', '- Roe, Richard (richard.roe@example.org)')],
     "refuse", ["- Roe, Richard"], "remove the address: - Roe, Richard")
case("key-with-space", "The file named with spaces (the title typed as the name).",
     "web-editor file names",
     [('key: relay-credit ', 'key: relay credit ')],
     "refuse", ["relay-credit"], "name the file relay-credit.yaml and write key: relay-credit",
     path="corpus/relay credit.yaml", check="paths")
case("comment-no-space", "A comment glued to the closing quote (no space before #).",
     "comments added to template lines",
     [('venue: "arXiv"  # inside the quotes', 'venue: "arXiv"# the preprint server')],
     "pass", [], "passes with venue arXiv (PyYAML ends the value at the closing quote), or says to put a space before #")
case("scenario-capitalised", "A tag value written with a capital (Coding).",
     "values retyped from the rendered table's labels",
     [('scenario: coding', 'scenario: Coding')], "refuse", ["coding"], "write scenario: coding")
case("subdecisions-emptied", "The {} after subdecisions: deleted (left empty).",
     "template lines emptied",
     [('subdecisions: {}', 'subdecisions:')], "pass-or-refuse", ["{}"], "passes as empty, or says write subdecisions: {}")
case("is-rl-unquoted-no", "is_rl: no without quotes (YAML 1.1's false).",
     "the Norway problem (YAML 1.1 booleans)",
     [("is_rl: 'yes'", "is_rl: no"), ('category: rl_method', 'category: rl_method'), ], "pass-or-refuse", ["'no'"], "read as 'no' (as is_rl: yes is), or write is_rl: 'no'")
case("verified-off", "verified: off (a YAML 1.1 boolean) meaning not verified.",
     "the Norway problem's on/off variants",
     [('verified: partial', 'verified: off')], "refuse", ["verified: 'no'|verified: no"], "write verified: 'no'")
case("added-with-time", "The added date written with a time (copied from git log).",
     "dates with times pasted into date fields",
     [('added: "2026-06-01"  # today', 'added: 2026-06-01 10:30:00  # today')], "refuse", ["2026-06-01"], "write added: '2026-06-01'")
case("year-two-digit", "The year written with two digits.",
     "short years in reference lists",
     [('year: 2026', 'year: 26')], "refuse", ["2026"], "write year: 2026")
case("title-html-entity", "An HTML entity (&amp;) left in the title, copied from a feed.",
     "titles copied from RSS or HTML sources",
     [(T0, 'title: "Relay Credit &amp; Passing Team Rewards Along Tool Calls"  # inside the quotes')],
     "refuse-or-clean", ["&"], "write & (published decoded or told)")
case("link-http-openreview", "An http:// OpenReview link (a host that serves https).",
     "issue 54 (http links upgraded with a warning)",
     [(LK, LK + '\n- http://openreview.net/forum?id=AbCdEf123')],
     "warn-or-refuse", ["https://openreview.net/forum?id=AbCdEf123"], "published as https, with a warning giving the line")

def _str(d, v):
    return d.represent_scalar("tag:yaml.org,2002:str", v, style="|" if "\n" in v else None)
yaml.SafeDumper.add_representer(str, _str)
for c in C:
    name = c.pop("name")
    (out / f"{name}.yaml").write_text(yaml.safe_dump(c, sort_keys=False, allow_unicode=True, width=1000), encoding="utf-8")
print(len(C))
