"""The search framework every game's own search is written with (below the games).

`base` holds the score scale, seeded move ordering, the iterative alpha-beta walk and the
`Search` interface that a game's `search` hook returns; `tablebase` the arrays and the kernel
through which a search reads exact values; `playouts` the compact-state rules a game gives for
random playouts (the `playouts` hook, for `mcts`).
"""
