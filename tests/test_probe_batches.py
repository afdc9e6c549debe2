"""`probe --json` over many positions (issue 34, point 1): the games' batch hooks against their
per-position rules, and the JSON lines built on arrays against `json.dumps` of the slow path
(`analyse`, then `Analysis.to_json`), on 4x4 Quixo, with chunks read index by index and decoded
whole, over several input batches, with bad lines among them."""

import io
import json
import random

import numpy as np
import pytest

from retrograde import cli as cli_module
from retrograde.data import probing
from retrograde.data.probing import analyse, json_blocks, json_lines
from retrograde.errors import BadPosition, MissingTierError
from retrograde.games import make_game

QUIXO4 = {"size": 4, "down_to": 15}


def walked(game, count: int, seed: int) -> list:
    """Positions met on random walks from the start, by the plain-Python rules."""
    rng, found = random.Random(seed), []
    while len(found) < count:
        position = game.initial_position
        for _ in range(rng.randrange(40)):
            moves = game.moves(position)
            if not moves:
                break
            position = rng.choice(moves)[1]
        found.append(position)
    return found


def texts_of(array) -> list[str]:
    return [text.decode() if isinstance(text, bytes) else text for text in array.tolist()]


@pytest.mark.parametrize("size", [3, 4, 5])
def test_quixo_batch_hooks_agree_with_the_rules(size):
    """Each of Quixo's batch hooks gives what its rule gives position by position: texts, moves in
    order with their children, where the store keeps each child, and what parses."""
    game = make_game("quixo", {"size": size})
    positions = walked(game, 300, size)
    assert {side for _, side in positions} == {"x", "o"} and any(game.primitive(p) for p in positions)
    batch = game.batch_of(positions)
    assert texts_of(game.format_many(batch)) == [game.format(p) for p in positions]
    counts, moves, children = game.children_many(batch)
    expected = [game.moves(p) for p in positions]
    assert counts.tolist() == [len(position_moves) for position_moves in expected]
    assert texts_of(moves) == [move for position_moves in expected for move, _ in position_moves]
    kids = [child for position_moves in expected for _, child in position_moves]
    assert texts_of(game.format_many(children)) == [game.format(child) for child in kids]
    tiers, tier_of, indices = game.locate_stored_many(children)
    assert [(str(tiers[t]), i) for t, i in zip(tier_of.tolist(), indices.tolist())] == \
        [game.locate(game.symmetry.representative(child)) for child in kids]
    written = [game.format(p) for p in positions[:20]]
    odd = [written[0].upper(), f"  {written[1]}  ", written[2].replace(" ", "   "), "bad", written[3][:-1] + "z",
           written[4].replace(".", "q", 1) if "." in written[4] else "q" + written[4][1:], ""]
    given = written + odd
    parsed, refused = game.parse_many(given)
    errors = {}
    for slot, text in enumerate(given):
        try:
            game.parse(text)
        except BadPosition as exc:
            errors[slot] = str(exc)
    assert {slot: str(exc) for slot, exc in refused} == errors and len(errors) == 4
    assert texts_of(game.format_many(parsed)) == [game.format(game.parse(text)) for slot, text in enumerate(given)
                                                  if slot not in errors]


def slow_lines(store, positions) -> list[str]:
    return [json.dumps(analysis.to_json(store.game)) for analysis in analyse(store, positions)]


def quixo4_positions(store, count: int) -> list:
    """Positions of every tier of the store, x and o to move, finished ones included."""
    game, rng, found = store.game, np.random.default_rng(5), []
    for tier in (game.tier(t.name) for t in store.plan.tiers):
        for index in rng.choice(tier.size, size=min(tier.size, 200), replace=False).tolist():
            position = game.position_at(tier, index)
            if position is not None:
                found.append(position)
                found += [child for _, child in game.moves(position)[:1]]
    picked = rng.choice(len(found), size=count, replace=False)
    return [found[i] for i in sorted(picked.tolist())]


def test_json_lines_of_4x4_quixo_are_what_json_dumps_writes(open_solved):
    store = open_solved("quixo", QUIXO4)
    positions = quixo4_positions(store, 400)
    values = {json.loads(line)["value"] for line in slow_lines(store, positions)}
    assert values == {"win", "loss", "draw"} and {side for _, side in positions} == {"x", "o"}
    assert any(store.game.primitive(p) for p in positions)
    assert json_lines(store, positions) == slow_lines(store, positions)


def test_chunks_decoded_whole_give_the_same_lines(open_solved, monkeypatch):
    """A long probe decodes a one-ply store's chunks whole (the game's kernel) and keeps a few:
    here from the first value and with room for one chunk, over several batches."""
    store = open_solved("quixo", QUIXO4)
    assert store.one_ply
    monkeypatch.setattr(probing, "WHOLE_AFTER", 0)
    monkeypatch.setattr(probing, "WHOLE_SHARE", 1 << 40)
    monkeypatch.setattr(probing, "WHOLE_BYTES", 1)
    decoded = []
    read_chunk_raw = store.read_chunk_raw
    monkeypatch.setattr(store, "read_chunk_raw", lambda name, chunk: decoded.append(name) or read_chunk_raw(name, chunk))
    positions = quixo4_positions(store, 300)
    batches = [store.game.batch_of(positions[start:start + 70]) for start in range(0, len(positions), 70)]
    lines = b"".join(json_blocks(store, batches)).decode().splitlines()
    assert len(decoded) > len(set(decoded)) > 1  # chunks decoded whole, dropped and decoded again
    assert lines == slow_lines(store, positions)


def test_json_lines_name_a_missing_tier_as_analyse_does(open_solved):
    store = open_solved("quixo", QUIXO4)
    """A position below --down-to: the one line names its tier, the same from either path."""
    positions = [store.game.parse("xxxx/oooo/xxxx/oooo x"), store.game.parse("xoxo/oxox/x.../.... o")]
    with pytest.raises(MissingTierError) as slow:
        analyse(store, positions)
    with pytest.raises(MissingTierError) as fast:
        json_lines(store, positions)
    assert str(fast.value) == str(slow.value) and "tier m4o5 is not part of this store" in str(slow.value)


@pytest.mark.parametrize("texts", [["plain", "a/b c"], ['say "hi"', "back\\slash", "tab\there", "", "ok"],
                                   ["café", "ok"], ["\u0161\u0100h", "ok"], ["a\0b", "ok"]])
def test_quoted_columns_are_json_strings(texts):
    """A column of texts joins into the JSON strings json.dumps writes, on arrays of str and of
    bytes alike, and string by string where a character must be escaped or is not ASCII."""
    for array in (np.array(texts, dtype=str), *([np.array([t.encode() for t in texts])] if all(t.isascii()
                                                                                                for t in texts) else [])):
        joined, lengths = probing._joined(len(texts), [*probing._quoted(array), probing._texts([b"\n"])])
        assert joined.decode().splitlines() == [json.dumps(text) for text in texts]
        assert lengths.tolist() == [len(json.dumps(text)) + 1 for text in texts]


def test_probe_reads_stdin_in_batches(open_solved, solved, cli, monkeypatch):
    """Input read a few lines at a time: the same lines as one batch, and each bad line named
    by its number wherever its batch falls."""
    store = open_solved("quixo", QUIXO4)
    texts = [store.game.format(p) for p in quixo4_positions(store, 12)]
    given = texts[:4] + ["bad"] + texts[4:9] + ["", "...x/oooo/xxxx/oxxo z"] + texts[9:]
    expected = "".join(line + "\n" for line in slow_lines(store, [store.game.parse(t) for t in texts]))
    for batch in (3, 1 << 14):
        monkeypatch.setattr(cli_module._ProbeInput, "batch", batch)
        monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(given) + "\n"))
        code, stdout, stderr = cli("probe", "--store", str(solved("quixo", QUIXO4)), "--json")
        assert code == 2 and stdout == expected
        assert [line.split(":")[2] for line in stderr.splitlines()] == [" line 5", " line 12"]
