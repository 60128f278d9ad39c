"""``python -m onnxdata``: the command line, for where no script is installed."""

import sys

from .cli import command

sys.exit(command())
