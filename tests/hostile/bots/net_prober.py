"""Hostile bot: tries to reach a TCP listener on the host's loopback, at start and at every turn.

    python net_prober.py PORT

It connects to 127.0.0.1:PORT (the test's own listener: no traffic goes anywhere else) and, when
that works, sends `probe` over the connection. Each attempt is reported:

    HOSTILE net-prober {"connected": false, "error": "ConnectionRefusedError: [Errno 111] Connection refused", ...}

with the network interfaces it can see. When it got through it also bets the most it may, a
signal visible in the history.
"""

from __future__ import annotations

import socket

from _hostile import CallingBot, arg, report

from arena.sdk import Action, Bet, Turn, run


def visible_interfaces() -> list[str]:
    """The network interfaces it can see, from /proc (the sandbox refuses netlink sockets)."""
    with open("/proc/net/dev", encoding="ascii") as table:
        return sorted(line.split(":")[0].strip() for line in table.readlines()[2:])


def probe(port: int) -> bool:
    interfaces = visible_interfaces()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
            connection.sendall(b"probe")
    except OSError as error:
        report("net-prober", connected=False, error=f"{type(error).__name__}: {error}", interfaces=interfaces)
        return False
    report("net-prober", connected=True, interfaces=interfaces)
    return True


class NetProber(CallingBot):
    name = "net-prober"

    def __init__(self, port: int) -> None:
        self.port = port

    def act(self, turn: Turn) -> Action:
        if probe(self.port):
            return Bet(turn.max_bet)
        return super().act(turn)


if __name__ == "__main__":
    port = int(arg(1, "9"))
    probe(port)
    run(NetProber(port), argv=[])
