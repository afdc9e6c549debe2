"""The local web explorer (`retrograde explore`, SPEC §8): a solved store's positions in a browser,
drawn as boards from each game's `picture` hook, over the same probe that the CLI uses."""
