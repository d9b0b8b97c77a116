"""A bot that makes the arena connect, as root, to a unix socket of the host instead of its own.

    python socket_redirector.py /path/of/a/host/socket

Where the arena expects its socket (`$SEKA_BOT_ADDRESS`), it makes a symbolic link to the path it
is given, which the arena resolves on the host, outside the sandbox (the test's own gRPC bot
listens there; on a real machine, a daemon's control socket). It serves nothing itself: it
reports what it did and waits to be stopped.

    HOSTILE redirect {"link": "/tmp/seka-.../bot.sock", "target": "/tmp/.../host.sock"}
"""

from __future__ import annotations

import os
import sys
import time

from _hostile import report

if __name__ == "__main__":
    link = os.environ["SEKA_BOT_ADDRESS"].removeprefix("unix:")
    os.symlink(sys.argv[1], link)
    report("redirect", link=link, target=sys.argv[1])
    time.sleep(60)
