"""`retrograde explore` (SPEC §8): the API answers as `probe --json` does, bad queries get HTTP 400
and one line while the server goes on, agents are only those named at start, the port and Ctrl-C
behave, every game draws a picture, and a real headless Chromium plays a move on the page."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import run_cli
from processes import assert_one_error_line, kill_group, run, start
from reference import DRAW, LOSS, WIN, ttt_value

NIM = {"heaps": [1, 2, 3]}
QUIXO3 = {"size": 3}


@contextmanager
def explorer(store: Path, logs: Path, *args: str):
    """`retrograde explore --store STORE --port 0 ARGS` running; yields (its URL, the process)."""
    out_path, err_path = logs / "explore.out", logs / "explore.err"
    with open(out_path, "w") as out, open(err_path, "w") as err:
        proc = start(["explore", "--store", str(store), "--port", "0", *args], stdout=out, stderr=err)
    try:
        deadline = time.monotonic() + 60
        while "http://" not in out_path.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, err_path.read_text()
            time.sleep(0.05)
        line = out_path.read_text().strip()
        yield line[line.index("http://"):].split()[0], proc
    finally:
        kill_group(proc)


@pytest.fixture(scope="module")
def servers(solved, tmp_path_factory):
    """The URLs of explorers of tic-tac-toe, Nim 1,2,3 and 3x3 Quixo (started once for the module)."""
    urls, started = {}, []
    for name, params in (("tictactoe", None), ("nim", NIM), ("quixo", QUIXO3)):
        context = explorer(solved(name, params), tmp_path_factory.mktemp(f"explore-{name}"))
        urls[name] = context.__enter__()[0]
        started.append(context)
    yield urls
    for context in started:
        context.__exit__(None, None, None)


def get(url: str) -> tuple[int, str]:
    """(HTTP status, body) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def api(base: str, path: str, **query) -> tuple[int, str]:
    return get(base.rstrip("/") + path + "?" + urllib.parse.urlencode(query))


def probe_json(store: Path, positions: list[str]) -> list[dict]:
    """What `probe --json` prints for the positions, one object each."""
    done = run_cli("probe", "--store", str(store), "--json", *positions)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


# --- the API --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,params,positions", [
    ("tictactoe", None, ["x../.o./... x", "xx./oo./x.. o", "xxx/oo./... o", "xox/xoo/oxx o"]),
    ("nim", NIM, ["1,2,3", "0,1,1", "0,0,0"]),
    ("quixo", QUIXO3, [".../.../... x", "xo./.x./o.. o", "xxx/oo./... o"]),
])
def test_api_probe_answers_as_probe_json(servers, solved, name, params, positions):
    for position, expected in zip(positions, probe_json(solved(name, params), positions), strict=True):
        status, body = api(servers[name], "/api/probe", position=position)
        assert status == 200, body
        answer = json.loads(body)
        assert {key: answer[key] for key in expected} == expected
        assert len(answer["changes"]) == len(answer["moves"])
        assert answer["over"] == (not expected["moves"])


def test_api_probe_of_no_position_is_the_start(servers, solved):
    status, body = get(servers["quixo"] + "api/probe")
    assert status == 200
    assert json.loads(body)["position"] == ".../.../... x"


def test_tictactoe_values_and_texts_match_a_plain_minimax(servers):
    """Independent of the store: every move's value from a slow minimax, the texts as the page shows them."""
    names = {WIN: "win", LOSS: "loss", DRAW: "draw"}
    board = "x.o.x...."  # x: a1, b2; o: c1; o to move
    _, body = api(servers["tictactoe"], "/api/probe", position="x.o/.x./... o")
    answer = json.loads(body)
    outcome, remoteness = ttt_value(board)
    assert answer["value_text"] == (names[outcome] if outcome == DRAW else f"{names[outcome]} in {remoteness}")
    for move in answer["moves"]:
        cell = "abc".index(move["move"][0]) + 3 * (int(move["move"][1]) - 1)
        child_outcome, child_remoteness = ttt_value(board[:cell] + "o" + board[cell + 1:])
        mover = {WIN: "loss", LOSS: "win", DRAW: "draw"}[child_outcome]
        assert (move["value"], move["remoteness"]) == (mover, None if mover == "draw" else child_remoteness + 1)
    changes = dict(zip((m["move"] for m in answer["moves"]), answer["changes"]))
    assert [cell for cell, _ in changes["c3"]["cells"]] == [8]  # the cell the move names, and only it
    assert changes["c3"]["cells"][0][1]["shape"] == "ring"  # o's mark


def test_a_finished_game_says_who_won(servers):
    _, body = api(servers["tictactoe"], "/api/probe", position="xxx/oo./... o")
    answer = json.loads(body)
    assert answer["over"] and answer["value_text"] == "game over: x wins" and answer["moves"] == []
    _, body = api(servers["tictactoe"], "/api/probe", position="xox/xoo/oxx o")
    assert json.loads(body)["value_text"] == "game over: a draw"
    _, body = api(servers["nim"], "/api/probe", position="0,0,0")
    assert json.loads(body)["value_text"] == "game over: the player who moved last wins"


def test_bad_queries_get_400_and_one_line_and_the_server_goes_on(servers):
    base = servers["tictactoe"]
    for path, query in (("/api/probe", {"position": "xx"}), ("/api/probe", {"position": "xxx/xxx/xxx x"}),
                        ("/", {"position": "not a board"}), ("/api/move", {"agent": "mcts"}),
                        ("/api/move", {"agent": "minimax:depth=9"}), ("/api/move", {"p": "1.5"}),
                        ("/api/move", {"p": "nan"}), ("/api/move", {"seed": "-1"}),
                        ("/api/move", {"position": "xxx/oo./... o"})):
        status, body = api(base, path, **query)
        assert status == 400, (path, query, body)
        assert body.endswith("\n") and "\n" not in body[:-1] and "Traceback" not in body, body
    status, body = get(base + "no/such/page")
    assert status == 404 and body.count("\n") == 1
    status, body = api(base, "/api/probe", position="x../.o./... x")
    assert status == 200 and json.loads(body)["position"] == "x../.o./... x"


def test_the_page_and_the_links_validate_writes(servers):
    base = servers["quixo"]
    status, page = get(base)
    assert status == 200 and "/static/explorer.js" in page
    for link in (base + "?position=" + urllib.parse.quote("xo./.x./o.. o"),  # validate's form
                 base + "?position=" + urllib.parse.quote_plus("xo./.x./o.. o")):
        assert get(link)[0] == 200
    for asset in ("static/explorer.js", "static/explorer.css"):
        status, text = get(base + asset)
        assert status == 200 and "http://" not in text.replace("http://www.w3.org/2000/svg", "")  # no CDN


def test_a_position_outside_a_down_to_store_says_so(solved, tmp_path):
    store = solved("quixo", {"size": 3, "down_to": 8})
    with explorer(store, tmp_path) as (base, _):
        status, body = api(base, "/api/probe")  # the start, with no cube on the board
        assert status == 404 and body.count("\n") == 1 and "not in this store" in body and "m0o0" in body
        assert get(base + "?position=" + urllib.parse.quote(".../.../... x"))[0] == 404
        status, body = api(base, "/api/probe", position="xxo/oxo/ox. x")
        assert status == 200, body


# --- agents -----------------------------------------------------------------------------------------
def test_api_move_plays_the_agents_named_at_start(servers):
    base = servers["quixo"]
    position = "xo./.x./o.. o"
    _, body = api(base, "/api/probe", position=position)
    moves = {m["move"]: m for m in json.loads(body)["moves"]}
    best = min((0, m["remoteness"]) if m["value"] == "win" else (1, 0) if m["value"] == "draw"
               else (2, -m["remoteness"]) for m in moves.values())
    status, body = api(base, "/api/move", position=position, agent="lookup", seed=5)
    assert status == 200, body
    answer = json.loads(body)
    assert answer["by"] == "agent" and answer["agent"] == "lookup"
    chosen = moves[answer["move"]]
    assert chosen["position"] == answer["position"]
    assert ((0, chosen["remoteness"]) if chosen["value"] == "win" else (1, 0) if chosen["value"] == "draw"
            else (2, -chosen["remoteness"])) == best
    for agent in ("random", "greedy", "minimax:depth=2"):
        status, body = api(base, "/api/move", position=position, agent=agent, seed=1, p=1)
        assert status == 200 and json.loads(body)["move"] in moves, body


def test_skill_zero_is_random_but_seeded(servers):
    base = servers["quixo"]
    position = ".../.../... x"
    chosen = []
    for seed in range(12):
        first = json.loads(api(base, "/api/move", position=position, agent="lookup", p=0, seed=seed)[1])
        again = json.loads(api(base, "/api/move", position=position, agent="lookup", p=0, seed=seed)[1])
        assert first == again and first["by"] == "random"
        chosen.append(first["move"])
    assert len(set(chosen)) > 3  # 20 moves to draw from: not the agent's choice each time


def test_agents_option_limits_what_a_request_may_name(solved, tmp_path):
    with explorer(solved("nim", NIM), tmp_path, "--agents", "random") as (base, _):
        assert json.loads(get(base + "api/game")[1])["agents"] == ["random"]
        assert api(base, "/api/move", position="1,2,3", agent="lookup")[0] == 400
        assert api(base, "/api/move", position="1,2,3", agent="random")[0] == 200


# --- the command ------------------------------------------------------------------------------------
def test_a_port_in_use_is_one_line_and_exit_74(solved, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = run(["explore", "--store", str(solved("nim", NIM)), "--port", str(port)], tmp_path, timeout=60)
    assert done.returncode == 74, done.stderr
    assert_one_error_line(done.stderr, f"127.0.0.1:{port}", "in use")


def test_a_bad_agent_spec_is_refused_at_start(solved, tmp_path):
    done = run(["explore", "--store", str(solved("nim", NIM)), "--port", "0", "--agents", "nosuch"], tmp_path,
               timeout=60)
    assert done.returncode == 2
    assert_one_error_line(done.stderr, "nosuch")


def test_ctrl_c_stops_the_server_cleanly(solved, tmp_path):
    with explorer(solved("nim", NIM), tmp_path) as (base, proc):
        assert base.startswith("http://127.0.0.1:")
        assert get(base)[0] == 200
        os.kill(proc.pid, signal.SIGINT)
        code = proc.wait(timeout=30)
    assert code in (0, 130)
    assert "Traceback" not in (tmp_path / "explore.err").read_text()


# --- pictures ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,params", [("nim", {"heaps": [2, 3]}), ("tictactoe", {}), ("quixo", {"size": 4}),
                                         ("connect4", {"width": 4, "height": 4}), ("quarto", {})])
def test_every_game_draws_boards_of_one_size(name, params):
    from retrograde.games import make_game

    game = make_game(name, params)
    position, sizes = game.initial_position, set()
    for ply in range(6):
        picture = game.display.picture(position)
        assert len(picture.cells) == picture.rows * picture.cols
        assert not picture.row_labels or len(picture.row_labels) == picture.rows
        assert not picture.col_labels or len(picture.col_labels) == picture.cols
        sizes.add((picture.rows, picture.cols))
        json.dumps(picture.to_json())
        if not game.moves(position):
            break
        position = game.moves(position)[ply % len(game.moves(position))][1]
    assert len(sizes) == 1


def test_a_quixo_picture_is_the_board():
    from retrograde.games import make_game

    game = make_game("quixo", {"size": 3})
    picture = game.display.picture(game.parse("xo./.x./o.. o"))
    shapes = [None if cell is None else cell.shape for cell in picture.cells]
    assert shapes == ["cross", "ring", None, None, "cross", None, "ring", None, None]
    assert (picture.mover, picture.other, picture.style) == ("o", "x", "cubes")


# --- the page in a real browser ----------------------------------------------------------------------
def test_a_browser_plays_a_move_and_shows_its_value(servers, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    board = "x.o.x...."  # o to move; o blunders with a2, and x wins at once with c3
    after = board[:3] + "o" + board[4:]
    outcome, remoteness = ttt_value(after)
    assert (outcome, remoteness) == (WIN, 1)
    driver = browser
    driver.get(servers["tictactoe"] + "?position=" + urllib.parse.quote("x.o/.x./... o"))
    wait = WebDriverWait(driver, 30)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '#moves li[data-move="a2"]'))
    before = driver.find_element(By.ID, "value").text
    driver.find_element(By.CSS_SELECTOR, '#moves li[data-move="a2"]').click()
    wait.until(lambda d: d.find_element(By.ID, "position-input").get_attribute("value") == "x.o/ox./... x")
    wait.until(lambda d: d.find_element(By.ID, "value").text == "win in 1")
    assert before != "win in 1"
    assert "position=" in driver.current_url and "ox." in urllib.parse.unquote(driver.current_url)
    driver.find_element(By.ID, "undo").click()
    wait.until(lambda d: d.find_element(By.ID, "value").text == before)
