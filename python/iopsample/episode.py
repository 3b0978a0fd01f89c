# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""An episode directory as data: its manifest, each source's rows as dicts
or as a pandas frame, and what the binary's reading commands make of it
(export's grid, compare's figures, the report), after pydarshan's report
object over one log."""
import io
import json
import os
import subprocess

from . import binary, frames
import warnings

from .errors import (EpisodeError, EpisodeIncompleteError, EpisodeNotFoundError, ManifestError,
                     SourceUnavailableError, TruncatedFileError, UnknownColumnError, UnknownSourceError)

# A source's file has been written up to where its writer stands, or
# stopped: a cut there is where the episode is or ended, not damage.
_STILL_OR_NEVER_ENDED = ("running", "failed", "killed")


class DamagedTailWarning(UserWarning):
    """rows() of an episode that did not end gave the rows up to a cut at
    its end (where its writer stood, or stopped) and dropped what follows."""


class Episode:
    """One episode directory, as `iopsample run` wrote it.

    >>> ep = Episode("episodes/first")
    >>> ep.status, ep.sources
    ('complete', ('proc_io', 'syscall_io'))
    >>> ep.frame("syscall_io")["write_bytes"].sum()
    """

    def __init__(self, path):
        self.path = os.path.abspath(os.fspath(path))
        if not os.path.isdir(self.path):
            raise EpisodeNotFoundError("%s: no such episode directory (an episode is the directory "
                                       "`iopsample run` made: <output_dir>/<name>)" % path)
        self._manifest = None
        self._read_manifest()

    @classmethod
    def _unread(cls, path):
        """An episode whose manifest is read when first asked for: profile()'s,
        which must not touch a file while its block is sampled."""
        ep = cls.__new__(cls)
        ep.path, ep._manifest = path, None
        return ep

    def _read_manifest(self):
        mpath = os.path.join(self.path, "manifest.json")
        try:
            with open(mpath, encoding="utf-8") as f:
                m = json.load(f)
        except FileNotFoundError:
            raise EpisodeNotFoundError("%s: not an episode: it has no manifest.json (is it the "
                                       "episode's own directory, <output_dir>/<name>?)" % self.path) from None
        except (ValueError, UnicodeDecodeError) as e:
            raise ManifestError("%s: not a JSON manifest: %s (iopsample writes it whole, with a "
                                "rename: a damaged one was changed after)" % (mpath, e)) from None
        if not isinstance(m, dict) or not isinstance(m.get("sources"), dict) or "status" not in m:
            raise ManifestError("%s: not an iopsample manifest: no status or sources "
                                "(`iopsample validate %s` says more)" % (mpath, self.path))
        self._manifest = m

    # ---- what the manifest says --------------------------------------------

    @property
    def manifest(self):
        """manifest.json as a dict; read again while the episode runs."""
        if self._manifest is None or self._manifest.get("status") == "running":
            self._read_manifest()
        return self._manifest

    @property
    def name(self):
        return self.manifest.get("episode")

    @property
    def status(self):
        """running, complete, interrupted, failed, or killed (iopsample was)."""
        return self.manifest["status"]

    @property
    def sources(self):
        """The episode's sources, in the manifest's order (unavailable ones too)."""
        return tuple(self.manifest["sources"])

    def __repr__(self):
        return "Episode(%r: %s, %s)" % (self.path, self.status, ", ".join(self.sources) or "no sources")

    def _source(self, source):
        entry = self.manifest["sources"].get(source)
        if entry is None:
            raise UnknownSourceError("%s has no source %r; it has: %s" % (
                self.path, source, ", ".join(self.sources) or "none"))
        if not entry.get("file"):
            raise SourceUnavailableError("%s: source %s wrote no rows (%s: %s)" % (
                self.path, source, entry.get("status"), entry.get("error") or "no reason given"))
        return entry

    # ---- rows ----------------------------------------------------------------

    def rows(self, source):
        """The source's rows as dicts, plain or zstd (through `iopsample cat`)."""
        return self._read(self._file(source))

    def _file(self, source):
        return os.path.join(self.path, self._source(source)["file"])

    def _read(self, path):
        proc = subprocess.run([binary.find(), "cat", path], capture_output=True)
        said = binary.first_message(proc.stderr.decode("utf-8", "replace"))
        if proc.returncode == binary.EX_NOINPUT:
            raise EpisodeNotFoundError(said)
        try:
            rows = [json.loads(line) for line in io.BytesIO(proc.stdout)]
        except ValueError as e:
            raise TruncatedFileError(path, [], "a row is not JSON: %s" % e) from None
        cut = proc.returncode == binary.EX_DATAERR or (proc.returncode == 0 and said)
        if cut and self.status not in _STILL_OR_NEVER_ENDED:
            raise TruncatedFileError(path, rows, said)
        if cut:
            warnings.warn("%s: %d rows, then the rest dropped (the episode is %s): %s" % (
                path, len(rows), self.status, said), DamagedTailWarning, stacklevel=3)
        if proc.returncode not in (0, binary.EX_DATAERR):
            raise EpisodeError(proc.returncode, said, what="iopsample cat")
        return rows

    def frame(self, source):
        """The source's rows as a pandas DataFrame, one row per interval,
        indexed by t_mono_ns; nested objects as dotted columns
        (by_syscall.read.bytes), each histogram one column of lists."""
        path = self._file(source)
        return frames.frame(self._read(path), path, lambda: self._dtypes(source))

    def _dtypes(self, source):
        """The pandas dtypes of source's rows, nested as the rows are, from
        its schema (frames.dtype_at)."""
        return json.loads(binary.run(["schema", "--columns", source, "--dialect", "pandas", self.path],
                                     "schema"))

    # ---- what the binary's reading commands make of it -----------------------

    def grid(self, interval=None, columns=None, deployable_only=False, include_incomplete=False):
        """export's one table (`iopsample export --format csv`), as pandas
        reads it: one row per grid cell (interval: a duration such as
        "50ms"; default the coarsest source interval), columns
        `<source>.<field>`; columns= keeps those named (and the cell's);
        deployable_only keeps the deployable sources' (export's
        --deployable-only). An episode that did not end raises
        EpisodeIncompleteError, unless include_incomplete."""
        return _grid([self], interval, columns, deployable_only, include_incomplete)

    def totals(self):
        """export --episodes: the episode's facts and each field's total
        over the whole episode by export's rules, as a dict."""
        out = binary.run(["export", "--episodes", "--include-incomplete", "--format", "jsonl", "-o", "-",
                          self.path], "export")
        return json.loads(out.splitlines()[0])

    def compare(self, interval=None, pairs=None):
        """compare's figures (`iopsample compare --format json`), a row per
        pair of a deployable field and its oracle. pairs: a pairs file."""
        import pandas as pd

        if self.status in _STILL_OR_NEVER_ENDED:
            raise EpisodeIncompleteError(self.path, self.status, "compare()")
        args = ["compare", self.path, "--format", "json"]
        if interval:
            args += ["--grid", str(interval)]
        if pairs:
            args += ["--pairs", os.fspath(pairs)]
        out = json.loads(binary.run(args, "compare"))
        return pd.DataFrame(out["pairs"])

    def verdict(self, window=None, deployable_only=False):
        """Where each window's time went (`iopsample verdict --format json`):
        a DataFrame indexed by t_mono_ns (each window's end), with
        t_wall_ns, interval_ns, verdict (cpu, cpu_wait, disk, memory, gpu,
        gpu_copy, network or idle), shares.<label> (each label's share of the
        window) and evidence. window: a multiple of the sources'
        interval ("1s"); deployable_only: from deployable sources alone.
        .attrs holds the episode's totals, the sources read and the labels
        they cannot tell apart (cannot_tell)."""
        import pandas as pd

        args = ["verdict", self.path, "--format", "json"]
        if window:
            args += ["--window", str(window)]
        if deployable_only:
            args.append("--deployable-only")
        try:
            out = json.loads(binary.run(args, "verdict").splitlines()[0])
        except EpisodeError as e:
            if e.status == binary.EX_UNAVAILABLE:
                raise SourceUnavailableError("%s (%s)" % (e.message, self.path)) from None
            raise
        rows = [dict(t_mono_ns=w["t_mono_ns"], t_wall_ns=w["t_wall_ns"], interval_ns=w["interval_ns"],
                     verdict=w["verdict"], **{"shares." + k: v for k, v in w["shares"].items()},
                     evidence=w["evidence"]) for w in out["windows"]]
        labels = ("cpu", "cpu_wait", "disk", "memory", "gpu", "gpu_copy", "network", "idle")
        columns = (["t_mono_ns", "t_wall_ns", "interval_ns", "verdict"] + ["shares." + k for k in labels]
                   + ["evidence"])
        frame = pd.DataFrame(rows, columns=columns).astype(
            {"t_mono_ns": "int64", "t_wall_ns": "int64", "interval_ns": "int64", "verdict": "string",
             "evidence": "string", **{"shares." + k: "float64" for k in labels}}).set_index("t_mono_ns")
        frame.attrs.update(totals=out["totals"], sources=out["sources"], cannot_tell=out["cannot_tell"],
                           window_ns=out["window_ns"], deployable_only=out["deployable_only"])
        return frame

    def report(self, path):
        """Writes the offline HTML report (`iopsample report`) to path; returns it."""
        binary.run(["report", self.path, "-o", os.fspath(path)], "report")
        return os.fspath(path)


def _grid(episodes, interval, columns, deployable_only=False, include_incomplete=False):
    import pandas as pd

    for ep in episodes:
        if not include_incomplete and ep.status in _STILL_OR_NEVER_ENDED:
            raise EpisodeIncompleteError(ep.path, ep.status, "the grid")
    args = ["export"] + [ep.path for ep in episodes] + ["--format", "csv", "-o", "-"]
    if interval:
        args += ["--grid", str(interval)]
    if deployable_only:
        args.append("--deployable-only")
    if include_incomplete:
        args.append("--include-incomplete")
    text = binary.run(args, "export")
    if not text:
        return pd.DataFrame()
    header = pd.read_csv(io.StringIO(text), nrows=0).columns
    if columns is not None:
        keep = ["episode", "t_start_ns", "t_end_ns"] + [c for c in header if c.startswith("label.")]
        missing = [c for c in columns if c not in header]
        if missing:
            raise UnknownColumnError("no column %s in the grid; columns are named <source>.<field> "
                                     "as export names them, such as %s" % (", ".join(missing), header[-1]))
        use = keep + [c for c in columns if c not in keep]
    else:
        use = None
    # docs/data-model.md, "Formats and pandas": names and labels stay text,
    # only an empty cell is missing
    text_cols = {c: "string" for c in header if c == "episode" or c.startswith("label.")}
    return pd.read_csv(io.StringIO(text), dtype=text_cols, keep_default_na=False, na_values=[""],
                       usecols=use)[use or header]


def load_many(paths, source=None, interval=None, columns=None, deployable_only=False, include_incomplete=False):
    """Episodes stacked for a dataset. Without source, export's grid of
    them all (one table, one grid, each row with its `episode`);
    deployable_only keeps the deployable sources' columns, as a harness
    building a dataset of deployable features wants (export's
    --deployable-only). With source, each episode's frame(source), keyed by
    episode: the index is (episode, t_mono_ns), the episode's name, or its
    path where two have one name; deployable_only then refuses an episode
    whose source is an oracle there. An episode that did not end raises
    EpisodeIncompleteError, unless include_incomplete."""
    episodes = [Episode(p) for p in paths]  # a clear error for a path that is not an episode
    if source is None:
        return _grid(episodes, interval, columns, deployable_only, include_incomplete)
    import pandas as pd

    if not episodes:
        return pd.DataFrame()
    names = [ep.name for ep in episodes]
    keys = names if len(set(names)) == len(names) else [ep.path for ep in episodes]
    parts = []
    for ep, key in zip(episodes, keys):
        if not include_incomplete and ep.status in _STILL_OR_NEVER_ENDED:
            raise EpisodeIncompleteError(ep.path, ep.status, "load_many()")
        if deployable_only and not ep._source(source).get("available_in_deployment"):
            raise UnknownSourceError("%s: %s is not deployable there (available_in_deployment false): "
                                     "deployable_only=True keeps only deployable sources" % (ep.path, source))
        f = ep.frame(source).drop(columns=["episode"], errors="ignore")
        f.index = pd.MultiIndex.from_arrays([[key] * len(f), f.index], names=["episode", "t_mono_ns"])
        parts.append(f)
    return pd.concat(parts)
