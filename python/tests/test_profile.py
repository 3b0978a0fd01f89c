# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""iopsample.profile(): a block of this process (or of pid) sampled from
before its first statement to its end, which ends the episode `complete`
(the stop request). The blocks count what they do: the bytes and calls
os.write returns, dd's block size and count."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap

import pytest

import iopsample

HERE = os.path.dirname(os.path.abspath(__file__))


def write_known(fd, sizes):
    """Writes each size, as a caller counts: (calls, bytes) os.write returned."""
    calls = nbytes = 0
    for n in sizes:
        nbytes += os.write(fd, b"w" * n)
        calls += 1
    return calls, nbytes


def sums(frame, *cols):
    return tuple(int(frame[c].sum()) for c in cols)


@pytest.mark.skipif(os.geteuid() != 0, reason="the ebpf backend needs root")
@pytest.mark.parametrize("backend", ["ebpf", "ptrace"])
def test_a_block_writes_exactly_what_it_wrote(binary, tmp_path, backend):
    fd = os.open(tmp_path / "data", os.O_WRONLY | os.O_CREAT, 0o644)
    sizes = [4096] * 20 + [1, 100, 65536]
    with iopsample.profile(sources={"proc_io": {}, "syscall_io": {"backend": backend}},
                           output_dir=tmp_path / "eps", name="block") as ep:
        calls, nbytes = write_known(fd, sizes)  # the block's first statement counts
    os.close(fd)
    assert ep.status == "complete" and ep.manifest["target"]["stop_reason"] == "requested"
    assert ep.manifest["sources"]["syscall_io"]["backend"] == backend
    f = ep.frame("syscall_io")
    assert sums(f, "write_calls", "write_bytes") == (calls, nbytes)
    assert sums(f, "by_kind.file.write_calls", "by_kind.file.write_bytes") == (calls, nbytes)
    assert sums(f, "by_syscall.write.calls", "by_syscall.write.bytes") == (calls, nbytes)
    # nothing of iopsample's own (its child, which writes the rows) is counted
    assert sums(ep.frame("proc_io"), "syscw", "wchar") == (calls, nbytes)


def test_the_episode_is_under_way_in_the_block(binary, tmp_path):
    with iopsample.profile(sources=["proc_io"], output_dir=tmp_path, name="live") as ep:
        during = ep.manifest
        rows = ep.rows("proc_io")  # what the sampler wrote so far: no final row
    assert during["status"] == "running" and during["t_wall_start_ns"] is not None
    assert not any(r["final"] for r in rows)
    assert ep.status == "complete" and ep.rows("proc_io")[-1]["final"]


def test_children_of_the_block_count(binary, tmp_path):
    out = tmp_path / "dd.out"
    with iopsample.profile(output_dir=tmp_path, name="children") as ep:
        subprocess.run(["dd", "if=/dev/zero", "of=%s" % out, "bs=8192", "count=37", "status=none"], check=True)
    f = ep.frame("syscall_io")
    assert os.path.getsize(out) == 8192 * 37
    assert sums(f, "by_kind.file.write_calls", "by_kind.file.write_bytes") == (37, 8192 * 37)
    # dd's writes, its counters added to this process's when it was reaped
    assert sums(ep.frame("proc_io"), "syscw", "wchar") == (37, 8192 * 37)


def test_pid_samples_another_process(binary, tmp_path):
    """A process that waits for SIGUSR1, then writes 5 x 1000 B and exits."""
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import os, signal, sys
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
        print("waiting", flush=True)
        signal.sigwait([signal.SIGUSR1])
        fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
        for _ in range(5):
            os.write(fd, b"p" * 1000)
        """), str(tmp_path / "child.out")], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "waiting\n"
    try:
        with iopsample.profile(pid=child.pid, output_dir=tmp_path, name="other") as ep:
            os.kill(child.pid, signal.SIGUSR1)
            child.wait()
    finally:
        child.kill()
    assert ep.manifest["target"]["pid"] == child.pid
    # the child may have exited before the stop request: the episode ends
    # with it (exited) or with the request, complete either way
    assert ep.status == "complete"
    assert sums(ep.frame("syscall_io"), "by_kind.file.write_calls", "by_kind.file.write_bytes") == (5, 5000)


def test_an_exception_in_the_block_ends_the_episode_and_goes_on(binary, tmp_path):
    with pytest.raises(ZeroDivisionError):
        with iopsample.profile(sources=["proc_io"], output_dir=tmp_path, name="raises") as ep:
            1 / 0
    assert ep.status == "complete" and len(ep.rows("proc_io")) >= 1


def test_a_required_source_that_cannot_run_raises_before_the_block(binary, tmp_path):
    ran = []
    with pytest.raises(iopsample.ConfigError) as e:
        with iopsample.profile(sources=["proc_io", "no_such_source"], output_dir=tmp_path):
            ran.append(1)
    assert not ran and "no_such_source" in e.value.message and e.value.file == "<stdin>"


NOT_ROOT = textwrap.dedent("""
    import json, os, sys
    sys.path.insert(0, sys.argv[1])
    sys.argv[1:] = sys.argv[2:3]  # IPython reads argv
    import iopsample
    out = sys.argv[1]
    fd = os.open(os.path.join(out, "data"), os.O_WRONLY | os.O_CREAT, 0o644)
    with iopsample.profile(sources=["proc_io", "syscall_io", "block_io"], output_dir=out, name="user",
                           required=False) as ep:
        calls = bytes_ = 0
        for n in (512, 4096, 4096, 7):
            bytes_ += os.write(fd, b"u" * n)
            calls += 1
    f = ep.frame("syscall_io")
    src = ep.manifest["sources"]
    try:
        ep.rows("block_io")
        unavailable = None
    except iopsample.SourceUnavailableError as e:
        unavailable = str(e)
    try:
        with iopsample.profile(sources=["proc_io", "block_io"], output_dir=out, name="required"):
            pass
        required = None
    except iopsample.EpisodeError as e:
        required = [e.status, e.message]
    # the magic: the source that cannot run says why in one line, the rest run
    from IPython.testing.globalipapp import start_ipython
    from IPython.utils.capture import capture_output
    shell = start_ipython()
    shell.run_line_magic("load_ext", "iopsample")
    shell.user_ns.update(fd=fd, os=os)
    with capture_output() as out:
        shell.run_line_magic("iops", "--sources proc_io,syscall_io,block_io os.write(fd, b'm' * 777)")
    shown = out.stdout + "".join(o.data.get("text/plain", "") for o in out.outputs)
    print(json.dumps({"did": [calls, bytes_], "status": ep.status, "shown": shown,
                      "counted": [int(f["by_kind.file.write_calls"].sum()), int(f["by_kind.file.write_bytes"].sum())],
                      "backend": src["syscall_io"].get("backend"), "block_io": [src["block_io"]["status"],
                      src["block_io"]["error"]], "required": required, "rows": unavailable}))
""")


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to become nobody")
def test_not_root_ptrace_counts_and_what_cannot_run_says_why(binary, tmp_path):
    """As a user: syscall_io's auto takes ptrace (no eBPF), which counts
    exactly; block_io (eBPF only) is unavailable with its reason when not
    required, and stops the episode (exit 77) when required; %iops shows
    that reason in one line and the rest of what it ran."""
    out = tempfile.mkdtemp(prefix="iopsample-user-")
    os.chmod(out, 0o777)
    try:
        # the user may not read the checkout (a clone under /root): the
        # binary and the package go where it can, as tests/e2e's unprivileged_dir
        shutil.copy(binary, os.path.join(out, "iopsample"))
        shutil.copytree(os.path.join(HERE, "..", "iopsample"), os.path.join(out, "pkg", "iopsample"))
        os.chmod(os.path.join(out, "pkg"), 0o755)
        proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
                               "-c", NOT_ROOT, os.path.join(out, "pkg"), out], capture_output=True, text=True,
                              env=dict(os.environ, HOME=out, IOPSAMPLE=os.path.join(out, "iopsample")))
        assert proc.returncode == 0, proc.stderr
        # after the escapes with which IPython titles the terminal
        got = json.loads(proc.stdout[proc.stdout.index('{"did"'):])
    finally:
        shutil.rmtree(out)
    assert got["status"] == "complete" and got["backend"] == "ptrace"
    assert got["counted"] == got["did"] == [4, 512 + 4096 + 4096 + 7]
    assert got["block_io"][0] == "unavailable" and got["block_io"][1]
    assert got["required"][0] == 77 and "block_io" in got["required"][1]
    assert "source block_io wrote no rows (unavailable: %s)" % got["block_io"][1] in got["rows"]
    lines = got["shown"].splitlines()
    assert "block_io (oracle): unavailable: %s" % got["block_io"][1] in lines, got["shown"]
    assert "Bytes Written:     777 B (777 bytes)" in lines and "syscall_io (oracle):" in lines, got["shown"]


def test_yama_scope_1_names_iopsample_the_tracer_for_the_block(binary, tmp_path, monkeypatch):
    """Under Yama's ptrace_scope 1 a user's process may be traced only by an
    ancestor or the tracer it names: profile() names iopsample (its child)
    with PR_SET_PTRACER before iopsample reads its config (so before it
    attaches), and clears it after. This host has no Yama; the kernel's
    side is prctl(2)'s, faked here to see the calls and their order."""
    from iopsample import runner
    calls = []

    class FakeLibc:
        def prctl(self, option, arg, *rest):
            pid = arg.value
            # this process's child (iopsample, just exec'd), before the
            # config is written: iopsample still waits for it
            ppid = int(open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[1]) if pid else 0
            calls.append((option, pid, ppid, os.path.exists(tmp_path / "yama")))
            return 0

    monkeypatch.setattr(runner, "_yama_scope", lambda: 1)
    monkeypatch.setattr(runner.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(runner.ctypes, "CDLL", lambda *a, **k: FakeLibc())
    with iopsample.profile(sources=["proc_io"], output_dir=tmp_path, name="yama") as ep:
        named = list(calls)
    assert ep.status == "complete"
    assert named == [(runner.PR_SET_PTRACER, named[0][1], os.getpid(), False)]
    assert calls[1:] == [(runner.PR_SET_PTRACER, 0, 0, True)]


def test_root_names_its_tracer_too(monkeypatch):
    """Root in a container has no CAP_SYS_PTRACE: under Yama's ptrace_scope
    1 it must name iopsample its tracer as anyone does."""
    from iopsample import runner
    asked = []
    monkeypatch.setattr(runner.os, "geteuid", lambda: 0)
    monkeypatch.setattr(runner, "_yama_scope", lambda: 1)
    monkeypatch.setattr(runner, "_prctl_ptracer", lambda pid: asked.append(pid) or 0)
    assert runner._allow_tracer(4321) is True and asked == [4321]
    runner._revoke_tracer()
    assert asked == [4321, 0]
    monkeypatch.setattr(runner, "_yama_scope", lambda: 0)
    assert runner._allow_tracer(4321) is False and asked == [4321, 0]  # nothing to ask where Yama does not


def test_an_iopsample_that_hangs_before_sampling_is_ended(binary, tmp_path, monkeypatch):
    """iopsample that never says it samples, and ignores SIGINT: profile()
    raises TimeoutError after START_TIMEOUT_S and kills it after
    ABORT_WAIT_S, rather than waiting for ever."""
    from iopsample import runner
    fake = tmp_path / "hung-iopsample"
    fake.write_text("#!/bin/sh\n"
                    "case \"$1\" in --version) exec %s --version ;; esac\n"
                    "trap '' INT\n"
                    "echo $$ > %s/pid\n"
                    "cat >/dev/null\n"
                    "exec sleep 600\n" % (binary, tmp_path))
    fake.chmod(0o755)
    monkeypatch.setenv("IOPSAMPLE", str(fake))
    monkeypatch.setattr(runner, "START_TIMEOUT_S", 1)
    monkeypatch.setattr(runner, "ABORT_WAIT_S", 1)
    with pytest.raises(TimeoutError, match="did not start sampling within 1 s"):
        with iopsample.profile(sources=["proc_io"], output_dir=str(tmp_path)):
            pytest.fail("the block ran")
    pid = int((tmp_path / "pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
