# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""%iops and %%iops in an IPython shell of this process (plain text, as
in a terminal): the table's figures are what the cell wrote, the value is
the Episode, --histogram draws, --save keeps. The notebook test runs them
in a Jupyter kernel, with rich display."""
import os
import re

import pytest
from IPython.testing.globalipapp import start_ipython
from IPython.utils.capture import capture_output

from iopsample.magic import split_line


@pytest.fixture(scope="module")
def ip(binary):
    shell = start_ipython()
    shell.run_line_magic("load_ext", "iopsample")
    return shell


def shown(out):
    """What a terminal shows: the printed lines and each display's text."""
    return out.stdout + "".join(o.data.get("text/plain", "") for o in out.outputs)


def table(text):
    """The table's label: value lines, as a dict."""
    return dict(re.findall(r"^([A-Z][A-Za-z ]+):\s+(.*)$", text, re.M))


def test_split_line_keeps_the_statement_as_written():
    assert split_line('--all --sources proc_io x = f("a  b", --y)') == ("--all --sources proc_io",
                                                                        'x = f("a  b", --y)')
    assert split_line("--interval=5ms --histogram g()") == ("--interval=5ms --histogram", "g()")
    assert split_line("--x + 1") == ("", "--x + 1")  # not an option: code


def test_cell_magic_table_is_what_the_cell_wrote(ip, tmp_path):
    ip.user_ns["path"] = str(tmp_path / "cell.bin")
    with capture_output() as out:
        ip.run_cell("%%iops -o --save " + str(tmp_path / "kept") + "\n"
                    "import os\n"
                    "fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)\n"
                    "wrote = [os.write(fd, b'c' * n) for n in (1000, 20000, 300000)]\n"
                    "os.close(fd)\n")
    text = shown(out)
    t = table(text)
    written = sum(ip.user_ns["wrote"])
    assert t["Bytes Written"].endswith("(%s bytes)" % format(written, ","))
    assert t["Write Operations"] == "3" and t["Read Operations"] == "0"
    assert "Files only" in text and "syscall_io (oracle):" in text and "proc_io (deployable):" in text
    ep = ip.user_ns["_"]  # the magic's value, with -o
    assert ep.status == "complete" and os.path.dirname(ep.path) == str(tmp_path / "kept")
    assert int(ep.frame("syscall_io")["by_kind.file.write_bytes"].sum()) == written
    # the cell's verdict: the label with the most time over the episode, and its evidence
    totals = ep.verdict().attrs["totals"]
    line = re.search(r"^Verdict: (\w+), (\d+) % of the time.*?: (.*?)( \[\d+ limits?.*)?$", text, re.M)
    assert line, text
    assert line.group(1) == totals["verdict"] and int(line.group(2)) == round(100 * totals["share"][totals["verdict"]])
    assert line.group(3) == totals["evidence"]


def test_line_magic_all_and_histogram(ip, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ip.user_ns["fd"] = os.open(tmp_path / "line.bin", os.O_WRONLY | os.O_CREAT, 0o644)
    with capture_output() as out:
        ip.run_line_magic("iops", "--all --histogram n = os.write(fd, b'l' * 12345)")
    os.close(ip.user_ns["fd"])
    t = table(shown(out))
    assert ip.user_ns["n"] == 12345 and t["Bytes Written"].endswith("(12,345 bytes)")
    assert "Everything the process did" in shown(out)
    png = re.search(r"^histogram: (.*\.png)$", out.stdout, re.M).group(1)
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_an_unknown_source_raises_iopsamples_message_and_runs_nothing(ip):
    import iopsample
    ip.user_ns.pop("ran", None)
    with pytest.raises(iopsample.ConfigError, match="nonesuch"):
        ip.run_line_magic("iops", "--sources proc_io,nonesuch ran = 1")
    assert "ran" not in ip.user_ns


def test_the_cell_runs_as_ipython_runs_it_its_value_shown(ip, tmp_path):
    """Its last value is shown as a cell's (Out), and is _; top-level await
    runs; without -o the magic adds no value of its own."""
    with capture_output() as out:
        ip.run_cell("%%iops --sources proc_io --save " + str(tmp_path) + "\n"
                    "import asyncio\n"
                    "await asyncio.sleep(0)\n"
                    "6 * 7\n")
    assert ip.user_ns["_"] == 42, shown(out)
    assert "42" in shown(out) and "Episode(" not in shown(out)
    assert "IOPS Profile" in shown(out)
    with capture_output() as out:
        ip.run_line_magic("iops", "-o --sources proc_io x = 5")
    assert ip.user_ns["x"] == 5


def test_ctrl_c_in_the_cell_ends_the_episode_interrupted(ip, tmp_path):
    import iopsample
    with capture_output():
        ip.run_cell("%%iops --sources proc_io --save " + str(tmp_path) + "\n"
                    "raise KeyboardInterrupt\n")
    (name,) = os.listdir(tmp_path)
    ep = iopsample.Episode(str(tmp_path / name))
    assert ep.status == "interrupted" and ep.rows("proc_io")[-1]["final"]


def test_unload_ext_removes_the_magics(ip):
    from IPython.core.error import UsageError
    ip.run_line_magic("unload_ext", "iopsample")
    try:
        with pytest.raises(UsageError):
            ip.run_line_magic("iops", "x = 1")
    finally:
        ip.run_line_magic("load_ext", "iopsample")
    assert "iops" in ip.magics_manager.magics["cell"]


def test_histograms_count_what_the_table_counts(ip, tmp_path):
    """Files only by default, as the table; every descriptor with --all:
    the cell writes 3 times to a file and 2 times to a pipe."""
    from iopsample import display
    ip.user_ns["path"] = str(tmp_path / "h.bin")
    with capture_output():
        ip.run_cell("%%iops -o --sources proc_io,syscall_io --save " + str(tmp_path / "eps") + "\n"
                    "import os\n"
                    "fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)\n"
                    "files = [os.write(fd, b'h' * n) for n in (10, 5000, 70000)]\n"
                    "r, w = os.pipe()\n"
                    "pipes = [os.write(w, b'p' * n) for n in (3, 300)]\n"
                    "for x in (fd, r, w): os.close(x)\n")
    ep = ip.user_ns["_"]
    totals = ep.totals()
    files = display.size_histograms(totals)
    every = display.size_histograms(totals, everything=True)
    t_files = view_rows(display.iops_table(ep.manifest, totals, 1.0))
    t_every = view_rows(display.iops_table(ep.manifest, totals, 1.0, everything=True))
    assert sum(files["write"]) == int(t_files["Write Operations"]) == len(ip.user_ns["files"])
    assert sum(every["write"]) == int(t_every["Write Operations"]) >= len(ip.user_ns["files"]) + 2
    # each write in its log2 bucket (docs/data-model.md: n bytes in bucket n.bit_length())
    want = [0] * display.HIST_BUCKETS
    for n in ip.user_ns["files"]:
        want[n.bit_length()] += 1
    assert files["write"] == want and "files only" in files["what"]


def view_rows(table):
    return {label: value.replace(",", "") for label, value in table["rows"]}


def test_the_table_says_when_ptrace_slowed_the_code(binary, tmp_path):
    from conftest import record
    from iopsample import display
    import iopsample
    notes = {}
    for backend in ("ptrace", "ebpf"):
        if backend == "ebpf" and os.geteuid() != 0:
            continue
        ep = iopsample.Episode(record(binary, str(tmp_path), backend, {"syscall_io": {"backend": backend}},
                                      ["dd", "if=/dev/zero", "of=/dev/null", "count=5"]))
        notes[backend] = display.iops_table(ep.manifest, ep.totals(), 0.1)["note"]
    assert "traced the code with ptrace" in notes["ptrace"] and "ran slower" in notes["ptrace"]
    assert "ptrace" not in notes.get("ebpf", "")
