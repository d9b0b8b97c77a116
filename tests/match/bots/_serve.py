"""Not a bot: how the test bots that bypass the SDK serve, as a bot written from the .proto would."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc


def serve_forever(add_services: Callable[[grpc.Server], None], *, ready: bool = True) -> None:
    """Serve on $SEKA_BOT_ADDRESS with grpcio's own server until killed; health reports SERVING
    unless `ready` is false (then the bot never becomes ready)."""
    server = grpc.server(ThreadPoolExecutor(max_workers=4))
    add_services(server)
    if ready:
        status = health.HealthServicer()
        status.set("", health_pb2.HealthCheckResponse.SERVING)
        health_pb2_grpc.add_HealthServicer_to_server(status, server)
    server.add_insecure_port(os.environ["SEKA_BOT_ADDRESS"])
    server.start()
    threading.Event().wait()
