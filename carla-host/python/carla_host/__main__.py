"""``python -m carla_host [options]``: the bundled server in the foreground."""

import sys

from ._server import command_line

sys.exit(command_line())
