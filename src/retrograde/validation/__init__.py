"""Validation: how well agents play, measured exactly against a solved store (move quality;
for Quarto, which no store holds whole, against positions sampled from baseline games and
solved by exact search: `sampled`) and against each other (tournaments, ratings), written up
as a report (SPEC §7).

`validate` runs the whole stage and writes report.json/.md/.html; `play_match` plays one
pairing in both seats; `play_sprt` plays pairs until a sequential probability ratio test decides.
"""

from retrograde.validation.audit import validate
from retrograde.validation.tournament import play_match, play_sprt

__all__ = ["play_match", "play_sprt", "validate"]
