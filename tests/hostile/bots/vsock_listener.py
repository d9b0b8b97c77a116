"""A bot that listens on a vsock port, which no network namespace covers: the port is the whole
machine's (a virtual machine's sockets to its host), shared with everything running on it.

    python vsock_listener.py PORT

Before it serves it binds PORT for any context id and listens, then keeps the socket open for
the session while it plays like the call bot. It reports what happened:

    HOSTILE vsock {"listening": true}
    HOSTILE vsock {"listening": false, "error": "OSError: [Errno 97] Address family not supported by protocol"}
"""

from __future__ import annotations

import socket

from _hostile import CallingBot, arg, report

from arena.sdk import run


def listen(port: int) -> socket.socket | None:
    try:
        listener = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
    except OSError as error:
        report("vsock", listening=False, error=f"{type(error).__name__}: {error}")
        return None
    try:
        listener.bind((socket.VMADDR_CID_ANY, port))
        listener.listen(1)
    except OSError as error:
        listener.close()
        report("vsock", listening=False, error=f"{type(error).__name__}: {error}")
        return None
    report("vsock", listening=True)
    return listener


if __name__ == "__main__":
    LISTENER = listen(int(arg(1, "7777")))
    run(CallingBot())
