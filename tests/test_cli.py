"""End-to-end CLI runs on small games: every command, bad input of every kind, a position that
starts with '-' (after '--'), and Ctrl-C ending a command with exactly one line on stderr."""

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import zarr

import reference as ref
from conftest import run_cli, store_bytes
from processes import assert_one_error_line, run

NIM = {"heaps": [1, 3, 5, 7]}


def test_games_lists_games_and_options():
    result = run_cli("games")
    assert result.returncode == 0
    assert "nim:" in result.stdout and "--max-take" in result.stdout and "tictactoe:" in result.stdout


def test_solve_status_probe_verify_nim(tmp_path):
    store = tmp_path / "nim.zarr"
    solve = run_cli("solve", "nim", "--heaps", "1,3,5,7", "--store", str(store), "--workers", "0")
    assert solve.returncode == 0, solve.stderr
    assert "solve:" in solve.stderr and "positions" in solve.stderr  # progress was shown
    assert solve.stderr.startswith("plan: 384 positions; about ")  # the estimate, before the solve
    status = json.loads(run_cli("status", "--store", str(store), "--json").stdout)
    assert status["game"] == "nim" and status["params"] == {"heaps": [1, 3, 5, 7], "max_take": None,
                                                             "misere": False}
    assert status["complete"] is True
    assert sum(t["size"] for t in status["tiers"]) == 2 * 4 * 6 * 8
    assert sum(t["win"] + t["loss"] + t["draw"] for t in status["tiers"]) == 2 * 4 * 6 * 8
    assert all(t["status"] == "solved" and t["draw"] == 0 for t in status["tiers"])
    probe = json.loads(run_cli("probe", "--store", str(store), "--json", "1,3,5,7").stdout)
    assert probe["value"] == "loss" and probe["remoteness"] == 16 and len(probe["moves"]) == 16
    assert all(move["value"] == "loss" for move in probe["moves"])
    # The result is said on stdout: the value of the start position (XOR 1^3^5^7 = 0: a loss for
    # the side to move, in 16 plies: one object at a time), the time taken and the store.
    assert solve.stdout.startswith("nim --heaps 1,3,5,7: the first player loses in 16 plies; solved in 0:00:")
    assert solve.stdout.rstrip().endswith(f"store {store}")
    again = run_cli("solve", "nim", "--heaps", "1,3,5,7", "--store", str(store))
    assert again.returncode == 0 and "already solved" in again.stdout and again.stderr == ""
    assert run_cli("verify", "--store", str(store)).returncode == 0


def test_probe_json_follows_spec(solved):
    store = solved("tictactoe")
    result = run_cli("probe", "--store", str(store), "--json", "xx./oo./... x", "xxx/oo./... o")
    assert result.returncode == 0, result.stderr
    first, terminal = map(json.loads, result.stdout.splitlines())
    assert first["game"] == "tictactoe" and first["position"] == "xx./oo./... x"
    assert (first["value"], first["remoteness"]) == ("win", 1)
    moves = {m["move"]: m for m in first["moves"]}
    assert set(moves) == {"c1", "c2", "a3", "b3", "c3"}
    assert (moves["c1"]["value"], moves["c1"]["remoteness"], moves["c1"]["position"]) == ("win", 1, "xxx/oo./... o")
    assert moves["c2"]["value"] == "draw" and moves["c2"]["remoteness"] is None
    assert (moves["a3"]["value"], moves["a3"]["remoteness"]) == ("loss", 2)
    assert terminal == {"game": "tictactoe", "position": "xxx/oo./... o", "value": "loss", "remoteness": 0,
                        "moves": []}


@pytest.mark.parametrize("name, params", [("tictactoe", None), ("quixo", {"size": 3}), ("nim", NIM)])
def test_probe_json_lines_are_what_json_dumps_writes(open_solved, name, params):
    """`probe --json` writes its lines from the batch's arrays (`probing.json_lines`): the text
    json.dumps gives for each analysis, on a seeded sample of every game's positions (draws,
    finished positions and a name to quote included)."""
    from retrograde.data.probing import analyse, json_lines

    store = open_solved(name, params)
    rng = np.random.default_rng(4)
    tier = [store.game.tier(t.name) for t in store.plan.tiers]
    positions = []
    for t in tier:
        for index in rng.choice(t.size, size=min(t.size, 40), replace=False).tolist():
            position = store.game.position_at(t, index)
            if position is not None:
                positions.append(position)
    assert len(positions) > 50
    assert json_lines(store, positions) == [json.dumps(a.to_json(store.game)) for a in analyse(store, positions)]


def test_probe_reads_positions_from_stdin(solved):
    store = solved("nim", NIM)
    lines = [f"{a},{b},{c},{d}" for a in range(2) for b in range(4) for c in range(6) for d in range(8)]
    for args in ((), ("-",)):
        result = run_cli("probe", "--store", str(store), "--json", *args, input="\n".join(lines) + "\n\n")
        assert result.returncode == 0, result.stderr
        answers = [json.loads(line) for line in result.stdout.splitlines()]
        assert [a["position"] for a in answers] == lines
        for answer in answers:
            heaps = [int(h) for h in answer["position"].split(",")]
            xor = heaps[0] ^ heaps[1] ^ heaps[2] ^ heaps[3]
            assert answer["value"] == ("win" if xor else "loss")


def test_probe_text_output(solved):
    result = run_cli("probe", "--store", str(solved("nim", NIM)), "0,0,0,2")
    assert result.returncode == 0
    assert result.stdout.splitlines()[0] == "0,0,0,2: win in 1"
    assert any(line.split()[:4] == ["4-2", "win", "in", "1"] for line in result.stdout.splitlines())


def test_status_of_a_partial_store(tmp_path, solved):
    store = tmp_path / "partial.zarr"
    shutil.copytree(solved("tictactoe"), store)
    group = zarr.open_group(str(store / "tiers" / "k3"), mode="r+")
    attrs = dict(group.attrs)
    group.attrs.put({"tier": "k3", "place": attrs["place"], "status": "pending", "chunks": [None] * len(attrs["chunks"])})
    status = json.loads(run_cli("status", "--store", str(store), "--json").stdout)
    assert status["complete"] is False
    k3 = next(t for t in status["tiers"] if t["name"] == "k3")
    assert k3["status"] == "pending" and k3["win"] == 0 and k3["positions_done"] == 0
    text = run_cli("status", "--store", str(store)).stdout.splitlines()
    # 6,046 indexed boards, 252 of them in k3: 5,794 done (95.8%), 9 of 10 tiers.
    assert text[0] == f"tictactoe in {store}: incomplete: 5,794 of 6,046 positions solved (95.8%), 9 of 10 tiers"
    # What finishing takes, as `solve` would print it before it resumes.
    assert text[1].startswith("to finish: 6,046 positions (252 still to solve); about ") and " per worker (" in text[1]
    assert text[2].split() == ["tier", "indexed", "positions", "status", "chunks", "win", "loss", "draw"]
    assert any(line.split()[:4] == ["k3", "252", "0", "pending"] for line in text)
    # 5,478 legal positions in all (FACTS.md), less the 252 of k3 not solved yet.
    assert next(line for line in text if line.split()[0] == "total").split()[:4] == \
        ["total", "6,046", "5,226", "incomplete"]
    assert any(line.startswith("Tiers: k{n} holds the boards with n marks") for line in text)
    verify = run_cli("verify", "--store", str(store))
    assert verify.returncode == 3 and "INCOMPLETE" in verify.stdout and "k3" in verify.stdout
    probe = run_cli("probe", "--store", str(store), "x../o../x.. o")
    assert probe.returncode != 0 and "tier k3 is not solved" in probe.stderr
    resume = run_cli("solve", "tictactoe", "--store", str(store))
    assert resume.returncode == 0
    assert store_bytes(store) == store_bytes(solved("tictactoe"))


def test_verify_finds_corruption(tmp_path, solved):
    store = tmp_path / "bad.zarr"
    shutil.copytree(solved("tictactoe"), store)
    remoteness = zarr.open_array(str(store / "tiers" / "k5" / "remoteness"), mode="r+")
    values = remoteness[:]
    values[np.flatnonzero(values)[0]] += 2
    remoteness[:] = values
    result = run_cli("verify", "--store", str(store))
    assert result.returncode == 1
    assert "FAILED" in result.stdout and "INCOMPLETE" not in result.stdout and "1 wrong" in result.stdout and "1 bad checksums" in result.stdout
    assert "k5[" in result.stdout


def test_status_of_a_complete_store_has_totals_and_the_value(solved):
    result = run_cli("status", "--store", str(solved("tictactoe")))
    lines = result.stdout.splitlines()
    assert lines[0].endswith(": complete")
    # FACTS.md: 5,478 positions reachable from the empty board; 958 finished; perfect play draws.
    total = next(line for line in lines if line.split()[0] == "total").split()
    assert total[:5] == ["total", "6,046", "5,478", "complete", "10/10"]
    assert lines[-1] == "Value: a draw with perfect play."


def test_no_arguments_prints_the_help(tmp_path):
    result = run_cli(cwd=tmp_path)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("Usage: retrograde") and "retrograde run --help" in result.stdout
    assert len(result.stdout.splitlines()) > 10


def test_run_lists_the_workflows(tmp_path):
    help_text = run_cli("run", "--help").stdout
    assert "Workflows:" in help_text and "quixo4" in help_text and "nim-bounded" in help_text
    missing = run_cli("run", cwd=tmp_path)
    check_one_line_error(missing, 2, "run needs a workflow: nim, nim-bounded, tictactoe, quixo3, quixo4")


def test_run_workflow_and_rerun(tmp_path):
    out = tmp_path / "results"
    first = run_cli("run", "tictactoe", "--out", str(tmp_path / "results"), "--workers", "0")
    assert first.returncode == 0, first.stderr
    result, where = first.stdout.splitlines()
    assert result.startswith("tictactoe: a draw with perfect play; plan, solve, verify, train, validate done in 0:")
    out = out / "tictactoe"  # --out DIR keeps the default layout: DIR/WORKFLOW
    assert result.endswith(f"results in {out}") and where == f"report: {out / 'report' / 'report.html'}"
    state = json.loads((out / "workflow.json").read_text())
    assert state["stages"] == {stage: "done" for stage in ("plan", "solve", "verify", "train", "validate")}
    seconds = json.loads((out / "timings.json").read_text())["stages_s"]  # each stage's wall seconds
    assert list(seconds) == ["solve", "verify", "train", "validate"] and all(s > 0 for s in seconds.values())
    assert json.loads((out / "verify.json").read_text())["ok"] is True
    report = json.loads((out / "report" / "report.json").read_text())
    assert report["agents"]["lookup"]["move_quality"]["value_kept"] == 1.0
    assert f"rl:params={out}/rl.npz" in report["agents"]
    def written():
        return store_bytes(out / "store.zarr"), store_bytes(out / "report"), (out / "rl.npz").read_bytes()

    before = written()
    second = run_cli("run", "tictactoe", "--out", str(tmp_path / "results"))
    assert second.returncode == 0 and "solve:" not in second.stderr and "tournament" not in second.stderr
    assert written() == before
    # The plan line first, on stderr; a rerun with every stage done has nothing to do.
    assert first.stderr.splitlines()[0] == (f"run tictactoe on tictactoe: solve, verify, train rl, validate 7 agents "
                                            f"-> {out} (0 of 5 stages done)")
    assert second.stderr.splitlines() == [f"run tictactoe on tictactoe: nothing to do, every stage is done "
                                          f"(plan, solve, verify, train, validate); results in {out}"]
    assert second.stdout.splitlines() == [f"tictactoe: a draw with perfect play; nothing to do, every stage was done "
                                          f"before, results in {out}", where]


def test_run_says_its_plan_before_it_starts(tmp_path):
    """`run`'s plan line names the stages still to do, from what workflow.json records."""
    out = tmp_path / "quixo3"
    first = run_cli("run", "quixo3", "--out", str(tmp_path), "--workers", "0")
    assert first.returncode == 0, first.stderr
    assert first.stderr.splitlines()[0] == f"run quixo3 on quixo --size 3: solve, verify -> {out} (0 of 3 stages done)"
    state = json.loads((out / "workflow.json").read_text())
    (out / "workflow.json").write_text(json.dumps(dict(state, stages={"plan": "done", "solve": "done"})))
    again = run_cli("run", "quixo3", "--out", str(tmp_path), "--workers", "0")
    assert again.stderr.splitlines()[0] == f"run quixo3 on quixo --size 3: verify -> {out} (2 of 3 stages done)"
    assert "verify: ok" in again.stderr and "solve:" not in again.stderr
    quiet = run_cli("run", "quixo3", "--out", str(tmp_path), "--quiet")
    assert quiet.stderr == "" and "nothing to do" in quiet.stdout


# --- bad input: one line on stderr, exit status, no traceback, nothing changed ------------
BAD_SOLVES = [
    (("solve", "chess"), 2, "unknown game 'chess'"),
    (("solve",), 2, "solve needs a game"),
    (("solve", "nim"), 2, "Missing option '--heaps'"),
    (("solve", "nim", "--heaps", "-1,3"), 2, "heap sizes must be >= 1"),
    (("solve", "nim", "--heaps", ""), 2, "--heaps ''"),
    (("solve", "nim", "--heaps", "1,,3"), 2, "separated by commas"),
    (("solve", "nim", "--heaps", "1,3", "--max-take", "0"), 2, "--max-take 0"),
    (("solve", "nim", "--heaps", "1,3", "--max-take", "x"), 2, "'--max-take': 'x' is not a valid integer"),
    (("solve", "nim", "--heaps", "1,3", "--chunk-size", "6"), 2, "multiple of 4"),
    (("solve", "nim", "--heaps", "1,3", "--workers", "-1"), 2, "--workers -1"),
    (("solve", "tictactoe", "--bogus"), 2, "No such option"),
    (("frobnicate",), 2, "No such command"),
    (("run", "nowhere"), 2, "unknown workflow 'nowhere'"),
    (("solve", "quixo", "--size", "6"), 2, "--size 6: Quixo is played on 3x3, 4x4 or 5x5 boards"),
    (("solve", "quixo", "--size", "x"), 2, "'--size': 'x' is not a valid integer"),
    (("solve", "quixo"), 2, "Missing option '--size'"),
    (("solve", "quixo", "--size", "5", "--down-to", "26"), 2, "--down-to 26: must be between 0 and 25"),
    (("solve", "quixo", "--size", "4", "--down-to", "-2"), 2, "--down-to -2"),
    # The whole of 5x5 Quixo (847 billion positions) fits no ordinary machine: refused before
    # anything is written, with the estimate and the ways on.
    (("solve", "quixo", "--size", "5"), 2, "quixo --size 5: 847,288,609,443 positions need "),
    (("solve", "quixo", "--size", "5"), 2, "solve part of it with --down-to N"),
    (("solve", "quixo", "--size", "5"), 2, "pass --force to start anyway"),
]


def check_one_line_error(result, code, message):
    assert result.returncode == code, (result.returncode, result.stderr)
    assert_one_error_line(result.stderr, message)


@pytest.mark.parametrize("args,code,message", BAD_SOLVES)
def test_bad_solve_options(tmp_path, args, code, message):
    store = tmp_path / "s.zarr"
    extra = () if args[0] in ("frobnicate", "run") or args == ("solve",) else ("--store", str(store))
    result = run_cli(*args, *extra, cwd=tmp_path)
    check_one_line_error(result, code, message)
    assert not store.exists() and not (tmp_path / "retrograde-out").exists()


BAD_ON_STORE = [
    ("tictactoe", ("probe", "xx/oo/.."), 2, "3 rows of 3 cells"),
    ("tictactoe", ("probe", "x../.q./..."), 2, "bad cell 'q'"),
    ("tictactoe", ("probe", "xx./.../..."), 2, "2 x and 0 o is impossible"),
    ("tictactoe", ("probe", "xxx/ooo/..."), 2, "both sides have a line"),
    ("tictactoe", ("probe", "x../.../... x"), 2, "o's turn"),
    ("nim", ("probe", "1,3,5,8"), 2, "heap 4 holds 8, allowed 0..7"),
    ("nim", ("probe", "1,3,5"), 2, "3 heaps, the instance has 4"),
    ("nim", ("probe", "1,3,5,7", "9,9,9,9"), 2, "position 2: nim position '9,9,9,9'"),
    ("nim", ("solve", "nim", "--heaps", "1,3,5"), 1, "holds nim --heaps 1,3,5,7, not nim --heaps 1,3,5"),
    ("nim", ("solve", "nim", "--heaps", "1,3,5,7", "--misere"), 1, "not nim --heaps 1,3,5,7 --misere"),
    ("nim", ("solve", "tictactoe"), 1, "holds nim --heaps 1,3,5,7, not tictactoe"),
    ("nim", ("solve", "nim", "--heaps", "1,3,5,7", "--chunk-size", "8"), 1, "planned with --chunk-size"),
    ("quixo", ("probe", "..../..../..../.... x"), 2, "expected 3 rows of 3 cells"),
    ("quixo", ("probe", "x../.o./.q. x"), 2, "bad cell 'q'"),
    ("quixo", ("probe", "x../.o./..."), 2, "give the side to move"),
    ("quixo", ("probe", "x../.o./... z"), 2, "side to move must be x or o"),
    ("quixo", ("solve", "quixo", "--size", "4"), 1, "holds quixo --size 3"),
]


@pytest.mark.parametrize("game,args,code,message", BAD_ON_STORE)
def test_bad_input_leaves_store_unchanged(tmp_path, solved, game, args, code, message):
    store = tmp_path / "store.zarr"
    shutil.copytree(solved(game, {"nim": NIM, "quixo": {"size": 3}}.get(game)), store)
    before = store_bytes(store)
    result = run_cli(*args, "--store", str(store))
    check_one_line_error(result, code, message)
    assert store_bytes(store) == before


def test_batch_probe_names_the_bad_line_and_answers_the_others(solved):
    result = run_cli("probe", "--store", str(solved("nim", NIM)), "--json", input="1,3,5,7\n1,3,5,70\n1,3,5,6\n")
    check_one_line_error(result, 2, "line 2: nim position '1,3,5,70'")
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(a["position"], a["value"]) for a in answers] == [("1,3,5,7", "loss"), ("1,3,5,6", "win")]
    two_bad = run_cli("probe", "--store", str(solved("nim", NIM)), input="9\n1,3,5,7\nx\n")
    assert two_bad.returncode == 2 and two_bad.stdout.startswith("1,3,5,7: loss in 16")
    assert [line.split(":")[2] for line in two_bad.stderr.splitlines()] == [" line 1", " line 3"]


@pytest.mark.parametrize("command", [("probe", "1"), ("status",), ("verify",), ("play",)])
def test_missing_store(tmp_path, command):
    missing = tmp_path / "missing.zarr"
    result = run_cli(*command, "--store", str(missing))
    check_one_line_error(result, 1, f"no store at '{missing}'")
    assert not missing.exists()


def test_not_a_store(tmp_path):
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "file.txt").write_text("hello")
    for args in (("status",), ("solve", "tictactoe")):
        result = run_cli(*args, "--store", str(tmp_path / "junk"))
        check_one_line_error(result, 1, "is not a retrograde store")
    assert [p.name for p in (tmp_path / "junk").iterdir()] == ["file.txt"]


def test_missing_parent_folder(tmp_path):
    result = run_cli("solve", "tictactoe", "--store", str(tmp_path / "no" / "such" / "s.zarr"))
    check_one_line_error(result, 1, "does not exist")
    assert not (tmp_path / "no").exists()


def test_store_with_an_unreadable_plan(tmp_path, solved):
    store = tmp_path / "edited.zarr"
    shutil.copytree(solved("tictactoe"), store)
    root = zarr.open_group(store, mode="r+")
    meta = dict(root.attrs["retrograde"])
    meta["plan"] = {key: value for key, value in meta["plan"].items() if key != "steps"}
    root.attrs["retrograde"] = meta
    before = store_bytes(store)
    for args in (("status",), ("probe", "........./x"), ("solve", "tictactoe")):
        result = run_cli(*args, "--store", str(store))
        check_one_line_error(result, 1, "its plan (zarr.json) is unreadable")
    assert store_bytes(store) == before


@pytest.mark.parametrize("name, value", [("RETROGRADE_CHECKPOINT_SECONDS", "soon"),
                                         ("RETROGRADE_CHECKPOINT_SECONDS", "-5"),
                                         ("RETROGRADE_CHECKPOINT_SECONDS", "nan"),
                                         ("RETROGRADE_SMALL_GROUP_CHUNKS", "2.5"),
                                         ("RETROGRADE_SMALL_GROUP_CHUNKS", "-1")])
def test_bad_solve_setting_fails_before_anything_is_written(tmp_path, monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    store = tmp_path / "s.zarr"
    result = run_cli("solve", "quixo", "--size", "3", "--store", str(store))
    check_one_line_error(result, 1, f"{name}={value!r}: must be")
    assert not store.exists()


def test_shell_completion_as_the_docs_document_it():
    """docs/commands.md's completion line works: the bash script, then commands, games and options."""
    import os
    import subprocess
    import sys

    def complete(words: str, cword: int) -> list[str]:
        env = dict(os.environ, COMP_WORDS=words, COMP_CWORD=str(cword), _RETROGRADE_COMPLETE="bash_complete")
        out = subprocess.run([sys.executable, "-m", "retrograde"], env=env, capture_output=True, text=True)
        assert out.returncode == 0 and out.stderr == "", out.stderr
        return [line.split(",", 1)[1] for line in out.stdout.splitlines()]

    script = subprocess.run([sys.executable, "-m", "retrograde"], capture_output=True, text=True,
                            env=dict(os.environ, _RETROGRADE_COMPLETE="bash_source"))
    assert "complete -o nosort -F _retrograde_completion retrograde" in script.stdout
    assert complete("retrograde so", 1) == ["solve"]
    assert complete("retrograde solve q", 2) == ["quarto", "quixo"]
    assert complete("retrograde solve qui", 2) == ["quixo"]
    assert {"--size", "--store"} <= set(complete("retrograde solve quixo --s", 3))


def test_probe_on_a_terminal_answers_each_line_as_it_is_typed(solved):
    """`probe` with no position on a terminal says what to type, then answers each position as
    soon as its line is typed (before the next is), a bad one with an error line, until 'quit';
    after a bad line the exit status is 2, as for a batch."""
    import os
    import selectors
    import subprocess
    import sys
    import time

    def wait_for(stream, text: str) -> str:
        """What `stream` prints until `text` appears (at least)."""
        seen, deadline = "", time.monotonic() + 120
        with selectors.DefaultSelector() as selector:
            selector.register(stream, selectors.EVENT_READ)
            while text not in seen:
                assert selector.select(max(0.0, deadline - time.monotonic())), f"no {text!r} in {seen!r}"
                chunk = os.read(stream.fileno(), 65536).decode()
                assert chunk, f"ended before {text!r}: {seen!r}"
                seen += chunk
        return seen

    main, terminal = os.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "retrograde", "probe", "--store", str(solved("nim", NIM))],
                                stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert "an empty line, 'quit' or Ctrl-D ends" in wait_for(proc.stderr, "type a nim position")
        os.write(main, b"1,3,5,7\n")
        assert wait_for(proc.stdout, "1,3,5,7: ").splitlines()[0] == "1,3,5,7: loss in 16"
        os.write(main, b"0,0,0,0\n")
        assert "0,0,0,0: game over: the side to move has lost (the other side won)" in wait_for(
            proc.stdout, "0,0,0,0: ").splitlines()
        os.write(main, b"1,3,5,70\n")
        assert "retrograde: error: nim position '1,3,5,70'" in wait_for(proc.stderr, "1,3,5,70")
        os.write(main, b"quit\n")
        out, err = proc.communicate(timeout=120)
    finally:
        os.close(main)
        os.close(terminal)
    assert proc.returncode == 2 and out == b"" and b"Traceback" not in err, err


def test_probe_session_ends_at_an_empty_line_or_quit(open_solved):
    """The terminal session's loop on streams: one answer per line typed, in order; an empty
    line, 'quit' or the end of input ends it; bad positions are counted, not fatal."""
    import io

    from retrograde.data.answers import answer_as_typed

    store = open_solved("nim", NIM)
    for typed, answered, bad in [("0,0,0,2\n\n1,3,5,7\n", ["0,0,0,2: win in 1"], 0),
                                 ("9\n1,3,5,7\nQUIT\n0,0,0,2\n", ["1,3,5,7: loss in 16"], 1),
                                 ("0,0,0,1", ["0,0,0,1: win in 1"], 0)]:
        said = []
        assert answer_as_typed(store, io.StringIO(typed), as_json=False,
                               say=lambda text="", nl=True, err=False: said.append((err, text))) == bad
        out = [text for err, text in said if not err]
        assert [answer.splitlines()[0] for answer in out] == answered
        assert sum(text == "position> " for err, text in said if err) == len(answered) + bad + 1
    said = []
    answer_as_typed(store, io.StringIO("0,0,0,2\n"), as_json=True, say=lambda text="", **kw: said.append(text))
    assert json.loads(said[2]) == json.loads(run_cli("probe", "--store", str(store.path), "--json", "0,0,0,2").stdout)


@pytest.mark.parametrize("game,position,said", [
    ("tictactoe", "xxx/oo./... o", "game over: the side to move has lost (the other side won)"),
    ("tictactoe", "xox/xoo/oxx", "game over: a draw"),
    ("nim", "0,0,0,0", "game over: the side to move has lost (the other side won)"),
    ("quixo", "xxx/oo./... x", "game over: the side to move has won"),  # o pushed in x's line: o lost
])
def test_probe_of_a_finished_position_says_game_over(solved, game, position, said):
    store = str(solved(game, {"nim": NIM, "quixo": {"size": 3}}.get(game)))
    result = run_cli("probe", "--store", store, position)
    assert result.returncode == 0, result.stderr
    (line,) = result.stdout.splitlines()
    assert line.endswith(f": {said}")
    document = json.loads(run_cli("probe", "--store", store, "--json", position).stdout)
    assert document["moves"] == [] and document["remoteness"] in (0, None)  # --json as before


@pytest.mark.parametrize("command", ["games", "solve", "status", "verify", "probe", "play", "run", "agents",
                                     "match", "train", "validate"])
def test_help_refers_to_nothing_users_do_not_have(command):
    """Help texts stand alone: no references to the project's internal SPEC."""
    result = run_cli(command, "--help")
    assert result.returncode == 0 and "SPEC" not in result.stdout, result.stdout


def test_a_second_writer_is_refused_and_names_the_holder(tmp_path):
    """While a run holds a store's writer lock, `solve` and `run` on the same store refuse in one
    line naming the holder, and write nothing; once it is released they go ahead."""
    import os

    from retrograde.data.lock import lock_path, writer_lock

    store = tmp_path / "q3.zarr"
    with writer_lock(store):
        result = run_cli("solve", "quixo", "--size", "3", "--store", str(store), cwd=tmp_path)
        check_one_line_error(result, 1, f"store '{store}' is being written by another run (pid {os.getpid()} on ")
        assert not store.exists()
        out = tmp_path / "out"
        workflow = run_cli("run", "quixo3", "--out", str(out), cwd=tmp_path)
        assert workflow.returncode == 0, workflow.stderr  # another store: not locked
        with writer_lock(out / "quixo3" / "store.zarr"):
            again = run_cli("run", "quixo3", "--out", str(out), cwd=tmp_path)
            check_one_line_error(again, 1, "is being written by another run")
    assert not lock_path(store).exists()
    assert run_cli("solve", "quixo", "--size", "3", "--store", str(store), cwd=tmp_path).returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "q3.zarr"]  # no lock file left


def test_two_solves_started_together_on_one_store(tmp_path, solved):
    """The issue's race: two solves of one 3x3 store started at once. One solves it; the other is
    refused in one line (or finds it solved); never a traceback; the store is the usual one."""
    import subprocess
    import sys

    for attempt in range(3):
        store = tmp_path / f"q3-{attempt}.zarr"
        args = [sys.executable, "-m", "retrograde", "solve", "quixo", "--size", "3", "--store", str(store),
                "--workers", "0", "--quiet"]
        procs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        results = [(proc.wait(timeout=300), *proc.communicate()) for proc in procs]
        for code, out, err in results:
            assert code in (0, 1) and "Traceback" not in err, err
            if code:
                assert_one_error_line(err, "is being written by another run")
        assert any(code == 0 for code, _, _ in results)
        assert store_bytes(store) == store_bytes(solved("quixo", {"size": 3}))


def test_probe_line_follows_perfect_play_to_the_end(solved):
    """Nim 1,2,3 (nim-sum 0: a loss for the side to move): along a perfect line the remoteness
    drops by one each ply and the values alternate, down to the empty board; ties go to the first
    move listed; --max-plies stops the line; --line takes one position."""
    store = str(solved("nim", {"heaps": [1, 2, 3]}))
    start = json.loads(run_cli("probe", "--store", store, "1,2,3", "--json").stdout)
    result = run_cli("probe", "--store", store, "--line", "1,2,3", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    line = document["line"]
    assert document["end"] == "terminal" and len(line) == start["remoteness"]
    for ply, entry in enumerate(line, start=1):
        assert entry["remoteness"] == start["remoteness"] - ply
        assert entry["value"] == ("win" if ply % 2 else "loss") or entry["remoteness"] == 0
    assert line[-1]["position"] == "0,0,0"
    assert all(move["value"] == "loss" for move in start["moves"])  # the slowest loss, the first listed of those
    slowest = max(m["remoteness"] for m in start["moves"])
    assert line[0]["move"] == next(m["move"] for m in start["moves"] if m["remoteness"] == slowest)
    capped = json.loads(run_cli("probe", "--store", store, "--line", "--max-plies", "2", "1,2,3", "--json").stdout)
    assert capped["end"] == "max-plies" and capped["line"] == line[:2]
    text = run_cli("probe", "--store", store, "--line", "1,2,3")
    assert text.returncode == 0 and text.stdout.strip().endswith("the game is over")
    two = run_cli("probe", "--store", store, "--line", "1,2,3", "0,2,3")
    assert two.returncode == 2
    assert_one_error_line(two.stderr, "--line follows one position, not 2")


def test_probe_line_of_a_drawn_quixo_position_ends_at_a_repetition(solved):
    """A drawn full 4x4 board: perfect play keeps the draw with the first drawing move listed,
    and the line stops when a position comes back."""
    store = str(solved("quixo", {"size": 4, "down_to": 15}))
    drawn = "oxoo/oxxx/xoxo/xooo x"
    start = json.loads(run_cli("probe", "--store", store, drawn, "--json").stdout)
    assert start["value"] == "draw"
    document = json.loads(run_cli("probe", "--store", store, "--line", drawn, "--json").stdout)
    line = document["line"]
    assert document["end"] == "repetition"
    assert line[0]["move"] == next(m["move"] for m in start["moves"] if m["value"] == "draw")
    assert all(entry["value"] == "draw" and entry["remoteness"] is None for entry in line)
    seen = [drawn, *(entry["position"] for entry in line)]
    assert seen[-1] in seen[:-1] and len(set(seen[:-1])) == len(seen) - 1


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


def tree_bytes(folder: Path) -> dict[str, bytes | str]:
    """Every entry under `folder`: a file's bytes, and what any other entry is (a folder, a link
    and its target, a fifo, which is never opened: a read would wait for a writer)."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        mode = path.lstat().st_mode
        found[str(path.relative_to(folder))] = (
            f"-> {os.readlink(path)}" if stat.S_ISLNK(mode) else "folder" if stat.S_ISDIR(mode)
            else path.read_bytes() if stat.S_ISREG(mode) else stat.filemode(mode))
    return found


@pytest.mark.parametrize("workflow,option", [
    ("tictactoe", ("--scheduler", "nonsense")), ("tictactoe", ("--worker-memory", "1KB")),
    ("tictactoe", ("--workers", "-3")), ("tictactoe", ("--partitions", "0")), ("tictactoe", ("--only", "1")),
    ("seeds", ("--scheduler", "nonsense")), ("seeds", ("--only", "999"))])
@pytest.mark.parametrize("out", ["RW", "a/b"])
def test_a_refused_run_leaves_the_disk_as_it_was(tmp_path, workflow, option, out):
    """Issue 36, item 8: a refusal of `run`, whether its arguments' checks or the solve's own (the
    cluster cannot be reached, the solve does not fit the workers' memory), creates no folder; and
    it is the one line said (the run's plan line comes once nothing can refuse it)."""
    (tmp_path / "kept.txt").write_text("here before\n")
    before = tree_bytes(tmp_path)
    result = run(["run", workflow, *option, "--out", str(tmp_path / out)], timeout=120)
    assert result.returncode == 2, result.stderr
    assert_one_error_line(result.stderr, option[0])
    assert tree_bytes(tmp_path) == before


@pytest.mark.parametrize("planted", ["fifo", "link"])
def test_run_reads_its_state_only_from_a_regular_file(tmp_path, planted):
    """Issue 36, item 3: a fifo planted as the workflow's state is refused in one line, never
    waited on (the run hung for ever), and a link to a file outside is never read."""
    folder = tmp_path / "D" / "tictactoe"
    folder.mkdir(parents=True)
    state = folder / "workflow.json"
    if planted == "fifo":
        os.mkfifo(state)
    else:
        (tmp_path / "victim.json").write_text('{"workflow": "tictactoe", "stages": {}}\n')
        state.symlink_to(tmp_path / "victim.json")
    before = tree_bytes(tmp_path)
    result = run(["run", "tictactoe", "--out", str(tmp_path / "D"), "--quiet"], timeout=120)
    assert result.returncode != 0
    assert_one_error_line(result.stderr, str(state))
    assert tree_bytes(tmp_path) == before


def test_match_sprt_says_how_many_openings_it_played():
    result = run_cli("match", "random", "random", "--game", "tictactoe", "--sprt", "0,50", "--games", "30", "--quiet")
    assert result.returncode == 0, result.stderr
    # Random play on tic-tac-toe decides nothing in 30 pairs: every pair of the cap is played.
    assert "SPRT: inconclusive" in result.stdout and "30 pairs" in result.stdout
    assert "tictactoe from 30 seeded random openings of" in result.stdout.splitlines()[0]


#: A `retrograde` process whose import of MODULE meets a Ctrl-C (raised by an import hook, as the
#: signal's handler raises it), plain or come back wrapped as Python 3.11 wraps what a class body's
#: `__set_name__` raises.
_CTRL_C_IN_IMPORT = """
import importlib.abc, sys
module, how = sys.argv[1:3]
class CtrlC(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == module:
            if how == "plain":
                raise KeyboardInterrupt
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as exc:
                raise RuntimeError("Error calling __set_name__") from exc
sys.meta_path.insert(0, CtrlC())
sys.argv = ["retrograde", *sys.argv[3:]]
from retrograde.__main__ import main
main()
"""


@pytest.mark.parametrize("module, how, args", [
    ("click", "plain", ["games"]),  # before the CLI is loaded
    ("click", "wrapped", ["games"]),
    ("zarr", "plain", ["status", "--store", "{store}"]),  # inside the command, after its handlers are set
    ("zarr", "wrapped", ["status", "--store", "{store}"]),
])
def test_a_ctrl_c_while_modules_load_ends_in_one_line(solved, module, how, args):
    """__main__.py, exits.py: a Ctrl-C that lands in an import, before the CLI exists or inside a
    command, plain or wrapped in another exception, ends with exit 130 and one line, no traceback."""
    args = [arg.format(store=solved("tictactoe")) for arg in args]
    ran = subprocess.run([sys.executable, "-c", _CTRL_C_IN_IMPORT, module, how, *args], capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 130, ran.stderr
    assert ran.stderr.strip().splitlines() == ["retrograde: error: interrupted"], ran.stderr
