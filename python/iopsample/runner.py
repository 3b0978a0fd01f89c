# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Running episodes from Python: run() a config to its end, or profile() a
block of code, attached to this process.

profile() talks to `iopsample run` as a service manager would: the config
on standard input (`run -`), READY=1 on a NOTIFY_SOCKET datagram socket
once every source samples (sd_notify(3)), and the stop request, SIGUSR1,
which ends the episode as its duration would (status complete). Nothing
of it is I/O the episode would count: the block's process only polls the
socket, never reads it, and a signal is no read or write.

Ctrl-C: iopsample runs in a session of its own, so a terminal's SIGINT
reaches this process alone (a Jupyter kernel's interrupt does too). The
KeyboardInterrupt is passed on to iopsample as the SIGINT the command line
would have had (a second one as a second, which ends the grace), iopsample
is waited for as it ends the episode `interrupted` with its final rows,
and then the KeyboardInterrupt is raised. iopsample is never killed."""
import contextlib
import ctypes
import json
import os
import select
import signal
import socket
import subprocess
import tempfile
import time

from . import binary
from .episode import Episode
from .errors import ConfigError, ConfigNotFoundError, EpisodeError

DEFAULT_SOURCES = ("proc_io", "syscall_io")
# how long profile() waits for the sources to start (an eBPF load can take a
# second on a slow machine; a required source that cannot start ends sooner)
START_TIMEOUT_S = 60
# How long iopsample is given to end the episode once asked to before the
# block began (a failed start, an interrupt), before it is taken for hung.
ABORT_WAIT_S = 10

PR_SET_PTRACER = 0x59616D61  # linux/prctl.h: "Yama"


def _json_value(value):
    """A config value JSON has no type for: a path is its string."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise ConfigError(binary.EX_CONFIG, "config: %r (a %s) is no YAML value: give strings, numbers, lists "
                      "and dicts" % (value, type(value).__name__))


def _config_text(config):
    """(argument for iopsample, text for its stdin or None)."""
    if isinstance(config, dict):
        return "-", json.dumps(config, default=_json_value)  # JSON is YAML 1.2
    if isinstance(config, os.PathLike):
        config = os.fspath(config)
        if not os.path.exists(config):
            raise ConfigNotFoundError(config)
        return config, None
    if isinstance(config, str):
        if os.path.exists(config):
            return config, None
        if "\n" in config or ":" in config:
            return "-", config
        raise ConfigNotFoundError(config, " (give a path, YAML text or a dict)")
    raise ConfigError(binary.EX_CONFIG, "config: a path, YAML text or a dict, not %s" % type(config).__name__)


def _wait_passing_interrupts(proc):
    """proc's exit status, each KeyboardInterrupt meanwhile passed on to it
    as SIGINT; and whether there was one."""
    interrupted = False
    while True:
        try:
            return proc.wait(), interrupted
        except KeyboardInterrupt:
            interrupted = True
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)


def _interrupted(path):
    """The KeyboardInterrupt raised once iopsample ended an interrupted
    episode."""
    return KeyboardInterrupt("iopsample ended the episode interrupted; it is in %s" % path)


def _yaml_scalar(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _episode_args(name, output_dir, overrides):
    """--name, --output-dir and --set KEY=VALUE for overrides given as
    keywords, the dotted path's dots written as double underscores
    (episode__duration="2s" is --set episode.duration=2s)."""
    args = []
    if name is not None:
        args += ["--name", str(name)]
    if output_dir is not None:
        args += ["--output-dir", os.fspath(output_dir)]
    for key, value in overrides.items():
        args += ["--set", "%s=%s" % (key.replace("__", "."), _yaml_scalar(value))]
    return args


def _raise_for(status, stderr, episode=None):
    message = binary.first_message(stderr)
    if status == binary.EX_CONFIG:
        raise ConfigError(status, message, stderr)
    raise EpisodeError(status, message if binary.messages(stderr) else "", stderr, episode)


def _resolve(arg, text, extra):
    """The episode directory run would make: `iopsample check` resolves the
    config (defaults, paths made absolute) without running anything."""
    proc = subprocess.run([binary.find(), "check", arg] + extra, input=text, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        _raise_for(proc.returncode, proc.stderr)
    resolved = json.loads(proc.stdout)["episode"]
    return os.path.join(resolved["output_dir"], resolved["name"])


def run(config, *, name=None, output_dir=None, **overrides):
    """Runs an episode to its end and returns its Episode.

    config is a path, YAML text or a dict; name and output_dir replace the
    config's (--name, --output-dir); other keywords are --set overrides
    with __ for the dots: run("e.yaml", episode__duration="30s").
    A non-zero exit raises EpisodeError (ConfigError for a refused config)
    with the exit status and iopsample's one-line message; its .episode
    holds what was recorded, when anything was."""
    arg, text = _config_text(config)
    extra = _episode_args(name, output_dir, overrides)
    path = _resolve(arg, text, extra)
    existed = os.path.exists(path)  # then run refuses it (73): it is not this run's
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as config_in:
        if text:
            config_in.write(text.encode())
            config_in.seek(0)
        # its own session: Ctrl-C reaches it from here, once (module doc)
        proc = subprocess.Popen([binary.find(), "run", arg, "--quiet"] + extra,
                                stdin=config_in if text else subprocess.DEVNULL, stderr=err,
                                start_new_session=True)
        status, interrupted = _wait_passing_interrupts(proc)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    episode = _made(path) if not existed else None
    if interrupted:
        raise _interrupted(path)
    if status != 0:
        _raise_for(status, stderr, episode)
    return episode


def _made(path):
    """The Episode at path, or None when the run made none."""
    return Episode(path) if os.path.exists(os.path.join(path, "manifest.json")) else None


def unique_name(output_dir, stem):
    """stem-DATE-TIME.MS, free in output_dir (-2, -3, ... after it if not)."""
    t = time.time()
    base = "%s-%s.%03d" % (stem, time.strftime("%Y%m%d-%H%M%S", time.localtime(t)), int(t * 1000) % 1000)
    name, n = base, 1
    while os.path.exists(os.path.join(output_dir, name)):
        n += 1
        name = "%s-%d" % (base, n)
    return name


def _source_configs(sources, interval, required):
    if isinstance(sources, str):
        sources = [s.strip() for s in sources.split(",") if s.strip()]
    out = {}
    for s in sources:
        settings = dict(sources[s]) if isinstance(sources, dict) and sources[s] else {}
        settings.setdefault("interval", interval)
        settings.setdefault("required", required)
        out[s] = settings
    return out


def _yama_scope():
    try:
        with open("/proc/sys/kernel/yama/ptrace_scope") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def _allow_tracer(tracer_pid):
    """Yama's ptrace_scope 1 lets a process be traced only by its
    ancestors, or by the one it names (PR_SET_PTRACER) and that one's
    descendants: iopsample, this process's child, traces it from a sampler
    process of its own. Whatever the euid: root in a container has no
    CAP_SYS_PTRACE, and Yama asks it too. Returns whether it was given."""
    if _yama_scope() != 1:
        return False
    err = _prctl_ptracer(tracer_pid)
    if err:
        raise OSError(err, "prctl(PR_SET_PTRACER, %d): %s" % (tracer_pid, os.strerror(err)))
    return True


def _prctl_ptracer(pid):
    """prctl(PR_SET_PTRACER, pid): 0, or the errno."""
    libc = ctypes.CDLL(None, use_errno=True)
    return ctypes.get_errno() if libc.prctl(PR_SET_PTRACER, ctypes.c_ulong(pid), 0, 0, 0) != 0 else 0


def _revoke_tracer():
    _prctl_ptracer(0)


class _Attached:
    """One `iopsample run -` attached to a process, from its start to its end."""

    def __init__(self, config):
        program = binary.find()
        self.proc = None
        self.pidfd = -1
        self.tracer_allowed = False
        self.err = tempfile.TemporaryFile()
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        try:
            address = "\0iopsample-notify-%d-%s" % (os.getpid(), os.urandom(6).hex())
            self.notify.bind(address)
            env = dict(os.environ, NOTIFY_SOCKET="@" + address[1:])
            # its own session: a Ctrl-C at the terminal interrupts the block,
            # whose end then stops the episode in order
            self.proc = subprocess.Popen([program, "run", "-", "--quiet"], stdin=subprocess.PIPE,
                                         stdout=subprocess.DEVNULL, stderr=self.err, env=env,
                                         start_new_session=True)
            self.pidfd = os.pidfd_open(self.proc.pid)
            if config["target"]["pid"] == os.getpid():
                self.tracer_allowed = _allow_tracer(self.proc.pid)
            # the config last: iopsample attaches only once it has read it all
            self.proc.stdin.write(json.dumps(config).encode())
            self.proc.stdin.close()
        except BaseException:
            self.abort()
            raise

    def wait_ready(self, timeout):
        """Until READY=1 (True), or iopsample ends first (False)."""
        p = select.poll()
        p.register(self.notify, select.POLLIN)
        p.register(self.pidfd, select.POLLIN)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("iopsample did not start sampling within %d s" % timeout)
            for fd, _ in p.poll(left * 1000):
                if fd == self.notify.fileno():
                    return True
                if fd == self.pidfd:
                    return False

    def stop(self, sig=signal.SIGUSR1):
        """The stop request (SIGUSR1), or SIGINT; iopsample's exit status
        once it ended the episode, and whether a KeyboardInterrupt came
        meanwhile (passed on as SIGINT)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return _wait_passing_interrupts(self.proc)

    def stderr(self):
        self.err.seek(0)
        return self.err.read().decode("utf-8", "replace")

    def abort(self):
        """Ends iopsample before the block: SIGINT, as Ctrl-C would, and
        waits for it (the episode ends interrupted, not left running); one
        that does not end within ABORT_WAIT_S (hung) is killed, its keeper
        left to end the episode."""
        try:
            if self.proc is not None and self.proc.poll() is None:
                self.proc.send_signal(signal.SIGINT)
                try:
                    self.proc.wait(ABORT_WAIT_S)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        finally:
            self.close()

    def close(self):
        if self.tracer_allowed:
            _revoke_tracer()
            self.tracer_allowed = False
        if self.pidfd >= 0:
            os.close(self.pidfd)
            self.pidfd = -1
        self.notify.close()
        if self.proc is not None and self.proc.stdin is not None:
            self.proc.stdin.close()
        self.err.close()


@contextlib.contextmanager
def profile(sources=DEFAULT_SOURCES, interval="10ms", pid=None, name=None, output_dir=None,
            required=True):
    """Samples this process (or pid) and its children for the block's
    duration; yields the Episode, which ends `complete` with the block.

        with iopsample.profile(sources=["proc_io", "syscall_io"]) as ep:
            load_the_data()
        ep.frame("syscall_io")

    sources: names, "a,b", or {name: {key: value}} with a source's own
    keys (syscall_io's backend). Every source samples every interval.
    required=False lets a source this host cannot run stay unavailable
    (the manifest says why) while the rest run. The episode goes to
    output_dir/name (default episodes/profile-<time> under the current
    directory). The episode is under way before the block's first
    statement; an exception in the block ends it the same way.

    Where Yama's ptrace_scope is 1 and this process is not root, the
    ptrace backend may trace this process because profile() names
    iopsample its tracer for the block (PR_SET_PTRACER); another pid must
    allow it itself, or syscall_io needs root (eBPF)."""
    output_dir = os.path.abspath(os.fspath(output_dir) if output_dir is not None else "episodes")
    name = name or unique_name(output_dir, "profile")
    config = {"episode": {"name": name, "output_dir": output_dir},
              "target": {"pid": pid or os.getpid()},
              "sources": _source_configs(sources, interval, required)}
    path = os.path.join(output_dir, name)
    attached = _Attached(config)
    try:
        if not attached.wait_ready(START_TIMEOUT_S):
            status = attached.proc.wait()
            _raise_for(status or 70, attached.stderr(), _made(path))
    except BaseException:
        attached.abort()
        raise
    # Nothing between here and the stop request touches a file: the block's
    # process is what the episode counts. The manifest is read after.
    episode = Episode._unread(path)
    try:
        try:
            yield episode
        except KeyboardInterrupt:
            # as the command line's Ctrl-C: the episode ends interrupted
            attached.stop(signal.SIGINT)
            raise
        except BaseException:
            attached.stop()
            raise  # the block's own exception; the episode ended all the same
        status, interrupted = attached.stop()
        if interrupted:
            raise _interrupted(path)
        if status != 0:
            _raise_for(status, attached.stderr(), episode)
    finally:
        if attached.proc.poll() is None:  # an exception while it was being stopped
            attached.stop(signal.SIGINT)
        attached.close()
