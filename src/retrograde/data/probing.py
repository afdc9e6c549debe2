"""Reading positions' values back from a store: single values and full move analyses, and the
JSON lines of `probe --json` built on the arrays of the game's batch hooks.

Plain Python and numpy only (no numba), so a probe starts fast; only a long `probe --json` of a
one-ply store has the game's kernel decode the chunks it asks most (`WHOLE_AFTER`). Positions
are grouped by tier so that a batch reads each zarr chunk once.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii as quoted  # a JSON string, as json.dumps writes it
from typing import Any, NamedTuple

import numpy as np

from retrograde import outcome as oc
from retrograde.data import packing
from retrograde.data.store import Store
from retrograde.errors import MissingTierError, StoreError
from retrograde.games.base import State, numbered_tiers


class Value(NamedTuple):
    """A position's value for the side to move; remoteness is None for draws."""

    outcome: int
    remoteness: int | None

    @property
    def name(self) -> str:
        return oc.name(self.outcome)

    def __str__(self) -> str:
        return self.name if self.remoteness is None else f"{self.name} in {self.remoteness}"


class MoveValue(NamedTuple):
    move: str
    position: State
    value: Value  # for the side that makes the move, plies counted from before it


@dataclass(frozen=True)
class Analysis:
    position: State
    value: Value
    moves: tuple[MoveValue, ...]

    def to_json(self, game) -> dict[str, Any]:
        return {
            "game": game.name,
            "position": game.format(self.position),
            "value": self.value.name,
            "remoteness": self.value.remoteness,
            "moves": [{"move": m.move, "position": game.format(m.position), "value": m.value.name,
                       "remoteness": m.value.remoteness} for m in self.moves],
        }


def _groups(keys: np.ndarray) -> list[np.ndarray]:
    """The slots of each distinct key (small integers), groups in order of first appearance."""
    order = np.argsort(keys.astype(np.uint16) if keys.size and keys.max() < 1 << 16 else keys, kind="stable")
    starts = np.flatnonzero(np.diff(keys[order], prepend=-1))
    return sorted((order[lo:hi] for lo, hi in zip(starts.tolist(), [*starts[1:].tolist(), keys.size])),
                  key=lambda slots: slots[0])


def _stored(store: Store, tiers: np.ndarray, tier_of: np.ndarray, indices: np.ndarray, text_of: Callable[[int], str],
            read: Callable[[str, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None
            ) -> tuple[np.ndarray, np.ndarray]:
    """Outcome codes and remoteness of legal positions stored at indices of tiers (`tiers[tier_of]`),
    read tier by tier (`read`: `store.read_values` unless given; tiers in order of appearance: a
    missing one is named for the first position that needs it); `text_of(slot)` names a
    position that has no stored value."""
    read = read or store.read_values
    codes = np.zeros(len(indices), dtype=np.int8)
    remoteness = np.zeros(len(indices), dtype=np.int64)
    for slots in _groups(tier_of):
        codes[slots], remoteness[slots] = read(str(tiers[tier_of[slots[0]]]), indices[slots])
    for slot in np.flatnonzero(codes == oc.UNDECIDED)[:1].tolist():
        raise StoreError(f"store {str(store.path)!r}: {text_of(slot)!r} "
                         f"({tiers[tier_of[slot]]}[{indices[slot]}]) has no stored value")
    return codes, remoteness


def _stored_states(store: Store, positions: list[State]) -> tuple[np.ndarray, np.ndarray]:
    """`_stored` of positions given as states."""
    return _stored(store, *numbered_tiers(*store.game.locate_stored(positions)),
                   lambda slot: store.game.format(positions[slot]))


def _as_values(codes: np.ndarray, remoteness: np.ndarray) -> list[Value]:
    return [Value(code, None if code == oc.DRAW else r) for code, r in zip(codes.tolist(), remoteness.tolist())]


#: A child's outcome code, seen by the side that moved into it.
_FLIPPED = np.array([oc.UNDECIDED, oc.WIN, oc.DRAW, oc.LOSS], dtype=np.int8)


def _as_achieved(codes: np.ndarray, remoteness: np.ndarray, n: int) -> None:
    """Turn the values after the first `n` (children's, for their side to move) into those the
    moves achieve: seen by the mover, plies counted from before the move."""
    codes[n:], remoteness[n:] = _FLIPPED[codes[n:]], remoteness[n:] + 1


def values(store: Store, positions: Iterable[State]) -> list[Value]:
    """Stored values of legal positions (MissingTierError if a tier is not solved)."""
    return _as_values(*_stored_states(store, list(positions)))


def analyse(store: Store, positions: Iterable[State]) -> list[Analysis]:
    """Each position's value and the value every legal move achieves, in one batched read."""
    positions = list(positions)
    moves = [store.game.moves(position) for position in positions]
    codes, remoteness = _stored_states(store, positions + [child for position_moves in moves
                                                           for _, child in position_moves])
    n = len(positions)
    _as_achieved(codes, remoteness, n)
    own = _as_values(codes[:n], remoteness[:n])
    achieved = iter(_as_values(codes[n:], remoteness[n:]))
    return [
        Analysis(position, value, tuple(MoveValue(move, child, next(achieved)) for move, child in position_moves))
        for position, value, position_moves in zip(positions, own, moves)
    ]


# --- JSON lines of many positions (`probe --json`), built on arrays -------------------------
#: A one-ply store's chunk is decoded whole by the game's kernel (about 20 ns an index on 4x4
#: Quixo, where the numpy classes of single indices take about 3 us) once a probe has asked it
#: for 1/WHOLE_SHARE of its indices, and has asked WHOLE_AFTER values in all: loading the kernels
#: costs about 0.8 s of CPU, what 250,000 values read one by one cost, and a probe of a full input
#: batch of 4x4 Quixo (8,192 positions, about 190,000 values) decodes from its first batch.
WHOLE_SHARE = 256
WHOLE_AFTER = 150_000
#: Bytes of whole chunks a probe keeps decoded (the least recently used go first).
WHOLE_BYTES = 512 << 20


class _Reader:
    """A probe's reads of many indices (`Store.read_values`), with the chunks it asks often
    decoded whole and kept (`WHOLE_SHARE`)."""

    def __init__(self, store: Store):
        self.store = store
        self.solved: set[str] = set()
        self.asked: Counter[tuple[str, int]] = Counter()
        self.total = 0
        self.kept: OrderedDict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self.kept_bytes = 0

    def expect(self, count: int) -> None:
        """Count the values a batch is about to ask (before its reads: its chunks are decoded
        whole from the first read when it asks enough)."""
        self.total += count

    def read(self, name: str, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Outcome codes and remoteness at `indices` of tier `name`, as `Store.read_values`."""
        if name not in self.solved:  # MissingTierError as read_values raises it, once a tier
            self.store.require_solved(name)
            self.solved.add(name)
        chunk_size = self.store.plan.chunking(name).chunk_size
        chunks = indices // chunk_size
        codes = np.empty(indices.size, dtype=np.uint8)
        remoteness = np.empty(indices.size, dtype=np.int64)
        single = []  # the rows read index by index, in one call
        for rows in _groups(chunks):
            chunk = int(chunks[rows[0]])
            self.asked[name, chunk] += rows.size
            whole = self._whole(name, chunk)
            if whole is None:
                single.append(rows)
            else:
                local = indices[rows] - chunk * chunk_size
                codes[rows] = packing.unpack_at(whole[0][local // packing.PER_BYTE], local)
                remoteness[rows] = whole[1][local]
        if single:
            rows = np.concatenate(single)
            codes[rows], remoteness[rows] = self.store.read_values(name, indices[rows])
        return codes, remoteness

    def _whole(self, name: str, chunk: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The chunk's packed codes and remoteness decoded whole, where kept or now worth decoding."""
        key = (name, chunk)
        if key in self.kept:
            self.kept.move_to_end(key)
            return self.kept[key]
        start, stop = self.store.plan.chunking(name).bounds(chunk)
        if not (self.store.one_ply and self.total >= WHOLE_AFTER and self.asked[key] * WHOLE_SHARE >= stop - start):
            return None
        packed, remoteness = self.store.read_chunk_raw(name, chunk)
        whole = self.kept[key] = packed, remoteness
        self.kept_bytes += whole[0].nbytes + remoteness.nbytes
        while self.kept_bytes > WHOLE_BYTES and len(self.kept) > 1:
            self.kept_bytes -= sum(array.nbytes for array in self.kept.popitem(last=False)[1])
        return whole


class _Column(NamedTuple):
    """A column of the JSON lines: uint8 rows (or one row, the same on every line) holding texts
    left-aligned and padded with zero bytes (no JSON text holds one: they are dropped when the
    lines are joined), and the texts' lengths."""

    chars: np.ndarray
    lengths: np.ndarray


def _texts(strings: list[bytes], which: np.ndarray | None = None) -> _Column:
    """A column of `strings`; with `which`, row i holds strings[which[i]]."""
    table = np.array(strings, dtype=bytes)
    chars = np.frombuffer(table.tobytes(), dtype=np.uint8).reshape(len(strings), table.itemsize)
    lengths = np.array([len(string) for string in strings], dtype=np.int64)
    if which is None:
        return _Column(chars, lengths)
    which = np.asarray(which, dtype=np.intp)
    return _Column(chars[which], lengths[which])


_QUOTE = _texts([b'"'])
#: The bytes a JSON string cannot hold as they are (json.dumps escapes them; zero is padding).
_ESCAPED = np.ones(256, dtype=bool)
_ESCAPED[[0, *range(32, 127)]] = False
_ESCAPED[[ord('"'), ord("\\")]] = True


def _quoted(texts: np.ndarray) -> list[_Column]:
    """Columns of the texts (a numpy array of str or of ASCII bytes) as JSON strings, what
    json.dumps writes: on arrays where every character is printable ASCII other than quote and
    backslash, else string by string."""
    unit = 1 if texts.dtype.kind == "S" else 4
    chars = texts.view(np.uint8 if unit == 1 else np.uint32).reshape(texts.size, texts.dtype.itemsize // unit)
    if unit == 4 and chars.size and chars.max() < 128:
        chars = chars.astype(np.uint8)
    if chars.dtype == np.uint8 and not _ESCAPED[chars].any():
        if chars.all():  # every text as wide as the array
            return [_QUOTE, _Column(chars, np.full(texts.size, chars.shape[1])), _QUOTE]
        padding = chars == 0
        if not (padding[:, :-1] & ~padding[:, 1:]).any():  # zero bytes only after the text: numpy's padding
            return [_QUOTE, _Column(chars, chars.shape[1] - padding.sum(axis=1)), _QUOTE]
    return [_texts([quoted(_text(text)).encode() for text in texts.tolist()])]


def _valued(codes: np.ndarray, remoteness: np.ndarray, endings: tuple[bytes, bytes], last: np.ndarray) -> _Column:
    """A column of `"value": NAME, "remoteness": R` (null for a draw), each followed by
    endings[1] where `last` says so, else endings[0]."""
    span = int(remoteness.max(initial=0)) + 1
    keys = (codes.astype(np.int64) * span + np.where(codes == oc.DRAW, 0, remoteness)) * 2 + last
    present = np.flatnonzero(np.bincount(keys))
    texts = []
    for key in present.tolist():
        code, plies = divmod(key // 2, span)
        texts.append(f'"value": "{oc.name(code)}", "remoteness": {"null" if code == oc.DRAW else plies}'.encode()
                     + endings[key % 2])
    return _texts(texts, np.searchsorted(present, keys))


def _joined(count: int, columns: list[_Column]) -> tuple[bytes, np.ndarray]:
    """The `count` rows of `columns` side by side, each row's text without its padding, one after
    another, and each row's length."""
    rows = np.empty((count, sum(column.chars.shape[1] for column in columns)), dtype=np.uint8)
    at = 0
    for column in columns:
        rows[:, at:at + column.chars.shape[1]] = column.chars
        at += column.chars.shape[1]
    return rows.tobytes().translate(None, b"\0"), np.broadcast_to(sum(column.lengths for column in columns), count)


def _json_block(store: Store, batch, reader: _Reader) -> bytes:
    """The JSON lines of a batch's positions, each ending in a newline."""
    game = store.game
    counts, moves, children = game.children_many(batch)
    texts, child_texts = game.format_many(batch), game.format_many(children)
    n, k = len(texts), len(child_texts)
    (tiers, tier_of, indices), (child_tiers, child_tier_of, child_indices) = map(game.locate_stored_many,
                                                                                  (batch, children))
    reader.expect(n + k)
    codes, remoteness = _stored(store, np.concatenate([tiers, child_tiers]),
                                np.concatenate([tier_of, child_tier_of + len(tiers)]),
                                np.concatenate([indices, child_indices]),
                                lambda slot: _text(texts[slot] if slot < n else child_texts[slot - n]), reader.read)
    _as_achieved(codes, remoteness, n)
    last = np.zeros(k, dtype=bool)
    last[(np.cumsum(counts) - 1)[counts > 0]] = True
    heads = _joined(n, [_texts([f'{{"game": {quoted(game.name)}, "position": '.encode()]), *_quoted(texts),
                        _texts([b", "]), _valued(codes[:n], remoteness[:n], (b', "moves": [', b', "moves": []}\n'),
                                                 counts == 0)])
    moved = _joined(k, [_texts([b'{"move": ']), *_quoted(moves), _texts([b', "position": ']), *_quoted(child_texts),
                        _texts([b", "]), _valued(codes[n:], remoteness[n:], (b"}, ", b"}]}\n"), last)])
    head_at = np.concatenate([[0], np.cumsum(heads[1])]).tolist()  # where each row's text starts
    move_at = np.concatenate([[0], np.cumsum(moved[1])])[np.concatenate([[0], np.cumsum(counts)])].tolist()
    head_text, move_text = memoryview(heads[0]), memoryview(moved[0])
    parts = []
    for i in range(n):  # a position's line: its row, then its moves' rows
        parts += (head_text[head_at[i]:head_at[i + 1]], move_text[move_at[i]:move_at[i + 1]])
    return b"".join(parts)


def _text(text: bytes | str) -> str:
    """An element of a numpy array of texts (str or ASCII bytes) as str."""
    return text.decode() if isinstance(text, bytes) else str(text)


def json_blocks(store: Store, batches: Iterable) -> Iterator[bytes]:
    """`probe --json` of many positions: for each batch (the game's form of many positions:
    `Game.batch_of`, `Game.parse_many`), the lines of JSON of its positions, each the text
    `json.dumps(Analysis.to_json)` writes, built on the arrays of the game's batch hooks."""
    reader = _Reader(store)
    for batch in batches:
        yield _json_block(store, batch, reader)


def json_lines(store: Store, positions: Iterable[State]) -> list[str]:
    """`Analysis.to_json` of each position as a line of JSON (`json_blocks`)."""
    return b"".join(json_blocks(store, [store.game.batch_of(list(positions))])).decode().splitlines()


def start_value(store: Store) -> tuple[Value | None, str | None]:
    """The value of the instance's start position, or None and why the store cannot say."""
    start = store.game.initial_position
    try:
        (value,) = values(store, [start])
    except MissingTierError:
        return None, f"its start position (tier {store.game.locate(start)[0]}) is not in this store"
    return value, None


def start_summary(store: Store) -> str:
    """Who wins the instance from its start position and how fast, as a phrase for a result line."""
    value, why = start_value(store)
    if value is None:
        return why
    if value.outcome == oc.DRAW:
        return "a draw with perfect play"
    plies = "1 ply" if value.remoteness == 1 else f"{value.remoteness} plies"
    return f"the first player {'wins' if value.outcome == oc.WIN else 'loses'} in {plies}"
