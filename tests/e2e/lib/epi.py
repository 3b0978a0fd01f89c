"""Loads an episode directory for the end-to-end tests' assertions.

Episode(dir) reads manifest.json and every source's rows (plain or zstd,
decoded with the zstd command) and checks the envelope invariants of
CONTRACT §5 on load, so every test that loads an episode also checks them:
seq 0, 1, 2, ...; t_mono_ns increasing; interval_ns the difference of
consecutive t_mono_ns; one final row, the last (none when the source failed);
the same keys in every row; the row count the manifest gives.
"""
import json
import os
import subprocess


def expect(cond, msg):
    if not cond:
        raise SystemExit("assertion failed: " + msg)


def load_rows(path):
    if path.endswith(".zst"):
        text = subprocess.run(["zstd", "-dc", path], check=True,
                              capture_output=True).stdout.decode()
    else:
        with open(path) as f:
            text = f.read()
    expect(text == "" or text.endswith("\n"), path + ": last row not newline-terminated")
    return [json.loads(line) for line in text.splitlines()]


class Episode:
    def __init__(self, path):
        self.dir = path
        with open(os.path.join(path, "manifest.json")) as f:
            self.manifest = json.load(f)
        self.rows = {}
        for name, src in self.manifest["sources"].items():
            if src["file"]:
                self.rows[name] = load_rows(os.path.join(path, src["file"]))
                if self.manifest["status"] != "running":
                    self.check_envelope(name)

    def check_envelope(self, source):
        rows = self.rows[source]
        src = self.manifest["sources"][source]
        expect(len(rows) == src["rows"],
               "%s: %d rows, manifest says %d" % (source, len(rows), src["rows"]))
        keys = list(rows[0].keys()) if rows else []
        prev_t = 0
        for i, r in enumerate(rows):
            where = "%s row %d" % (source, i)
            expect(list(r.keys()) == keys, where + ": keys differ from row 0")
            expect(r["episode"] == self.manifest["episode"], where + ": episode")
            expect(r["source"] == source, where + ": source")
            expect(r["available_in_deployment"] == src["available_in_deployment"],
                   where + ": available_in_deployment")
            expect(r["seq"] == i, where + ": seq %d" % r["seq"])
            expect(r["t_mono_ns"] > prev_t or (i == 0 and r["t_mono_ns"] >= 0),
                   where + ": t_mono_ns not increasing")
            expect(r["interval_ns"] == r["t_mono_ns"] - prev_t, where + ": interval_ns")
            # a sampler that died wrote no final row
            expect(r["final"] == (i == len(rows) - 1 and src["status"] == "ok"), where + ": final")
            prev_t = r["t_mono_ns"]

    def total(self, source, field):
        return sum(r[field] for r in self.rows[source])

    def target_report(self):
        """What iowork printed about itself."""
        with open(os.path.join(self.dir, "target.stdout")) as f:
            return json.loads(f.read())
