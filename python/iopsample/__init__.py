# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""iopsample from Python: episodes as data, runs from a harness, and the
%iops / %%iops magics for IPython and Jupyter.

    import iopsample
    ep = iopsample.run("episode.yaml")              # a path, YAML text or a dict
    with iopsample.profile(sources=["proc_io", "syscall_io"]) as ep:
        ...                                         # this process, for the block
    ep.frame("syscall_io")                          # pandas, one row an interval
    ep.grid(interval="50ms"); ep.compare(); ep.report("r.html")
    iopsample.load_many(paths)                      # stacked, with an `episode` column (or key)

    %load_ext iopsample                             # then %iops / %%iops

The package drives the iopsample binary ($IOPSAMPLE, else PATH, else the
build beside this source tree) and re-computes nothing it computes."""
from .binary import find as find_binary
from .episode import DamagedTailWarning, Episode, load_many
from .errors import (BinaryNotFoundError, BinaryVersionError, ConfigError, ConfigNotFoundError,
                     CorruptEpisodeError, EpisodeError, EpisodeIncompleteError, EpisodeNotFoundError,
                     IopsampleError, ManifestError, SourceUnavailableError, TruncatedFileError,
                     UnknownColumnError, UnknownSourceError)
from .runner import profile, run

from ._version import __version__

__all__ = ["Episode", "load_many", "run", "profile", "find_binary", "IopsampleError", "BinaryNotFoundError",
           "BinaryVersionError", "EpisodeNotFoundError", "ManifestError", "UnknownSourceError",
           "UnknownColumnError", "SourceUnavailableError", "TruncatedFileError", "CorruptEpisodeError",
           "EpisodeError", "ConfigError", "ConfigNotFoundError", "EpisodeIncompleteError", "DamagedTailWarning"]


def load_ipython_extension(ipython):
    """%load_ext iopsample: registers %iops and %%iops."""
    from .magic import IopsMagics

    ipython.register_magics(IopsMagics)


def unload_ipython_extension(ipython):
    """%unload_ext iopsample: %iops and %%iops are gone again."""
    manager = ipython.magics_manager
    for kind in ("line", "cell"):
        manager.magics[kind].pop("iops", None)
    manager.registry.pop("IopsMagics", None)
