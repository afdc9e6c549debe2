"""The course's game APIs, served by our own compatible modules (docs/course.md): a student's
player written against the course's code runs unchanged, asked in the course's terms, its
answers mapped onto our notation."""

from __future__ import annotations


class IllegalAnswer(Exception):
    """A player's answers at one position were all illegal (as many as the tries allow): the
    message is one line naming the last answer and why it is not legal."""


#: One API a game: our game's name -> its adapter.
COURSE_APIS: dict = {}
