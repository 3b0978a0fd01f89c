# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Which iopsample binary the package drives, and running its reading
commands. The package computes nothing the binary computes (export's grid,
compare's figures, the totals): it runs the command and reads its output."""
import os
import shutil
import subprocess

from ._version import __version__
from .errors import (BinaryNotFoundError, BinaryVersionError, CorruptEpisodeError, EpisodeError,
                     EpisodeNotFoundError)

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


# the binaries whose release was checked: (path, mtime) -> its version
_checked = {}


def release_of(path):
    """The release of the binary at path, from `iopsample --version`
    ("iopsample 0.1.0" or, from a checkout, "iopsample 0.1.0-gHASH[-dirty]"),
    or what it said instead."""
    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "of no known release (--version: %s)" % e
    words = proc.stdout.split()
    if proc.returncode != 0 or len(words) != 2 or words[0] != "iopsample":
        said = (proc.stdout + proc.stderr).strip().splitlines()
        return "of no known release (--version: %s)" % (said[0] if said else "exit %d" % proc.returncode)
    return words[1].split("-")[0]


def _checked_release(path):
    """path, once its binary is known to be the package's release."""
    try:
        key = (path, os.stat(path).st_mtime_ns)
    except OSError:
        key = (path, None)
    found = _checked.get(key) or release_of(path)
    if found != __version__:
        raise BinaryVersionError(path, found, __version__)
    _checked[key] = found
    return path


def find():
    """The path of the binary: $IOPSAMPLE, else iopsample on PATH, else the
    build beside the source tree, checked once to be the package's release
    (BinaryVersionError names both). BinaryNotFoundError says where it
    looked. Every command the package runs goes through here."""
    return _checked_release(_lookup())


def _lookup():
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
