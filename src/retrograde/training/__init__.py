"""The training stage: genetic-algorithm, Q-learning and deep Q-learning players, trained resumably into artifacts
that the `ga`, `rl` and `dqn` agents play from (`retrograde train`).

`train` is imported on first use: the agents read artifacts through `training.artifact`
without loading the learners.
"""

__all__ = ["train"]


def __getattr__(name: str):
    if name == "train":
        from retrograde.training.resumable import train

        return train
    raise AttributeError(f"module 'retrograde.training' has no attribute {name!r}")
