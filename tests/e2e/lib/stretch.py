# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""A long episode made from a short one: its rows repeated, in order, on
the same grid for as long as asked, the envelope of each written anew (seq,
t_mono_ns, t_wall_ns, interval_ns, final) and the manifest made to match.
What the commands do with a day of rows (memory, a report's size) is then
measured without recording for a day. Every source of the short episode
needs rows on one interval each (the sampler's own, unwidened).

    python3 stretch.py SHORT_EPISODE_DIR OUT_DIR NAME SECONDS [--plain]

writes OUT_DIR/NAME, zstd-compressed (python3-zstandard) unless --plain."""
import json
import os
import re
import subprocess
import sys

ENVELOPE = re.compile(rb'^(\{"episode":)"[^"]*"(.*?"seq":)\d+,"t_mono_ns":\d+,"t_wall_ns":\d+,'
                      rb'"interval_ns":\d+,"final":(?:true|false)(.*)$')


def rows_of(iops, path):
    return subprocess.run([iops, "cat", path], capture_output=True, check=True).stdout.splitlines()


def stretch(iops, short, out_dir, name, seconds, compress=True):
    m = json.load(open(os.path.join(short, "manifest.json")))
    out = os.path.join(out_dir, name)
    os.makedirs(out)
    t0 = m["t_wall_start_ns"]
    end = int(seconds * 1e9)
    for src, entry in m["sources"].items():
        if not entry.get("file"):
            continue
        interval = entry["interval_ns"]
        parts = []
        for row in rows_of(iops, os.path.join(short, entry["file"])):
            g = ENVELOPE.match(row)
            if not g:
                raise SystemExit("%s: a row whose envelope is not as iopsample writes it" % src)
            parts.append((g.group(1) + json.dumps(name).encode() + g.group(2), g.group(3)))
        parts = parts[:-1] or parts  # the final row's drain, left out of the cycle
        n = end // interval
        fname = "%s.jsonl%s" % (src, ".zst" if compress else "")
        with open(os.path.join(out, fname), "wb") as raw:
            f = raw
            if compress:
                import zstandard
                f = zstandard.ZstdCompressor(level=1).stream_writer(raw)
            batch = []
            for k in range(n):
                head, tail = parts[k % len(parts)]
                t = (k + 1) * interval
                batch.append(b"%s%d,\"t_mono_ns\":%d,\"t_wall_ns\":%d,\"interval_ns\":%d,\"final\":%s%s\n" % (
                    head, k, t, t0 + t, interval, b"true" if k == n - 1 else b"false", tail))
                if len(batch) == 4096:
                    f.write(b"".join(batch))
                    batch = []
            f.write(b"".join(batch))
            if compress:
                f.flush(zstandard.FLUSH_FRAME)
        entry["file"], entry["rows"] = fname, n
    m["episode"] = name
    m["duration_ns"] = end
    m["t_wall_end_ns"] = t0 + end
    m["config"]["episode"]["name"] = name
    m["config"].setdefault("output", {})["compression"] = "zstd" if compress else "none"
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(m, f, indent=1)
    return out


if __name__ == "__main__":
    a = sys.argv[1:]
    plain = "--plain" in a
    a = [x for x in a if x != "--plain"]
    iops = os.environ.get("IOPSAMPLE", "iopsample")
    print(stretch(iops, a[0], a[1], a[2], float(a[3]), not plain))
