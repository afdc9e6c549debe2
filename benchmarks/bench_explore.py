"""`retrograde explore` on a solved 4x4 Quixo store (issue 25 §5): the latency of `/api/probe` and
the page's first render in headless Chromium.

    python benchmarks/bench_explore.py                    # solve 4x4 into a temporary folder
    python benchmarks/bench_explore.py --store q4.zarr    # an existing solved store
    python benchmarks/bench_explore.py --requests 1000 --renders 5 --seed 0

The real CLI serves the store (`explore --port 0`). The positions probed are those of a seeded
random walk from the start (a new game from the start when one ends, or after --plies plies), each
asked for once, one request at a time, as a page would; one untimed request warms the server up.
Prints the median, p99 and slowest request in ms. Then Chromium (Debian's, through
/usr/bin/chromedriver) opens `/?position=P` for --renders positions of the walk, each in a fresh
browser: the time from asking for the page to its value text being shown (the page's static files,
/api/game and the first /api/probe included), median and each.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from common import given_or_solved, kill_group, print_options, report, start_group

from retrograde.games import make_game


def walk(count: int, seed: int, plies: int) -> list[str]:
    """`count` positions of seeded random games of 4x4 Quixo, in the order played."""
    game = make_game("quixo", {"size": 4})
    rng = random.Random(seed)
    found, position, ply = [], game.initial_position, 0
    while len(found) < count:
        found.append(game.format(position))
        moves = game.moves(position)
        if not moves or ply == plies:
            position, ply = game.initial_position, 0
            continue
        position, ply = rng.choice(moves)[1], ply + 1
    return found


def serve(store: Path, logs: Path):
    """The explorer of `store` started; (its URL, the process)."""
    out, err = logs / "explore.out", logs / "explore.err"
    proc = start_group(["explore", "--store", str(store), "--port", "0"], stdout=out, stderr=err)
    deadline = time.monotonic() + 60
    while "http://" not in out.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"explore did not start: {err.read_text()}")
        time.sleep(0.05)
    text = out.read_text()
    return text[text.index("http://"):].split()[0], proc


def probe_latencies(url: str, positions: list[str]) -> list[float]:
    """Seconds each `/api/probe` request takes, one after another."""
    def ask(position: str) -> None:
        with urllib.request.urlopen(url + "api/probe?position=" + urllib.parse.quote(position)) as response:
            response.read()
            assert response.status == 200

    ask(positions[0])
    times = []
    for position in positions:
        start = time.perf_counter()
        ask(position)
        times.append(time.perf_counter() - start)
    return times


def first_renders(url: str, positions: list[str]) -> list[float]:
    """Seconds from asking for `/?position=P` to the value shown, a fresh browser each."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,800"):
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    times = []
    for position in positions:
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        try:
            driver.get("about:blank")
            start = time.perf_counter()
            driver.get(url + "?position=" + urllib.parse.quote(position))
            WebDriverWait(driver, 30, poll_frequency=0.005).until(
                lambda d: d.find_element(By.ID, "value").text not in ("", "loading…")
                and d.find_elements(By.CSS_SELECTOR, "#board svg"))
            times.append(time.perf_counter() - start)
        finally:
            driver.quit()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, default=None, help="A solved 4x4 Quixo store (default: solve one).")
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--renders", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plies", type=int, default=60, help="A random game's length before a new one.")
    options = parser.parse_args()
    print_options(options)
    with tempfile.TemporaryDirectory() as tmp:
        store = given_or_solved(options.store, Path(tmp), "q4.zarr", ["quixo", "--size", "4"])
        positions = walk(options.requests, options.seed, options.plies)
        url, proc = serve(store, Path(tmp))
        try:
            latencies = sorted(probe_latencies(url, positions))
            renders = first_renders(url, positions[7::max(1, len(positions) // max(options.renders, 1))]
                                    [:options.renders]) if options.renders else []
        finally:
            kill_group(proc)
    ms = [t * 1000 for t in latencies]
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    figures = {"requests": len(ms), "distinct_positions": len(set(positions)), "probe_median_ms": statistics.median(ms),
               "probe_p99_ms": p99, "probe_max_ms": ms[-1], "probe_mean_ms": statistics.fmean(ms)}
    if renders:
        figures |= {"renders": len(renders), "first_render_median_ms": statistics.median(renders) * 1000,
                    "first_render_ms": [round(t * 1000, 1) for t in renders]}
    report("explore on 4x4 Quixo", figures)


if __name__ == "__main__":
    main()
