"""Depth-2 minimax Quixo player (course API): plays each of its moves and each reply on deep
copies of the game through the course's private `__move`, and chooses the move whose worst
reply leaves it best off (ties: the first tried)."""

from copy import deepcopy

from game import Player
from utils import WIN, candidates, score


class Minimax(Player):
    def make_move(self, game):
        me = game.get_current_player()
        size = game.get_board().shape[0]
        best, best_value = None, None
        for from_pos, slide in candidates(size):
            mine = deepcopy(game)
            if not mine._Game__move(from_pos, slide, me):
                continue
            value = score(mine.get_board(), me)
            if abs(value) != WIN:  # the game goes on: the opponent's best reply, from our side
                value = min(-score(reply.get_board(), 1 - me) for reply in self.replies(mine, 1 - me, size))
            if best_value is None or value > best_value:
                best, best_value = (from_pos, slide), value
        return best

    @staticmethod
    def replies(game, player, size):
        """The games after each of `player`'s acceptable moves."""
        for from_pos, slide in candidates(size):
            reply = deepcopy(game)
            if reply._Game__move(from_pos, slide, player):
                yield reply
