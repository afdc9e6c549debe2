"""Validation: how well agents play, measured exactly against a solved store (move quality;
for Quarto, which no store holds whole, against positions sampled from baseline games and
solved by exact search: `sampled`) and against each other (tournaments, ratings), written up
as a report (SPEC §7).

`validate` runs the whole stage and writes report.json/.md/.html; `play_match` plays one
pairing in both seats; `play_sprt` plays pairs until a sequential probability ratio test decides.
They are imported on first use: the CLI reads `validation.pairs` (light) before it has checked
a command's arguments, and must not pay for numba, zarr and matplotlib then.
"""

__all__ = ["play_match", "play_sprt", "validate"]


def __getattr__(name: str):
    if name == "validate":
        from retrograde.validation.audit import validate

        return validate
    if name in ("play_match", "play_sprt"):
        from retrograde.validation import tournament

        return getattr(tournament, name)
    raise AttributeError(f"module 'retrograde.validation' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
