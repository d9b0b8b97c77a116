"""A bot that fails at once: it writes a reason to stderr and exits with status 3 before serving."""

import sys

print("exit_bot: cannot start: no model file (this is a test)", file=sys.stderr, flush=True)
sys.exit(3)
