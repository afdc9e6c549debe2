"""Errors that reach the user as one clear line (the CLI turns them into exit codes)."""


class RetrogradeError(Exception):
    """Base of every error the CLI reports as one line, without a traceback."""

    exit_code = 1


class BadOption(RetrogradeError, ValueError):
    """A game or command option is out of range or malformed (a usage error)."""

    exit_code = 2


class BadPosition(RetrogradeError, ValueError):
    """A position string does not describe a legal position of the game instance."""

    exit_code = 2


class StoreError(RetrogradeError):
    """A store is missing, of another game or format, incomplete, or damaged."""


class DamagedStore(StoreError):
    """A store's document or chunk cannot be read, or disagrees with its plan or records: the
    message names the tier and chunk (or document)."""


class Superseded(StoreError):
    """A solve task's attempt is no longer the store's: its driver was stopped and a newer solve
    (or the end of one) took over, so the task publishes nothing."""


class MissingTierError(StoreError, KeyError):
    """A position's tier is not solved (yet) in the store."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class ClusterError(RetrogradeError):
    """The local dask cluster could not start (a worker process died or was killed while it
    was being started): nothing was solved with it, and a rerun resumes."""


class BadAgent(RetrogradeError, ValueError):
    """An agent spec names no agent, a parameter it lacks or a bad value, an agent that cannot
    play the game, or a training artifact that is missing, corrupt or of another game."""

    exit_code = 2


def interrupted(exc: BaseException) -> bool:
    """Whether `exc` is a Ctrl-C or was raised from one or while handling one, however deep (a
    KeyboardInterrupt inside an import may come back wrapped: Python 3.11 wraps what a class
    body's `__set_name__` raises in a RuntimeError)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False
