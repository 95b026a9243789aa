"""Summaries of one run: per-framework statistics, pairwise ratios, targets, tables.

Example:
    >>> from bench.timing import Timing
    >>> pair_ratio(Timing([2.0, 4.0]), Timing([1.0, 2.0]))
    (2.0, 2.0, 2.0)
"""

from __future__ import annotations

import statistics
from typing import Any

from bench.timing import Timing
from bench.workloads import JAX, MINTAPE, NUMPY, TL, TL_0D, TL_0D_COMPILED, TL_COMPILED, TL_UNFUSED, TORCH, Workload

#: how the tables name a framework where its key alone would leave a reader guessing
LABELS = {TL: "torchlight eager", TL_0D: "torchlight 0-d eager"}


def label(name: str) -> str:
    """The name a table shows: eager torchlight says it is eager, beside the compiled rows."""
    return LABELS.get(name, name)


def pair_label(pair: str) -> str:
    """`"torchlight/pytorch"` as the tables show it (no framework name holds a slash)."""
    return "/".join(label(n) for n in pair.split("/"))


def pair_ratio(a: Timing, b: Timing) -> tuple[float, float, float] | None:
    """(median, min, max) of a/b computed round by round (same-round pairs)."""
    if a.error or b.error or not a.seconds or not b.seconds:
        return None
    ratios = [x / y for x, y in zip(a.seconds, b.seconds)]
    return statistics.median(ratios), min(ratios), max(ratios)


def summarize(w: Workload, timings: dict[str, Timing], errors: dict[str, float],
              memory: dict[str, int], recording: dict[str, float] | None = None,
              apart: dict[str, Timing] | None = None) -> dict[str, Any]:
    """Everything reported about one workload, as plain data (the --json form).

    `recording`: seconds of a compiled peer's first run (its recording, paid
    once per process), kept apart from its timed runs, which are replays.
    `apart`: the round-robin of `w.apart`'s peers and their ratios' partners,
    timed after the others; a ratio naming one of those peers is taken there.
    """
    rows = {}
    for name, t in timings.items():
        row: dict[str, Any] = {"grad_error": errors.get(name)}
        if t.error:
            row["error"] = t.error
        else:
            vals = [s * w.per_run for s in t.seconds]
            row.update(median=statistics.median(vals), min=min(vals), max=max(vals), samples=vals)
        if name in memory:
            row["peak_extra_mb"] = memory[name] / 1e6
        if recording and name in recording:
            row["recording_ms"] = recording[name] * 1e3
        rows[name] = row
    ratios = {}
    for num, den in w.ratios:
        pool = apart if apart and (num in w.apart or den in w.apart) else timings
        if num in pool and den in pool:
            r = pair_ratio(pool[num], pool[den])
            ratios[f"{num}/{den}"] = None if r is None else dict(zip(("median", "min", "max"), r))
    targets = []
    for tg in w.targets:
        if tg.memory:
            have = memory.get(tg.numerator), memory.get(tg.denominator)
            value = have[0] / have[1] if all(have) else None
        else:
            r = ratios.get(f"{tg.numerator}/{tg.denominator}")
            value = None if r is None else r["median"]
        targets.append({"what": ("peak memory " if tg.memory else "time ") + f"{tg.numerator}/{tg.denominator}",
                        "pair": f"{tg.numerator}/{tg.denominator}", "memory": tg.memory,
                        "limit": tg.limit, "value": value, "met": value is not None and value <= tg.limit})
    return {"key": w.key, "title": w.title, "unit": w.unit, "frameworks": rows, "ratios": ratios,
            "targets": targets}


def _num(v: float) -> str:
    return f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"


def framework_lines(s: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    """(framework, median, min-max, memory, grad error) per framework."""
    out = []
    for name, r in s["frameworks"].items():
        med = r["error"] if "error" in r else _num(r["median"])
        span = "" if "error" in r else f"{_num(r['min'])}-{_num(r['max'])}"
        mem = f"{r['peak_extra_mb']:.1f} MB" if "peak_extra_mb" in r else ""
        err = "" if r["grad_error"] is None else f"{r['grad_error']:.1e}"
        out.append((label(name), med, span, mem, err))
    return out


def recording_text(s: dict[str, Any]) -> list[str]:
    """One line per compiled peer: what its recording cost, apart from the replays timed."""
    return [f"{label(name)}: recording {r['recording_ms']:.0f} ms (its first runs, paid once per process: "
            "forward and backward traced, then replayed until its small-array kernels are made, where it has any)"
            for name, r in s["frameworks"].items() if "recording_ms" in r]


def ratio_text(s: dict[str, Any]) -> list[str]:
    out = []
    for pair, r in s["ratios"].items():
        value = "n/a" if r is None else f"{r['median']:.2f}x ({r['min']:.2f}-{r['max']:.2f})"
        out.append(f"{pair_label(pair)} = {value}")
    return out


def target_text(s: dict[str, Any]) -> list[str]:
    out = []
    for t in s["targets"]:
        value = "n/a" if t["value"] is None else f"{t['value']:.2f}x"
        what = ("peak memory " if t["memory"] else "time ") + pair_label(t["pair"])
        out.append(f"{'MET ' if t['met'] else 'MISS'} {what} = {value} (target <= {t['limit']}x)")
    return out


def text_table(s: dict[str, Any]) -> str:
    """The console form of one workload."""
    lines = [f"{s['key']}  {s['title']}  [{s['unit']}]"]
    for name, med, span, mem, err in framework_lines(s):
        lines.append(f"  {name:<27} {med:>10}  {span:<17} {mem:>10}  grad err {err or '-'}")
    lines += ["  " + t for t in recording_text(s)]
    lines += ["  " + t for t in ratio_text(s)]
    lines += ["  " + t for t in target_text(s)]
    return "\n".join(lines)


def _cell(fw: dict[str, Any], *names: str, named: bool = False) -> str:
    """Medians of `names` for one Markdown cell (named when there are several, or when `named`)."""
    parts = []
    for n in names:
        if n in fw:
            r = fw[n]
            value = r["error"] if "error" in r else _num(r["median"])
            if "recording_ms" in r:
                value += f" (recording: {r['recording_ms']:.0f} ms)"
            parts.append(f"{label(n)}: {value}" if named or len(names) > 1 or n.startswith("torchlight.")
                         else value)
    return "<br>".join(parts)


def markdown(meta: dict[str, Any], summaries: list[dict[str, Any]]) -> str:
    """docs/benchmarks.md (the site's benchmark page): one table for all workloads, then the details."""
    lines = ["# torchlight benchmark results", "",
             "Generated by `" + meta["command"] + "`; do not edit by hand.", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items() if k != "command"]
    lines += ["", "## Summary", "",
              "| workload | unit | torchlight | PyTorch | NumPy by hand | other | ratios (median of per-round ratios) "
              "| targets |", "|---|---|---|---|---|---|---|---|"]
    for s in summaries:
        fw = s["frameworks"]
        other = _cell(fw, *(n for n in fw if n not in (TORCH, NUMPY) and not n.startswith("torchlight")), named=True)
        lines.append(f"| {s['key']} | {s['unit']} | {_cell(fw, *(n for n in fw if n.startswith('torchlight')))} "
                     f"| {_cell(fw, TORCH)} | {_cell(fw, NUMPY)} | {other} "
                     f"| {'<br>'.join(ratio_text(s))} | {'<br>'.join(target_text(s))} |")
    if any(MINTAPE in s["frameworks"] for s in summaries):
        lines += ["", f"{MINTAPE}: the floor of a Python tape, not a competitor (bench/peers/minimal_tape.py): one "
                  "`__slots__` object per op, one closure on raw arrays per op in backward, nothing else. "
                  "A time target below it is out of reach of any Python tape built that way."]
    if any(n in s["frameworks"] for s in summaries for n in (TL_COMPILED, TL_0D_COMPILED)):
        lines += ["", f"{label(TL)} runs each op as it comes, building the graph; {TL_COMPILED} runs the very same "
                  "loss through `tl.compile` (bench/peers/compiled_peer.py), recorded once per process: its timed "
                  "runs are replays, and its first runs (the recording, then the replays up to its small-array "
                  "kernels, made at once with `kernels=True`) are given apart, in parentheses."]
    if any(TL_UNFUSED in s["frameworks"] for s in summaries):
        lines += ["", f"{TL_UNFUSED}: the same compiled loss recorded with fused kernels off "
                  "(torchlight/compile/fusion.py and small_kernels.py: `kernels=False`), so that the row above it "
                  "shows what the kernels gain."]
    if any(JAX in s["frameworks"] for s in summaries):
        lines += ["", f"{JAX}: `jax.jit(jax.grad(loss))` on JAX's CPU build (bench/peers/jax_peer.py), compiled "
                  "once before the rounds; the ratio of torchlight compiled to it is the distance to the best "
                  "compiler measured here."]
    lines += ["", "## Details", ""]
    for s in summaries:
        lines += [f"### {s['key']}: {s['title']}", "", "| framework | median | min-max | peak extra memory "
                  "| gradient error vs NumPy by hand |", "|---|---|---|---|---|"]
        lines += [f"| {' | '.join(row)} |" for row in framework_lines(s)]
        lines += [""] + [t + "." for t in recording_text(s)] + ([""] if recording_text(s) else [])
    return "\n".join(lines) + "\n"
