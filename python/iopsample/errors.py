# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The exceptions the package raises. Each message says what went wrong and
what to do about it; iopsample's own one-line messages are passed on as it
wrote them."""


class IopsampleError(Exception):
    """Anything the package raises on purpose."""


class BinaryNotFoundError(IopsampleError, FileNotFoundError):
    """No iopsample binary where the package looks for one."""

    def __init__(self, looked):
        self.looked = list(looked)
        super().__init__("no iopsample binary: looked in %s; install iopsample (make install, or the "
                         ".deb), or set $IOPSAMPLE to its path" % "; ".join(self.looked))


class BinaryVersionError(IopsampleError):
    """An iopsample binary of another release than the package's."""

    def __init__(self, path, found, wanted):
        self.path, self.found, self.wanted = path, found, wanted
        super().__init__("%s is iopsample %s, but this package is %s: install the same release of both, or set "
                         "$IOPSAMPLE to a binary of %s" % (path, found, wanted, wanted))


class EpisodeNotFoundError(IopsampleError, FileNotFoundError):
    """A path that is not an episode directory."""


class ManifestError(IopsampleError, ValueError):
    """An episode's manifest.json that cannot be read as one."""


class UnknownSourceError(IopsampleError, LookupError):
    """A source the episode does not have."""

    def __str__(self):  # LookupError would quote the message as KeyError does
        return self.args[0]


class UnknownColumnError(IopsampleError, LookupError):
    """A column the grid does not have."""

    def __str__(self):
        return self.args[0]


class SourceUnavailableError(IopsampleError, LookupError):
    """A source the episode has, but which wrote no rows (unavailable)."""

    def __str__(self):
        return self.args[0]


class TruncatedFileError(IopsampleError, ValueError):
    """A source's file that ends inside a row or a zstd frame in an episode
    that ended (complete or interrupted): its rows up to the cut are in
    .rows, and .message is where it stopped."""

    def __init__(self, path, rows, message):
        self.path = path
        self.rows = rows
        self.message = message
        super().__init__("%s: %d rows could be read, then: %s" % (path, len(rows), message))


class EpisodeIncompleteError(IopsampleError):
    """An episode that did not end (running, or iopsample was killed) or
    failed, asked for what only an ended one gives: export's grid, compare.
    .status is its manifest's."""

    def __init__(self, path, status, what):
        self.path, self.status = path, status
        super().__init__("%s is %s: %s reads episodes that ended (complete or interrupted)%s" % (
            path, status, what, "; include_incomplete=True takes its rows up to where they stop"
            if what != "compare()" else ""))


class CorruptEpisodeError(IopsampleError, ValueError):
    """An episode whose rows iopsample's reading commands refuse (exit 65)."""


class EpisodeError(IopsampleError):
    """`iopsample run` (or a reading command) exited with a status other than 0.

    .status is the exit status, .message iopsample's own one-line message
    (empty when it printed none: a target's own non-zero exit), .stderr all
    it printed, and .episode the Episode when its directory was made."""

    def __init__(self, status, message, stderr="", episode=None, what="iopsample run"):
        self.status = status
        self.message = message
        self.stderr = stderr
        self.episode = episode
        if message:
            text = "%s exited with status %d: %s" % (what, status, message)
        else:
            text = "%s exited with status %d (the target's own exit status)" % (what, status)
            if episode is not None:
                text += "; the episode is in %s" % episode.path
        super().__init__(text)


class ConfigError(EpisodeError, ValueError):
    """A config iopsample refuses (exit 78). .file, .line and .column say
    where, when iopsample gave a position."""

    def __init__(self, status, message, stderr=""):
        super().__init__(status, message, stderr, what="iopsample")
        self.file = self.line = self.column = None
        parts = message.split(":", 3)
        if len(parts) == 4 and parts[1].isdigit() and parts[2].isdigit():
            self.file, self.line, self.column = parts[0], int(parts[1]), int(parts[2])


class ConfigNotFoundError(ConfigError, FileNotFoundError):
    """A config named by a path that is no file."""

    def __init__(self, path, hint=""):
        super().__init__(78, "%s: no such config file%s" % (path, hint))
        self.filename = path

    def __str__(self):  # OSError's would be "[Errno None] ..."
        return self.message
