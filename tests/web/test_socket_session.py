"""Reading a client's frame (:func:`kva.web.socketsession.read_frame`), as every WebSocket
endpoint does before it sees a message: the size limit in bytes, text or binary frames, and
each way a frame can fail to be JSON."""

from __future__ import annotations

import pytest

from kva.web.socketsession import BadFrame, read_frame


def test_a_text_or_binary_frame_reads_as_its_json_value() -> None:
    assert read_frame({"type": "websocket.receive", "text": '{"type":"ping"}'}, 64) == {
        "type": "ping"}
    assert read_frame({"type": "websocket.receive", "bytes": b"[1,2]"}, 64) == [1, 2]
    assert read_frame({"type": "websocket.receive", "text": "null"}, 64) is None


@pytest.mark.parametrize("frame", [
    {"text": "x" * 65},
    {"text": "é" * 33},  # 33 characters, 66 bytes: the limit counts bytes
    {"bytes": b"1" * 65},
])
def test_a_frame_over_the_limit_is_too_big(frame: dict[str, object]) -> None:
    with pytest.raises(BadFrame) as bad:
        read_frame({"type": "websocket.receive", **frame}, 64)
    assert bad.value.code == "too_big"
    assert bad.value.message == "a message may be at most 64 bytes"


def test_a_frame_at_the_limit_is_read() -> None:
    assert read_frame({"type": "websocket.receive", "text": '"' + "é" * 31 + '"'}, 64) == (
        "é" * 31)


@pytest.mark.parametrize("frame", [
    {"text": ""},
    {"text": "{not json"},
    {"text": "[" * 5000 + "]" * 5000},  # nested past the parser's depth
    {"bytes": b"\xff\xfe"},  # not UTF-8
    {},  # neither text nor bytes: an empty frame
])
def test_a_frame_that_is_not_json_is_bad_json(frame: dict[str, object]) -> None:
    with pytest.raises(BadFrame) as bad:
        read_frame({"type": "websocket.receive", **frame}, 16 * 1024)
    assert bad.value.code == "bad_json"
