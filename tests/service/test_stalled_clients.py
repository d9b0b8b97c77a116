"""A client that stops reading cannot hold the web server's connection (and an event stream's place) for good:
the sockets `serve` listens on have the kernel close a connection whose sent bytes stay unacknowledged for
`web.stalled_client_seconds` (Hypercorn shields its writes from cancellation, so nothing else could)."""

from __future__ import annotations

import select
import socket
import time

from arena.service._serve import _WebConfig


def test_a_connection_whose_client_stopped_reading_is_closed_after_the_stalled_client_seconds() -> None:
    web = _WebConfig(stalled_client_seconds=1)
    web.bind = ["127.0.0.1:0"]
    (listening,) = web.create_sockets().insecure_sockets
    with listening:
        listening.listen()
        with socket.create_connection(listening.getsockname()):  # connects, then never reads
            accepted, _ = listening.accept()
            with accepted:
                accepted.setblocking(False)
                full_since = None
                began = time.monotonic()
                while True:
                    assert time.monotonic() - began < 60, "the stalled connection was never closed"
                    try:
                        accepted.send(b"x" * 65536)
                    except BlockingIOError:  # the client's window and our buffer are full
                        full_since = full_since or time.monotonic()
                        select.select([], [accepted], [accepted], 0.2)
                    except TimeoutError:
                        break
                assert full_since is not None
                assert 0.9 <= time.monotonic() - full_since < 30
