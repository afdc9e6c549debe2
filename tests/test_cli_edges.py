"""Command-line edges (issue 26): a position that starts with '-' goes after '--', and Ctrl-C
ends a command with exactly one line on stderr, no blank line before it."""

from __future__ import annotations

import sys

import pytest

import reference as ref
from processes import run

NIM = {"heaps": [1, 3, 5, 7]}


def test_a_position_after_a_double_dash_is_never_an_option(solved, cli):
    """`probe --store S -- P` reads P as a position even when it starts with '-' (a negative
    heap: one line naming it, exit 2); the help says so."""
    store = str(solved("nim", NIM))
    code, stdout, stderr = cli("probe", "--store", store, "--", "-1,3,5,7")
    assert code == 2 and stdout == "" and "No such option" not in stderr
    assert stderr.splitlines() == ["retrograde: error: nim position '-1,3,5,7': heap 1 holds -1, allowed 0..1"]
    outcome, remoteness = ref.NimReference().solve((1, 3, 5, 7))
    code, stdout, _ = cli("probe", "--store", store, "--", "1,3,5,7")
    assert code == 0 and outcome == ref.LOSS and stdout.startswith(f"1,3,5,7: loss in {remoteness}\n")
    code, stdout, _ = cli("probe", "--help")
    assert code == 0 and "--store S -- -1,3,5,7" in " ".join(stdout.split())


#: Runs the CLI with Ctrl-C arriving while verify reads its first chunk (deterministic).
CTRL_C_IN_VERIFY = """
import os, signal, time
from retrograde.data.store import Store
read = Store._chunk_files
def interrupted(self, *args, **kwargs):
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(1.0)
    return read(self, *args, **kwargs)
Store._chunk_files = interrupted
from retrograde.cli import main
main()
"""


@pytest.mark.parametrize("quiet", [(), ("--quiet",)])
def test_ctrl_c_says_one_line_and_nothing_else(solved, tmp_path, quiet):
    """stderr (a file, not a terminal) holds the one line and nothing more: no blank line."""
    done = run(["verify", "--store", str(solved("tictactoe")), "--workers", "0", *quiet], tmp_path / "logs",
               command=[sys.executable, "-c", CTRL_C_IN_VERIFY], timeout=120)
    assert done.returncode == 130, done.stderr
    assert done.stderr == "retrograde: error: interrupted; verify keeps no progress: rerun it to check again\n"
