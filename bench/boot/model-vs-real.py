#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""model-vs-real.py --- does the model rank the strategies as the real boot does?

  model-vs-real.py [--markdown] RESULTS.json MODEL.json

RESULTS.json: a bench-boot result (bench/boot/results/*.json, report.py table).
MODEL.json:   `bp-strategies --json` (bench/boot/) of the same trace on the
              relaid image with its pack ("-": stdin); its "strategies" per
              model (the "bench" object of the older `bootpack bench --json`
              is read too).

Compared figure: the disk's busy time reading, unscaled (the modelled 2008
disk), the boot's writes left out: busy_read_unscaled_s of the real boot
(median of its boots) against the model's seconds. Done-booting (÷ scale) is
printed for reference, not judged: the model has no CPU.

Two strategies are ordered by the real boot only when their per-boot figures
do not overlap (every boot of one below every boot of the other; the boots
are read from the run directory the result names, RUNDIR/MODEL/STRATEGY/
boot-N/boot.json) and their medians differ by more than 1 %; when the boots
are gone, by the medians alone. The model agrees when it orders every such pair the same way
or not at all (its own figures within 1 %: it claims no such precision either; eee-flash stock
against ureadahead, 2026-12-04T1511Z: real 2.423 against 2.448 s, 1.03 % apart, model 2.368
against 2.362 s, 0.25 %).
Exit 0: agree on every model present in both; 1: a disagreement; 2: usage.
"""
import json
import os
import sys

TOL = 0.01  # medians: a difference below 1 % is a tie


def per_boot(rundir, model, strategy):
    """Reads busy (unscaled) of each valid boot, or None."""
    d = os.path.join(rundir or "", model, strategy)
    if not rundir or not os.path.isdir(d):
        return None
    out = []
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name, "boot.json")
        if not name.startswith("boot-") or not os.path.isfile(p):
            continue
        b = json.load(open(p))
        if not b.get("valid", True) or "busy_read_s" not in b:
            continue
        out.append(b["busy_read_s"] / float(b.get("scale") or 1.0))
    return out or None


def real_order(a, b, rows, boots):
    """-1: a below b in the real boot, 1: above, 0: not ordered (tie).

    Medians within 1 % are a tie even when the boots do not overlap: the
    model claims no such precision (eee-flash stock against ureadahead,
    2.422 against 2.428 s, 2026-12-04T1237Z)."""
    x, y = rows[a]["busy_read_unscaled_s"], rows[b]["busy_read_unscaled_s"]
    if abs(x - y) <= TOL * max(x, y):
        return 0
    if boots.get(a) and boots.get(b):
        if max(boots[a]) < min(boots[b]):
            return -1
        if max(boots[b]) < min(boots[a]):
            return 1
        return 0
    return -1 if x < y else 1


def ranking(vals):
    return " < ".join(k for k, _ in sorted(vals.items(), key=lambda kv: kv[1]))


def main(argv):
    md = "--markdown" in argv
    args = [a for a in argv if a != "--markdown"]
    if len(args) != 2:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    real = json.load(open(args[0]))
    model = json.load(sys.stdin if args[1] == "-" else open(args[1]))
    rundir = real.get("rundir")
    rows = {}
    for r in real["rows"]:
        if r.get("busy_read_unscaled_s") is not None:
            rows.setdefault(r["model"], {})[r["strategy"]] = r
    mods = {m["model"]: m for m in (model.get("ranking") or model["bench"])["models"]}
    names = [m for m in mods if m in rows]
    if not names:
        sys.stderr.write("model-vs-real: no disk model in both files\n")
        return 2

    ok = True
    lines, table, verdicts = [], [], []
    for name in names:
        ms = {s["strategy"]: s["seconds"] for s in mods[name]["strategies"]}
        strats = [s for s in ms if s in rows[name]]
        boots = {s: per_boot(rundir, name, s) for s in strats}
        rs = {s: rows[name][s]["busy_read_unscaled_s"] for s in strats}
        done = {s: rows[name][s].get("done_2008_s") for s in strats}
        for s in strats:
            rng = boots[s]
            table.append((name, s, ms[s], rs[s], min(rng) if rng else None,
                          max(rng) if rng else None, ms[s] / rs[s] if rs[s] else 0.0, done[s]))
        bad = []
        for i, a in enumerate(strats):
            for b in strats[i + 1:]:
                ro = real_order(a, b, rows[name], boots)
                # the model's own medians within 1 %: it does not order them either
                mo = 0 if abs(ms[a] - ms[b]) <= TOL * max(ms[a], ms[b]) else \
                    (ms[a] > ms[b]) - (ms[a] < ms[b])
                if ro and mo and mo != ro:
                    bad.append((a, b, rs[a], rs[b], ms[a], ms[b]))
        ties = [f"{a}={b}" for i, a in enumerate(strats) for b in strats[i + 1:]
                if not real_order(a, b, rows[name], boots)]
        verdicts.append((name, ranking(ms), ranking(rs),
                         ranking({s: v for s, v in done.items() if v is not None}), ties, bad))
        ok = ok and not bad

    rule = ("per-boot ranges" if any(per_boot(rundir, n, s) for n in names for s in rows[n])
            else "medians within 1 %")
    if md:
        print("| model | strategy | model s | real reads busy s (median) | real per-boot range s "
              "| model / real | real done-booting ÷ scale s |")
        print("|---|---|---|---|---|---|---|")
        for n, s, m, r, lo, hi, q, d in table:
            rng = f"{lo:.3f}–{hi:.3f}" if lo is not None else "–"
            dd = f"{d:.2f}" if d is not None else "–"
            print(f"| {n} | {s} | {m:.3f} | {r:.3f} | {rng} | {q:.2f} | {dd} |")
        print()
        print("| model | model ordering | real ordering (reads busy) | ties in the real boot "
              f"({rule}) | real ordering (done-booting) | agree |")
        print("|---|---|---|---|---|---|")
        for n, mo, ro, do, ties, bad in verdicts:
            why = "yes" if not bad else "no: " + "; ".join(
                f"{a} vs {b} (real {x:.3f} / {y:.3f} s, model {p:.3f} / {q:.3f} s)"
                for a, b, x, y, p, q in bad)
            print(f"| {n} | {mo} | {ro} | {', '.join(ties) or '–'} | {do} | {why} |")
        return 0 if ok else 1

    print(f"{'MODEL':<10} {'STRATEGY':<11} {'MODEL_S':>8} {'REAL_S':>8} {'REAL_RANGE':>15} "
          f"{'MODEL/REAL':>10} {'DONE_2008_S':>11}")
    for n, s, m, r, lo, hi, q, d in table:
        rng = f"{lo:.3f}-{hi:.3f}" if lo is not None else "-"
        dd = f"{d:.2f}" if d is not None else "-"
        print(f"{n:<10} {s:<11} {m:8.3f} {r:8.3f} {rng:>15} {q:10.2f} {dd:>11}")
    print(f"\nreal: reads busy, unscaled; a pair is ordered when {rule} do not overlap")
    for n, mo, ro, do, ties, bad in verdicts:
        print(f"\n{n}: model:          {mo}")
        print(f"{n}: real:           {ro}" + (f"   (ties: {', '.join(ties)})" if ties else ""))
        print(f"{n}: real done-boot: {do}   (not judged)")
        if not bad:
            print(f"{n}: agree")
        for a, b, x, y, p, q in bad:
            print(f"{n}: DISAGREE {a} vs {b}: real {x:.3f} vs {y:.3f} s, model {p:.3f} vs {q:.3f} s")
    print("\nagree" if ok else "\ndisagree")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
