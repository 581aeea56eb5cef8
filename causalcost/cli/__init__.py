"""The ``causalcost`` command line: one subcommand per job, one line and exit 2 on user error."""

from causalcost.cli.app import main

__all__ = ["main"]
