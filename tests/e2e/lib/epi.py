# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Loads an episode directory for the end-to-end tests' assertions.

Episode(dir) reads manifest.json and every source's rows (plain or zstd,
decoded with the zstd command), validates them against schema/ and checks the
envelope invariants of CONTRACT §5 on load, so every test that loads an
episode also checks them:
seq 0, 1, 2, ...; t_mono_ns increasing; interval_ns the difference of
consecutive t_mono_ns; one final row, the last (none when the source failed);
the same keys in every row; the row count the manifest gives. Then
`iopsample validate` must pass the episode too.
"""
import json
import os
import subprocess

import jsonschema

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "schema")


def schema_validator(name):
    """A draft 2020-12 validator for schema/<name>.schema.json, with the
    other schemas there available to its $refs."""
    store = {}
    for f in os.listdir(SCHEMA_DIR):
        with open(os.path.join(SCHEMA_DIR, f)) as fh:
            s = json.load(fh)
        store[s["$id"]] = s
    schema = store["https://iopsample.invalid/schema/%s.schema.json" % name]
    jsonschema.Draft202012Validator.check_schema(schema)
    resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    return jsonschema.Draft202012Validator(schema, resolver=resolver)


def schema_errors(name, instance):
    return [e.message for e in schema_validator(name).iter_errors(instance)]


def every_row(n):
    """Which of n rows Python's jsonschema checks: all of them."""
    return range(n)


def sampled_rows(n):
    """... or a fixed sample, for episodes of a hundred thousand rows
    (tests/e2e/load.sh), whose every row `iopsample validate` reads: the
    first and last 500 and every 100th."""
    return sorted(set(range(min(n, 500))) | set(range(max(0, n - 500), n)) | set(range(0, n, 100)))


def expect(cond, msg):
    if not cond:
        raise SystemExit("assertion failed: " + msg)


def load_rows(path, cut_ok=False):
    """cut_ok: the writer may have died between rows, inside a zstd frame
    (a failed source), which zstd reports as a premature end."""
    if path.endswith(".zst"):
        z = subprocess.run(["zstd", "-dc", path], capture_output=True)
        expect(z.returncode == 0 or (cut_ok and b"premature end" in z.stderr),
               "%s: zstd: %s" % (path, z.stderr.decode().strip()))
        text = z.stdout.decode()
    else:
        with open(path) as f:
            text = f.read()
    expect(text == "" or text.endswith("\n"), path + ": last row not newline-terminated")
    return [json.loads(line) for line in text.splitlines()]


class Episode:
    def __init__(self, path, schema_rows=every_row):
        self.dir = path
        with open(os.path.join(path, "manifest.json")) as f:
            self.manifest = json.load(f)
        errors = schema_errors("manifest", self.manifest)
        expect(not errors, "manifest.json against the schema: %s" % errors[:3])
        self.rows = {}
        for name, src in self.manifest["sources"].items():
            if src["file"]:
                self.rows[name] = load_rows(os.path.join(path, src["file"]),
                                            cut_ok=src["status"] != "ok")
                v = schema_validator(name)
                for i in schema_rows(len(self.rows[name])):
                    errors = [e.message for e in v.iter_errors(self.rows[name][i])]
                    expect(not errors, "%s row %d against the schema: %s" % (name, i, errors[:3]))
                if self.manifest["status"] not in ("running", "killed"):
                    self.check_envelope(name)
        # ... and iopsample validate agrees about every episode a test loads
        # that ended (running or killed: iopsample did not end it)
        if self.manifest["status"] not in ("running", "killed"):
            v = subprocess.run([os.environ["IOPSAMPLE"], "validate", path], capture_output=True)
            expect(v.returncode == 0, "iopsample validate: exit %d: %s" % (
                v.returncode, (v.stdout + v.stderr).decode()[:300]))

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
        """The field summed over the source's rows; a null cell fails the
        test by name (a sum over it would mean nothing)."""
        nulled = [r["seq"] for r in self.rows[source] if r[field] is None]
        expect(not nulled, "%s.%s is null in rows %s" % (source, field, nulled[:10]))
        return sum(r[field] for r in self.rows[source])

    def target_report(self):
        """What iowork printed about itself."""
        with open(os.path.join(self.dir, "target.stdout")) as f:
            return json.loads(f.read())
