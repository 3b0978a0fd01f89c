# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Which iopsample binary the package drives, and running its reading
commands. The package computes nothing the binary computes (export's grid,
compare's figures, the totals): it runs the command and reads its output."""
import os
import shutil
import subprocess

from .errors import BinaryNotFoundError, CorruptEpisodeError, EpisodeError, EpisodeNotFoundError

# sysexits.h, as iopsample's reading commands use them
EX_DATAERR = 65
EX_NOINPUT = 66
EX_UNAVAILABLE = 69
EX_CONFIG = 78


def _beside_source():
    """The build of the source tree this package sits in (python/iopsample/
    of a checkout), or None for an installed package."""
    here = os.path.dirname(os.path.abspath(__file__))
    if not os.path.exists(os.path.join(here, "..", "pyproject.toml")):
        return None
    return os.path.normpath(os.path.join(here, "..", "..", "build", "iopsample"))


def _runnable(path):
    return bool(path) and os.access(path, os.X_OK) and not os.path.isdir(path)


def find():
    """The path of the binary: $IOPSAMPLE, else iopsample on PATH, else the
    build beside the source tree. BinaryNotFoundError says where it looked."""
    env = os.environ.get("IOPSAMPLE")
    if env is not None:
        if _runnable(env):
            return os.path.abspath(env)
        raise BinaryNotFoundError(["$IOPSAMPLE=%s (not an executable file)" % env])
    on_path = shutil.which("iopsample")
    if on_path:
        return on_path
    beside = _beside_source()
    if _runnable(beside):
        return beside
    looked = ["$IOPSAMPLE (unset)", "PATH (%s)" % os.environ.get("PATH", "")]
    raise BinaryNotFoundError(looked + ([beside] if beside else []))


def messages(stderr):
    """iopsample's own lines in stderr, without their "iopsample: " prefix."""
    return [line[len("iopsample: "):] for line in stderr.splitlines() if line.startswith("iopsample: ")]


def first_message(stderr):
    said = messages(stderr)
    return said[0] if said else stderr.strip().splitlines()[-1] if stderr.strip() else ""


def run(args, what, stdin=None, text=True):
    """Runs a reading command (iopsample ARGS...) and returns its stdout;
    a non-zero exit becomes the exception its status means, with the
    command's own message."""
    proc = subprocess.run([find()] + list(args), input=stdin, capture_output=True, text=text)
    if proc.returncode == 0:
        return proc.stdout
    err = proc.stderr if text else proc.stderr.decode("utf-8", "replace")
    message = first_message(err)
    if proc.returncode == EX_NOINPUT:
        raise EpisodeNotFoundError(message)
    if proc.returncode == EX_DATAERR:
        raise CorruptEpisodeError(message)
    raise EpisodeError(proc.returncode, message, err, what="iopsample " + what)
