"""Outputs of bounded size (validation/tournament.py `OpeningCount`): `match --sprt --json` and
validate's report.json summarise the openings played (how many, how many distinct, the most
played with their counts, a digest) instead of listing one a game, so their size does not grow
with --games."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter

from retrograde.games import parse_game
from retrograde.validation import validate
from retrograde.validation.tournament import OPENINGS_LISTED, random_openings

#: Among the cheapest games whose pairs differ: 2-4 random plies leave a ply or two, with a choice in some.
NIM = "nim --heaps 6 --max-take 2"
#: An SPRT of equal players that cannot decide within 10^6 games: every pair is counted.
UNDECIDED = "-0.01,0.01"


def _shape(value):
    """`value` with every number 0, and every number in a text ("0 of 20,000 games") too, but in a
    digest (of fixed length): what is left is the size an output has whatever the counts."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    if isinstance(value, str) and not re.fullmatch("[0-9a-f]{64}", value):
        return re.sub(r"\d[\d,.]*", "0", value)
    return 0 if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def _sprt(cli, game: str, pairs: int, *more: str) -> str:
    code, out, err = cli("match", "random", "random", "--game", game, "--sprt", UNDECIDED, "--games", str(pairs),
                         "--seed", "5", "--quiet", "--json", *more)
    assert code == 0, err
    return out


def test_match_json_is_the_same_size_at_a_million_games(cli):
    """10^4 and 10^6 games (pairs of two) of random against random on Nim: outputs of the same
    size, but for the digits of their numbers (the old output listed 5 * 10^5 openings, 5 bytes each)."""
    small, large = _sprt(cli, NIM, 5_000), _sprt(cli, NIM, 500_000)
    result = json.loads(large)
    assert result["sprt"]["result"] == "inconclusive" and result["sprt"]["pairs"] == 500_000
    assert result["openings"]["played"] == 500_000 and result["openings"]["distinct"] == 4
    assert sum(entry["count"] for entry in result["openings"]["most_played"]) == 500_000
    assert len(json.dumps(_shape(result))) == len(json.dumps(_shape(json.loads(small))))
    assert len(large) < 2_000


def test_the_openings_summary_counts_the_openings_drawn_whatever_the_workers(cli):
    """Tic-tac-toe has more openings than are listed: the most played first, ties by their text,
    and the sha256 of the openings' texts in play order, each ended by a newline; the same bytes
    in-process and on 2 workers."""
    pairs = 300
    out = _sprt(cli, "tictactoe", pairs)
    assert _sprt(cli, "tictactoe", pairs, "--workers", "2") == out
    game = parse_game("tictactoe")
    texts = [game.format(position) for position in random_openings(game, pairs, 5)]
    counts = Counter(texts)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:OPENINGS_LISTED]
    assert len(counts) > OPENINGS_LISTED and ranked[0][1] > ranked[-1][1]
    assert json.loads(out)["openings"] == {
        "played": pairs, "distinct": len(counts),
        "most_played": [{"opening": text, "count": count} for text, count in ranked],
        "sha256": hashlib.sha256("".join(text + "\n" for text in texts).encode()).hexdigest()}


def test_a_report_is_the_same_size_at_a_hundred_times_the_games(solved, tmp_path):
    """validate's report.json at 100 and 10,000 games a pairing: the same size but for the digits
    of its numbers (the old report listed 10,000 openings, 9 bytes each)."""
    store = solved("nim", {"heaps": [2, 1, 1]})
    shapes = []
    for games in (100, 10_000):
        report = validate(store, tmp_path / str(games), "random", games=games, positions=50, seed=1, quiet=True)
        assert report["openings"]["played"] == games
        shapes.append(len(json.dumps(_shape(json.loads((tmp_path / str(games) / "report.json").read_text())))))
    assert shapes[0] == shapes[1]
