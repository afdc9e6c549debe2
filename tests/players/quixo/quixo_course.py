"""Stands for a student's private copy of the course's game.py (its code is not ours to copy):
`alias=quixo_course` serves retrograde's compatible module under this name, so this file is
never imported when the alias works."""

raise ImportError("quixo_course.py was imported: alias=quixo_course should have served retrograde's module")
