"""Native agent for Quixo: an object with `choose(position)` playing the move after which its
longest line is longest (a win first, never finishing the opponent's line where it can help
it); ties go to the first move in `position.moves`."""

WIN = 1000


def board_lines(board):
    return [*board, *board.T, board.diagonal(), board[:, ::-1].diagonal()]


class LongestLine:
    def choose(self, position):
        mover = str(position).split(" ")[1]
        other = "o" if mover == "x" else "x"

        def score(move):
            lines = board_lines(position.play(move).board)
            if any((line == other).all() for line in lines):
                return -WIN
            if any((line == mover).all() for line in lines):
                return WIN
            return max(int((line == mover).sum()) for line in lines)

        return max(position.moves, key=score)
