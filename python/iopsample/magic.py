# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""%iops and %%iops: the code of a line or a cell, run with iopsample
attached to this kernel's process, then iops-profiler's table, what each
source saw and, with --histogram, its two charts. The value is the Episode.

    %load_ext iopsample
    %iops open("f", "wb").write(b"x" * 4096)
    %%iops --sources proc_io,syscall_io --interval 10ms --histogram --save runs
"""
import atexit
import io
import os
import shutil
import tempfile
import time

from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import Image, display

from . import display as view
from . import runner

# the sources a magic runs unless told: profile()'s, and taskstats, which
# the cell's verdict is made from (it says so, and the rest run, where it
# cannot start)
MAGIC_SOURCES = runner.DEFAULT_SOURCES + ("taskstats",)

# the options that take a value, for telling a line magic's options from its statement
_VALUED = ("--sources", "--interval", "--save")
_FLAGS = ("--histogram", "--all")


def split_line(line):
    """(options, statement) of a line magic: its leading options, then the
    statement as written."""
    rest, taken = line.strip(), []
    while rest.startswith("--"):
        word = rest.split(None, 1)[0]
        name = word.split("=", 1)[0]
        if name in _FLAGS or (name in _VALUED and "=" in word):
            taken.append(word)
            rest = rest[len(word):].lstrip()
        elif name in _VALUED:
            parts = rest.split(None, 2)
            taken += parts[:2]
            rest = parts[2] if len(parts) > 2 else ""
        else:
            break
    return " ".join(taken), rest


@magics_class
class IopsMagics(Magics):
    """iops-profiler's magic over iopsample's sources."""

    def __init__(self, shell):
        super().__init__(shell)
        self._scratch = None  # where episodes go without --save, removed at exit

    def _output_dir(self, save):
        if save:
            return os.path.abspath(os.path.expanduser(save))
        if self._scratch is None:
            self._scratch = tempfile.mkdtemp(prefix="iopsample-iops-")
            atexit.register(shutil.rmtree, self._scratch, True)
        return self._scratch

    def _rich(self):
        return type(self.shell).__name__ != "TerminalInteractiveShell"

    @magic_arguments()
    @argument("--sources", default=",".join(MAGIC_SOURCES),
              help="the sources to run, comma-separated (default: %(default)s); one that cannot run here "
                   "says why and the rest run")
    @argument("--interval", default="10ms", help="every source's sampling interval (default: %(default)s)")
    @argument("--histogram", action="store_true",
              help="draw operations and bytes by size (syscall_io's size histograms)")
    @argument("--save", metavar="DIR",
              help="keep the episode in DIR (default: a scratch folder removed when the kernel exits)")
    @argument("--all", dest="everything", action="store_true",
              help="count every descriptor (the kernel's sockets and pipes too), not only files")
    @line_cell_magic
    def iops(self, line, cell=None):
        """Runs the statement (%iops) or the cell (%%iops) with iopsample
        attached to this process and shows the cell's verdict (where its
        time went), iops-profiler's table (files only, unless --all), what
        each source saw, and with --histogram the two charts. Returns the
        Episode."""
        if cell is None:
            options, code = split_line(line)
            if not code:
                raise ValueError("%iops needs a statement: %iops [options] STATEMENT (or %%iops over a cell)")
        else:
            options, code = line, cell
        args = parse_argstring(self.iops, options)
        code = self.shell.transform_cell(code)
        output_dir = self._output_dir(args.save)

        # The history thread writes the cell's input to its database as the
        # cell starts: done here, before the episode, it is not the cell's I/O.
        history = getattr(self.shell, "history_manager", None)
        if history is not None and getattr(history, "enabled", False):
            history.writeout_cache()
        with runner.profile(sources=args.sources, interval=args.interval, output_dir=output_dir,
                            name=runner.unique_name(output_dir, "iops"), required=False) as ep:
            start = time.perf_counter()
            try:
                self.shell.ex(code)
            finally:
                elapsed = time.perf_counter() - start
        self._show(ep, elapsed, args)
        return ep

    @staticmethod
    def _verdict(ep):
        """The cell's verdict line: `iopsample verdict`'s, as Episode.verdict() gives it."""
        from .errors import SourceUnavailableError

        try:
            v = ep.verdict()
        except SourceUnavailableError as e:
            return "Verdict: none (%s)" % e
        return view.verdict_line(v.attrs["totals"], v.attrs["cannot_tell"])

    def _show(self, ep, elapsed, args):
        totals = ep.totals()
        table = view.iops_table(ep.manifest, totals, elapsed, args.everything)
        views = view.source_views(ep.manifest, totals)
        verdict = self._verdict(ep)
        display({"text/plain": view.text(table, views, verdict), "text/html": view.html_view(table, views, verdict)},
                raw=True)
        if not args.histogram:
            return
        hists = view.size_histograms(totals)
        if hists is None:
            entry = ep.manifest["sources"].get("syscall_io", {})
            print("no histogram: syscall_io did not run (%s)" % (entry.get("error") or "not among --sources"))
            return
        fig = view.histogram_figure(hists)
        if self._rich():
            png = io.BytesIO()
            fig.savefig(png, format="png", dpi=90)
            display(Image(data=png.getvalue(), format="png"))
        else:
            path = os.path.abspath("iops-histogram-%s.png" % ep.name)
            fig.savefig(path, dpi=90)
            print("histogram: %s" % path)
