"""The trained agents' artifacts in a validation report (validation/artifacts.py): the learning and
fitness curves `train` records and how each agent learnt, drawn and told in the report; a report
that does not depend on where its artifacts lie; and curves read defensively from any file."""

from __future__ import annotations

import json

import numpy as np

from conftest import NIM
from retrograde.data.artifact import read_metadata
from retrograde.training import train
from retrograde.validation import validate
from retrograde.validation.artifacts import read_curve


def test_report_holds_the_learning_curves_train_writes(solved, tmp_path):
    """Artifacts `train` wrote with a store and checkpoints: the report draws their curves, the
    step being the units trained (generations, episodes), the value kept as measured then."""
    store = solved("nim", NIM)
    ga = train("ga:population=3,offspring=3,generations=3,games=2,every=1", "nim --heaps 1,3,5,7",
               tmp_path / "ga.json", seed=1, store=store)
    rl = train("rl:episodes=300,every=100", "nim --heaps 1,3,5,7", tmp_path / "rl.npz", seed=1, store=store)
    unmeasured = train("rl:episodes=20,every=10", "nim --heaps 1,3,5,7", tmp_path / "bare.npz", seed=1)
    specs = [f"ga:params={ga}", f"rl:params={rl}", f"rl:params={unmeasured}"]
    report = validate(store, tmp_path / "report", ",".join(["random", *specs]), games=2, positions=200, seed=1,
                      quiet=True)
    curves = json.loads((tmp_path / "report" / "report.json").read_text())["learning_curves"]
    assert curves == json.loads(json.dumps(report["learning_curves"]))
    steps = {specs[0]: ("generations", [1, 2, 3]), specs[1]: ("episodes", [100, 200, 300])}
    assert list(curves) == list(steps)  # an artifact trained without a store has no curve
    for (spec, (unit, expected)), path in zip(steps.items(), (ga, rl)):
        written = read_metadata(path)["learning_curve"]
        assert [point[unit] for point in written] == expected
        assert curves[spec] == [{"step": point[unit], "value_kept": point["value_kept"]} for point in written]
    assert 'alt="Learning curves"' in (tmp_path / "report" / "report.html").read_text()
    # the GA's fitness by generation (report 001's Figure 1), as its artifact recorded it
    fitness = json.loads((tmp_path / "report" / "report.json").read_text())["fitness_curves"]
    assert list(fitness) == [specs[0]] and [point["generation"] for point in fitness[specs[0]]] == [1, 2, 3]
    assert [point["best"] for point in fitness[specs[0]]] == [p["best_fitness"] for p in read_metadata(ga)["learning_curve"]]
    assert all(point["mean"] <= point["best"] for point in fitness[specs[0]])
    assert 'alt="GA fitness by generation"' in (tmp_path / "report" / "report.html").read_text()
    trained = json.loads((tmp_path / "report" / "report.json").read_text())["training"]
    assert list(trained) == specs  # every artifact says how it learnt, measured or not
    assert trained[specs[0]].startswith("GA, 3 generations of 3 + 3; fitness exact: the share of a sample of 2,000")
    assert trained[specs[1]].startswith("Q-learning, 300 episodes against self, alpha 0.1")
    assert "## Training" in (tmp_path / "report" / "report.md").read_text()


def test_a_report_does_not_depend_on_where_its_artifacts_lie(solved, tmp_path):
    """The same artifacts copied to another folder give the same report.json, but for the text
    of the paths (SPEC §6 specs name them)."""
    store = solved("nim", NIM)
    trained = {"ga": train("ga:population=3,offspring=3,generations=2,games=2", "nim --heaps 1,3,5,7",
                           tmp_path / "ga.json", seed=1),
               "rl": train("rl:episodes=100", "nim --heaps 1,3,5,7", tmp_path / "rl.npz", seed=1)}
    texts = []
    for place in ("here", "elsewhere/deeper"):
        folder = tmp_path / place
        folder.mkdir(parents=True)
        paths = {name: folder / f"copy-{name}{path.suffix}" for name, path in trained.items()}
        for name, path in paths.items():
            path.write_bytes(trained[name].read_bytes())
        specs = ["random", f"ga:params={paths['ga']}", f"rl:params={paths['rl']}"]
        validate(store, folder / "report", ",".join(specs), games=6, positions=200, seed=3, quiet=True)
        text = (folder / "report" / "report.json").read_text()
        for name, path in paths.items():
            text = text.replace(str(path), name.upper())
        texts.append(text.replace(str(folder), "FOLDER"))
    assert "GA" in texts[0] and texts[0] == texts[1]


def test_learning_curves_are_read_defensively(tmp_path):
    point = {"generations": 1, "best_fitness": 0.5, "value_kept": 0.5}
    document = {"format": "retrograde-training", "learner": "ga", "learning_curve": [point]}
    good = tmp_path / "good.json"
    good.write_text(json.dumps(document))
    assert read_curve(good) == [{"step": 1.0, "value_kept": 0.5}]
    out_of_range = [point, {**point, "generations": 2, "value_kept": 1.5}, {**point, "generations": 3,
                                                                            "value_kept": float("nan")}]
    (tmp_path / "latin.json").write_bytes(b"\xff")
    assert read_curve(tmp_path / "latin.json") is None
    for text in ("not json", json.dumps([1, 2]), json.dumps({**document, "format": "other"}),
                 json.dumps({**document, "learner": "xx"}), json.dumps({**document, "learner": ["ga"]}),
                 json.dumps({**document, "learning_curve": 3}), json.dumps({**document, "learning_curve": [7]}),
                 json.dumps({**document, "learning_curve": [{"value_kept": 0.5}]}),
                 json.dumps({**document, "learning_curve": [{**point, "value_kept": "x"}]}),
                 json.dumps({**document, "learning_curve": [{**point, "value_kept": 2}]})):
        (tmp_path / "bad.json").write_text(text)
        assert read_curve(tmp_path / "bad.json") is None, text
    (tmp_path / "mixed.json").write_text(json.dumps({**document, "learning_curve": out_of_range}))
    assert read_curve(tmp_path / "mixed.json") == [{"step": 1.0, "value_kept": 0.5}]  # bad points are dropped
    np.save(tmp_path / "array.npy", np.zeros(3))
    (tmp_path / "array.npz").write_bytes((tmp_path / "array.npy").read_bytes())
    np.savez(tmp_path / "plain.npz", q=np.zeros(3))
    (tmp_path / "empty.npz").write_bytes(b"")
    (tmp_path / "folder.npz").mkdir()
    for name in ("array.npz", "plain.npz", "empty.npz", "folder.npz", "missing.npz"):
        assert read_curve(tmp_path / name) is None, name
