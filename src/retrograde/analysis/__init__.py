"""`retrograde analyze`: statistics of a solved game over all its positions (remoteness
histograms, longest wins and losses, only moves, most moves) and the positions where given
agents most often give the value away; as JSON, terminal tables (`tables`) or an html page
(`page`)."""

from retrograde.analysis.stats import analyze

__all__ = ["analyze"]
