"""Store format 4's "one-ply" encoding (data/encoding.py, docs/STORE.md): Quixo's one-ply classes
against rules written again here from the reference (`quixo_reference`), the encoding of
chunks by hand (the numpy encoder and the numba one: fill, half remoteness, a chunk that breaks
the parity rule), and verify catching stored arrays that decode right but are not the canonical
encoding (`encoding.differs`)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import quixo_reference as qref
from retrograde import outcome as oc
from retrograde.data import encoding, packing
from retrograde.data.encoding import decode, encode
from retrograde.data.encoding_kernels import decode_packed, encode_packed
from retrograde.data.store import Store, stored_digest
from retrograde.games import make_game
from retrograde.games.base import HOLE, LOSS_IN_1, STORED, TERMINAL_LOSS, TERMINAL_WIN, WIN_IN_1


def reference_class(board: str) -> int:
    """The one-ply class of a board (x to move) by the reference's rules: terminal by its lines; a
    win in 1 if a move makes x's line and not o's; a loss in 1 if every move makes o's line."""
    if qref.representative(board) != board:
        return HOLE
    terminal = qref.terminal_value(board)
    if terminal is not None:
        return TERMINAL_WIN if terminal == qref.WIN else TERMINAL_LOSS
    after = list(qref.moves(board).values())
    loses = [qref.has_line(child, "o") for child in after]
    if any(qref.has_line(child, "x") and not lost for child, lost in zip(after, loses)):
        return WIN_IN_1
    return LOSS_IN_1 if all(loses) else STORED


def test_one_ply_classes_of_every_3x3_index_follow_the_rules():
    """The kernel over each whole tier and the numpy batch agree with the reference's rules at
    every index (all six classes occur)."""
    game = make_game("quixo", {"size": 3})
    seen = set()
    for tier in game.tiers():
        expected = np.array([reference_class(qref.normalised(game.format(game.position_at(tier, i))))
                             for i in range(tier.size)], dtype=np.uint8)
        kernel = game.one_ply.classes(tier, 0, tier.size, np.empty(tier.size, np.uint8))
        assert np.array_equal(kernel, expected), tier.name
        assert np.array_equal(game.one_ply.batch(tier, np.arange(tier.size)), expected), tier.name
        if tier.size > 7:  # a chunk that starts inside the tier
            assert np.array_equal(game.one_ply.classes(tier, 5, tier.size - 2, np.empty(tier.size, np.uint8)),
                                  expected[5:tier.size - 2]), tier.name
        seen.update(expected.tolist())
    assert seen == {HOLE, STORED, TERMINAL_WIN, TERMINAL_LOSS, WIN_IN_1, LOSS_IN_1}


W, L, D = oc.WIN, oc.LOSS, oc.DRAW
#: A chunk by hand: its classes, values, and the arrays its encoding holds (worked out from the
#: rules in docs/STORE.md: fill from the last stored index, 0 before the first; s = (r-3)/2 for
#: a win, (r-2)/2 for a loss).
CLASSES = [HOLE, TERMINAL_WIN, STORED, HOLE, WIN_IN_1, STORED, STORED, LOSS_IN_1, TERMINAL_LOSS, STORED]
OUTCOME = [0, W, W, 0, W, L, D, L, L, W]
REMOTENESS = [0, 0, 7, 0, 1, 4, 0, 1, 0, 3]
CODES = [0, 0, W, W, W, L, D, D, D, W]
HALF_S = [0, 0, 2, 2, 2, 1, 0, 0, 0, 0]


def kernel_encode(outcome: np.ndarray, remoteness: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """The bulk (numba) encoder's codes (unpacked), s and half flag."""
    packed, s = np.zeros(packing.packed_length(outcome.size), np.uint8), np.empty_like(remoteness)
    half = encode_packed(outcome, remoteness, packed, s)
    return packing.unpack(packed, outcome.size), s, half


@pytest.mark.parametrize("encoder", [encode, kernel_encode])
def test_a_chunk_encodes_as_worked_out_by_hand_and_decodes_back(encoder):
    outcome, remoteness = np.array(OUTCOME, np.uint8), np.array(REMOTENESS, np.uint16)
    codes, s, half = encoder(outcome, remoteness)
    assert half and codes.tolist() == CODES and s.tolist() == HALF_S and s.dtype == np.uint16
    got_outcome, got_remoteness = decode(np.array(CLASSES, np.uint8), codes, s, half)
    assert got_outcome.tolist() == OUTCOME and got_remoteness.tolist() == REMOTENESS


@pytest.mark.parametrize("encoder", [encode, kernel_encode])
def test_a_chunk_that_breaks_the_parity_rule_keeps_remoteness_whole(encoder):
    """A stored win at an even remoteness (or a loss at an odd one) cannot be halved: the chunk
    keeps s = r (half False) and still decodes exactly."""
    for index, r in ((2, 6), (5, 5)):  # the win at 2 in 6, or the loss at 5 in 5
        remoteness = np.array(REMOTENESS, np.uint16)
        remoteness[index] = r
        codes, s, half = encoder(np.array(OUTCOME, np.uint8), remoteness)
        assert not half and codes.tolist() == CODES
        assert s.tolist() == [0, 0, remoteness[2], remoteness[2], remoteness[2], remoteness[5], 0, 0, 0, 3]
        got = decode(np.array(CLASSES, np.uint8), codes, s, half)
        assert got[0].tolist() == OUTCOME and got[1].tolist() == remoteness.tolist()


def test_seeded_chunks_round_trip():
    """Random chunks of every class (values as the classes allow, parity kept or broken)."""
    rng = np.random.default_rng(7)
    for trial in range(40):
        classes = rng.integers(0, 6, 500).astype(np.uint8)
        stored = classes == STORED
        outcome = np.select([classes == HOLE, classes == TERMINAL_WIN, classes == WIN_IN_1, stored],
                            [0, W, W, rng.choice([W, L, D], 500)], L).astype(np.uint8)
        r = np.where(outcome == W, 2 * rng.integers(0, 40, 500) + 3, 2 * rng.integers(0, 40, 500) + 2)
        if trial % 2:  # break the parity at one stored win or loss
            r[np.flatnonzero(stored & (outcome != D))[0]] += 1
        remoteness = np.select([stored & (outcome != D), (classes == WIN_IN_1) | (classes == LOSS_IN_1)],
                               [r, 1], 0).astype(np.uint16)
        codes, s, half = encode(outcome, remoteness)
        assert half == (trial % 2 == 0)
        kernel = kernel_encode(outcome, remoteness)  # the bulk (numba) encoder
        assert np.array_equal(kernel[0], codes) and np.array_equal(kernel[1], s) and kernel[2] == half, trial
        got = decode(classes, codes, s, half)
        assert np.array_equal(got[0], outcome) and np.array_equal(got[1], remoteness), trial
        packed, values = np.zeros(125, np.uint8), np.empty(500, np.uint16)  # the bulk (numba) decoder
        decode_packed(classes, packing.pack(codes), s, half, packed, values)
        assert np.array_equal(packing.unpack(packed, 500), outcome) and np.array_equal(values, remoteness), trial


def test_a_parity_breaking_chunk_is_stored_and_read_exactly(solved, tmp_path):
    """Through the store: a chunk whose values break the parity rule gets a half file (0), reads
    back as written, and a plain zarr read of the half array says so."""
    import zarr

    path = tmp_path / "q3.zarr"
    shutil.copytree(solved("quixo", {"size": 3}), path)
    with Store.open(path, mode="r+") as store:
        name = max(store.plan.tiers, key=lambda tier: tier.size).name
        outcome, remoteness = store.read_chunk_raw(name, 0)
        outcome = packing.unpack(outcome, remoteness.size)
        assert store.read_chunk_stored(name, 0)[2].tolist() == [1]
        win = int(np.flatnonzero((outcome == W) & (remoteness >= 3))[0])
        remoteness[win] += 1
        store.write_chunk(name, 0, outcome, remoteness)
        back = store.read_chunk_raw(name, 0, checked=False)  # not recorded
        assert np.array_equal(packing.unpack(back[0], remoteness.size), outcome)
        assert np.array_equal(back[1], remoteness)
    assert zarr.open_group(str(path), mode="r")[f"tiers/{name}/half"][:].tolist() == [0]


def _rewrite_stored(path, tier: str, change) -> None:
    """Change tier's chunk 0 as stored (`change(codes, s)` in place), its record's digest of the
    files rewritten: values and checksum are untouched where the change is one decoding ignores."""
    with Store.open(path, mode="r+") as store:
        packed, s, half = store.read_chunk_stored(tier, 0)
        codes = packing.unpack(packed, s.size)
        change(codes, s)
        files = [codec.encode(values) for codec, values in zip(store._codecs(tier), (packing.pack(codes), s, half))]
        for array, content in zip(store.arrays, files):
            target = path / "tiers" / tier / array / "c" / "0"
            if content is None:
                target.unlink(missing_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
        store.record_chunks(tier, [{**store.record(tier).chunks[0], "stored": stored_digest(files), "chunk": 0}])


@pytest.mark.parametrize("where", ["hole", "one-ply", "stored"])
def test_verify_catches_arrays_that_are_not_the_canonical_encoding(solved, tmp_path, cli, where):
    """A hole's or a one-ply position's fill changed (which decoding never reads), or a stored
    position's s changed: verify fails naming one wrong index. The indices are chosen by the
    reference's rules."""
    path = tmp_path / "q3.zarr"
    shutil.copytree(solved("quixo", {"size": 3}), path)
    game = make_game("quixo", {"size": 3})
    tier = game.tier("m4o4")
    classes = [reference_class(qref.normalised(game.format(game.position_at(tier, i)))) for i in range(tier.size)]
    wanted = {"hole": (HOLE,), "one-ply": (WIN_IN_1, TERMINAL_WIN, TERMINAL_LOSS), "stored": (STORED,)}[where]
    index = next(i for i, kind in enumerate(classes) if kind in wanted and i > 0)

    def change(codes, s):
        if where == "stored":  # its s and the fill after it, up to the next stored index
            following = [i for i in range(index + 1, tier.size) if classes[i] == STORED]
            s[index:following[0] if following else tier.size] += 1
        else:
            codes[index] = (codes[index] % 3) + 1
            s[index] += 1

    _rewrite_stored(path, tier.name, change)
    code, stdout, _ = cli("verify", "--store", str(path), "--workers", "0", "--quiet")
    assert code == 1 and ", 1 wrong," in stdout and f"{tier.name}[{index}]" in stdout, stdout


def test_a_stored_win_at_an_even_remoteness_keeps_the_chunk_whole():
    """data/encoding_kernels.py: a win at remoteness 2 (stored: r >= 2) breaks the parity rule
    (a stored win's r is odd), so the chunk is not halved: half False and s = r, numba encoder
    and numpy encoder alike (docs/STORE.md)."""
    outcome, remoteness = np.array([oc.WIN, oc.LOSS], dtype=np.uint8), np.array([2, 4], dtype=np.uint16)
    packed, s = np.zeros(1, np.uint8), np.empty(2, np.uint16)
    assert encode_packed(outcome, remoteness, packed, s) is False and s.tolist() == [2, 4]
    assert packing.unpack(packed, 2).tolist() == [oc.WIN, oc.LOSS]
    codes, s, half = encoding.encode(outcome, remoteness)
    assert half is False and s.tolist() == [2, 4]


def test_encoding_differs_finds_the_indices_not_canonically_encoded():
    """data/encoding.py: a win in 3, a loss in 2 and a draw are stored as codes W, L, D and half
    s 0, 0, 0 (docs/STORE.md); against those arrays nothing differs, a changed s differs at its
    index, and a wrong half flag at every index."""
    outcome, remoteness = np.array([oc.WIN, oc.LOSS, oc.DRAW], np.uint8), np.array([3, 2, 0], np.uint16)
    codes = packing.pack(np.array([oc.WIN, oc.LOSS, oc.DRAW], np.uint8))
    s, half = np.zeros(3, np.uint16), np.array([1], np.uint8)
    assert encoding.differs((codes, s, half), outcome, remoteness).tolist() == [False, False, False]
    changed = s.copy()
    changed[1] = 1
    assert encoding.differs((codes, changed, half), outcome, remoteness).tolist() == [False, True, False]
    assert encoding.differs((codes, s, np.array([0], np.uint8)), outcome, remoteness).tolist() == [True] * 3
