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
    with pytest.raises(iopsample.ConfigNotFoundError, match="missing.yaml: no such config file") as e:
        iopsample.run("missing.yaml")
    assert isinstance(e.value, FileNotFoundError) and e.value.status == 78


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


# A harness under Ctrl-C: this script runs an episode and says what it
# caught; the test sends SIGINT to the script's process alone, as a Jupyter
# kernel's interrupt does (a terminal's reaches only it too: iopsample has a
# session of its own).
CTRL_C = """
import os, sys
sys.path.insert(0, sys.argv[1])
import iopsample
out, how = sys.argv[2], sys.argv[3]
config = {"episode": {"name": "ctrl-c", "output_dir": out}, "target": {"command": ["sleep", "30"]},
          "sources": {"proc_io": {"interval": "10ms"}}}
fds = len(os.listdir("/proc/self/fd"))
try:
    if how == "run":
        iopsample.run(config)
    else:
        with iopsample.profile(sources=["proc_io"], output_dir=out, name="ctrl-c"):
            open(os.path.join(out, "in-block"), "w").close()
            import time
            time.sleep(30)
except KeyboardInterrupt as e:
    print("KeyboardInterrupt:", e)
    print("fds", fds, len(os.listdir("/proc/self/fd")))
    sys.exit(3)
"""


def interrupted_episode(tmp_path, how, ready):
    import signal
    import subprocess
    import sys
    import time
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = subprocess.Popen([sys.executable, "-c", CTRL_C, top, str(tmp_path), how], stdout=subprocess.PIPE,
                         text=True)
    deadline = time.monotonic() + 30
    while not ready() and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.02)
    time.sleep(0.1)  # a few rows
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    return p.returncode, out, iopsample.Episode(str(tmp_path / "ctrl-c"))


def test_ctrl_c_in_run_ends_the_episode_interrupted_then_raises(binary, tmp_path):
    rows = tmp_path / "ctrl-c" / "proc_io.jsonl"
    rc, out, ep = interrupted_episode(tmp_path, "run", lambda: rows.exists() and rows.stat().st_size > 0)
    assert rc == 3 and "KeyboardInterrupt: iopsample ended the episode interrupted" in out, out
    assert ep.status == "interrupted" and ep.manifest["target"]["stop_reason"] == "interrupted"
    assert ep.rows("proc_io")[-1]["final"]
    fds = out.split("fds ")[1].split()
    assert fds[0] == fds[1], "descriptors before and after: %s" % fds


def test_ctrl_c_in_profile_ends_the_episode_interrupted_and_leaks_nothing(binary, tmp_path):
    rc, out, ep = interrupted_episode(tmp_path, "profile", lambda: (tmp_path / "in-block").exists())
    assert rc == 3 and "KeyboardInterrupt" in out, out
    assert ep.status == "interrupted" and ep.rows("proc_io")[-1]["final"]
    fds = out.split("fds ")[1].split()
    assert fds[0] == fds[1], "descriptors before and after: %s" % fds


def test_a_path_in_a_dict_config_and_a_missing_file(binary, workloads, tmp_path):
    import pathlib
    config = iowork_config(workloads, "pathlib", tmp_path)
    config["episode"]["output_dir"] = pathlib.Path(tmp_path)
    config["target"]["command"][0] = pathlib.Path(config["target"]["command"][0])
    ep = iopsample.run(config)
    assert ep.status == "complete"
    with pytest.raises(iopsample.ConfigError) as e:
        iopsample.run(tmp_path / "no-such.yaml")
    assert "no-such.yaml: no such config file" in str(e.value)
    with pytest.raises(iopsample.ConfigError) as e:
        iopsample.run({"episode": {"name": "x", "output_dir": str(tmp_path)}, "target": {"command": [object()]}})
    assert "is no YAML value" in str(e.value)


def test_a_binary_of_another_release_is_refused_naming_both(monkeypatch, tmp_path):
    older = tmp_path / "older"
    older.write_text("#!/bin/sh\necho 'iopsample 0.0.9-g1234567'\n")
    older.chmod(0o755)
    monkeypatch.setenv("IOPSAMPLE", str(older))
    with pytest.raises(iopsample.BinaryVersionError) as e:
        iopsample.run({"episode": {"name": "x", "output_dir": str(tmp_path)}, "target": {"command": ["true"]}})
    assert "is iopsample 0.0.9, but this package is %s" % iopsample.__version__ in str(e.value)
    # one that knows no --version: said, not a 60 s wait or ConfigError("-")
    mute = tmp_path / "mute"
    mute.write_text("#!/bin/sh\necho \"iopsample: unknown option $1\" >&2\nexit 64\n")
    mute.chmod(0o755)
    monkeypatch.setenv("IOPSAMPLE", str(mute))
    with pytest.raises(iopsample.BinaryVersionError, match="of no known release .--version: iopsample: unknown"):
        iopsample.run({"episode": {"name": "y", "output_dir": str(tmp_path)}, "target": {"command": ["true"]}})
