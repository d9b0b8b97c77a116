"""Checks of a written report as files: well-formed HTML, no external URL, every internal link resolves."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Elements whose end tag HTML lets a page leave out; the report always writes them, so none is optional here.
URL_ATTRIBUTES = {"href", "src", "action", "data", "poster", "xlink:href", "formaction"}
_CSS_URL = re.compile(r"url\(\s*['\"]?([^'\")]+)")


@dataclass
class Page:
    """What one page holds: its links and ids, and every problem of form found in it."""

    path: Path
    links: list[str] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)


class _Parser(HTMLParser):
    def __init__(self, page: Page) -> None:
        super().__init__(convert_charrefs=True)
        self.page = page
        self.open: list[tuple[str, tuple[int, int]]] = []
        self.in_svg = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attributes(tag, attrs)
        if tag == "svg":
            self.in_svg += 1
        if tag not in VOID:
            self.open.append((tag, self.getpos()))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attributes(tag, attrs)  # <x/>: fine in SVG and for void elements
        if tag not in VOID and not self.in_svg:
            self.page.problems.append(f"{self.getpos()}: <{tag}/> outside SVG")

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            self.page.problems.append(f"{self.getpos()}: end tag of void element {tag}")
            return
        if not self.open or self.open[-1][0] != tag:
            expected = self.open[-1] if self.open else None
            self.page.problems.append(f"{self.getpos()}: </{tag}> closes {expected}")
            return
        self.open.pop()
        if tag == "svg":
            self.in_svg -= 1

    def handle_data(self, data: str) -> None:
        if self.open and self.open[-1][0] == "style":
            self.page.links.extend(_CSS_URL.findall(data))

    def _attributes(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = [name for name, _ in attrs]
        if len(names) != len(set(names)):
            self.page.problems.append(f"{self.getpos()}: <{tag}> repeats an attribute: {names}")
        for name, value in attrs:
            if name == "id" and value is not None:
                if value in self.page.ids:
                    self.page.problems.append(f"{self.getpos()}: duplicate id {value!r}")
                self.page.ids.add(value)
            if name in URL_ATTRIBUTES and value is not None:
                self.page.links.append(value)
            if name == "style" and value:
                self.page.links.extend(_CSS_URL.findall(value))


def read_page(path: Path) -> Page:
    """Parse one page, recording what is malformed (unclosed, misnested or stray tags, duplicate ids)."""
    page = Page(path)
    text = path.read_text(encoding="utf-8")
    if not text.lower().startswith("<!doctype html>"):
        page.problems.append("no <!doctype html> first")
    parser = _Parser(page)
    parser.feed(text)
    parser.close()
    if parser.open:
        page.problems.append(f"unclosed: {parser.open}")
    return page


def check_site(root: Path) -> list[str]:
    """Every problem of the report under `root`: malformed pages, external URLs, links that resolve to nothing."""
    problems: list[str] = []
    pages = {path.resolve(): read_page(path) for path in sorted(root.rglob("*.html"))}
    links: list[tuple[Path, str]] = []
    for path, page in pages.items():
        problems.extend(f"{path.relative_to(root.resolve())}: {problem}" for problem in page.problems)
        links.extend((path, link) for link in page.links)
    for css in sorted(root.rglob("*.css")):
        links.extend((css.resolve(), link) for link in _CSS_URL.findall(css.read_text(encoding="utf-8")))
    for source, link in links:
        where = f"{source.relative_to(root.resolve())}: {link!r}"
        parts = urlsplit(link)
        if parts.scheme or parts.netloc or link.startswith("//"):
            problems.append(f"{where}: an external URL")
            continue
        target = (source.parent / unquote(parts.path)).resolve() if parts.path else source
        if not target.is_relative_to(root.resolve()):
            problems.append(f"{where}: leaves the report")
        elif not target.is_file():
            problems.append(f"{where}: no such file")
        elif parts.fragment and target.suffix == ".html" and parts.fragment not in pages[target].ids:
            problems.append(f"{where}: no element with id {parts.fragment!r}")
    return problems


@dataclass
class Node:
    """An element of a parsed page: enough of a DOM to find elements by attribute and read their text."""

    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(child if isinstance(child, str) else child.text for child in self.children)

    def find_all(self, tag: str | None = None, **attrs: str | None) -> list[Node]:
        """Every element below (and including) this one with the tag and attributes given
        (`data_bot="call"` means data-bot="call", `class_` class; None means the attribute is present)."""
        wanted = {name.rstrip("_").replace("_", "-"): value for name, value in attrs.items()}
        found = []
        if (tag is None or self.tag == tag) and all(
                name in self.attrs and (value is None or self.attrs[name] == value) for name, value in wanted.items()):
            found.append(self)
        for child in self.children:
            if isinstance(child, Node):
                found.extend(child.find_all(tag, **attrs))
        return found

    def find(self, tag: str | None = None, **attrs: str | None) -> Node:
        found = self.find_all(tag, **attrs)
        assert len(found) == 1, (tag, attrs, len(found))
        return found[0]


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {name: value or "" for name, value in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {name: value or "" for name, value in attrs}))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        while len(self.stack) > 1:
            if self.stack.pop().tag == tag:
                break

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(path: Path) -> Node:
    """A page as a tree of `Node`s."""
    builder = _TreeBuilder()
    builder.feed(path.read_text(encoding="utf-8"))
    builder.close()
    return builder.root
