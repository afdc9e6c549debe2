"""Users' own agents, measured unchanged (docs/agents.md, docs/course.md, docs/engine.md).

* `calling`: how a user's object is loaded, seeded and asked for a move (natively, or through
  the course's APIs, which a game's `course` capability gives: `games.course_api`);
* `host`: the process a user's Python file or module runs in, speaking the engine protocol;
* `protocol`: that line protocol; `process`: the harness's side of it (start, limits, pool);
* `agents`: the `python` and `engine` agents (a `Player` whose moves come from such a process)
  and the in-process agent of an object given to the Python API.

Whatever the user's code does, the harness gets a move or a `Forfeit`.
"""
