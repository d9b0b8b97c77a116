"""docs/protocol.md stays true: its examples parse as the messages they name, its bot is the file."""

from __future__ import annotations

import re

import pytest
from google.protobuf import text_format

from arena._proto.seka.v1 import seka_pb2 as pb

from ._launch import REPO

DOC = (REPO / "docs" / "protocol.md").read_text()
EXAMPLES = re.findall(r"```textproto\n# proto-message: seka\.v1\.(\w+)\n(.*?)```", DOC, re.DOTALL)


def test_the_doc_has_an_example_of_every_call() -> None:
    named = {name for name, _ in EXAMPLES}
    assert {"HelloRequest", "HelloReply", "TurnRequest", "TurnReply", "SvaraOffer", "SvaraReply", "Notice"} <= named
    kinds = {text_format.Parse(body, pb.Notice()).WhichOneof("notice") for name, body in EXAMPLES if name == "Notice"}
    assert kinds == {field.name for field in pb.Notice.DESCRIPTOR.oneofs_by_name["notice"].fields}
    # Every action, the profiles' included, has an example reply.
    replies = {text_format.Parse(body, pb.TurnReply()).WhichOneof("action") for name, body in EXAMPLES
               if name == "TurnReply"}
    assert replies == {field.name for field in pb.TurnReply.DESCRIPTOR.oneofs_by_name["action"].fields}
    # Notices travel inside decision requests: the doc shows it for both kinds of request.
    for request in ("TurnRequest", "SvaraOffer"):
        assert any(text_format.Parse(body, getattr(pb, request)()).notices
                   for name, body in EXAMPLES if name == request)


@pytest.mark.parametrize("name, body", EXAMPLES, ids=[f"{i}-{name}" for i, (name, _) in enumerate(EXAMPLES)])
def test_every_example_parses(name: str, body: str) -> None:
    message = text_format.Parse(body, getattr(pb, name)())  # raises on any unknown field or bad value
    assert message.ByteSize() > 0


def test_the_minimal_bot_in_the_doc_is_the_file() -> None:
    source = (REPO / "sample_bots" / "minimal_bot.py").read_text()
    assert f"```python\n{source}```" in DOC
    assert len(source.splitlines()) <= 25


def test_every_legal_action_field_has_an_example() -> None:
    # The bounds of every action appear in some example, on their own or inside a turn request.
    shown: set[str] = set()
    for name, body in EXAMPLES:
        if name in ("LegalActions", "TurnRequest"):
            message = text_format.Parse(body, getattr(pb, name)())
            legal = message if name == "LegalActions" else message.legal
            shown |= {field.name for field, _ in legal.ListFields()}
    assert shown == {field.name for field in pb.LegalActions.DESCRIPTOR.fields}
