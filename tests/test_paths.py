"""Paths holding any character (issue 36, item 4): `,` `=` `:` spaces, parentheses balanced or not,
quotes and non-ASCII work wherever a path appears: run's --out, a store, an artifact (and its
checkpoints), a report's folder, run seeds' artifacts, upgrade and the explorer. An agent's file
reaches it as a value, never spliced into spec text that is parsed again; a user writes such a
path in parentheses or quotes, and a comma that cuts one is refused with the way to write it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import run_cli
from processes import assert_one_error_line
from retrograde.errors import BadAgent
from retrograde.validation.resume import FOLDER
from retrograde.spec import parse_spec, parse_spec_list
from test_explore import api, explorer
from test_upgrade import format3_copy

#: A folder name with every character a spec treats specially, as the issue gives it.
BALANCED = "a,b=c:d é(1)"
#: One whose parenthesis is never closed, and a quote: parentheses cannot hold it, quotes can.
UNBALANCED = 'p,q=r:s "ü(2'


def quoted(path: Path) -> str:
    """`path` as a user writes it as a spec's value: in double quotes, a quote inside doubled."""
    return '"' + str(path).replace('"', '""') + '"'


def test_run_tictactoe_finishes_in_a_folder_named_with_commas_and_colons(tmp_path):
    """The issue's case: the rl artifact's path went into the validated agent's spec, where the
    comma split it, so validate failed on every run; now the run finishes and a rerun is done."""
    out = tmp_path / BALANCED
    first = run_cli("run", "tictactoe", "--out", str(out), "--quiet")
    assert first.returncode == 0, first.stderr
    state = json.loads((out / "tictactoe" / "workflow.json").read_text())
    assert set(state["stages"].values()) == {"done"} and len(state["stages"]) == 5
    report = json.loads((out / "tictactoe" / "report" / "report.json").read_text())
    assert f"rl:params=({out / 'tictactoe' / 'rl.npz'})" in json.dumps(report, ensure_ascii=False)
    again = run_cli("run", "tictactoe", "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert "nothing to do, every stage was done before" in again.stdout, again.stdout


@pytest.fixture(scope="module")
def odd(solved, tmp_path_factory):
    """A folder named UNBALANCED holding a copy of a solved tic-tac-toe store (named BALANCED)
    and an rl artifact trained into it with that store: (folder, store, artifact)."""
    folder = tmp_path_factory.mktemp("paths") / UNBALANCED
    folder.mkdir()
    store = folder / f"{BALANCED}.zarr"
    shutil.copytree(solved("tictactoe"), store)
    artifact = folder / f"{UNBALANCED}.npz"
    trained = run_cli("train", "rl:episodes=300", "--game", "tictactoe", "--store", str(store),
                      "--out", str(artifact), "--quiet")
    assert trained.returncode == 0 and artifact.is_file(), trained.stderr
    assert not artifact.with_name(artifact.name + ".partial").exists()  # its checkpoints, gone once done
    return folder, store, artifact


def test_store_commands_take_a_store_named_with_any_character(odd, tmp_path):
    folder, store, _ = odd
    for args, expected in ((("status", "--store", str(store)), "5,478"),
                           (("probe", "--store", str(store), ".../.../... x"), "draw"),
                           (("verify", "--store", str(store)), "ok"),
                           (("solve", "tictactoe", "--store", str(store)), "")):
        done = run_cli(*args)
        assert done.returncode == 0 and expected in (done.stdout + done.stderr).lower(), (args, done.stderr)
    old = tmp_path / f"{UNBALANCED}.zarr"
    format3_copy(store, old)
    upgraded = run_cli("upgrade", "--store", str(old))
    assert upgraded.returncode == 0 and "upgraded to format 4" in upgraded.stdout, upgraded.stderr
    assert run_cli("verify", "--store", str(old)).returncode == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == [old.name]  # nothing set aside is left


def test_an_artifact_named_with_any_character_plays_in_match_and_validate(odd, tmp_path):
    folder, store, artifact = odd
    agent = f"rl:params={quoted(artifact)}"
    match = run_cli("match", agent, "random", "--store", str(store), "--games", "2", "--json", "--quiet")
    assert match.returncode == 0, match.stderr
    report_dir = tmp_path / f"{BALANCED} report"
    done = run_cli("validate", "--store", str(store), "--agents", f"lookup,{agent},random", "--out", str(report_dir),
                   "--games", "2", "--positions", "100", "--quiet")
    assert done.returncode == 0, done.stderr
    names = {entry["spec"] if isinstance(entry, dict) else entry
             for entry in json.loads((report_dir / "report.json").read_text())["agents"]}
    assert f'rl:params="{str(artifact).replace(chr(34), 2 * chr(34))}"' in names, names


def test_a_comma_that_cuts_a_path_is_one_line_saying_how_to_write_it(odd, tmp_path):
    _, store, _ = odd
    balanced = Path("runs", "x,y", "rl.npz")
    done = run_cli("match", f"rl:params={balanced}", "random", "--store", str(store))
    assert_one_error_line(done.stderr, "'y/rl.npz' is not key=value",
                          f"a value holding a comma is written in parentheses or quotes: params=({balanced})")
    done = run_cli("validate", "--store", str(store), "--agents", f"lookup,rl:params={balanced},random",
                   "--out", str(tmp_path / "report"))
    assert_one_error_line(done.stderr, f"params=({balanced})")
    assert not any(tmp_path.iterdir())
    done = run_cli("match", "rl:params=runs/x,(y/rl.npz", "random", "--store", str(store))
    assert_one_error_line(done.stderr, "'(' without ')' (a value holding one is written in double quotes)")


@pytest.mark.parametrize("value", [BALANCED, UNBALANCED, "x)y", " spaced ", '"', "(wrapped)", "é,ü/ß.npz"])
def test_any_path_given_as_a_value_reads_back_from_the_spec_text_exactly(value):
    """What run's presets and `str(AgentSpec)` rely on: the text of a spec with any value parses
    back to that value, alone and in a list."""
    from retrograde.spec import AgentSpec

    spec = AgentSpec("rl", (("params", value), ("opponent", "random")))
    assert parse_spec(str(spec)) == spec
    assert parse_spec_list(f"lookup,{spec},random")[1] == spec


@pytest.mark.parametrize("text,value", [
    ('rl:params="a,b (c/q.npz"', "a,b (c/q.npz"),
    ('rl:params=" x ""y"" "', ' x "y" '),
    ("rl:params=(a,b=c:d é(1)/q.npz)", "a,b=c:d é(1)/q.npz"),
    ('engine:command=(prog --name="a b")', 'prog --name="a b"'),
])
def test_quoted_and_parenthesised_values_are_read_as_written(text, value):
    assert parse_spec(text).options[0][1] == value


def test_an_unclosed_quote_is_a_grammar_error():
    with pytest.raises(BadAgent, match="without a closing"):
        parse_spec('rl:params="a,b')


def test_run_seeds_plays_a_trained_agent_from_a_folder_named_with_any_character(tmp_path):
    """run seeds' artifacts lie in DIR/seeds/artifacts: the agent that plays one gets its path as
    a value (`Artifacts.spec`), so an unbalanced parenthesis in DIR does not break the row."""
    from contextlib import ExitStack

    from retrograde.games.capabilities import AgentRef, Figure
    from retrograde.pipeline.executors import open_executor
    from retrograde.pipeline.solve import SolveOptions
    from retrograde.validation import course
    from retrograde.workflows.course import Artifacts, Stores, _played, _row

    folder = tmp_path / UNBALANCED
    learner = AgentRef("QLearningAgent", "rl", learner="rl:episodes=200,opponent=random")
    figure = course.ReportFigure("tictactoe", Figure({}, learner, AgentRef("random_strategy", "random"), "first",
                                                     0.9, 0.0, 0.1, 10, "001_x.txt, Table 2"))
    with ExitStack() as stack, open_executor(workers=0, positions=None) as executor:
        stores = Stores(folder / "stores", executor, stack, SolveOptions(workers=0, quiet=True))
        artifacts = Artifacts(folder / "artifacts", stores)
        artifacts.train_all([figure], executor, quiet=True)
        row = _row(figure, _played(figure, stores, artifacts, executor, quiet=True))
    (artifact,) = (folder / "artifacts").iterdir()
    assert row["agent"] == f"rl:params=artifacts/{artifact.name}"
    assert row["verdict"] != course.NOT_RUN and row["ours"]["games"] > 0, row


def test_the_explorer_serves_a_store_and_an_artifact_named_with_any_character(odd, tmp_path):
    _, store, artifact = odd
    agent = f"rl:params={quoted(artifact)}"
    with explorer(store, tmp_path, "--agents", f"lookup,{agent}") as (url, _):
        status, body = api(url, "/api/probe", position=".../.../... x")
        assert status == 200 and json.loads(body)["value"] == "draw", body
        status, body = api(url, "/api/move", position=".../.../... x", agent=agent, p=1, seed=0)
        assert status == 200 and json.loads(body)["agent"] == agent and json.loads(body)["by"] == "agent", body


def test_every_workflow_preset_gets_its_folder_as_a_value_that_reads_back():
    """`run`'s learners and validated agents (Quarto's rl reads its ga artifact, `pieces=`) get the
    folder, whatever it is named, as the value of their option: the text the training parses
    again reads back to that very value."""
    from retrograde.workflows.names import WORKFLOWS
    from retrograde.workflows.runner import in_folder

    folder = Path("/runs", UNBALANCED, BALANCED)
    placed = 0
    for _, workflow in WORKFLOWS.values():
        for preset in [spec for spec, _ in workflow.train] + list(workflow.agents):
            spec = in_folder(preset, folder)
            assert parse_spec(str(spec)) == spec
            for (key, value), (_, written) in zip(spec.options, parse_spec(preset).options):
                assert value == written.replace("{folder}", str(folder))
                placed += "{folder}" in written
    assert placed >= 5


def test_a_killed_validate_resumes_from_its_log_in_a_folder_named_with_any_character(solved, tmp_path):
    """A user's agent in a file whose path holds an unclosed '(' and a quote (written in quotes),
    validated into such a folder, killed once a result is in its resume log, then rerun: the
    report is an uninterrupted run's, byte for byte."""
    from processes import run
    from test_validate_resume import SLOW_AGENT, kept_keys, killed_once_kept

    folder = tmp_path / UNBALANCED
    folder.mkdir()
    (folder / "slow.py").write_text(SLOW_AGENT)
    args = ["validate", "--store", str(solved("tictactoe")), "--agents",
            f"python:file={quoted(folder / 'slow.py')},name=Slow,random", "--games", "2", "--positions", "600",
            "--seed", "2", "--workers", "0", "--quiet"]
    whole = run([*args, "--out", str(folder / "whole")], tmp_path / "logs")
    assert whole.returncode == 0, whole.stderr
    out = folder / f"{BALANCED} stopped"
    err_path = killed_once_kept(args, out, tmp_path / "logs")
    assert kept_keys(out) and not (out / "report.json").exists(), err_path.read_text()
    rerun = run([*args, "--out", str(out)], tmp_path / "logs")
    assert rerun.returncode == 0, rerun.stderr
    assert (out / "report.json").read_bytes() == (folder / "whole" / "report.json").read_bytes()
    assert not (out / FOLDER).exists()
