"""Not a bot: how the test bots that bypass the SDK serve, as a bot written from the .proto would."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
READY: Mapping[str, int] = {"": SERVING, "seka.v1.SekaBot": SERVING}
"""What docs/protocol.md asks of a ready bot's health service."""


def serve_forever(add_services: Callable[[grpc.Server], None], *, health_status: Mapping[str, int] | None = READY
                  ) -> None:
    """Serve on $SEKA_BOT_ADDRESS with grpcio's own server until killed. The health service reports
    `health_status` (service name -> status; a name left out is unknown to it: NOT_FOUND); None
    serves no health service at all, so the bot never becomes ready."""
    server = grpc.server(ThreadPoolExecutor(max_workers=4))
    add_services(server)
    if health_status is not None:
        status = health.HealthServicer()
        for name, value in health_status.items():
            status.set(name, value)
        health_pb2_grpc.add_HealthServicer_to_server(status, server)
    server.add_insecure_port(os.environ["SEKA_BOT_ADDRESS"])
    server.start()
    threading.Event().wait()
