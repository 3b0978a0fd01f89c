/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* iopsample report: draws the episodes embedded in this page (the JSON in
 * #iopsample-data, written by cmd/cmd_report.c) with uPlot, inlined above.
 *
 * Nothing here knows a source: a field's picture follows from what the data
 * says of it (from the schemas): a counter is drawn as a rate per second, a
 * gauge or a value as it is, a histogram ("x-histogram") as iops-profiler's
 * two bar charts and Darshan's time x size heatmap, a field with
 * "x-compare" over the field of the other source it names, and "x-main"
 * fields (and fields the schema does not list, such as perf events) over
 * all the episodes. When everything is drawn, <body> gets data-charts (how
 * many), data-rendered and data-render-ms (since navigation began); a
 * script error lands in #errors and data-errors. */
"use strict";
(function () {
  const errors = [];
  function fail(msg) {
    errors.push(msg);
    document.body.dataset.errors = String(errors.length);
    const box = document.getElementById("errors");
    if (box) box.appendChild(el("li", {}, msg));
  }
  window.addEventListener("error", (e) => fail(String(e.message)));

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    for (const c of kids) if (c != null) e.append(c instanceof Node ? c : String(c));
    return e;
  }

  /* ---- numbers and units ---------------------------------------------- */

  const BIN = ["", "Ki", "Mi", "Gi", "Ti", "Pi"];
  function human(v, unit) {
    if (v == null || !isFinite(v)) return "–";
    const a = Math.abs(v);
    if (unit === "bytes" || unit === "bytes/s") {
      let i = 0, x = v;
      while (Math.abs(x) >= 1024 && i < BIN.length - 1) { x /= 1024; i++; }
      return (i ? x.toFixed(x < 10 ? 2 : 1) : String(Math.round(x))) + " " + BIN[i] + (unit === "bytes" ? "B" : "B/s");
    }
    let s;
    if (a >= 1e9) s = (v / 1e9).toFixed(2) + "G";
    else if (a >= 1e6) s = (v / 1e6).toFixed(2) + "M";
    else if (a >= 1e4) s = (v / 1e3).toFixed(1) + "k";
    else if (Number.isInteger(v)) s = String(v);
    else s = v.toPrecision(3);
    return unit ? s + " " + unit : s;
  }
  function seconds(ns) { return (ns / 1e9).toFixed(3) + " s"; }
  function rateUnit(unit) { return (unit || "events") + "/s"; }

  /* Edges of a log2 histogram bucket: 0 is 0, i is [2^(i-1), 2^i), 31 is
   * 2^30 and more (docs/data-model.md). */
  function bucketLow(i) { return i === 0 ? 0 : Math.pow(2, i - 1); }
  function bucketHigh(i, n) { return i === 0 ? 0 : i === n - 1 ? Infinity : Math.pow(2, i) - 1; }
  function edgeLabel(x, of) {
    if (of === "bytes") {
      let i = 0;
      while (x >= 1024 && i < 4) { x /= 1024; i++; }
      return x + " " + BIN[i] + "B";
    }
    if (of === "us") return x >= 1e6 ? x / 1e6 + " s" : x >= 1e3 ? x / 1e3 + " ms" : x + " µs";
    if (of === "ns") {
      const [div, u] = x >= 1e9 ? [1e9, "s"] : x >= 1e6 ? [1e6, "ms"] : x >= 1e3 ? [1e3, "µs"] : [1, "ns"];
      return +(x / div).toPrecision(3) + " " + u;
    }
    return String(x);
  }
  function bucketLabel(i, n, of) {
    if (i === 0) return "0";
    if (i === n - 1) return "≥" + edgeLabel(bucketLow(i), of);
    return edgeLabel(bucketLow(i), of);
  }

  /* ---- charts ----------------------------------------------------------- */

  const WIDTH = 920, HEIGHT = 180;
  const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
    "#7f7f7f", "#bcbd22", "#17becf"];
  let charts = 0;

  function figure(title, note, kind) {
    charts++;
    const f = el("figure", { class: "chart " + kind }, el("figcaption", {}, title));
    if (note) f.appendChild(el("p", { class: "note" }, note));
    return f;
  }

  /* A line chart over time: xs in seconds, series [{label, values}]; a
   * series of a thinned source also has band {lo, hi}: the lowest and
   * highest its bucket's rows drew, shaded behind its mean. */
  function lines(title, xs, series, unit, note, syncKey, xmax) {
    const f = figure(title, note, "lines");
    const extra = [], bands = [];
    series.forEach((s, i) => {
      if (!s.band) return;
      const hi = 1 + series.length + extra.length;
      extra.push({ label: s.label + " (highest)", values: s.band.hi, color: COLORS[i % COLORS.length] + "55" },
        { label: s.label + " (lowest)", values: s.band.lo, color: COLORS[i % COLORS.length] + "55" });
      bands.push({ series: [hi, hi + 1], fill: COLORS[i % COLORS.length] + "22" });
    });
    if (bands.length) f.classList.add("thinned");
    const opts = {
      bands,
      width: WIDTH, height: HEIGHT,
      cursor: syncKey ? { sync: { key: syncKey } } : {},
      scales: { x: { time: false, range: (u, lo, hi) => [0, Math.max(hi, xmax || 0)] } },
      legend: { live: true },
      axes: [{ label: "seconds since the episode's start", labelSize: 20 },
        { label: unit, size: 80, values: (u, v) => v.map((x) => human(x, unit.endsWith("bytes/s") || unit === "bytes" ? unit : "")) }],
      series: [{ label: "t (s)", value: (u, v) => (v == null ? "–" : v.toFixed(3)) }].concat(series.map((s, i) => ({
        label: s.label, stroke: COLORS[i % COLORS.length], width: 1, spanGaps: false,
        value: (u, v) => human(v, unit),
      }))).concat(extra.map((s) => ({ label: s.label, stroke: s.color, width: 0.5, spanGaps: false,
        value: (u, v) => human(v, unit) }))),
    };
    new uPlot(opts, [xs].concat(series.map((s) => s.values), extra.map((s) => s.values)), f);
    return f;
  }

  /* Bars by bucket: labels along x, series [{label, values}]. */
  function bars(title, labels, series, unit, note) {
    const f = figure(title, note, "bars");
    const xs = labels.map((_, i) => i);
    const opts = {
      width: WIDTH, height: HEIGHT,
      scales: { x: { time: false, range: [-0.5, labels.length - 0.5] }, y: { distr: 3 } },
      axes: [{ values: (u, v) => v.map((i) => (Number.isInteger(i) ? labels[i] || "" : "")), rotate: -45, size: 60 },
        { label: unit, size: 80, values: (u, v) => v.map((x) => human(x, unit === "bytes" ? "bytes" : "")) }],
      series: [{ label: "bucket", value: (u, i) => (i == null ? "–" : labels[i]) }].concat(series.map((s, i) => ({
        label: s.label, fill: COLORS[i % COLORS.length] + "99", stroke: COLORS[i % COLORS.length],
        paths: uPlot.paths.bars({ size: [0.8, 60] }), // overlaid: list the larger series first
        points: { show: false }, value: (u, v) => human(v, unit),
      }))),
    };
    // log scale: zeros are left out
    new uPlot(opts, [xs].concat(series.map((s) => s.values.map((v) => (v > 0 ? v : null)))), f);
    return f;
  }

  /* Operations per (time bin, bucket), as Darshan's heatmap: darker is
   * more, on a log scale. */
  function heatmap(title, t, cols, of, duration) {
    const f = figure(title, "darker: more operations (log scale); columns: time bins of the episode", "heatmap");
    const n = cols.length, rows = t.length;
    let lo = n, hi = -1;
    for (let b = 0; b < n; b++) for (let r = 0; r < rows; r++) if (cols[b][r] > 0) { lo = Math.min(lo, b); hi = Math.max(hi, b); break; }
    const W = WIDTH - 90, cell = 12, left = 80;
    const nb = hi < lo ? 0 : hi - lo + 1;
    const bins = Math.max(1, Math.min(W, rows));
    const canvas = el("canvas", { width: String(WIDTH), height: String(nb * cell + 30), class: "heatmap" });
    f.appendChild(canvas);
    const g = canvas.getContext("2d");
    g.font = "11px sans-serif";
    if (!nb) { g.fillText("no operations", left, 15); return f; }
    const sum = new Float64Array(bins * nb);
    const end = duration > 0 ? duration : t[rows - 1] || 1;
    for (let r = 0; r < rows; r++) {
      const bin = Math.min(bins - 1, Math.floor((t[r] / end) * bins));
      for (let b = lo; b <= hi; b++) sum[bin * nb + (b - lo)] += cols[b][r] || 0;
    }
    let max = 0;
    for (const v of sum) max = Math.max(max, v);
    const bw = W / bins;
    for (let i = 0; i < bins; i++)
      for (let b = 0; b < nb; b++) {
        const v = sum[i * nb + b];
        if (!v) continue;
        const k = Math.log1p(v) / Math.log1p(max);
        g.fillStyle = "rgb(" + Math.round(255 - 80 * k) + "," + Math.round(235 - 215 * k) + "," + Math.round(160 - 140 * k) + ")";
        g.fillRect(left + i * bw, (nb - 1 - b) * cell, Math.max(bw, 1), cell);
      }
    g.fillStyle = "#000";
    for (let b = 0; b < nb; b++) g.fillText(bucketLabel(b + lo, n, of), 2, (nb - 1 - b) * cell + 10);
    for (let k = 0; k <= 4; k++) g.fillText(seconds((end * k) / 4), left + (W * k) / 4 - (k === 4 ? 50 : 0), nb * cell + 20);
    return f;
  }

  /* ---- an episode ---------------------------------------------------------- */

  function tableOf(pairs) {
    const t = el("table", { class: "facts" });
    for (const [k, v] of pairs) t.appendChild(el("tr", {}, el("th", {}, k), el("td", {}, v)));
    return t;
  }

  function header(ep) {
    const m = ep.manifest, tg = m.target || {}, h = m.host || {};
    const sec = el("div", { class: "header" });
    if (m.status !== "complete") {
      const why = m.status === "running" ? "iopsample did not finish it (killed?): the rows stop where it was cut"
        : m.status === "killed" ? "iopsample was killed mid-episode (its keeper stopped the tree): the rows stop where it was cut"
        : m.status === "interrupted" ? "it was stopped before its target ended (" + (tg.stop_reason || "a signal") + ")"
        : "it failed: " + (tg.error || Object.values(m.sources || {}).map((s) => s.error).filter(Boolean).join("; ") || "see its manifest");
      sec.appendChild(el("p", { class: "banner" }, "This episode is " + m.status + ": " + why));
    }
    const exit = tg.signal ? "killed by " + tg.signal : tg.exit_code != null ? "exit " + tg.exit_code : "–";
    const labels = Object.entries(m.labels || {}).map(([k, v]) => k + "=" + v).join(", ") || "none";
    sec.appendChild(tableOf([
      ["status", m.status],
      ["started", m.t_wall_start_ns ? new Date(m.t_wall_start_ns / 1e6).toISOString() : "–"],
      ["duration", m.duration_ns != null ? seconds(m.duration_ns) : "–"],
      ["host", [h.hostname, h.machine, h.cpu_model, h.cpu_count && h.cpu_count + " CPUs"].filter(Boolean).join(", ")],
      ["kernel", h.kernel_release || "–"],
      ["labels", labels],
      ["target", (tg.argv || []).join(" ") + (tg.attached ? " (attached, pid " + tg.pid + ")" : "")],
      ["exit", exit + (tg.stop_reason ? " (" + tg.stop_reason + ")" : "")],
      ["iopsample", m.iopsample_version],
    ]));
    const st = el("table", { class: "sources" }, el("tr", {}, ...["source", "status", "deployable", "rows", "interval", "missed ticks", "error"].map((x) => el("th", {}, x))));
    for (const [name, s] of Object.entries(m.sources || {}))
      st.appendChild(el("tr", {}, ...[name, s.status, s.available_in_deployment ? "yes" : "no (oracle)", s.rows,
        s.interval_ns ? s.interval_ns / 1e6 + " ms" : "–", s.missed_ticks, s.error || ""].map((x) => el("td", {}, x == null ? "–" : x))));
    sec.appendChild(st);
    if ((m.warnings || []).length)
      sec.appendChild(el("div", { class: "warnings" }, el("h4", {}, "Warnings"), el("ul", {}, ...m.warnings.map((w) => el("li", {}, w)))));
    // events a source could not count (perf_event's), with why
    const nulls = [];
    for (const [name, s] of Object.entries(m.sources || {}))
      for (const e of s.events || []) if (e.counted === false) nulls.push(el("li", {}, name + "." + e.field + " (" + e.event + "): null: " + (e.reason || "not counted")));
    if (nulls.length) sec.appendChild(el("div", { class: "warnings" }, el("h4", {}, "Events that are null"), el("ul", {}, ...nulls)));
    return sec;
  }

  function xsOf(src) { return src.t.map((t) => t / 1e9); }

  /* What a field's leaf plots: a counter's rate per second, else the value. */
  function plotted(src, l) {
    const v = src.columns[l];
    if (src.leaves[l].kind !== "counter") return v;
    return v.map((x, r) => (x == null || !(src.interval[r] > 0) ? null : x / (src.interval[r] / 1e9)));
  }
  /* A thinned source's leaf: the lowest and highest its buckets' rows drew. */
  function bandOf(src, l) {
    return src.thinned ? { lo: src.lo[l], hi: src.hi[l] } : undefined;
  }
  function thinNote(src) {
    return src.thinned ? "; " + src.thinned.rows + " rows thinned to " + src.thinned.buckets + " buckets of " +
      src.thinned.per_bucket + ": each drawn as its " + "mean, the band its rows' lowest and highest" : "";
  }
  function plotUnit(src, l) {
    const leaf = src.leaves[l];
    return leaf.kind === "counter" ? rateUnit(leaf.unit) : leaf.unit || "";
  }
  function kindNote(src, l) {
    const k = src.leaves[l].kind;
    return k === "counter" ? "counter, drawn as a rate per second of each row's interval"
      : k === "gauge" ? "gauge: the level at each sample" : "a value of each row's interval";
  }

  function histogramCharts(src, f, key, duration) {
    const n = f.n, of = f.histogram.of, cols = src.columns.slice(f.first, f.first + n);
    const labels = [...Array(n).keys()].map((i) => bucketLabel(i, n, of));
    const ops = cols.map((c) => c.reduce((a, v) => a + (v || 0), 0));
    const unit = src.leaves[f.first].unit || "operations";
    const out = [bars(src.name + "." + f.name + ": " + unit + " per bucket (whole episode)", labels, [{ label: unit, values: ops }], unit)];
    if (of === "bytes")
      out.push(bars(src.name + "." + f.name + ": bytes per bucket (whole episode)", labels,
        [{ label: "at most", values: ops.map((o, i) => (isFinite(bucketHigh(i, n)) ? o * bucketHigh(i, n) : null)) },
          { label: "at least", values: ops.map((o, i) => o * bucketLow(i)) }],
        "bytes", "the rows count operations per bucket, not bytes: each bucket's bytes lie between these bounds"));
    out.push(heatmap(src.name + "." + f.name + ": " + unit + " over time × bucket", src.t, cols, of, duration));
    return out;
  }

  /* A field of several leaves that is not a histogram (by_syscall, by_device):
   * a chart per last name part (calls, bytes, ...), a series per key. */
  function groupCharts(src, f, key, xmax) {
    const groups = new Map();
    for (let l = f.first; l < f.first + f.n; l++) {
      const parts = src.leaves[l].name.split(".");
      const sub = parts.length > 2 ? parts[parts.length - 1] : "";
      const label = parts.slice(1, parts.length > 2 ? -1 : undefined).join(".");
      if (!groups.has(sub)) groups.set(sub, []);
      groups.get(sub).push({ label, l });
    }
    const xs = xsOf(src), out = [];
    for (const [sub, ls] of groups) {
      const l0 = ls[0].l;
      out.push(lines(src.name + "." + f.name + (sub ? ".*." + sub : ""), xs,
        ls.slice(0, 24).map((x) => ({ label: x.label, values: plotted(src, x.l), band: bandOf(src, x.l) })), plotUnit(src, l0),
        kindNote(src, l0) + (ls.length > 24 ? "; the first 24 of " + ls.length : "") + thinNote(src), key, xmax));
    }
    return out;
  }

  function sum(v) { return v.reduce((a, x) => a + (x || 0), 0); }

  /* The deployable and the oracle view of the same intervals, per interval,
   * with their totals and the difference. */
  function overlays(ep, key, xmax) {
    const out = [];
    for (const src of ep.sources)
      for (const f of src.fields) {
        if (!f.compare || f.n !== 1) continue;
        const other = ep.sources.find((s) => s.name === f.compare.source);
        const of = other && other.fields.find((g) => g.name === f.compare.field && g.n === 1);
        if (!of || !src.t.length || !other.t.length) continue;
        const a = src.columns[f.first], b = other.columns[of.first];
        const ta = sum(a), tb = sum(b);
        const unit = src.leaves[f.first].unit || "";
        const joined = uPlot.join([[xsOf(src), a], [xsOf(other), b]]);
        const diff = ta - tb;
        const note = "totals: " + src.name + "." + f.name + " " + human(ta, unit) + " (" + ta + "), " + other.name + "." + of.name + " " +
          human(tb, unit) + " (" + tb + "); difference " + diff + (tb ? " (" + ((100 * diff) / tb).toFixed(2) + "%)" : "") + "; per interval, not rates";
        const fig = lines(src.name + "." + f.name + " (" + (src.deployable ? "deployable" : "oracle") + ") vs " + other.name + "." + of.name +
          " (" + (other.deployable ? "deployable" : "oracle") + ")", joined[0],
          [{ label: src.name + "." + f.name, values: joined[1] }, { label: other.name + "." + of.name, values: joined[2] }], unit, note, key, xmax);
        fig.classList.add("overlay");
        fig.dataset.totals = JSON.stringify([ta, tb]);
        out.push(fig);
      }
    return out;
  }

  /* ---- the overview: where the time went ------------------------------- */

  const LABEL_COLORS = { cpu: "#1f77b4", cpu_wait: "#9467bd", disk: "#d62728", memory: "#ff7f0e",
    gpu: "#2ca02c", gpu_copy: "#17becf", network: "#8c564b", idle: "#d9d9d9" };
  function durationText(ns) {
    const s = ns / 1e9;
    if (s >= 60) return Math.floor(s / 60) + " min " + Math.round(s % 60) + " s";
    return s >= 1 ? s.toFixed(2) + " s" : (ns / 1e6).toFixed(1) + " ms";
  }

  /* The verdict of each window as a band over time, coloured by label, its
   * evidence on hover (iopsample verdict's windows, as the data has them). */
  function verdictStrip(v, duration) {
    const th = v.thinned;
    const f = figure("Verdict by window (" + durationText(v.window_ns) + " each)",
      "hover for a window's verdict and evidence; " + (th ? th.windows + " windows thinned to " + th.buckets +
        " buckets of " + th.per_bucket + ", each coloured by the label with the most time in it" : v.windows.length + " windows"), "strip");
    const W = WIDTH, H = 36, end = Math.max(duration || 0, v.windows.length ? v.windows[v.windows.length - 1].t_mono_ns : 0) || 1;
    const canvas = el("canvas", { width: String(W), height: String(H + 16), class: "verdict-strip" });
    canvas.dataset.windows = String(v.windows.length);
    canvas.dataset.verdicts = v.windows.map((w) => w.verdict).join(",");
    f.appendChild(canvas);
    const g = canvas.getContext("2d");
    for (const w of v.windows) {
      const x0 = Math.floor(((w.t_mono_ns - w.interval_ns) / end) * W), x1 = Math.ceil((w.t_mono_ns / end) * W);
      g.fillStyle = LABEL_COLORS[w.verdict] || "#000";
      g.fillRect(x0, 0, Math.max(x1 - x0, 1), H);
    }
    g.fillStyle = "#000";
    g.font = "11px sans-serif";
    for (let k = 0; k <= 4; k++) g.fillText(seconds((end * k) / 4), (W * k) / 4 - (k === 4 ? 50 : 0), H + 12);
    const tip = el("div", { class: "tip" });
    f.appendChild(tip);
    canvas.addEventListener("mousemove", (e) => {
      const t = ((e.offsetX / W) * end);
      const w = v.windows.find((x) => x.t_mono_ns - x.interval_ns <= t && t < x.t_mono_ns) || v.windows[v.windows.length - 1];
      if (!w) return;
      tip.textContent = seconds(w.t_mono_ns - w.interval_ns) + "–" + seconds(w.t_mono_ns) + ": " + w.verdict + ": " + w.evidence;
    });
    canvas.addEventListener("mouseleave", () => { tip.textContent = ""; });
    const legend = el("p", { class: "legend" });
    for (const [label, color] of Object.entries(LABEL_COLORS))
      legend.append(el("span", { class: "swatch", style: "background:" + color }), label + " ");
    f.appendChild(legend);
    return f;
  }

  /* The read and write throughput on one chart: the fields the schemas
   * mark "x-overview" (read, write), from the source whose mark ranks first. */
  function throughput(ep, key, xmax) {
    let best = null;
    for (const src of ep.sources) {
      if (!src.t.length) continue;
      const marked = src.fields.filter((f) => f.overview && f.n === 1);
      const read = marked.find((f) => f.overview.as === "read"), write = marked.find((f) => f.overview.as === "write");
      if (read && write && (!best || read.overview.rank < best.rank)) best = { rank: read.overview.rank, src, read, write };
    }
    if (!best) return null;
    const src = best.src;
    const fig = lines("Read and write throughput (" + src.name + "." + best.read.name + ", " + src.name + "." + best.write.name + ")",
      xsOf(src), [{ label: "read", values: plotted(src, best.read.first), band: bandOf(src, best.read.first) },
        { label: "write", values: plotted(src, best.write.first), band: bandOf(src, best.write.first) }],
      plotUnit(src, best.read.first), "bytes per second of each row's interval" + thinNote(src), key, xmax);
    fig.classList.add("throughput");
    fig.dataset.totals = JSON.stringify([sum(src.columns[best.read.first]), sum(src.columns[best.write.first])]);
    return fig;
  }

  /* The devices' bytes, whose and why: the tree's by cause beside the rest
   * of the device, from the source whose rows have by_cause (block_io),
   * summed over the episode; the five other comms that moved the most. */
  function deviceBytes(ep) {
    const src = ep.sources.find((s) => s.t.length && s.fields.some((f) => f.name === "by_cause"));
    if (!src) return null;
    const total = (name) => {
      const l = src.leaves.findIndex((x) => x.name === name);
      return l < 0 ? 0 : sum(src.columns[l]);
    };
    const rows = [];
    for (const leaf of src.leaves) {
      const c = /^by_cause\.(\w+)\.read_bytes$/.exec(leaf.name);
      if (c) rows.push(["the tree: " + c[1], total(leaf.name), total("by_cause." + c[1] + ".write_bytes")]);
    }
    const top = ((ep.manifest.sources[src.name] || {}).other_top || [])
      .map((o) => o.comm + " " + human(o.read_bytes + o.write_bytes, "bytes")).join(", ");
    rows.push(["other processes" + (top ? " (" + top + ")" : ""), total("other_read_bytes"), total("other_write_bytes")]);
    rows.push(["unattributed", total("unattributed_read_bytes"), total("unattributed_write_bytes")]);
    const all = [total("all_read_bytes"), total("all_write_bytes")];
    const shown = rows.filter((r) => r[1] || r[2]);
    const t = el("table", { class: "facts device-bytes" },
      el("tr", {}, el("th", {}, "the devices' bytes"), el("th", {}, "read"), el("th", {}, "written"), el("th", {}, "share")));
    for (const [who, r, w] of shown.concat([["all (" + src.name + ".all_*)", all[0], all[1]]]))
      t.appendChild(el("tr", {}, el("th", {}, who), el("td", {}, human(r, "bytes")), el("td", {}, human(w, "bytes")),
        el("td", {}, all[0] + all[1] ? ((100 * (r + w)) / (all[0] + all[1])).toFixed(1) + " %" : "–")));
    t.dataset.bytes = JSON.stringify(Object.fromEntries(rows.map(([who, r, w]) => [who.split(" (")[0], [r, w]]).concat([["all", all]])));
    return t;
  }

  function overview(ep, key, xmax) {
    const m = ep.manifest, v = ep.verdict;
    const sec = el("div", { class: "overview" }, el("h3", {}, "Where the time went"));
    if (!v || v.refusal) {
      sec.appendChild(el("p", { class: "banner" }, "No verdict: " + ((v && v.refusal) || "none was made")));
    } else {
      const t = v.totals, total = Object.values(t.ns).reduce((a, x) => a + x, 0) || 1;
      sec.appendChild(el("p", { class: "verdict" }, el("strong", {}, "Mostly " + t.verdict), ": " + t.evidence));
      sec.appendChild(verdictStrip(v, m.duration_ns));
      const rows = Object.entries(t.ns).filter(([, ns]) => ns > 0).sort((a, b) => b[1] - a[1])
        .map(([label, ns]) => [label, durationText(ns) + " (" + ((100 * ns) / total).toFixed(1) + " %), " + t.windows[label] + " windows"]);
      const u = (m.target || {}).rusage;
      if (m.duration_ns != null) rows.push(["duration", durationText(m.duration_ns)]);
      if (u) rows.push(["CPU time (wait4)", durationText(u.user_ns + u.system_ns) + ", max RSS " + human(u.max_rss_bytes, "bytes")]);
      const totals = tableOf(rows);
      totals.classList.add("totals");
      sec.appendChild(totals);
      for (const c of v.cannot_tell || [])
        sec.appendChild(el("p", { class: "note" }, "Cannot tell apart " + c.labels.join(", ") + ": " + c.why));
    }
    const tp = throughput(ep, key, xmax);
    if (tp) {
      const [r, w] = JSON.parse(tp.dataset.totals);
      sec.appendChild(el("p", {}, "Read " + human(r, "bytes") + ", written " + human(w, "bytes")));
      sec.appendChild(tp);
    }
    const dev = deviceBytes(ep);
    if (dev) sec.appendChild(dev);
    return sec;
  }

  function episodeSection(ep, idx) {
    const m = ep.manifest, key = "ep" + idx, xmax = (m.duration_ns || 0) / 1e9;
    const sec = el("section", { class: "episode", id: "episode-" + m.episode }, el("h2", {}, "Episode " + m.episode));
    sec.appendChild(overview(ep, key, xmax));
    sec.appendChild(header(ep));
    for (const src of ep.sources) src.deployable = !!(m.sources[src.name] || {}).available_in_deployment;
    const ov = overlays(ep, key, xmax);
    if (ov.length) sec.append(el("h3", {}, "Deployable vs oracle"), ...ov);
    for (const src of ep.sources) {
      const s = el("div", { class: "source" }, el("h3", {}, src.name + (src.deployable ? " (deployable)" : " (oracle)") + ": " + src.rows + " rows"));
      if (src.thinned) s.appendChild(el("p", { class: "note thinned" }, "Thinned for the page: " + src.thinned.rows + " rows drawn as " +
        src.thinned.buckets + " buckets of " + src.thinned.per_bucket + " rows, each a cell as export combines one (counters summed, drawn as a rate; gauges their highest), with the band of the lowest and highest its rows drew."));
      if (src.damage) s.appendChild(el("p", { class: "banner" }, src.damage));
      if (!src.t.length) { s.appendChild(el("p", {}, "no rows")); sec.appendChild(s); continue; }
      const xs = xsOf(src);
      for (const f of src.fields) {
        if (f.histogram) s.append(...histogramCharts(src, f, key, m.duration_ns));
        else if (f.n === 1) s.appendChild(lines(src.name + "." + f.name, xs, [{ label: f.name, values: plotted(src, f.first), band: bandOf(src, f.first) }], plotUnit(src, f.first), kindNote(src, f.first) + thinNote(src), key, xmax));
        else s.append(...groupCharts(src, f, key, xmax));
      }
      sec.appendChild(s);
    }
    return sec;
  }

  /* One chart per main field over the episodes that have it. */
  function comparison(eps) {
    const sec = el("section", { class: "compare" }, el("h2", {}, "The episodes side by side"),
      el("p", { class: "note" }, "time from each episode's start; counters as rates per second"));
    const seen = new Map();
    for (const ep of eps)
      for (const src of ep.sources)
        for (const f of src.fields) {
          if (f.n !== 1 || f.histogram || !(f.main || !f.listed) || !src.t.length) continue;
          const k = src.name + "." + f.name;
          if (!seen.has(k)) seen.set(k, []);
          seen.get(k).push({ ep, src, f });
        }
    for (const [k, list] of seen) {
      if (list.length < 2) continue;
      const joined = uPlot.join(list.map(({ src, f }) => [xsOf(src), plotted(src, f.first)]));
      sec.appendChild(lines(k, joined[0], list.map(({ ep }, i) => ({ label: ep.manifest.episode, values: joined[i + 1] })),
        plotUnit(list[0].src, list[0].f.first), kindNote(list[0].src, list[0].f.first), "compare"));
    }
    return sec;
  }

  /* A scatter of cells: x the oracle's, y the deployable's, with y = x. */
  function scatter(title, note, xs, ys, unit, attrs) {
    const f = figure(title, note, "scatter");
    for (const [k, v] of Object.entries(attrs)) f.setAttribute(k, v);
    const order = xs.map((_, i) => i).sort((a, b) => xs[a] - xs[b]);
    const x = order.map((i) => xs[i]), y = order.map((i) => ys[i]);
    const opts = {
      width: WIDTH, height: HEIGHT,
      scales: { x: { time: false } },
      legend: { live: true },
      axes: [{ label: "oracle, a cell", labelSize: 20, values: (u, v) => v.map((t) => human(t, unit)) },
        { label: "deployable, a cell", size: 80, values: (u, v) => v.map((t) => human(t, unit)) }],
      series: [{ label: "oracle", value: (u, v) => human(v, unit) },
        { label: "deployable", stroke: COLORS[0], paths: () => null, points: { show: true, size: 5, fill: COLORS[0] },
          value: (u, v) => human(v, unit) },
        { label: "y = x", stroke: COLORS[1], width: 1, points: { show: false }, value: (u, v) => human(v, unit) }],
    };
    new uPlot(opts, [x, y, x.slice()], f);
    return f;
  }

  function fixed(v, digits) { return v == null ? "–" : v.toFixed(digits); }

  /* compare's pairs over export's cells (iopsample compare), one scatter
   * each with its figures. */
  function deployableAgainstOracle(cmp) {
    const sec = el("section", { class: "pairs" }, el("h2", {}, "Deployable against oracle"),
      el("p", { class: "note" }, "each pair over export's cells of " + (cmp.grid_ns / 1e6) + " ms, as iopsample compare gives them: one point a cell, the line y = x"));
    for (const p of cmp.pairs) {
      if (!p.cells) continue;
      const note = p.cells + " cells; totals " + human(p.deployable_total, "") + " and " + human(p.oracle_total, "") +
        " (" + (p.total_diff_pct == null ? "–" : (p.total_diff_pct >= 0 ? "+" : "") + p.total_diff_pct.toFixed(2) + " %") +
        "); MAE " + human(p.mae, "") + "; r " + fixed(p.pearson_r, 4) + "; relative error p50 " + fixed(p.rel_err_p50, 3) +
        ", p95 " + fixed(p.rel_err_p95, 3) + "; within 1 %: " + fixed(p.within_1pct, 3) +
        "; best lag " + (p.best_lag_cells == null ? "–" : p.best_lag_cells + " cells, r " + fixed(p.r_at_best_lag, 4));
      sec.appendChild(scatter(p.deployable + " against " + p.oracle, note, p.o, p.d, "", { "data-cells": String(p.cells) }));
    }
    return sec;
  }

  function draw() {
    const data = JSON.parse(document.getElementById("iopsample-data").textContent);
    const root = document.getElementById("report");
    root.textContent = "";
    const names = data.episodes.map((e) => e.manifest.episode);
    root.append(el("h1", {}, "iopsample report: " + names.join(", ")),
      el("p", { class: "note" }, "written by iopsample " + data.iopsample + " from " + data.episodes.map((e) => e.dir).join(", ")),
      el("ul", { id: "errors" }));
    if (data.episodes.length > 1)
      root.appendChild(el("nav", {}, ...names.map((n) => el("a", { href: "#episode-" + n }, n + " "))));
    data.episodes.forEach((ep, i) => root.appendChild(episodeSection(ep, i)));
    if (data.compare && data.compare.pairs.some((p) => p.cells)) root.appendChild(deployableAgainstOracle(data.compare));
    if (data.episodes.length > 1) root.appendChild(comparison(data.episodes));
    document.body.dataset.charts = String(charts);
  }

  try {
    draw();
  } catch (e) {
    fail(String(e && e.stack ? e.stack : e));
  }
  document.body.dataset.rendered = "yes";
  document.body.dataset.renderMs = String(Math.round(performance.now())); // since navigation began
})();
