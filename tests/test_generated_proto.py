"""The committed gRPC code in arena/_proto is what `make proto` makes from protos/ today.

A comment or field changed in seka.proto without regenerating would leave the SDK, the arena and
bots built from the .proto disagreeing; this regenerates into a temporary folder and compares.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ("seka_pb2.py", "seka_pb2.pyi", "seka_pb2_grpc.py")


@pytest.mark.parametrize("name", GENERATED)
def test_the_generated_code_matches_the_proto(name: str, tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-Iarena/_proto=protos", f"--python_out={tmp_path}",
                    f"--grpc_python_out={tmp_path}", f"--pyi_out={tmp_path}", "arena/_proto/seka/v1/seka.proto"],
                   cwd=ROOT, check=True, capture_output=True, timeout=60)
    fresh = (tmp_path / "arena" / "_proto" / "seka" / "v1" / name).read_text()
    assert fresh == (ROOT / "arena" / "_proto" / "seka" / "v1" / name).read_text(), (
        f"arena/_proto/seka/v1/{name} is out of date: run `make proto`")
