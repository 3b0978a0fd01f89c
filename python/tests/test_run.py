# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""iopsample.run(): a config given as a path, YAML text or a dict, with
overrides; the Episode it returns; EpisodeError and ConfigError carrying
the exit status and iopsample's own line."""
import json
import os

import pytest

import iopsample


def iowork_config(workloads, name, out, **episode):
    return {"episode": dict({"name": name, "output_dir": str(out)}, **episode),
            "target": {"command": [os.path.join(workloads, "iowork"), "--rounds", "5", "--pause-ms", "5"]},
            "sources": {"proc_io": {"interval": "10ms"}}}


def reported(ep):
    with open(os.path.join(ep.path, "target.stdout")) as f:
        return json.load(f)


def test_a_dict_runs_and_its_rows_hold_what_the_target_did(binary, workloads, tmp_path):
    ep = iopsample.run(iowork_config(workloads, "from-dict", tmp_path))
    assert ep.path == str(tmp_path / "from-dict") and ep.status == "complete"
    assert ep.manifest["target"]["exit_code"] == 0
    assert sum(r["wchar"] for r in ep.rows("proc_io")) == reported(ep)["wchar"]


def test_yaml_text_resolves_paths_against_the_current_directory(binary, workloads, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = ("episode: {name: from-text}\n"
            "target: {command: [%s, --rounds, '3', --pause-ms, '1']}\n"
            "sources: {proc_io: {interval: 10ms}}\n" % os.path.join(workloads, "iowork"))
    ep = iopsample.run(text)
    assert ep.path == str(tmp_path / "episodes" / "from-text") and ep.status == "complete"
    assert open(os.path.join(ep.path, "episode.yaml")).read() == text  # the config exactly as given


def test_a_path_with_name_output_dir_and_overrides(binary, workloads, tmp_path):
    cfg = tmp_path / "e.yaml"
    cfg.write_text(json.dumps(iowork_config(workloads, "in-file", "out")))
    ep = iopsample.run(cfg, name="renamed", output_dir=tmp_path / "elsewhere", episode__labels__run="7",
                       sources__proc_io__interval="20ms")
    assert ep.path == str(tmp_path / "elsewhere" / "renamed")
    m = ep.manifest
    assert m["labels"] == {"run": "7"} and m["sources"]["proc_io"]["interval_ns"] == 20_000_000
    assert {"episode.labels.run=7", "sources.proc_io.interval=20ms"} <= set(m["overrides"])


def test_a_target_that_fails_raises_with_its_status_and_the_episode(binary, tmp_path):
    cfg = {"episode": {"name": "fails", "output_dir": str(tmp_path)},
           "target": {"command": "exit 3"}, "sources": {"proc_io": {}}}
    with pytest.raises(iopsample.EpisodeError) as e:
        iopsample.run(cfg)
    assert e.value.status == 3 and e.value.message == ""
    assert e.value.episode.status == "complete" and e.value.episode.manifest["target"]["exit_code"] == 3
    assert "status 3 (the target's own exit status)" in str(e.value)


def test_an_existing_episode_directory_is_iopsamples_message(binary, workloads, tmp_path):
    iopsample.run(iowork_config(workloads, "twice", tmp_path))
    with pytest.raises(iopsample.EpisodeError) as e:
        iopsample.run(iowork_config(workloads, "twice", tmp_path))
    assert e.value.status == 73 and "exists" in e.value.message
    assert e.value.episode is None  # the one there is not this run's


def test_a_refused_config_names_its_line_and_column(binary, tmp_path):
    cfg = tmp_path / "bad.yaml"
    bad = "sources: {proc_io: {interval: 10}}"
    cfg.write_text("episode: {name: bad}\ntarget: {command: [true]}\n%s\n" % bad)
    with pytest.raises(iopsample.ConfigError) as e:
        iopsample.run(cfg)
    where = (str(cfg), 3, bad.index("10") + 1)
    assert e.value.status == 78 and (e.value.file, e.value.line, e.value.column) == where
    assert "missing unit" in e.value.message
    with pytest.raises(iopsample.ConfigError) as e:
        iopsample.run("episode: {name: bad}\ntarget: {command: [true]}\nsources: {proc_io: {intervl: 1s}}\n")
    assert (e.value.file, e.value.line) == ("<stdin>", 3) and "intervl" in e.value.message
    with pytest.raises(FileNotFoundError, match="no such file"):
        iopsample.run("missing.yaml")


def test_no_binary_says_where_it_looked(monkeypatch, tmp_path):
    monkeypatch.setenv("IOPSAMPLE", str(tmp_path / "nope"))
    with pytest.raises(iopsample.BinaryNotFoundError, match="IOPSAMPLE=.*nope .not an executable"):
        iopsample.find_binary()
    monkeypatch.delenv("IOPSAMPLE")
    monkeypatch.setenv("PATH", str(tmp_path))
    from iopsample import binary
    monkeypatch.setattr(binary, "_beside_source", lambda: str(tmp_path / "build" / "iopsample"))
    with pytest.raises(iopsample.BinaryNotFoundError) as e:
        iopsample.find_binary()
    assert e.value.looked == ["$IOPSAMPLE (unset)", "PATH (%s)" % tmp_path, str(tmp_path / "build" / "iopsample")]
