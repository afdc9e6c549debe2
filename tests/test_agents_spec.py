"""Agent specs: the grammar, typed options, and `build_agent`'s checks (SPEC §6)."""

from __future__ import annotations

import re

import pytest

from retrograde.agents import AGENTS, agent_class, build_agent, parse_spec, parse_spec_list, resolve_agent
from retrograde.spec import AgentSpec, Option
from retrograde.data.probing import analyse
from retrograde.errors import BadAgent, BadOption, MissingTierError
from retrograde.games import make_game, parse_game

TICTACTOE = make_game("tictactoe")
QUIXO4 = {"size": 4}


# --- grammar ---------------------------------------------------------------------------------
@pytest.mark.parametrize("text,name,options", [
    ("random", "random", ()),
    ("  Minimax:depth=3 ", "minimax", (("depth", "3"),)),
    ("minimax:depth=3,eval=cmax", "minimax", (("depth", "3"), ("eval", "cmax"))),
    ("lookup:fallback=minimax:depth=2", "lookup", (("fallback", "minimax:depth=2"),)),
    ("lookup:fallback=(minimax:depth=2,eval=inline)", "lookup", (("fallback", "minimax:depth=2,eval=inline"),)),
    ("ga:params=runs/quixo4-ga.json", "ga", (("params", "runs/quixo4-ga.json"),)),
])
def test_a_spec_parses_into_its_name_and_options(text, name, options):
    spec = parse_spec(text)
    assert (spec.name, spec.options) == (name, options)
    assert parse_spec(str(spec)) == spec  # the canonical text reads back the same


@pytest.mark.parametrize("text,problem", [
    ("", "empty agent spec"),
    ("mini max", "is not an agent name"),
    ("random:", "nothing after ':'"),
    ("minimax:depth", "'depth' is not key=value"),
    ("minimax:depth=", "depth= has no value"),
    ("minimax:depth=2,depth=3", "depth is given twice"),
    ("lookup:fallback=(minimax:depth=2", "'(' without ')'"),
    ("lookup:fallback=minimax:depth=2)", "')' without '('"),
])
def test_bad_grammar_is_one_line_naming_the_problem(text, problem):
    with pytest.raises(BadAgent, match=re.escape(problem)) as caught:
        parse_spec(text)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("value,text", [
    ("runs/ga.json", "ga:params=runs/ga.json"),
    ("a=b:c é d", "ga:params=a=b:c é d"),
    ("a,b/ga.json", "ga:params=(a,b/ga.json)"),
    ("(1)", "ga:params=((1))"),
    ("a,(b", 'ga:params="a,(b"'),
    ("x)y", 'ga:params="x)y"'),
    (' say "hi" ', 'ga:params=" say ""hi"" "'),
])
def test_a_spec_writes_each_value_in_the_first_form_that_reads_back(value, text):
    """Bare, else in parentheses, else in double quotes with quotes doubled (docs/agents.md)."""
    assert str(AgentSpec("ga", (("params", value),))) == text
    assert parse_spec(text).options == (("params", value),)


@pytest.mark.parametrize("text,problem", [
    ('ga:params="a', "'\"' without a closing '\"'"),
    ('ga:params="a"b', "'b' follows a quoted value"),
    ("ga:params=a,b/ga.json", "'b/ga.json' is not key=value; a value holding a comma is written in parentheses "
                              "or quotes: params=(a,b/ga.json)"),
    ("ga:params=a,(b", "'(' without ')' (a value holding one is written in double quotes)"),
])
def test_quoting_mistakes_are_one_line_naming_the_fix(text, problem):
    with pytest.raises(BadAgent, match=re.escape(problem)) as caught:
        parse_spec(text)
    assert "\n" not in str(caught.value)


def test_a_bad_value_is_shown_as_it_is_written():
    """A refused value reads as the user must write it: a path with a space at its start in quotes."""
    with pytest.raises(BadAgent, match=re.escape('params=" no/such.npz": no such file')):
        Option("params", "artifact", None, kind="file").convert(" no/such.npz", "rl")


def test_a_list_of_specs_splits_at_agent_names_not_at_every_comma():
    specs = parse_spec_list("lookup, minimax:depth=3,eval=inline,random,lookup:fallback=(mcts:iterations=5,c=2)")
    assert [str(spec) for spec in specs] == [
        "lookup", "minimax:depth=3,eval=inline", "random", "lookup:fallback=(mcts:iterations=5,c=2)"]


# --- typed options ------------------------------------------------------------------------------
DEPTH = Option("depth", "plies", 2, kind="int", low=1, high=8)


@pytest.mark.parametrize("option,text,expected", [
    (DEPTH, "3", 3),
    (Option("c", "exploration", 1.4, kind="float", low=0), "0.5", 0.5),
    (Option("eval", "evaluation", "cmax", kind="choice", choices=("cmax", "inline")), "INLINE", "inline"),
    (Option("fallback", "agent", None, kind="agent"), "minimax:depth=2", AgentSpec("minimax", (("depth", "2"),))),
])
def test_option_values_are_typed(option, text, expected):
    assert option.convert(text, "spec") == expected


@pytest.mark.parametrize("option,text,problem", [
    (DEPTH, "two", "not an integer"),
    (DEPTH, "9", "must be between 1 and 8"),
    (DEPTH, "0", "must be between 1 and 8"),
    (Option("c", "exploration", 1.4, kind="float", low=0), "nan", "must be between 0 and inf"),
    (Option("eval", "evaluation", "cmax", kind="choice", choices=("cmax", "inline")), "lines",
     "must be one of cmax, inline"),
    (Option("params", "artifact", None, kind="file"), "/no/such/file.json", "no such file"),
])
def test_bad_option_values_are_refused(option, text, problem):
    with pytest.raises(BadAgent, match=problem):
        option.convert(text, "spec")


# --- build_agent ------------------------------------------------------------------------------
def test_every_registered_agent_is_a_class_with_declared_options():
    for name in AGENTS:
        cls = agent_class(name)
        assert cls.name == name and cls.summary
        assert len({option.name for option in cls.options}) == len(cls.options)


def test_unknown_agents_and_options_are_refused():
    with pytest.raises(BadAgent, match="unknown agent 'oracle'; agents: "):
        build_agent("oracle", TICTACTOE, seed=0)
    with pytest.raises(BadAgent, match="random has no option 'depth' \\(options: none\\)"):
        build_agent("random:depth=2", TICTACTOE, seed=0)


def test_an_agent_that_reads_a_store_needs_one_of_the_same_game(open_solved):
    with pytest.raises(BadAgent, match="reads a solved store: give one with --store PATH"):
        build_agent("lookup", TICTACTOE, seed=0)
    quixo = open_solved("quixo", {"size": 3})
    with pytest.raises(BadAgent, match="holds quixo --size 3, not tictactoe"):
        build_agent("lookup", TICTACTOE, seed=0, store=quixo)


def test_the_same_seed_gives_the_same_moves():
    def moves(seed: int) -> list[str]:
        agent = build_agent("random", TICTACTOE, seed=seed)
        position, played = TICTACTOE.initial_position, []
        while not TICTACTOE.primitive(position) and TICTACTOE.moves(position):
            move, position = agent.choose(position)
            played.append(move)
        return played

    assert moves(7) == moves(7)
    assert any(moves(7) != moves(seed) for seed in range(8, 12))


def test_lookup_defers_to_its_fallback_outside_the_stores_tiers(tmp_path):
    """A 4x4 store holding only the tiers with 15 and 16 cubes: lookup plays perfectly there and
    hands every other position to its fallback (random, whose seeded choice we replay)."""
    from conftest import solve_in_process
    from retrograde.data.store import Store

    path = solve_in_process("quixo", {"size": 4, "down_to": 15}, tmp_path / "q4.zarr")
    with Store.open(path) as store:
        game = store.game
        lookup = build_agent("lookup:fallback=random", game, seed=3, store=store)
        replay = build_agent("random", game, seed=3)
        assert lookup.spec == "lookup:fallback=random"
        opening = game.initial_position
        assert lookup.choose(opening) == replay.choose(opening)
        tier = game.tier("m8o7")
        full = next(p for i in range(0, tier.size, 97) if (p := game.position_at(tier, i)) and not game.primitive(p))
        analysis = analyse(store, [full])[0]
        assert lookup.choose(full)[0] in {m.move for m in analysis.moves if m.value == analysis.value}
        with pytest.raises(MissingTierError, match="m0o0"):
            build_agent("lookup", game, seed=3, store=store).choose(opening)


# --- --game text --------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["tictactoe", "quixo --size 4", "nim --heaps 1,3,5,7 --max-take 3 --misere"])
def test_game_text_reads_back_what_describe_writes(text):
    assert parse_game(text).describe() == text


@pytest.mark.parametrize("text,problem", [
    ("", "--game needs a game"),
    ("chess", "unknown game 'chess'"),
    ("quixo", "quixo needs --size"),
    ("quixo --size", "--size needs a value"),
    ("quixo --size four", "--size four: not a valid N"),
    ("quixo --size 4 --depth 2", "quixo has no option --depth"),
    ("quixo --size 6", "--size 6"),
])
def test_bad_game_text_is_refused(text, problem):
    with pytest.raises(BadOption, match=problem):
        parse_game(text)


def test_an_agents_stream_name_is_its_meaning_and_its_artifacts_content(tmp_path):
    """Random streams derive from what an agent is: option order, spelling and where its
    artifact lies do not change them; another artifact's content, or another option, does."""
    game = make_game("nim", {"heaps": [1, 3, 5, 7]})
    weights = '{"format": "retrograde-training", "learner": "ga"}'
    (tmp_path / "a.json").write_text(weights)
    (tmp_path / "deeper").mkdir()
    (tmp_path / "deeper" / "b.json").write_text(weights)
    (tmp_path / "other.json").write_text(weights + " ")

    def stream(spec: str) -> str:
        return resolve_agent(spec, game).stream

    assert stream(f"ga:params={tmp_path / 'a.json'}") == \
        stream(f"ga:params={tmp_path / 'deeper' / 'b.json'}")
    assert str(tmp_path) not in stream(f"ga:params={tmp_path / 'a.json'}")
    assert stream(f"ga:params={tmp_path / 'a.json'}") != \
        stream(f"ga:params={tmp_path / 'other.json'}")
    nested = [stream(f"lookup:fallback=(ga:params={path})")
              for path in (tmp_path / "a.json", tmp_path / "deeper" / "b.json", tmp_path / "other.json")]
    assert nested[0] == nested[1] != nested[2]
    assert stream("mcts:c=1.40,iterations=100") == stream("MCTS:iterations=100,c=1.4")
    assert stream("mcts:iterations=100") == "mcts:iterations=100"  # no file: its own name
    assert stream("mcts:iterations=100") != stream("mcts:iterations=101")
    with pytest.raises(BadAgent, match="no such file"):
        stream(f"ga:params={tmp_path / 'missing.json'}")

