"""Exact names: a query that is a document's name brings that document first, and says so.

A package corpus names its records in their ids (``deb-gimp``), and a reader types the name
(``gimp``); by words alone the companions that repeat it (``gimp-help-en``) outrank it.
"""

from __future__ import annotations

import html

import pytest

from index.schema import id_namespace, name_ids
from tests.conftest import write_jsonl

PACKAGES = [
    {"id": "pkg-gimp", "title": "GNU Image Manipulation Program",
     "summary": "An advanced picture editor: retouch photos, compose images, draw. This is GIMP.", "topics": ["graphics"]},
    {"id": "pkg-gimp-help-en", "title": "Documentation for the GIMP (English)",
     "summary": "The GIMP user manual: GIMP help, GIMP tutorials and GIMP menus explained.", "topics": ["docs"]},
    {"id": "pkg-gimp-data", "title": "Data files for GIMP",
     "summary": "Brushes, palettes and patterns used by GIMP.", "topics": ["graphics"]},
    {"id": "pkg-krita", "title": "Painting program", "summary": "Krita paints, much like GIMP does.", "topics": ["graphics"]},
    {"id": "pkg-docker", "title": "System tray for docklet applications",
     "summary": "Puts the icons of dockapps in a tray.", "topics": ["desktop"]},
    {"id": "pkg-build-essential", "title": "Informational list of build-essential packages",
     "summary": "Lists the packages needed to build software.", "topics": ["devel"]},
    {"id": "pkg-gimpx", "title": "Extra tools", "summary": "Tools for the picture editor.", "topics": ["graphics"]},
    {"id": "pkg-lua5.4", "title": "Simple, extensible, embeddable programming language",
     "summary": "A scripting language for configuration.", "topics": ["devel"]},
    {"id": "pkg-liblua5.4-dev", "title": "Development files for the Lua language version 5.4",
     "summary": "Headers and static library for Lua 5.4, the Lua interpreter of version 5.4.", "topics": ["devel"]},
    {"id": "pkg-lua5.1", "title": "Simple, extensible, embeddable programming language (an older one)",
     "summary": "The scripting language's version 5.1.", "topics": ["devel"]},
    {"id": "pkg-python3.11", "title": "Interactive high-level object-oriented language (version 3.11)",
     "summary": "Python is an interpreted, interactive, object-oriented programming language.", "topics": ["devel"]},
    {"id": "pkg-python3", "title": "Interactive high-level object-oriented language (default version)",
     "summary": "Depends on the default Python 3 version of the release.", "topics": ["devel"]},
    {"id": "pkg-nodejs", "title": "Evented I/O for V8 javascript - runtime executable",
     "summary": "Node.js is a platform built on the V8 engine.", "topics": ["devel"]},
    {"id": "pkg-node-js-yaml", "title": "YAML parser and dumper for node js", "summary": "A node js module.", "topics": ["devel"]},
    {"id": "pkg-fonts-3270", "title": "monospaced font based on IBM 3270 terminals", "summary": "A font.", "topics": ["fonts"]},
    {"id": "pkg-fonts-noto", "title": "metapackage to pull in all Noto fonts", "summary": "Noto fonts.", "topics": ["fonts"]},
    {"id": "pkg-libcurl4-openssl-dev", "title": "development files and documentation for libcurl (OpenSSL flavour)",
     "summary": "Headers for libcurl, the engine of the URL transfer tool.", "topics": ["libdevel"]},
    {"id": "pkg-ruby-curb", "title": "Ruby libcurl bindings", "summary": "Curb binds Ruby to libcurl.", "topics": ["ruby"]},
    {"id": "pkg-libzzz-dev", "title": "development files for zzz", "summary": "Headers for zzz.", "topics": ["libdevel"]},
    {"id": "pkg-devscripts", "title": "scripts for a dev's daily work", "summary": "A dev writes with them.", "topics": ["devel"]},
]


@pytest.mark.parametrize(
    ("ids", "namespace"),
    [
        (["deb-0ad", "deb-gimp", "deb-zzuf"], "deb-"),
        (["doc-100", "doc-150", "doc-199"], "doc-"),  # cut at a separator: the names are 100, 150, 199
        (["deb-gimp-data", "deb-gimp-help", "deb-gimp-plugins"], "deb-"),  # one segment: "gimp data" names the first
        (["introducing-stargate-uk", "accelerate-1-0-0-released", "anthropic-a", "anthropic-b"], ""),
        ([f"deb-{n}" for n in range(50)] + ["gimp2"], "deb-"),  # a stray id leaves it in place
        ([f"deb-{n}" for n in range(50)] + ["gimp2", "vim"], ""),  # more than 1% stray: no namespace
        (["deb-gimp", "deb-vim"], ""),  # too few ids to tell
        (["gimp"], ""),
        ([], ""),
    ],
)
def test_the_namespace_is_what_every_id_shares_up_to_a_separator(ids, namespace):
    assert id_namespace(ids) == namespace


def test_a_name_is_tried_as_typed_lower_cased_and_as_a_slug_with_and_without_the_namespace():
    assert name_ids("Build Essential", "deb-") == ("deb-Build-Essential", "Build-Essential", "deb-build-essential", "build-essential",
                                                   # then two words joined, as "node js" names nodejs
                                                   "deb-BuildEssential", "BuildEssential", "deb-buildessential", "buildessential")
    assert name_ids("deb-vim", "deb-") == ("deb-vim",)
    assert name_ids("Introducing Stargate UK!", "") == ("Introducing-Stargate-UK!", "introducing-stargate-uk!", "introducing-stargate-uk")
    assert name_ids("   ", "deb-") == ()
    assert name_ids("x" * 513, "") == ()
    # Text without a Latin letter or digit has no slug (slugify would write "item"): it names no "item".
    assert "item" not in name_ids("Привет", "") and "item" not in name_ids("___", "")
    # Nor is a letter the slug would drop left out: "β-VAE" does not name "vae" (accents fold: "Café Bar" is "cafe-bar").
    assert "vae" not in name_ids("β-VAE", "") and "cafe-bar" in name_ids("Café Bar", "")
    # Nor a word's "++" or "#": "c++" and "c#" do not name the package "c" (a QA pass); "a+b" is no such word.
    assert name_ids("c++", "deb-") == ("deb-c++", "c++") and "deb-c" not in name_ids("C# compiler", "deb-")
    assert "deb-clang" in name_ids("clang++", "deb-")  # a longer word's is its word's (a regression pass)
    assert "a-b" in name_ids("a+b", "")
    # A text whose slug is longer than an id's is not cut to one (Snapshot.named checks the title instead).
    assert all(len(form) > 80 for form in name_ids("Word, " * 30, ""))


@pytest.fixture(params=["ids in a set", "ids in the term table"])
def packages(request, tmp_path, monkeypatch):
    # A small snapshot checks a set of its ids; a large one (here: as if it were) Whoosh's term table.
    import search.snapshot
    from index.build import build
    from web import create_app

    if request.param == "ids in the term table":
        monkeypatch.setattr(search.snapshot, "IDS_KEPT_DOCS", 0)

    root = tmp_path / "ix"
    build([write_jsonl(tmp_path / "packages.jsonl", PACKAGES)], root=root)
    return root, create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()


def _search(client, **params) -> dict:
    response = client.get("/api/search", query_string=params)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def test_a_package_name_brings_that_package_first_and_the_hit_says_why(packages):
    _, client = packages
    body = _search(client, q="gimp", explain="1")
    hits = body["hits"]
    assert [h["id"] for h in hits[:1]] == ["pkg-gimp"]
    assert hits[0]["matched_by"] == "name" and all(h["matched_by"] == "words" for h in hits[1:])
    # By words its documentation scores more: the order is the name's, and the hit says so.
    assert hits[0]["score"] < hits[1]["score"]
    assert hits[0]["explanation"]["score"] == pytest.approx(hits[0]["score"])
    assert body["total"] == 4 and len({h["id"] for h in hits}) == len(hits)
    for query in ("GIMP", "pkg-gimp", "  gimp  "):
        assert _search(client, q=query)["hits"][0]["id"] == "pkg-gimp", query


def test_words_typed_apart_name_a_hyphenated_package(packages):
    _, client = packages
    first = _search(client, q="build essential")["hits"][0]
    assert (first["id"], first["matched_by"]) == ("pkg-build-essential", "name")


def test_four_digits_after_a_name_are_no_version_of_it(packages):
    # "fonts" named fonts-3270 (a font for IBM 3270 terminals) "Name and version", first of every font (a QA pass).
    _, client = packages
    assert all(hit["matched_by"] != "name" for hit in _search(client, q="fonts")["hits"])
    assert _search(client, q="lua")["hits"][0]["id"] == "pkg-lua5.4"  # a version still names its package


def test_a_name_typed_in_two_words_names_the_package(packages):
    # "node js" did not bring nodejs into the first six of 64k packages: pages saying "node js" came
    # first (a QA pass).  The two words joined are a name, after the two with a hyphen.
    _, client = packages
    for query in ("node js", "Node JS"):
        first = _search(client, q=query)["hits"][0]
        assert (first["id"], first["matched_by"]) == ("pkg-nodejs", "name"), query
    assert name_ids("node js", "pkg-")[:2] == ("pkg-node-js", "node-js")  # the hyphenated form first
    assert "pkg-libssldev" not in name_ids("lib ssl dev", "pkg-")  # two words only


def test_a_version_typed_apart_from_its_name_names_the_package(packages):
    # "lua 5.4" and "php 8.2" did not bring lua5.4 and php8.2 into the first 50 of 64k packages: the
    # text of the versioned library's companions holds both words, the program's neither (a QA pass).
    _, client = packages
    for query in ("lua 5.4", "Lua 5.4", "lua5.4"):
        first = _search(client, q=query)["hits"][0]
        assert (first["id"], first["matched_by"]) == ("pkg-lua5.4", "name"), query
    assert name_ids("python 3.11 dev", "deb-")[-4:-2] == ("deb-python3.11-dev", "python3.11-dev")



def test_a_name_no_package_has_names_its_versioned_package(packages):
    # "apache" put apache2 16th of 64k packages, "sqlite" sqlite3 5th (a QA pass): no package is called
    # that, the one named with a version after it is the program.  A major version is the generic one
    # ("python": python3, not python3.11), else the highest ("lua": lua5.4, not lua5.1).
    _, client = packages
    for query, named in (("lua", "pkg-lua5.4"), ("Lua", "pkg-lua5.4"), ("python", "pkg-python3"), ("PYTHON ", "pkg-python3")):
        first = _search(client, q=query)["hits"][0]
        assert (first["id"], first["matched_by"]) == (named, "name"), query
    # A name a package has is that package ("gimp": not any gimpx); a version alone names nothing.
    assert _search(client, q="gimp")["hits"][0]["id"] == "pkg-gimp"
    assert all(hit["matched_by"] != "name" for hit in _search(client, q="5")["hits"])
    assert all(hit["matched_by"] != "name" for hit in _search(client, q="liblua")["hits"])  # liblua5.4-dev: more after the version

def test_a_name_finds_its_package_even_without_a_word_in_common(packages):
    _, client = packages
    body = _search(client, q="docker")
    assert [(h["id"], h["matched_by"]) for h in body["hits"]] == [("pkg-docker", "name")]
    assert body["total"] == 1 and body["match"] == "all"  # not "no result has all of your words"
    # Why it is first: its name; its text lacks the word, and its explanation says both.
    (hit,) = _search(client, q="docker", explain="1")["hits"]
    assert hit["explanation"]["named"] is True and hit["explanation"]["missing"] == ["docker"]
    page = client.get("/?q=docker&explain=1").get_data(as_text=True)
    assert "its name is what you typed, so it comes first; by its text: score 0.00; missing: docker" in page
    # By listing order or by date it takes its place, and its explanation does not say it is first.
    for sort in ("listing", "newest"):
        (listed,) = _search(client, q="docker", sort=sort, explain="1")["hits"]
        assert "named" not in listed["explanation"], sort
    # Every order lists what the total counts: by listing order too (it listed nothing).
    for sort in ("listing", "newest"):
        listed = _search(client, q="docker", sort=sort)
        assert [h["id"] for h in listed["hits"]] == ["pkg-docker"] and listed["total"] == 1, sort


def test_exclusions_filters_and_other_orders_keep_their_meaning(packages):
    _, client = packages
    # A query with an excluded word asks for words: it names nothing.
    assert all(h["matched_by"] == "words" for h in _search(client, q="gimp -help")["hits"])
    # A filter the package is outside of leaves it out.
    assert "pkg-gimp" not in [h["id"] for h in _search(client, q="gimp", topic="docs")["hits"]]
    # Sorted by listing order, the name does not jump the queue (the hit still says how it matched).
    listed = _search(client, q="gimp", sort="listing")["hits"]
    assert [h["id"] for h in listed] == ["pkg-gimp", "pkg-gimp-help-en", "pkg-gimp-data", "pkg-krita"]


def test_the_named_package_is_on_the_first_page_only(packages):
    _, client = packages
    pages = [_search(client, q="gimp", per_page="1", page=str(n))["hits"] for n in range(1, 5)]
    ids = [hit["id"] for page in pages for hit in page]
    assert ids[0] == "pkg-gimp" and sorted(ids) == sorted(["pkg-gimp", "pkg-gimp-help-en", "pkg-gimp-data", "pkg-krita"])


def test_the_page_shows_the_exact_name(packages):
    _, client = packages
    page = client.get("/?q=gimp").get_data(as_text=True)
    assert "Exact name" in page and page.index("GNU Image Manipulation Program") < page.index("Documentation for the")
    # The name as the reader typed it, not the id with its namespace (it said "pkg-gimp is what you searched for").
    assert "<code>gimp</code>" in page and "<code>pkg-gimp</code>" not in page



def test_the_page_says_when_the_name_found_has_a_version_after_what_was_typed(packages):
    # "python" names python3: "Exact name: … python3, is what you searched for" was not so.
    _, client = packages
    page = client.get("/?q=python").get_data(as_text=True)
    assert "Name and version: this page's name, <code>python3</code>, is what you searched for with a version" in page
    assert "Exact name" not in page
    for q in ("lua5.4", "lua 5.4"):  # typed with its version: the name as typed
        page = client.get("/", query_string={"q": q}).get_data(as_text=True)
        assert "Exact name" in page and "Name and version" not in page, q

def test_updates_keep_names_to_live_documents_and_the_namespace_honest(packages, tmp_path):
    from index.update import update

    root, client = packages
    update(write_jsonl(tmp_path / "del.jsonl", [{"id": "pkg-gimp", "delete": True}]), root)
    assert "pkg-gimp" not in [h["id"] for h in _search(client, q="gimp")["hits"]]
    update(write_jsonl(tmp_path / "add.jsonl", [{**PACKAGES[0], "title": "GIMP, again"}]), root)
    assert _search(client, q="gimp")["hits"][0]["id"] == "pkg-gimp"
    # One new id outside the namespace leaves it in place; it is named by its whole id.
    stray = {"id": "vim", "title": "Vi improved", "summary": "An editor.", "topics": ["editors"]}
    update(write_jsonl(tmp_path / "one.jsonl", [stray]), root)
    assert _search(client, q="gimp")["hits"][0]["matched_by"] == "name"
    assert _search(client, q="vim")["hits"][0]["matched_by"] == "name"
    # A second one is more than a stray: there is no namespace, and only whole ids name documents ...
    update(write_jsonl(tmp_path / "two.jsonl", [{**stray, "id": "emacs"}]), root)
    assert _search(client, q="gimp")["hits"][0]["matched_by"] == "words"
    assert _search(client, q="pkg-gimp")["hits"][0]["matched_by"] == "name"
    # ... until it is deleted again.
    update(write_jsonl(tmp_path / "del2.jsonl", [{"id": "emacs", "delete": True}]), root)
    assert _search(client, q="gimp")["hits"][0]["matched_by"] == "name"


def test_a_hub_title_typed_whole_names_its_event(client):
    first = client.get("/api/search", query_string={"q": "Introducing Stargate UK"}).get_json()["hits"][0]
    assert (first["id"], first["matched_by"]) == ("introducing-stargate-uk", "name")
    # The page says the title was typed, not an id the reader never saw; a misspelt title, its correction.
    page = client.get("/", query_string={"q": "introducing  stargate UK"}).get_data(as_text=True)
    assert "Exact title: this page's title is what you searched for." in page and "<code>introducing-stargate-uk" not in page
    misspelt = client.get("/", query_string={"q": "Introducting Stargate UK"}).get_data(as_text=True)
    assert "Exact title: this page's title is what you searched for, or its correction." in misspelt
    for typed in ('"Introducing Stargate UK"', "Introducing Stargate UK."):  # quoted, or with a full stop
        assert "Exact title:" in client.get("/", query_string={"q": typed}).get_data(as_text=True), typed
    slug = client.get("/", query_string={"q": "introducing-stargate-uk"}).get_data(as_text=True)
    assert "Exact name: this page's name, <code>introducing-stargate-uk</code>, is what you searched for." in slug


def test_a_misspelt_name_names_the_package_its_correction_names(packages):
    _, client = packages
    body = _search(client, q="gimpp")
    assert body["suggestion"]["text"].lower() == "gimp"
    assert (body["hits"][0]["id"], body["hits"][0]["matched_by"]) == ("pkg-gimp", "name")
    page = client.get("/?q=gimpp").get_data(as_text=True)
    assert "Exact name: this page's name, <code>gimp</code>, is" in page and "or its correction" in page
    explanation = _search(client, q="gimpp", explain="1")["hits"][0]["explanation"]
    assert explanation["named"] is True and explanation["named_by_correction"] is True
    assert "its name is your query's correction, so it comes first" in html.unescape(client.get("/?q=gimpp&explain=1").get_data(as_text=True))


def test_a_named_page_is_not_pushed_down_by_a_guide_card(tmp_path):
    from index.build import build
    from web import create_app

    docs = [
        {"id": "hub-stargate", "title": "Stargate", "summary": "A data center programme.", "topics": ["t"]},
        {"id": "hub-about-stargate", "kind": "guide", "title": "About Stargate",
         "summary": "Stargate, the Stargate sites and the Stargate partners: what Stargate is.", "topics": ["t"]},
        {"id": "hub-other", "title": "Other news", "summary": "Nothing about it.", "topics": ["t"]},
    ]
    build([write_jsonl(tmp_path / "hub.jsonl", docs)], root=tmp_path / "ix")
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    # The guide section answers its own words as the card above the hits ...
    assert _search(client, q="stargate sites")["answer"]["id"] == "hub-about-stargate"
    # ... but a query that names a page asks for that page: no card pushes it down.
    body = _search(client, q="stargate")
    assert body["answer"] is None
    assert [(h["id"], h["matched_by"]) for h in body["hits"]] == [("hub-stargate", "name"), ("hub-about-stargate", "words")]


def test_a_typed_name_is_not_corrected_into_another_word(packages):
    _, client = packages
    # "gimpx" is no word of the index, so the speller would offer "gimp"; but it is a package's name.
    body = _search(client, q="gimpx")
    assert body["suggestion"] is None
    assert (body["hits"][0]["id"], body["hits"][0]["matched_by"]) == ("pkg-gimpx", "name")
    page = client.get("/?q=gimpx").get_data(as_text=True)
    assert "Including results for" not in page and "or its correction" not in page


def test_a_long_title_names_its_event_only_when_typed_whole(client):
    # The event's id is its title's slug cut at 80 characters.
    title = "Meta Announces Four MTIA AI Chip Generations in Two Years: MTIA 300–500 Roadmap"
    whole = client.get("/api/search", query_string={"q": title}).get_json()["hits"][0]
    assert whole["id"].startswith("meta-announces-four-mtia") and whole["matched_by"] == "name"
    longer = client.get("/api/search", query_string={"q": title + " is fake news"}).get_json()["hits"]
    assert all(hit["matched_by"] != "name" for hit in longer)


def test_every_package_of_the_debian_sample_is_first_for_its_name(tmp_path):
    # 500 real packages: a Debian user's query is the package name, whatever its words rank.
    import gzip
    import json

    from index.build import build
    from search.params import SearchParams
    from search.service import SearchService
    from tests.conftest import DEBIAN

    build([DEBIAN], root=tmp_path / "ix", semantic=False)
    service = SearchService(tmp_path / "ix")
    with gzip.open(DEBIAN, "rt", encoding="utf-8") as source:
        ids = [json.loads(line)["id"] for line in source]
    assert service.snapshot().id_prefix == "deb-"
    missed = []
    for doc_id in ids:
        first = service.search(SearchParams(q=doc_id.removeprefix("deb-"))).hits[0]
        if (first.id, first.matched_by) != (doc_id, "name"):
            missed.append((doc_id, first.id))
    assert missed == []


def test_excluding_a_name_leaves_out_the_package_it_names(packages):
    # "web browser -chromium" kept deb-chromium first: it holds "chromium" only in its id, the name
    # that "chromium" finds it by (QA pass S).  Excluded, the name leaves it out as a word would.
    _, client = packages
    assert "pkg-docker" in [h["id"] for h in _search(client, q="tray")["hits"]]
    kept = [h["id"] for h in _search(client, q="tray -docker")["hits"]]
    assert "pkg-docker" not in kept
    assert "pkg-gimp" not in [h["id"] for h in _search(client, q="picture editor -gimp")["hits"]]
    assert "pkg-gimpx" in [h["id"] for h in _search(client, q="picture editor -gimp")["hits"]]  # another name


@pytest.mark.parametrize("q", ["gimp -gimp-help-en", "gimp -gimp-data.", "gimp NOT gimp-help-en"])
def test_excluding_a_hyphenated_name_leaves_out_the_package_it_names(packages, q):
    # "selenium webdriver -chromium-driver" kept chromium-driver (64k Debian, a QA pass): only a
    # single word was looked up as a name.
    _, client = packages
    name = "pkg-" + q.split()[-1].removeprefix("-").rstrip(".")
    assert name in [h["id"] for h in _search(client, q="gimp")["hits"]]
    kept = [h["id"] for h in _search(client, q=q)["hits"]]
    assert name not in kept and "pkg-gimp" in kept


@pytest.mark.parametrize("q", ["what is gimp", "tell me about gimp", "gimp explained", "what is the gimp"])
def test_a_name_asked_about_names_its_package(packages, q):
    # "what is gimp", "tell me about gimp" and "gimp explained" put GIMP 47th on the Debian corpus, where
    # "gimp" names it first (a QA pass): the question's words are no part of the name.
    _, client = packages
    first = _search(client, q=q)["hits"][0]
    assert (first["id"], first["matched_by"]) == ("pkg-gimp", "name")
    assert _search(client, q="gimp tutorials")["hits"][0]["matched_by"] == "words"  # a word more is no name


def test_a_misspelt_word_ranks_the_pages_as_its_correction_does(tmp_path):
    # "firefx" searched "firefox" without the meaning of either: its 182 Debian pages tied, listed
    # alphabetically, the browser 107th, where "firefox" puts it first (a QA pass).
    from index.build import build
    from web import create_app

    docs = [{"id": "pkg-firefox-esr", "title": "Mozilla Firefox web browser - Extended Support Release (ESR)",
             "summary": "Firefox ESR is a powerful, extensible web browser with support for modern web application technologies.",
             "topics": ["web"]}]
    for code, language in [("fr", "French"), ("de", "German"), ("is", "Icelandic"), ("fi", "Finnish"), ("ach", "Acoli"), ("af", "Afrikaans")]:
        docs.append({"id": f"pkg-firefox-esr-l10n-{code}", "title": f"{language} language package for Firefox ESR",
                     "summary": f"This package contains the localization of Firefox ESR in {language}.", "topics": ["localization"]})
    build([write_jsonl(tmp_path / "packages.jsonl", docs)], root=tmp_path / "ix")
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    typo, right = _search(client, q="firefx"), _search(client, q="firefox")
    assert typo["suggestion"]["text"] == "firefox"
    assert [h["id"] for h in typo["hits"]] == [h["id"] for h in right["hits"]] and right["hits"][0]["id"] == "pkg-firefox-esr"


def test_a_word_naming_a_package_finds_it_among_the_other_words(packages):
    # "dhex editor" said "Showing results for DEX editor", and without the correction listed other
    # editors, each "Missing: dhex", dhex itself not among the first (a QA pass on the Debian corpus):
    # a word that is a package's name is that package's, as the name typed alone is.
    _, client = packages
    body = _search(client, q="gimpx editor")
    first = body["hits"][0]
    assert first["id"] == "pkg-gimpx" and first["missing"] == [] and body["suggestion"] is None and body["did_you_mean"] is None
    assert all("gimpx" in hit["missing"] for hit in body["hits"][1:])
    # Its explanation says so, as the hit does (it said "missing: gimpx"), and still adds up.
    explanation = _search(client, q="gimpx editor", explain="1")["hits"][0]["explanation"]
    assert explanation["missing"] == [] and {(m["concept"], m["via"]) for m in explanation["matched"]} >= {("gimpx", "name")}
    assert explanation["score"] == pytest.approx(sum(m["score"] for m in explanation["matched"]) + explanation.get("meaning", {}).get("score", 0), abs=1e-3)
    assert "as the page&#39;s name" in client.get("/?q=gimpx+editor&explain=1").get_data(as_text=True)


def test_a_word_naming_a_package_its_text_never_writes_earns_it_the_points_of_a_title_word(packages):
    # "sfeed test" on the Debian corpus listed 3,102 pages holding "test", each "Missing: sfeed", and the
    # package sfeed (its text never says "sfeed") past the 500th: it held the query's rarest word by its
    # name and scored 0 (a regression pass).  "sfeed -test" found nothing.
    _, client = packages
    body = _search(client, q="gimpx language", explain="1")
    first = body["hits"][0]
    assert first["id"] == "pkg-gimpx" and first["missing"] == ["language"], [h["id"] for h in body["hits"]]
    assert all("gimpx" in hit["missing"] for hit in body["hits"][1:])
    part = next(m for m in first["explanation"]["matched"] if m["concept"] == "gimpx")
    assert part["via"] == "name" and part["score"] > 0 and first["score"] > body["hits"][1]["score"]
    assert first["explanation"]["score"] == pytest.approx(first["score"], abs=1e-3)
    assert first["score"] == pytest.approx(sum(m["score"] for m in first["explanation"]["matched"]) + first["explanation"].get("meaning", {}).get("score", 0), abs=1e-3)
    assert [h["id"] for h in _search(client, q="gimpx -language")["hits"]] == ["pkg-gimpx"]


def test_a_name_no_package_has_names_the_one_package_whose_name_ends_with_it(tmp_path):
    # Debian's judged "numpy" and "pip" scored 0: the packages are python3-numpy and python3-pip, and
    # pages mentioning NumPy more often came first.  A word one two-part name ends with names it; one
    # that several end with (lua-yaml, node-yaml) or a name has names nothing more.
    from index.build import build
    from web import create_app

    docs = [{"id": "pkg-python3-numpy", "title": "Fast array facility to the Python 3 language", "summary": "NumPy arrays.", "topics": ["python"]},
            {"id": "pkg-python3-msgpack-numpy", "title": "Serialize NumPy arrays", "summary": "NumPy, NumPy and NumPy with msgpack.", "topics": ["python"]},
            {"id": "pkg-numpy-stl", "title": "STL files with NumPy", "summary": "NumPy NumPy NumPy meshes.", "topics": ["python"]},
            {"id": "pkg-lua-yaml", "title": "YAML for Lua", "summary": "YAML.", "topics": ["lua"]},
            {"id": "pkg-node-yaml", "title": "YAML for Node", "summary": "YAML.", "topics": ["js"]},
            {"id": "pkg-hamradio-training", "title": "Ham radio exam training", "summary": "Training for the exam.", "topics": ["radio"]},
            {"id": "pkg-modeltrain", "title": "Training models", "summary": "Training, training and training.", "topics": ["ml"]}]
    build([write_jsonl(tmp_path / "packages.jsonl", docs)], root=tmp_path / "ix")
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    first = _search(client, q="numpy")["hits"][0]
    assert (first["id"], first["matched_by"]) == ("pkg-python3-numpy", "name")
    assert "Name: this page's name, <code>python3-numpy</code>, ends with what you searched for." in client.get("/?q=numpy").get_data(as_text=True)
    assert all(hit["matched_by"] == "words" for hit in _search(client, q="yaml")["hits"])
    # An English word alone names no package ("training", "history" on Debian); with the first part, yes.
    assert all(hit["matched_by"] == "words" for hit in _search(client, q="training")["hits"])
    assert _search(client, q="hamradio training")["hits"][0]["matched_by"] == "name"
    # Typed after the first part's word: "python requests" was 0 on Debian's judged set too.
    first = _search(client, q="python numpy")["hits"][0]
    assert (first["id"], first["matched_by"]) == ("pkg-python3-numpy", "name")
    assert "ends with what you searched for" in client.get("/?q=python+numpy").get_data(as_text=True)


@pytest.mark.parametrize("ranked", ["with dicts", "with arrays"])
def test_a_part_of_a_package_name_counts_as_a_word_it_holds_among_the_other_words(packages, monkeypatch, ranked):
    # "libcurl dev" on the Debian corpus listed 22 packages on libcurl before libcurl4-openssl-dev, whose
    # text says "development" and whose name says "dev", "Missing: dev"; "java 17 jdk" put openjdk-17-jdk
    # 11th, its text never saying 17 (Debian's judged set).  Ranked with arrays (2,048 candidates or more),
    # such a page had the coverage of a page without the word, and a score below what explain added up
    # (a regression pass: python3-requests-futures 16.42, explained 26.24).
    import search.ranking

    if ranked == "with arrays":
        monkeypatch.setattr(search.ranking, "DENSE_FROM", 1)
    _, client = packages
    body = _search(client, q="libcurl dev", explain="1")
    hits = {hit["id"]: hit for hit in body["hits"]}
    first = body["hits"][0]
    assert first["id"] == "pkg-libcurl4-openssl-dev" and first["missing"] == [], [h["id"] for h in body["hits"]]
    assert hits["pkg-ruby-curb"]["missing"] == ["dev"]
    part = next(m for m in first["explanation"]["matched"] if m["concept"] == "dev")
    assert part["via"] == "name part" and part["score"] > 0
    parts = sum(m["score"] for m in first["explanation"]["matched"]) + first["explanation"].get("meaning", {}).get("score", 0)
    assert first["score"] == pytest.approx(parts, abs=1e-3)
    assert "as a part of the page&#39;s name" in client.get("/?q=libcurl+dev&explain=1").get_data(as_text=True)
    assert first["explanation"]["score"] == pytest.approx(first["score"], abs=1e-3)
    # Only among the pages the other words find: a name's part alone finds nothing.
    assert "pkg-libzzz-dev" not in hits and [hit["id"] for hit in _search(client, q="dev")["hits"]] == ["pkg-devscripts"]
    # Excluded, it leaves those pages out, as it counts for them when asked for, and is not said to be in vain.
    without = _search(client, q="libcurl -dev")
    assert [hit["id"] for hit in without["hits"]] == ["pkg-ruby-curb"] and without["excluded_in_vain"] == []
    # The namespace every name begins with is no part of any: "pkg" is in no page.
    assert all(hit["missing"] == ["pkg"] for hit in _search(client, q="pkg libcurl")["hits"])


def test_a_part_of_an_id_counts_for_nothing_where_ids_have_no_namespace(tmp_path):
    # A hub's ids are its titles' slugs: their words are the titles' already.  Without a namespace shared by
    # every id, an id is no name whose parts count.
    from index.build import build
    from web import create_app

    docs = [{"id": "libcurl4-openssl-dev", "title": "development files for libcurl", "summary": "Headers.", "topics": ["libdevel"]},
            {"id": "ruby-curb", "title": "Ruby libcurl bindings", "summary": "Bindings.", "topics": ["ruby"]}]
    build([write_jsonl(tmp_path / "packages.jsonl", docs)], root=tmp_path / "ix")
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    assert all(hit["missing"] == ["dev"] for hit in _search(client, q="libcurl dev")["hits"])


def test_a_name_s_parts_are_its_words_and_a_one_digit_version_s_letters():
    from index.schema import name_words

    assert name_words("deb-libcurl4-openssl-dev").split() == ["deb", "libcurl4", "openssl", "dev", "libcurl"]
    assert {"python3", "11", "python"} <= set(name_words("deb-python3.11").split())
    assert "g++" in name_words("deb-g++-12").split()
    # Two digits name more often than they number: "amd firmware" put fwupd-amd64-signed first (a regression pass).
    for doc_id, not_a_word in (("deb-fwupd-amd64-signed", "amd"), ("deb-base64", "base"), ("deb-wine32", "wine"), ("deb-libjpeg62", "libjpeg")):
        assert not_a_word not in name_words(doc_id).split(), doc_id


def test_the_page_a_query_names_holds_its_words_its_name_has(packages):
    # "libxml2 dev" names libxml2-dev, whose text says "development files for the GNOME XML library":
    # first, with a score of 0 and "Missing: libxml2, dev" (a regression pass).
    _, client = packages
    first = _search(client, q="libzzz dev", explain="1")["hits"][0]
    assert (first["id"], first["matched_by"], first["missing"]) == ("pkg-libzzz-dev", "name", [])
    assert first["score"] > 0 and {m["via"] for m in first["explanation"]["matched"]} == {"name part"}
