# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Episodes as data: rows, frames, export's grid, compare, totals, the
report, load_many, and the errors of bad input. The expected values come
from the files themselves (read here with json and Debian's zstandard
module), from the workload's own report of what it did, and from the
binary's commands run beside the package."""
import io
import json
import os
import shutil
import subprocess

import pandas as pd
import pandas.testing as pdt
import pytest
import zstandard

import iopsample


def file_rows(path):
    """A source file's rows, decoded here without iopsample."""
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".zst"):  # a frame every 100 rows
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True) as r:
            data = r.read()
    return [json.loads(line) for line in data.decode().splitlines()]


def source_file(ep_dir, source):
    m = json.load(open(os.path.join(ep_dir, "manifest.json")))
    return os.path.join(ep_dir, m["sources"][source]["file"])


def workload_report(ep_dir):
    """What iowork says it did: its one line on the target's stdout."""
    with open(os.path.join(ep_dir, "target.stdout")) as f:
        return json.loads(f.read())


def export_csv(binary, paths, *args):
    """export's CSV read by pandas as docs/data-model.md's "Formats and
    pandas" says to read it."""
    out = subprocess.run([binary, "export"] + list(paths) + ["--format", "csv", "-o", "-"] + list(args),
                         capture_output=True, text=True, check=True).stdout
    text = lambda cols: {c: "string" for c in cols if c == "episode" or c.startswith("label.")}
    cols = pd.read_csv(io.StringIO(out), nrows=0).columns
    return pd.read_csv(io.StringIO(out), dtype=text(cols), keep_default_na=False, na_values=[""])


def test_manifest_sources_status(episodes):
    ep = iopsample.Episode(episodes["several"])
    m = json.load(open(os.path.join(episodes["several"], "manifest.json")))
    assert ep.manifest == m
    assert ep.status == "complete" and ep.name == "several"
    assert ep.sources == tuple(m["sources"]) == ("proc_io", "syscall_io", "perf_event")


@pytest.mark.parametrize("case,source", [("plain", "proc_io"), ("zstd", "proc_io"), ("zstd", "syscall_io")])
def test_rows_are_the_files_rows_plain_or_zstd(episodes, case, source):
    ep = iopsample.Episode(episodes[case])
    path = source_file(episodes[case], source)
    assert path.endswith(".zst") == (case == "zstd")
    rows = ep.rows(source)
    assert rows == file_rows(path) and len(rows) == ep.manifest["sources"][source]["rows"]


def test_frame_one_row_an_interval_dotted_columns_histograms_as_lists(episodes):
    ep = iopsample.Episode(episodes["zstd"])
    rows = file_rows(source_file(episodes["zstd"], "syscall_io"))
    f = ep.frame("syscall_io")
    assert f.index.name == "t_mono_ns" and list(f.index) == [r["t_mono_ns"] for r in rows]
    assert list(f["by_syscall.write.bytes"]) == [r["by_syscall"]["write"]["bytes"] for r in rows]
    assert list(f["by_kind.file.read_calls"]) == [r["by_kind"]["file"]["read_calls"] for r in rows]
    assert all(isinstance(v, list) and len(v) == 32 for v in f["read_size_hist"])
    assert [list(v) for v in f["write_size_hist"]] == [r["write_size_hist"] for r in rows]
    assert str(f["write_bytes"].dtype) == "int64" and str(f["final"].dtype) == "bool"
    # what the workload says it did, counted exactly
    did = workload_report(episodes["zstd"])
    assert f["write_bytes"].sum() == did["wchar"] and f["write_calls"].sum() == did["syscw"]
    assert ep.frame("proc_io")["wchar"].sum() == did["wchar"]


def schema_allows_null(source, field):
    """Whether the source's JSON Schema (schema/, the definition) lets the
    field be null: a row's own field, or an event field the config names."""
    from conftest import TOP
    with open(os.path.join(TOP, "schema", source + ".schema.json")) as f:
        schema = json.load(f)
    node = schema.get("properties", {}).get(field)
    if node is None:
        node = next(iter(schema.get("patternProperties", {}).values()))
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[1]]
    types = node.get("type")
    return isinstance(types, list) and "null" in types


def test_frame_dtypes_are_the_schemas(episodes):
    """A count is int64, or pandas' nullable Int64 where the schema lets it
    be null, whether or not a row is (an event the host cannot count, a
    count one backend leaves null): never float, never object, and the same
    dtype whichever host or backend wrote the rows."""
    ep = iopsample.Episode(episodes["several"])
    rows = file_rows(source_file(episodes["several"], "perf_event"))
    f = ep.frame("perf_event")
    for field in ("cycles", "page_faults", "task_clock"):
        values = [r[field] for r in rows]
        want = "Int64" if schema_allows_null("perf_event", field) else "int64"
        assert str(f[field].dtype) == want, (field, str(f[field].dtype))
        assert [None if v is pd.NA else v for v in f[field].astype(object)] == values, field
    assert str(f["running_pct"].dtype) == "float64"


def test_frames_are_alike_whichever_backend_wrote_them(binary, workloads, tmp_path):
    """ebpf's rows count io_uring; ptrace's hold null there: the same
    columns of the same dtypes, the schema's, in both."""
    from conftest import record
    if os.geteuid() != 0:
        pytest.skip("the ebpf backend needs root")
    made = {b: iopsample.Episode(record(binary, str(tmp_path), b, {"syscall_io": {"interval": "10ms", "backend": b}},
                                        ["dd", "if=/dev/zero", "of=/dev/null", "count=20"]))
            for b in ("ebpf", "ptrace")}
    f = {b: ep.frame("syscall_io") for b, ep in made.items()}
    assert list(f["ebpf"].columns) == list(f["ptrace"].columns)
    differ = {c: (str(f["ebpf"][c].dtype), str(f["ptrace"][c].dtype)) for c in f["ebpf"].columns
              if f["ebpf"][c].dtype != f["ptrace"][c].dtype}
    assert not differ, differ
    # null in every row under ptrace, still a count
    assert str(f["ptrace"]["by_syscall.io_uring.calls"].dtype) == "Int64"
    assert f["ptrace"]["by_syscall.io_uring.calls"].isna().all()
    assert str(f["ptrace"]["consec_reads"].dtype) == "Int64" and not f["ptrace"]["consec_reads"].isna().any()
    assert str(f["ebpf"]["by_syscall.aio.time_ns"].dtype) == "Int64"


def test_labels_are_named_alike_in_frame_and_grid(episodes):
    ep = iopsample.Episode(episodes["plain"])
    f, g = ep.frame("proc_io"), ep.grid()
    assert "label.case" in f.columns and "label.case" in g.columns and "labels.case" not in f.columns
    assert set(f["label.case"]) == set(g["label.case"]) == {"plain"}
    assert str(f["label.case"].dtype) == str(g["label.case"].dtype) == "string"


@pytest.mark.parametrize("case", ["plain", "zstd", "several"])
def test_grid_equals_exports_csv_cell_for_cell(binary, episodes, case):
    pdt.assert_frame_equal(iopsample.Episode(episodes[case]).grid(), export_csv(binary, [episodes[case]]))
    pdt.assert_frame_equal(iopsample.Episode(episodes[case]).grid(interval="100ms"),
                           export_csv(binary, [episodes[case]], "--grid", "100ms"))


def test_grid_columns_keeps_the_cells_and_those_named(binary, episodes):
    g = iopsample.Episode(episodes["several"]).grid(columns=["syscall_io.write_bytes", "proc_io.wchar"])
    full = export_csv(binary, [episodes["several"]])
    assert list(g.columns) == ["episode", "t_start_ns", "t_end_ns", "label.case", "syscall_io.write_bytes",
                               "proc_io.wchar"]
    pdt.assert_frame_equal(g, full[list(g.columns)])
    with pytest.raises(iopsample.UnknownColumnError, match="no column syscall_io.nope"):
        iopsample.Episode(episodes["several"]).grid(columns=["syscall_io.nope"])


def test_load_many_stacks_episodes_with_their_names(binary, episodes):
    paths = [episodes["plain"], episodes["zstd"], episodes["several"]]
    pdt.assert_frame_equal(iopsample.load_many(paths, interval="20ms"),
                           export_csv(binary, paths, "--grid", "20ms"))
    stacked = iopsample.load_many(paths, source="proc_io")
    rows = [file_rows(source_file(p, "proc_io")) for p in paths]
    assert len(stacked) == sum(map(len, rows))
    # keyed by episode: (its name, t_mono_ns), a frame each under its key
    assert stacked.index.names == ["episode", "t_mono_ns"]
    assert list(stacked.index) == [(r["episode"], r["t_mono_ns"]) for part in rows for r in part]
    assert list(stacked.loc["zstd"]["wchar"]) == [r["wchar"] for r in rows[1]]


def test_deployable_only_keeps_the_deployable_sources(binary, episodes):
    paths = [episodes["zstd"], episodes["several"]]
    # the grid: export --deployable-only's, as a harness's dataset of deployable features
    pdt.assert_frame_equal(iopsample.load_many(paths, interval="20ms", deployable_only=True),
                           export_csv(binary, paths, "--grid", "20ms", "--deployable-only"))
    g = iopsample.Episode(episodes["several"]).grid(deployable_only=True)
    deployable = {s for s, e in iopsample.Episode(episodes["several"]).manifest["sources"].items()
                  if e["available_in_deployment"]}
    assert {c.split(".")[0] for c in g.columns if "." in c and not c.startswith("label.")} == deployable
    assert iopsample.load_many(paths, source="proc_io", deployable_only=True).shape[0] > 0
    with pytest.raises(iopsample.UnknownSourceError, match="syscall_io is not deployable"):
        iopsample.load_many(paths, source="syscall_io", deployable_only=True)


def test_an_unfinished_episode_is_said_so_not_called_corrupt(binary, episodes, tmp_path):
    """A manifest left running (iopsample killed): the grid and compare say
    so; include_incomplete takes the rows up to where they stop, with a
    warning from rows() for a damaged tail."""
    d = tmp_path / "killed"
    shutil.copytree(episodes["zstd"], d)
    m = json.loads((d / "manifest.json").read_text())
    m["status"] = "running"
    (d / "manifest.json").write_text(json.dumps(m))
    ep = iopsample.Episode(str(d))
    with pytest.raises(iopsample.EpisodeIncompleteError, match="is running: the grid reads episodes that ended"):
        ep.grid()
    with pytest.raises(iopsample.EpisodeIncompleteError, match="is running: compare"):
        ep.compare()
    with pytest.raises(iopsample.EpisodeIncompleteError):
        iopsample.load_many([str(d)], source="proc_io")
    assert len(ep.grid(include_incomplete=True)) > 0
    # a damaged tail: the file cut inside its last zstd frame
    f = d / "proc_io.jsonl.zst"
    data = f.read_bytes()
    f.write_bytes(data[:len(data) - 7])
    with pytest.warns(iopsample.DamagedTailWarning, match="rows, then the rest dropped .the episode is running"):
        rows = ep.rows("proc_io")
    assert 0 < len(rows) < len(file_rows(source_file(episodes["zstd"], "proc_io")))


def test_compare_is_compares_json(binary, episodes):
    out = subprocess.run([binary, "compare", episodes["zstd"], "--format", "json"], capture_output=True,
                         text=True, check=True).stdout
    pairs = json.loads(out)["pairs"]
    got = iopsample.Episode(episodes["zstd"]).compare()
    assert len(got) == len(pairs) > 0
    pdt.assert_frame_equal(got, pd.DataFrame(pairs))


def test_totals_and_report(binary, episodes, tmp_path):
    ep = iopsample.Episode(episodes["zstd"])
    t = ep.totals()
    assert t["episode"] == "zstd" and t["proc_io.wchar"] == workload_report(episodes["zstd"])["wchar"]
    out = ep.report(tmp_path / "r.html")
    page = open(out).read()
    assert page.startswith("<!DOCTYPE html>") and "zstd" in page


# ---- bad input ----------------------------------------------------------------

def test_verdict_is_the_commands_json_window_for_window(binary, episodes):
    out = subprocess.run([binary, "verdict", episodes["judged"], "--format", "json"], capture_output=True, text=True,
                         check=True).stdout
    v = json.loads(out)
    f = iopsample.Episode(episodes["judged"]).verdict()
    assert list(f.index) == [w["t_mono_ns"] for w in v["windows"]] and f.index.name == "t_mono_ns"
    assert list(f.columns) == ["t_wall_ns", "interval_ns", "verdict"] + [
        "shares." + k for k in ("cpu", "cpu_wait", "disk", "memory", "gpu", "gpu_copy", "network", "idle")] + ["evidence"]
    for (t, row), w in zip(f.iterrows(), v["windows"]):
        assert (row["t_wall_ns"], row["interval_ns"], row["verdict"], row["evidence"]) == (
            w["t_wall_ns"], w["interval_ns"], w["verdict"], w["evidence"])
        assert all(row["shares." + k] == s for k, s in w["shares"].items())
    assert f.attrs["totals"] == v["totals"] and f.attrs["cannot_tell"] == v["cannot_tell"]
    assert str(f["verdict"].dtype) == "string" and str(f["shares.cpu"].dtype) == "float64"
    coarse = iopsample.Episode(episodes["judged"]).verdict(window="40ms", deployable_only=True)
    assert coarse.attrs["window_ns"] == 40_000_000 and coarse.attrs["deployable_only"]


def test_a_verdict_with_no_windows_is_an_empty_frame_and_its_line_says_none(episodes, tmp_path):
    """An episode whose sources wrote no rows (the schema allows it): no
    windows, totals with no label; the %%iops line says none, not raises."""
    from iopsample import display
    empty = tmp_path / "empty"
    shutil.copytree(episodes["judged"], empty)
    m = json.load(open(empty / "manifest.json"))
    for src in ("taskstats", "cgroup"):
        open(empty / m["sources"][src]["file"], "w").close()
    f = iopsample.Episode(str(empty)).verdict()
    assert len(f) == 0 and f.attrs["totals"]["verdict"] is None
    assert display.verdict_line(f.attrs["totals"], f.attrs["cannot_tell"]) == "Verdict: none (no rows)"


def test_verdict_of_an_episode_without_its_sources_says_what_to_add(episodes):
    with pytest.raises(iopsample.SourceUnavailableError, match="no taskstats, cgroup or waits rows.*add them"):
        iopsample.Episode(episodes["plain"]).verdict()
    with pytest.raises(iopsample.EpisodeError, match="is finer than (taskstats|cgroup)'s interval"):
        iopsample.Episode(episodes["judged"]).verdict(window="10ms")


def test_no_such_directory(tmp_path):
    with pytest.raises(iopsample.EpisodeNotFoundError, match="no such episode directory"):
        iopsample.Episode(tmp_path / "nowhere")


def test_a_directory_without_a_manifest(tmp_path):
    with pytest.raises(iopsample.EpisodeNotFoundError, match="has no manifest.json"):
        iopsample.Episode(tmp_path)


def test_a_damaged_manifest(episodes, tmp_path):
    d = shutil.copytree(episodes["plain"], tmp_path / "ep")
    with open(d / "manifest.json", "r+") as f:
        f.truncate(40)
    with pytest.raises(iopsample.ManifestError, match="not a JSON manifest"):
        iopsample.Episode(d)


def test_an_unknown_source(episodes):
    with pytest.raises(iopsample.UnknownSourceError, match="has no source 'syscal_io'; it has: proc_io$"):
        iopsample.Episode(episodes["plain"]).rows("syscal_io")


@pytest.mark.parametrize("how", ["truncated", "corrupt"])
def test_a_damaged_zstd_file_gives_what_could_be_read_and_where_it_stopped(episodes, tmp_path, how):
    d = shutil.copytree(episodes["zstd"], tmp_path / "ep")
    path = str(d / "syscall_io.jsonl.zst")
    data = open(path, "rb").read()
    whole = len(file_rows(path))
    cut = len(data) * 3 // 4  # in a later frame than the first
    if how == "truncated":
        damaged = data[:cut]
    else:
        damaged = data[:cut] + bytes(b ^ 0xFF for b in data[cut:cut + 64]) + data[cut + 64:]
    open(path, "wb").write(damaged)
    # what a stock decoder (python-zstandard) takes from the damaged file,
    # whole rows only: a cut file, every byte up to the cut, streamed across
    # its frames (a killed writer's last frame holds rows it flushed); a
    # corrupt one, the frames it decodes whole, each checked to its end, up
    # to the first that does not (that frame's rows are not to be trusted)
    readable, rest = b"", damaged
    if how == "truncated":
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(damaged), read_across_frames=True) as r:
            try:
                while True:
                    chunk = r.read(1)
                    if not chunk:
                        break
                    readable += chunk
            except zstandard.ZstdError:
                pass
    while how == "corrupt" and rest:
        frame = zstandard.ZstdDecompressor().decompressobj()
        try:
            out = frame.decompress(rest)
        except zstandard.ZstdError:
            break
        if not frame.eof:
            break
        readable, rest = readable + out, frame.unused_data
    complete = readable[:readable.rfind(b"\n") + 1].decode().splitlines()
    ep = iopsample.Episode(d)
    with pytest.raises(iopsample.TruncatedFileError) as e:
        ep.rows("syscall_io")
    # as many rows as the stock decoder gives, the same rows
    assert 0 < len(e.value.rows) == len(complete) < whole
    assert e.value.rows == [json.loads(line) for line in complete]
    assert "after row %d" % len(e.value.rows) in e.value.message
    assert e.value.path == path and "%d rows could be read" % len(e.value.rows) in str(e.value)
    with pytest.raises(iopsample.TruncatedFileError):
        ep.frame("syscall_io")


@pytest.mark.parametrize("status", ["running", "killed", "failed"])
def test_a_cut_file_of_an_episode_that_did_not_end_is_read_to_the_cut(episodes, tmp_path, status):
    """A zstd file is cut inside a frame while its writer runs (or when it
    was killed): its rows up to the cut are the rows, no error."""
    d = shutil.copytree(episodes["zstd"], tmp_path / "ep")
    path = str(d / "syscall_io.jsonl.zst")
    data = open(path, "rb").read()
    open(path, "wb").write(data[:len(data) * 3 // 4])
    m = json.load(open(d / "manifest.json"))
    m["status"] = status
    json.dump(m, open(d / "manifest.json", "w"))
    with pytest.warns(iopsample.DamagedTailWarning, match="the episode is %s" % status):
        rows = iopsample.Episode(d).rows("syscall_io")
    whole = file_rows(str(episodes["zstd"]) + "/syscall_io.jsonl.zst")
    assert 0 < len(rows) < len(whole) and rows == whole[:len(rows)]
