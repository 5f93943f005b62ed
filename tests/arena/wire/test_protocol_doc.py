"""docs/protocol.md tells the truth: its example exchange is what the code sends, every JSON
example decodes as its protocol type with nothing left over, and its signature examples and
verification code agree with the arena's signing."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, get_args

import msgspec
import pytest

from arena.client import signing
from arena.wire.faults import FAULT_KINDS
from arena.wire.protocol import (
    ActRequest,
    ActResponse,
    BotInfo,
    EndRequest,
    StartRequest,
)
from engine.events import Event, HandStarted
from engine.observe import Observation
from tests.arena.wire import protocol_doc
from tests.conftest import ROOT

DOC_TEXT = protocol_doc.DOC.read_text()


def test_the_example_exchange_is_what_the_code_produces() -> None:
    found = protocol_doc.blocks(DOC_TEXT)
    wanted = protocol_doc.examples()
    assert set(found) == set(wanted), "an example block is missing from docs/protocol.md"
    for name, text in wanted.items():
        assert found[name] == text, (
            f"docs/protocol.md example {name!r} drifted from the code; rewrite the blocks with "
            "`python -m tests.arena.wire.protocol_doc --write`"
        )


@pytest.mark.parametrize("name", sorted(protocol_doc.TYPES))
def test_each_json_example_decodes_as_its_protocol_type(name: str) -> None:
    text = protocol_doc.blocks(DOC_TEXT)[name]
    decoded = msgspec.json.decode(text.encode(), type=protocol_doc.TYPES[name])
    # nothing in the example is ignored or invented: it encodes back to the same JSON
    assert json.loads(msgspec.json.encode(decoded)) == json.loads(text)


def _signed_start() -> tuple[dict[str, str], bytes]:
    lines = protocol_doc.blocks(DOC_TEXT)["signed_start"].splitlines()
    blank = lines.index("")
    headers = dict(line.split(": ", 1) for line in lines[1:blank])
    return headers, lines[blank + 1].encode()


def test_the_signed_request_in_the_page_verifies_with_the_page_secret() -> None:
    headers, body = _signed_start()
    signing.verify(protocol_doc.SECRET, headers, body, now=protocol_doc.TIMESTAMP)
    with pytest.raises(signing.BadSignature):
        signing.verify(protocol_doc.SECRET, headers, body + b" ", now=protocol_doc.TIMESTAMP)
    with pytest.raises(signing.StaleTimestamp):
        signing.verify(protocol_doc.SECRET, headers, body, now=protocol_doc.TIMESTAMP + 301)


def _genuine() -> Callable[..., bool]:
    code = re.search(r"```python\n(import base64.*?def genuine.*?)```", DOC_TEXT, re.S)
    assert code is not None, "the standard-library verifier is missing from docs/protocol.md"
    namespace: dict[str, Any] = {}
    exec(compile(code[1], "docs/protocol.md", "exec"), namespace)
    genuine: Callable[..., bool] = namespace["genuine"]
    return genuine


def test_the_verifier_in_the_page_follows_the_steps() -> None:
    genuine = _genuine()
    headers, body = _signed_start()
    old = 10**10  # the page's timestamp is in the past: widen the window to test the HMAC
    assert genuine(protocol_doc.SECRET, headers, body, tolerance=old)
    assert not genuine(protocol_doc.SECRET, headers, body), "a stale request must be refused"
    assert not genuine(protocol_doc.SECRET, headers, body + b" ", tolerance=old)
    assert not genuine(signing.generate_secret(), headers, body, tolerance=old)
    right = headers["webhook-signature"]
    wrong = signing.sign(signing.generate_secret(), "msg_x", 1, body)["webhook-signature"]
    # key rotation: several signatures, any matching one is enough, in any position
    for both in (f"{wrong} {right}", f"{right} {wrong}", f"v2,abc {right}"):
        assert genuine(protocol_doc.SECRET, {**headers, "webhook-signature": both}, body, old)
    for bad in ("", wrong, "v1,ñandú", right.replace("v1,", "v2,")):
        assert not genuine(protocol_doc.SECRET, {**headers, "webhook-signature": bad}, body, old)
    assert not genuine(protocol_doc.SECRET, {**headers, "webhook-timestamp": "１２"}, body, old)
    upper = {name.upper(): value for name, value in headers.items()}
    assert genuine(protocol_doc.SECRET, upper, body, tolerance=old)


def test_the_standard_webhooks_vector_in_the_page_is_right() -> None:
    vector = re.search(
        r"secret `(whsec_\S+)`, id\s+`(msg_\S+)`, timestamp `(\d+)`, body `(.+?)` give\s+`(v1,\S+)`",
        DOC_TEXT,
    )
    assert vector is not None
    secret, msg_id, stamp, body, expected = vector.groups()
    assert signing.signature(secret, msg_id, int(stamp), body) == expected


def test_the_docs_never_send_a_reader_outside_the_repository() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    pages += sorted((ROOT / "examples").rglob("*.md"))
    for page in pages:
        text = page.read_text()
        assert "../shared" not in text and "shared/" not in text, page
        for target in re.findall(r"\]\(([^)#]+)", text):
            if not target.startswith(("http://", "https://", "mailto:")):
                assert (page.parent / target).resolve().exists(), f"{page}: broken link {target}"


def test_every_field_and_event_of_the_protocol_is_described() -> None:
    structs = (BotInfo, StartRequest, ActRequest, ActResponse, EndRequest, Observation)
    for struct in structs:
        for name in struct.__struct_fields__:
            assert f"`{name}`" in DOC_TEXT, f"{struct.__name__}.{name} is not in docs/protocol.md"
    for event in get_args(Event):
        if event is HandStarted:  # it holds the deal: a seat never sees it
            continue
        assert f"| `{event.__struct_config__.tag}` |" in DOC_TEXT, event.__name__
    for kind in FAULT_KINDS:
        assert f"| `{kind}` |" in DOC_TEXT, kind
