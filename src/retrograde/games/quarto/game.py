"""Quarto, solved exactly below a given position (its root).

Sixteen pieces, each with four binary attributes (bit i of the piece number is attribute
i), go onto a 4x4 board. The side to move places the piece it was handed; if that
completes a line of four pieces sharing an attribute value (all with bit i set, or all
with it clear) it wins; otherwise it hands the opponent one of the pieces not yet on the
board. A full board without a line is a draw. Lines are the 4 rows, 4 columns and 2
diagonals; with `--squares` also the nine 2x2 squares.

A position is `(board, hand)`: `board` a tuple of 16 pieces (cell row*4 + col, row 0 on
top, -1 for empty), `hand` the piece the side to move must place, or -1 when nothing is
in hand: at the empty board before the first piece is handed over (the opening move only
hands a piece, written `:7`), and at a finished game (a placement that ends the game
hands nothing, written `b3`).

Tiers hold the positions below the root by pieces on the board (`p{n}`, plus `start` for
the empty board with nothing in hand); each move adds a piece, so tiers are loop-free and
solved from the fullest board down. Positions whose board holds a line stay in their tier
as terminal losses for the side to move. Within a tier an index is, most significant
first: the colex rank of which of the root's empty cells are filled, the rank of the set
of pieces on them (a set always holding the root's hand piece, which is placed first),
the Lehmer rank of their order over the filled cells, and the rank of the hand piece among
the pieces left. Indices that hold no position are holes: a board with a line has no hand
piece, so only its first hand slot holds it, and a line no single placement could have
made (or one only the root's hand piece could have made after later ones) is unreachable.
The plain-Python rules and ranking here are the reference for `games.quarto.kernels`.
"""

from __future__ import annotations

import random
from functools import cached_property
from math import comb, factorial, prod

from retrograde import outcome
from retrograde.errors import BadOption, BadPosition
from retrograde.games import ranking
from retrograde.games.base import Expansion, Game, Param, Tier
from retrograde.games.quarto.cells import (CELLS, EMPTY, EMPTY_BOARD, HEX, NO_PIECE, OPENING, PIECES, board_lines,
                                           cell_name, is_line)


def order_rank(order: list[int]) -> int:
    """Lehmer rank of a permutation of 0..k-1 (lexicographic order)."""
    rank, used, k = 0, 0, len(order)
    for i, value in enumerate(order):
        rank = rank * (k - i) + (~used & ((1 << value) - 1)).bit_count()
        used |= 1 << value
    return rank


def order_at(rank: int, k: int) -> list[int]:
    """The permutation of 0..k-1 with Lehmer rank `rank` (inverse of `order_rank`)."""
    digits = [0] * k
    for i in range(k - 1, -1, -1):
        rank, digits[i] = divmod(rank, k - i)
    unused = list(range(k))
    return [unused.pop(digit) for digit in digits]


def random_position(empty: int, *, seed: int, squares: bool = False) -> tuple[tuple[int, ...], int]:
    """A position with `empty` empty cells and no line, a piece in hand (unless the board is
    full): seeded random play from the empty board (random cells, random pieces), played
    again until no placement made a line (roots for benchmarks/bench_quarto.py)."""
    if not 0 <= empty <= CELLS:
        raise BadOption(f"{empty} empty cells: a board has 0 to {CELLS}")
    rng = random.Random(seed)
    lines = board_lines(squares)
    while True:
        cells, pieces = rng.sample(range(CELLS), CELLS), rng.sample(range(PIECES), PIECES)
        board = [EMPTY] * CELLS
        for cell, piece in zip(cells[:CELLS - empty], pieces):
            board[cell] = piece
            if any(is_line(board, line) for line in lines if cell in line):
                break
        else:
            return tuple(board), (pieces[CELLS - empty] if empty else NO_PIECE)


class Quarto(Game):
    name = "quarto"
    summary = "Quarto (4x4, 16 pieces of 4 binary attributes), solved exactly below a given position"
    notation = ("4 rows joined by '/', cells . or a piece as a hex digit 0-f, a space, the piece in hand "
                "(or - when none): 3.../..a./..../.... 7; moves CELL:PIECE (place at CELL, hand PIECE over), "
                "e.g. b3:7, just CELL when the placement ends the game, :PIECE for the opening handover")
    tier_legend = ("p{n} holds the positions below the root with n pieces on the board; start: the empty "
                   "board before the first piece is handed over")
    examples = ({"root": "9..0/f.1e/8..b/42.c 5"},)
    params_spec = (
        Param("root", "the position to solve below (default: the empty board, the whole game)",
              kind=str, metavar="POSITION", flag="--from", rule=False),
        Param("squares", "the 2x2-square variant: four pieces in a 2x2 square also make a line"),
    )

    def __init__(self, *, root: str | None = None, squares: bool = False):
        self.squares = bool(squares)
        text = "..../..../..../.... -" if root is None else str(root)
        try:
            board, hand = self.parse(text)
        except BadPosition as exc:
            raise BadOption(f"--from: {exc}") from None
        if self.has_line(board):
            raise BadOption(f"--from {text!r}: the board already holds a line, so the game is over "
                            "and nothing lies below it")
        self.root = (board, hand)
        #: The root's empty cells and the pieces off its board, ascending: the ranking's slots.
        self.empty_cells = tuple(cell for cell in range(CELLS) if board[cell] == EMPTY)
        self.free_pieces = tuple(sorted(set(range(PIECES)) - set(board)))
        #: The piece every line below the root starts with (the root's hand), or -1 if any.
        self.first_piece = hand
        self.opening = self.root == OPENING
        self._slot_of_piece = {piece: slot for slot, piece in enumerate(self.free_pieces)}

    @property
    def params(self):
        """The root in canonical notation, None for the whole game (so `describe` says `quarto`)."""
        return {"root": None if self.opening else self.format(self.root), "squares": self.squares}

    @property
    def max_moves(self):
        return max(self.tier_moves(-1 if self.opening else 0), self.tier_moves(0))

    @property
    def max_remoteness(self):
        return CELLS + 1  # from any position, not only below the root: agents play them all

    @property
    def initial_position(self):
        return self.root

    # --- notation -------------------------------------------------------------------
    def parse(self, text):
        raw = text.strip()
        board_text, _, hand_text = raw.partition(" ")
        rows = board_text.lower().split("/")
        where = f"quarto position {raw!r}"
        if len(rows) != 4:
            raise BadPosition(f"{where}: expected 4 rows of 4 cells joined by '/', got {len(rows)} rows")
        for r, row in enumerate(rows):
            if len(row) != 4:
                raise BadPosition(f"{where}: row {r + 1} has {len(row)} cells, not 4")
        board = []
        for cell, char in enumerate("".join(rows)):
            if char != "." and char not in HEX:
                raise BadPosition(f"{where}: bad cell {char!r} at {cell_name(cell)} "
                                  "(use . or a piece as a hex digit 0-f)")
            board.append(EMPTY if char == "." else HEX.index(char))
        seen: dict[int, int] = {}
        for cell, piece in enumerate(board):
            if piece == EMPTY:
                continue
            if piece in seen:
                raise BadPosition(f"{where}: piece {HEX[piece]} stands twice, on {cell_name(seen[piece])} "
                                  f"and {cell_name(cell)}")
            seen[piece] = cell
        hand_text = hand_text.strip().lower()
        if not hand_text:
            raise BadPosition(f"{where}: give the piece in hand (a hex digit 0-f, or - for none) after a space")
        if hand_text != "-" and (len(hand_text) != 1 or hand_text not in HEX):
            raise BadPosition(f"{where}: bad piece in hand {hand_text!r} (a hex digit 0-f, or - for none)")
        hand = NO_PIECE if hand_text == "-" else HEX.index(hand_text)
        if hand in seen:
            raise BadPosition(f"{where}: piece {hand_text} in hand already stands on {cell_name(seen[hand])}")
        board = tuple(board)
        if self.has_line(board) or EMPTY not in board:
            return (board, NO_PIECE)  # the game is over: nothing is handed
        if hand == NO_PIECE and board != EMPTY_BOARD:
            raise BadPosition(f"{where}: give the piece to place (a hex digit 0-f); '-' (nothing in hand) "
                              "is only for the empty board before the first handover or a finished game")
        return (board, hand)

    def format(self, position):
        board, hand = position
        cells = "".join("." if piece == EMPTY else HEX[piece] for piece in board)
        rows = "/".join(cells[r * 4:r * 4 + 4] for r in range(4))
        return f"{rows} {'-' if hand == NO_PIECE else HEX[hand]}"

    # --- rules (plain Python reference) -----------------------------------------------
    @cached_property
    def lines(self) -> tuple[tuple[int, ...], ...]:
        return board_lines(self.squares)

    def has_line(self, board: tuple[int, ...]) -> bool:
        return any(is_line(board, line) for line in self.lines)

    def primitive(self, position):
        board, _ = position
        if self.has_line(board):
            return outcome.LOSS  # the previous mover completed the line
        if EMPTY not in board:
            return outcome.DRAW
        return 0

    def moves(self, position):
        if self.primitive(position):
            return []
        board, hand = position
        left = [piece for piece in range(PIECES) if piece not in board]
        if hand == NO_PIECE:
            return [(f":{HEX[piece]}", (board, piece)) for piece in left]
        left.remove(hand)
        result = []
        for cell in range(CELLS):
            if board[cell] != EMPTY:
                continue
            child = board[:cell] + (hand,) + board[cell + 1:]
            if not left or self.has_line(child):
                result.append((cell_name(cell), (child, NO_PIECE)))
            else:
                result.extend((f"{cell_name(cell)}:{HEX[piece]}", (child, piece)) for piece in left)
        return result

    # --- tiers and ranking --------------------------------------------------------------
    def tier_counts(self, k: int) -> tuple[int, int, int, int]:
        """(cell sets, piece sets, orders, hands) for the positions with k pieces placed below
        the root: a tier holds their product."""
        e = len(self.empty_cells)
        sets = comb(e - 1, k - 1) if self.first_piece != NO_PIECE and k else comb(e, k)
        hands = 1 if k == e or (k == 0 and not self.opening) else e - k
        return comb(e, k), sets, factorial(k), hands

    def tier_name(self, k: int) -> str:
        """The tier of the positions with k pieces placed below the root."""
        return f"p{CELLS - len(self.empty_cells) + k}"

    def tiers(self):
        e = len(self.empty_cells)
        result = [Tier(self.tier_name(k), prod(self.tier_counts(k)),
                       (self.tier_name(k + 1),) if k < e else (), (k,)) for k in range(e, -1, -1)]
        if self.opening:
            result.append(Tier("start", 1, (self.tier_name(0),), (-1,)))
        return tuple(result)

    def locate(self, position):
        board, hand = position
        if self.opening and position == OPENING:
            return "start", 0
        where = f"quarto position {self.format(position)!r}"
        root_board, _ = self.root
        for cell, piece in enumerate(root_board):
            if piece != EMPTY and board[cell] != piece:
                shown = "empty" if board[cell] == EMPTY else f"piece {HEX[board[cell]]}"
                raise BadPosition(f"{where} does not lie below the root {self.format(self.root)!r}: "
                                  f"{cell_name(cell)} holds piece {HEX[piece]} there, {shown} here")
        filled = [slot for slot, cell in enumerate(self.empty_cells) if board[cell] != EMPTY]
        k = len(filled)
        if self.first_piece != NO_PIECE and k and self.first_piece not in board:
            raise BadPosition(f"{where} does not lie below the root {self.format(self.root)!r}: the root's "
                              f"piece in hand, {HEX[self.first_piece]}, is not on the board")
        if k == 0 and not self.opening and position != self.root:
            raise BadPosition(f"{where} does not lie below the root {self.format(self.root)!r}: "
                              "no piece placed, but another piece in hand")
        if self.has_line(board) and not self._made_in_one(board):
            raise BadPosition(f"{where}: no single placement below the root makes these lines")
        _, sets, orders, hands = self.tier_counts(k)
        pieces = [self._slot_of_piece[board[self.empty_cells[slot]]] for slot in filled]
        piece_mask = sum(1 << piece for piece in pieces)
        index = ranking.rank_mask(sum(1 << slot for slot in filled)) * sets + self._set_rank(piece_mask, k)
        index = index * orders + order_rank([(piece_mask & ((1 << piece) - 1)).bit_count() for piece in pieces])
        hand_rank = 0
        if hands > 1 and hand != NO_PIECE:
            hand_rank = (~piece_mask & ((1 << self._slot_of_piece[hand]) - 1)).bit_count()
        return self.tier_name(k), index * hands + hand_rank

    def position_at(self, tier, index):
        (k,) = tier.key
        if k < 0:
            return OPENING
        _, sets, orders, hands = self.tier_counts(k)
        rest, hand_rank = divmod(index, hands)
        rest, order = divmod(rest, orders)
        cells_rank, set_rank = divmod(rest, sets)
        filled = _bits(ranking.unrank_mask(cells_rank, k))
        piece_mask = self._piece_mask_at(set_rank, k)
        pieces = _bits(piece_mask)
        board = list(self.root[0])
        for slot, local in zip(filled, order_at(order, k)):
            board[self.empty_cells[slot]] = self.free_pieces[pieces[local]]
        board = tuple(board)
        if self.has_line(board):
            return (board, NO_PIECE) if hand_rank == 0 and self._made_in_one(board) else None
        if k == len(self.empty_cells):
            return (board, NO_PIECE)
        if k == 0 and not self.opening:
            return self.root
        left = [slot for slot in range(len(self.free_pieces)) if not piece_mask >> slot & 1]
        return (board, self.free_pieces[left[hand_rank]])

    def _set_rank(self, piece_mask: int, k: int) -> int:
        """Rank of the set of placed pieces (slots of `free_pieces`); the first piece's slot,
        always in the set, is squeezed out."""
        if self.first_piece == NO_PIECE or not k:
            return ranking.rank_mask(piece_mask)
        first = 1 << self._slot_of_piece[self.first_piece]
        return ranking.rank_mask(ranking.squeeze(piece_mask, first, PIECES))

    def _piece_mask_at(self, set_rank: int, k: int) -> int:
        if self.first_piece == NO_PIECE or not k:
            return ranking.unrank_mask(set_rank, k)
        first = 1 << self._slot_of_piece[self.first_piece]
        return ranking.unsqueeze(ranking.unrank_mask(set_rank, k - 1), first, PIECES) | first

    def _made_in_one(self, board: tuple[int, ...]) -> bool:
        """Whether one placement below the root made every line of `board`: a cell on all of
        them, filled below the root, by any piece but the first one placed (unless it is the only one)."""
        lines = [line for line in self.lines if is_line(board, line)]
        placed = [cell for cell in self.empty_cells if board[cell] != EMPTY]
        return any(all(cell in line for line in lines) and
                   (board[cell] != self.first_piece or len(placed) == 1) for cell in placed)

    # --- kernels ------------------------------------------------------------------------
    @cached_property
    def kernel_tables(self):
        """The instance as the arrays `games.quarto.kernels` take (see `kernels.instance_tables`)."""
        from retrograde.games.quarto import kernels

        return kernels.instance_tables(self)

    def tier_moves(self, k: int) -> int:
        """The most moves a position with k pieces placed below the root has (k = -1: the opening)."""
        if k < 0:
            return PIECES
        left = len(self.empty_cells) - k
        return max(1, left * (left - 1))

    def expand(self, tier, start, stop, child_offsets, *, group=(), out=None):
        from retrograde.games.quarto import kernels

        # Rows as wide as this tier needs (a chunk of late tiers has few moves a position).
        result = Expansion.buffers(stop - start, self.tier_moves(tier.key[0]), out)
        kernels.expand(*self.kernel_tables, tier.key[0], start, stop, child_offsets,
                       result.primitive, result.children)
        return result


    # --- capabilities ----------------------------------------------------------------
    @property
    def display(self):
        from retrograde.games.quarto.display import QuartoDisplay

        return QuartoDisplay(self)

    @property
    def costs(self):
        from retrograde.games.quarto.costs import COSTS

        return COSTS

    @property
    def search(self):
        from retrograde.games.quarto.search import QuartoSearch

        return QuartoSearch(self)

    @property
    def genome(self):
        from retrograde.games.quarto.genome import PieceAndCellRule

        return PieceAndCellRule(self)

    @property
    def features(self):
        from retrograde.games.quarto.features import QuartoPlacements

        return QuartoPlacements(self)

    @property
    def sampling(self):
        from retrograde.games.quarto.presets import SAMPLING

        return SAMPLING

    @property
    def policies(self):
        from retrograde.games.quarto.players import Endgame, Lookahead

        return {"endgame": Endgame, "lookahead": Lookahead}

    @property
    def course(self):
        from retrograde.games.quarto.presets import QuartoCourse

        return QuartoCourse()


def _bits(mask: int) -> list[int]:
    """The set bits of a mask, ascending."""
    return [bit for bit in range(mask.bit_length()) if mask >> bit & 1]
