"""The `retrograde` command and `python -m retrograde`. A Ctrl-C that comes while the command line
interface is still loading (click, the CLI's modules: a few tenths of a second) ends as one that
comes later does, in one line and exit 130, never in a traceback."""

import sys


def main() -> None:
    try:
        from retrograde.cli import main as run_command
    except BaseException as exc:
        from retrograde.errors import interrupted

        if interrupted(exc):
            sys.stderr.write("retrograde: error: interrupted\n")
            sys.exit(130)
        raise
    run_command()


if __name__ == "__main__":
    main()
