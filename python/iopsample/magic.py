# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""%iops and %%iops: the code of a line or a cell, run as IPython runs a
cell (its last value shown, top-level await, its own magics) with iopsample
attached to this kernel's process, then iops-profiler's table, what each
source saw and, with --histogram, its two charts. With -o the magic's value
is the Episode, as %timeit -o gives its result.

    %load_ext iopsample
    %iops open("f", "wb").write(b"x" * 4096)
    %%iops --sources proc_io,syscall_io --interval 10ms --histogram --save runs -o
"""
import asyncio
import atexit
import ctypes
import io
import os
import shutil
import tempfile
import threading
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
_FLAGS = ("--histogram", "--all", "-o")


# How long an interrupted cell's thread is given to end, once told to.
CELL_STOP_S = 10


def _stop_cell(worker, done):
    """Ends a cell running on its own loop in worker: its task cancelled
    (an await returns with CancelledError) and a KeyboardInterrupt raised in
    its thread (code that does not await), as Ctrl-C would; waits for it."""
    loop, task = done.get("loop"), done.get("task")
    if loop is not None and task is not None and not loop.is_closed():
        try:
            loop.call_soon_threadsafe(task.cancel)
        except RuntimeError:  # the loop closed meanwhile: the cell is over
            pass
    if worker.is_alive():
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(worker.ident),
                                                   ctypes.py_object(KeyboardInterrupt))
    worker.join(CELL_STOP_S)


def split_line(line):
    """(options, statement) of a line magic: its leading options, then the
    statement as written."""
    rest, taken = line.strip(), []
    while rest.startswith("--") or rest.split(None, 1)[0:1] == ["-o"]:
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
    @argument("-o", dest="output", action="store_true",
              help="make the Episode the magic's value (as %%timeit -o), the cell's own value shown")
    @line_cell_magic
    def iops(self, line, cell=None):
        """Runs the statement (%iops) or the cell (%%iops) as IPython runs a
        cell, with iopsample attached to this process, and shows the cell's
        verdict (where its time went), iops-profiler's table (files only,
        unless --all), what each source saw, and with --histogram the two
        charts. The cell's own value is shown as a cell's is; with -o the
        magic returns the Episode. Ctrl-C ends the episode interrupted and
        is raised once iopsample wrote its final rows."""
        if cell is None:
            options, code = split_line(line)
            if not code:
                raise ValueError("%iops needs a statement: %iops [options] STATEMENT (or %%iops over a cell)")
        else:
            options, code = line, cell
        args = parse_argstring(self.iops, options)
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
                # a cell's run: its value through the display hook, its
                # exceptions shown as a cell's are (not raised here)
                result = self._run_cell(code)
            finally:
                elapsed = time.perf_counter() - start
            if isinstance(result.error_in_exec, KeyboardInterrupt):
                raise KeyboardInterrupt()  # profile() ends the episode interrupted
        self._show(ep, elapsed, args)
        return ep if args.output else None

    def _run_cell(self, code):
        """The cell run as IPython runs one. Where a loop already runs this
        thread (a Jupyter kernel's, which is running this very cell), a cell
        with top-level await cannot enter it again: its coroutine runs on a
        loop of its own in a thread this one waits for (objects bound to the
        kernel's loop cannot be awaited there)."""
        shell = self.shell
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return shell.run_cell(code, store_history=False)
        try:
            needs_loop = shell.should_run_async(code, transformed_cell=shell.transform_cell(code),
                                                preprocessing_exc_tuple=None)
        except Exception:  # a cell that does not even transform: run_cell says why
            needs_loop = False
        if not needs_loop:
            return shell.run_cell(code, store_history=False)
        done = {}
        started = threading.Event()

        def body():
            loop = asyncio.new_event_loop()
            try:
                done["loop"] = loop
                done["task"] = loop.create_task(shell.run_cell_async(code, store_history=False))
                started.set()
                done["result"] = loop.run_until_complete(done["task"])
            except BaseException as e:  # cancelled, or interrupted: the cell is over
                done["error"] = e
            finally:
                started.set()
                loop.close()

        worker = threading.Thread(target=body, name="iops-cell", daemon=True)
        worker.start()
        try:
            worker.join()
        except KeyboardInterrupt:
            # the kernel's interrupt reaches this thread: the cell's is
            # stopped as well, not left running behind the episode
            started.wait()
            _stop_cell(worker, done)
            raise
        if "result" not in done:
            raise done["error"]
        return done["result"]

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
        hists = view.size_histograms(totals, args.everything)
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
