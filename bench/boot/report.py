#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""report.py --- figures of one bench boot, and the tables of a run.

  report.py boot DIR          DIR/results.log (+ disk.log, boot.env) -> JSON on stdout
  report.py show BOOT.json    one line per boot
  report.py table RUNDIR      RUNDIR/*/*/boot-N/boot.json -> RUNDIR/results.md, .json
  report.py text-trace RESULTS.log   the guest's text trace, for bootpack trace --import
  report.py lists BOOT.trace OUT     the readers' list from a bootpack trace
  report.py medians RUNDIR   MODEL STRATEGY BOOTDIR: each strategy's median valid boot
  report.py probe DIR MODEL...       DIR/MODEL/probe.json (bootpack probe in the guest)
                                     -> DIR/probe.md, DIR/probe.json: named as emulated?

Sources of each figure (see README.md):
  done_ms, psi, diskstats    the guest's monitor (bench-monitor.c), CLOCK_BOOTTIME
  requests, bytes, seeks,    the guest's own block trace (block_rq_issue /
    per-process attribution  block_rq_complete on the boot disk), reads issued
                             before done
  busy_s                     the delay filter's log (what the modelled disk spent
                             serving requests): union of [start, start+service]
                             of requests that started before done
"""
import bisect
import collections
import json
import os
import re
import statistics
import sys

SEQ_RATE = {  # bytes/s, outer diameter (disk/diskmodel.c)
    "eee-flash": 25e6,
    "hdd-5k160": 45e6,
    "sata-ssd": 560e6,
    "pi4-sd": 43e6,
    "pi4-sd-slow": 43e6,
    "usb2-stick": 35e6,
    "emmc": 180e6,
    "hdd-smr": 120e6,
    "cloud-gp3": 131.072e6,
    "cloud-cold": 131.072e6,
}
# The rest of each model (disk/diskmodel.c) that one sequential stream still
# pays: ms per command, bytes per command at most, and for a volume restored
# from a snapshot the chunk fetched on first touch and its ms.
STREAM = {  # cmd_ms, max_request, chunk, fetch_ms
    "eee-flash": (0.5, 128 << 10, 0, 0.0),
    "hdd-5k160": (0.3, 512 << 10, 0, 0.0),
    "sata-ssd": (0.077, 512 << 10, 0, 0.0),
    "pi4-sd": (0.34, 512 << 10, 0, 0.0),
    "pi4-sd-slow": (2.4, 512 << 10, 0, 0.0),
    "usb2-stick": (0.68, 120 << 10, 0, 0.0),
    "emmc": (0.227, 512 << 10, 0, 0.0),
    "hdd-smr": (0.3, 512 << 10, 0, 0.0),
    "cloud-gp3": (1.0, 256 << 10, 0, 0.0),
    "cloud-cold": (1.0, 256 << 10, 512 << 10, 20.0),
}


def t_stream(model, nbytes):
    """The model's time for nbytes in one sequential stream of its largest commands:
    transfer, a command's cost each, a fetch per chunk (unscaled seconds)."""
    if model not in SEQ_RATE or model not in STREAM or not nbytes:
        return None
    cmd_ms, maxreq, chunk, fetch_ms = STREAM[model]
    t = nbytes / SEQ_RATE[model] + -(-nbytes // maxreq) * cmd_ms / 1e3
    if chunk:
        t += -(-nbytes // chunk) * fetch_ms / 1e3
    return t

# comm of the readers in the block trace (comm is cut to 15 characters)
READER_COMMS = ("bootpack-read", "sreadahead-styl", "ureadahead-styl", "sreadahead-style",
                "ureadahead-style", "iou-wrk")   # iou-wrk-PID: the reader's io_uring workers

RQ_ISSUE = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[\d+\]\s+\S+\s+(?P<ts>\d+\.\d+):\s+"
                      r"block_rq_issue:\s+(?P<maj>\d+),(?P<min>\d+)\s+(?P<rwbs>\S+)\s+(?P<bytes>\d+)\s+\((?P<cmd>[^)]*)\)\s+"
                      r"(?P<sector>\d+)\s+\+\s+(?P<nr>\d+)\s+\[(?P<comm>.*)\]")
RQ_INSERT = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[\d+\]\s+\S+\s+(?P<ts>\d+\.\d+):\s+"
                       r"block_rq_insert:\s+(?P<maj>\d+),(?P<min>\d+)\s+(?P<rwbs>\S+)\s+(?P<bytes>\d+)\s+\((?P<cmd>[^)]*)\)\s+"
                       r"(?P<sector>\d+)\s+\+\s+(?P<nr>\d+)\s+\[(?P<comm>.*)\]")
RQ_COMPLETE = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[\d+\]\s+\S+\s+(?P<ts>\d+\.\d+):\s+"
                         r"block_rq_complete:\s+(?P<maj>\d+),(?P<min>\d+)\s+(?P<rwbs>\S+)\s+\((?P<cmd>[^)]*)\)\s+"
                         r"(?P<sector>\d+)\s+\+\s+(?P<nr>\d+)")


def sections(path):
    """{name: [lines]} between '=== BENCH-BEGIN name' and '=== BENCH-END name'."""
    out, cur = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.startswith("=== BENCH-BEGIN "):
                cur = line[16:].strip()
                out[cur] = []
            elif line.startswith("=== BENCH-END "):
                cur = None
            elif cur is not None:
                out[cur].append(line)
    return out


def kv(lines):
    d = {}
    for line in lines:
        if "=" in line:
            k, v = line.split("=", 1)
            d[k.strip()] = v.strip()
    return d


def union_len(iv):
    total, end = 0.0, None
    for s, e in sorted(iv):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def block_trace(lines, done_s, done_count=None):
    """Reads on the boot disk from the guest's block trace. Before done = the
    first done_count reads (the monitor's diskstats read count at done): the
    trace clock (sched_clock) drifts from CLOCK_BOOTTIME under TCG by up to a
    second, so a time cut misplaces the reads near done; the count does not."""
    issues = []
    devs = {}
    inserted = {}   # (dev, sector) -> comm of the task that queued it
    for line in lines:
        m = RQ_INSERT.match(line)
        if m:
            inserted[((int(m["maj"]), int(m["min"])), int(m["sector"]))] = m["comm"]
            continue
        m = RQ_ISSUE.match(line)
        if m:
            # a request dispatched by kblockd (kworker/N:NH) was queued by
            # someone else: block_rq_insert names who (when traced)
            comm = m["comm"]
            key = ((int(m["maj"]), int(m["min"])), int(m["sector"]))
            if comm.startswith("kworker") and key in inserted:
                comm = inserted[key]
            dev = (int(m["maj"]), int(m["min"]))
            devs[dev] = devs.get(dev, 0) + 1
            issues.append((float(m["ts"]), dev, m["rwbs"], int(m["sector"]), int(m["nr"]),
                           comm))
    if not issues:
        return {}
    # the boot disk: the device with most requests whose minor is 0 (vda)
    disk = max(devs, key=lambda d: (d[1] == 0, devs[d]))
    reads = [i for i in issues if i[1] == disk and "R" in i[2] and i[4] > 0]
    if done_count is not None and done_s is not None:
        before = reads[:done_count]
    else:
        before = [i for i in reads if done_s is None or i[0] <= done_s]
    per = {}
    seeks, prev_end, dist = 0, None, 0
    for ts, dev, rwbs, sector, nr, comm in before:
        name = re.sub(r"[/:]\d+.*$", "", comm) if comm.startswith("kworker") else \
            "iou-wrk" if comm.startswith("iou-wrk-") else comm
        p = per.setdefault(name, {"requests": 0, "bytes": 0})
        p["requests"] += 1
        p["bytes"] += nr * 512
        if prev_end is not None and sector != prev_end:
            seeks += 1
            dist += abs(sector - prev_end)
        prev_end = sector + nr
    rd = [i[0] for i in reads if i[5] in READER_COMMS or i[5].startswith("iou-wrk-")]
    sizes, rsizes = {}, {}
    for i in before:
        b = i[4] * 512
        k = "<=4K" if b <= 4096 else "<=64K" if b <= 65536 else "<1M" if b < 1 << 20 else ">=1M"
        sizes[k] = sizes.get(k, 0) + 1
        if i[5] in READER_COMMS or i[5].startswith("iou-wrk-"):
            rsizes[k] = rsizes.get(k, 0) + 1
    return {
        "disk": "%d:%d" % disk,
        "requests": len(before),
        "bytes": sum(i[4] * 512 for i in before),
        "seeks": seeks,
        "seek_sectors": dist,
        "first_read_s": reads[0][0] if reads else None,
        "last_read_s": before[-1][0] if before else None,
        "requests_after_done": len(reads) - len(before),
        "reads_issued": [(i[0], i[3], i[4]) for i in reads[:40]],
        "reader_first_s": rd[0] if rd else None,
        "reader_last_s": rd[-1] if rd else None,
        "sizes": sizes,
        "reader_sizes": rsizes,
        "by_process": dict(sorted(per.items(), key=lambda kv: -kv[1]["requests"])),
        "_before": before,
    }


def load_kinds(path):
    """IMAGE.kinds (bp-blockkind): sorted runs (start_byte, end_byte, kind)."""
    runs, bs = [], 4096
    if not path or not os.path.exists(path):
        return None
    with open(path) as f:
        for line in f:
            p = line.split()
            if p[0] == "blocksize":
                bs = int(p[1])
            elif len(p) == 3:
                runs.append((int(p[0]) * bs, (int(p[0]) + int(p[1])) * bs, p[2]))
    return runs


def load_packed(path):
    """IMAGE.pack.json (bootpack dump --json of the image's pack): the byte
    ranges of the disk the pack reads (metadata and file entries), merged."""
    if not path or not os.path.exists(path):
        return None
    d = json.load(open(path))
    iv = [(m["offset"], m["offset"] + m["length"]) for m in d.get("meta", [])]
    iv += [(e["phys"], e["phys"] + e["length"]) for e in d.get("entries", [])]
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def uncovered(a, b, packed):
    """[a, b) minus the packed ranges: a list of pieces."""
    if not packed:
        return [(a, b)]
    i = bisect.bisect_right(packed, [a, float("inf")]) - 1
    i = max(i, 0)
    out, pos = [], a
    while i < len(packed) and packed[i][0] < b:
        s, e = packed[i]
        if e > pos:
            if s > pos:
                out.append((pos, min(s, b)))
            pos = max(pos, e)
        i += 1
    if pos < b:
        out.append((pos, b))
    return out


def kind_of(pieces, kinds):
    """The kind holding most bytes of pieces (free: not a block of any file)."""
    if not kinds:
        return "unknown"
    starts = [k[0] for k in kinds]
    tally = {}
    for a, b in pieces:
        i = max(bisect.bisect_right(starts, a) - 1, 0)
        pos = a
        while pos < b:
            if i < len(kinds) and kinds[i][0] <= pos < kinds[i][1]:
                e = min(b, kinds[i][1])
                tally[kinds[i][2]] = tally.get(kinds[i][2], 0) + e - pos
                pos = e
                i += 1
            else:
                nxt = kinds[i][0] if i < len(kinds) and kinds[i][0] > pos else b
                e = min(b, nxt)
                tally["free"] = tally.get("free", 0) + e - pos
                pos = e
                if i < len(kinds) and kinds[i][1] <= pos:
                    i += 1
    return max(tally, key=tally.get) if tally else "unknown"


def read_classes(reads, reqs, kinds, packed):
    """The boot's reads before done, each once: by the reader, by boot
    processes for packed data, and by boot processes for data the pack does
    not hold (misses), the misses by kind. Disk time from the filter's log,
    each guest request matched to the filter's by offset and length in order."""
    svc = {}
    for q in reqs:
        if q[3] in "Rr":
            svc.setdefault((q[1], q[2]), collections.deque()).append(q[4] / 1e6)
    out = {"reader": {"requests": 0, "bytes": 0, "busy_s": 0.0},
           "packed": {"requests": 0, "bytes": 0, "busy_s": 0.0},
           "misses": {"requests": 0, "bytes": 0, "busy_s": 0.0, "by_kind": {}},
           "pack_known": packed is not None, "kinds_known": kinds is not None}
    for ts, dev, rwbs, sector, nr, comm in reads:
        a, n = sector * 512, nr * 512
        dq = svc.get((a, n))
        t = dq.popleft() if dq else 0.0
        if comm in READER_COMMS or comm.startswith("iou-wrk-"):
            c = out["reader"]
        else:
            rest = uncovered(a, a + n, packed)
            if packed is not None and not rest:
                c = out["packed"]
            else:
                m = out["misses"]
                c = m["by_kind"].setdefault(kind_of(rest, kinds),
                                            {"requests": 0, "bytes": 0, "busy_s": 0.0})
                m["requests"] += 1
                m["bytes"] += n
                m["busy_s"] += t
        c["requests"] += 1
        c["bytes"] += n
        c["busy_s"] += t
    return out


def disk_log(path):
    """The delay filter's log: one line per request, 'start_us offset length type service_us'.
    nbdkit's log filter (no model) is read too: requests and bytes only."""
    reqs = []
    if not os.path.exists(path):
        return reqs
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("#"):
                continue
            p = line.split()
            if len(p) >= 5 and p[0].isdigit():
                try:
                    reqs.append((int(p[0]), int(p[1]), int(p[2]), p[3], float(p[4]),
                                 float(p[5]) if len(p) > 5 else 0.0))
                except ValueError:
                    pass
                continue
            # nbdkit log filter: "... connection=1 Read id=2 offset=0x0 count=0x200 ..."
            m = re.search(r" (Read|Write|Flush|Trim|Zero) id=\d+ offset=(0x[0-9a-f]+) count=(0x[0-9a-f]+)", line)
            if m and "return=" not in line and "..." not in line[-4:]:
                reqs.append((None, int(m[2], 16), int(m[3], 16), m[1][0], 0.0, 0.0))
    return reqs


def align(timed, issued):
    """Filter clock minus guest clock (µs), from the first guest reads found in
    the filter's log with the same offset and length; None if none match."""
    if not timed or not issued:
        return None
    offs, j = [], 0
    reads = [q for q in timed if q[3] in "Rr"]
    for ts, sector, nr in issued[:40]:
        for k in range(j, min(j + 200, len(reads))):
            q = reads[k]
            if q[1] == sector * 512 and q[2] == nr * 512:
                offs.append((q[0] - q[5]) - ts * 1e6)
                j = k + 1
                break
    return statistics.median(offs) if offs else None


def boot(d):
    sec = sections(os.path.join(d, "results.log"))
    s = kv(sec.get("summary", []))
    env = {}
    if os.path.exists(os.path.join(d, "boot.env")):
        env = kv(open(os.path.join(d, "boot.env")).read().splitlines())
    done_ms = float(s.get("done_ms", "-1"))
    done_s = done_ms / 1000 if done_ms >= 0 else None
    r = {
        "dir": d,
        "model": env.get("model"),
        "scale": float(env.get("scale", 1)),
        "init": env.get("init"),
        "done_s": done_s,
        "reached": s.get("reached") == "1",
        "psi_io_some_s": int(s.get("psi_io_some_us", 0)) / 1e6,
        "psi_io_full_s": int(s.get("psi_io_full_us", 0)) / 1e6,
        "diskstats_rd_ios": int(s.get("rd_ios", 0)),
        "diskstats_rd_bytes": int(s.get("rd_bytes", 0)),
        "diskstats_wr_bytes": int(s.get("wr_bytes", 0)),
        "io_ticks_s": int(s.get("io_ticks_ms", 0)) / 1000,
        "host_wall_s": float(env.get("host_wall_s", 0) or 0),
    }
    # the desktop variant: the session's marker time (bench-monitor --session)
    if "session_ms" in s:
        sm = float(s["session_ms"])
        r["session_s"] = sm / 1000 if sm >= 0 else None
        # the kernel's own timestamp of the marker's record, from the kernel
        # log (PRI,SEQ,USEC,FLAGS;TEXT, TEXT beginning with the marker: the
        # command line that names it is a record too)
        mark = s.get("session_mark")
        for line in sec.get("kmsg", []) if mark else []:
            h, _, msg = line.partition(";")
            if msg.startswith(mark) and len(h.split(",")) >= 3:
                r["session_s"] = int(h.split(",")[2]) / 1e6
                break
    bt = block_trace(sec.get("trace", []), done_s,
                     int(s["rd_ios"]) if s.get("rd_ios") and done_s is not None else None)
    r["trace"] = bt
    # done on the trace's clock: not before the last read that preceded it
    done_tr = max(done_s, bt["last_read_s"]) if done_s is not None and bt.get("last_read_s") else done_s
    # validity: the idle window was seen (the host ran the vCPU: at least
    # half of its ticks accounted) and no read came after done
    smp = []
    for line in sec.get("samples", []):
        p = line.split()
        if len(p) >= 3 and not line.startswith("#"):
            smp.append((float(p[0]) / 1000, int(p[2])))
    seen = None
    if done_s is not None and smp:
        w = [x for x in smp if done_s - 1e-6 <= x[0] <= done_s + int(s.get("window_ms", 2000)) / 1000 + 1e-6]
        if len(w) >= 2:
            seen = (w[-1][1] - w[0][1]) * 2 >= (w[-1][0] - w[0][0]) * 100
    r["window_seen"] = seen
    r["valid"] = bool(r["reached"] and seen and bt.get("requests_after_done", 0) == 0)
    # the desktop variant: the session came up, and done was not before it
    if "session_s" in r and (r["session_s"] is None or
                             (done_s is not None and done_s < r["session_s"])):
        r["valid"] = False
    r["requests"] = bt.get("requests")
    r["bytes"] = bt.get("bytes")
    r["seeks"] = bt.get("seeks")
    # the filter's log on the guest clock: the guest's first reads matched to
    # the filter's by (offset, length) (QEMU's own probes of sector 0 come
    # first in the filter's log), offset = median of arrival - issue
    reqs = disk_log(os.path.join(d, "disk.log"))
    img = env.get("image", "")
    r["reads"] = read_classes(bt.pop("_before", []), reqs, load_kinds(img + ".kinds"),
                              load_packed(img + ".pack.json"))
    timed = [q for q in reqs if q[0] is not None]
    off_us = align(timed, bt.get("reads_issued", []))
    if timed and off_us is not None:
        r["filter_offset_s"] = off_us / 1e6
        lim = (done_tr * 1e6 + off_us) if done_tr is not None else float("inf")
        inwin = [q for q in timed if q[0] - q[5] <= lim]
        r["busy_s"] = union_len([(q[0], q[0] + q[4]) for q in inwin]) / 1e6
        r["busy_read_s"] = union_len([(q[0], q[0] + q[4]) for q in inwin if q[3] in "Rr"]) / 1e6
        r["disk_requests"] = len(inwin)
        r["disk_read_bytes"] = sum(q[2] for q in inwin if q[3] in "Rr")
        r["busy_total_s"] = union_len([(q[0], q[0] + q[4]) for q in timed]) / 1e6
        r["disk_seeks"] = sum(1 for a, b in zip(inwin, inwin[1:]) if b[1] != a[1] + a[2])
    elif reqs:
        r["disk_requests"] = len(reqs)
        r["disk_read_bytes"] = sum(q[2] for q in reqs if q[3] in "Rr")
    c = kv(" ".join(sec.get("calib", [])).split())
    if c.get("wall_ns"):
        r["guest_calib_s"] = int(c["wall_ns"]) / 1e9
    r["reader_log"] = [l.split(";", 1)[-1] for l in sec.get("kmsg", [])
                       if re.search(r"(bootpack-read|sreadahead-style|ureadahead-style)(\[\d+\])?:", l)]
    con = os.path.join(d, "console.log")
    if os.path.exists(con):
        r["reader_log"] += [l.strip() for l in open(con, errors="replace")
                            if re.search(r"(bootpack-read|sreadahead-style|ureadahead-style)(\[\d+\])?:", l)]
    stats = kv(sec.get("trace-stats", []))
    r["trace_overrun"] = int(stats.get("overrun", "0").split()[0] or 0) if stats else None
    return r


def show(path):
    r = json.load(open(path))

    def f(x, fmt="%.2f"):
        return "-" if x is None else fmt % x
    print("%s: %sdone %s s (%s), requests %s, %s MB, seeks %s, psi-io %s s, busy %s s, calib %s s" % (
        r["dir"], "session %s s, " % f(r["session_s"]) if "session_s" in r else "",
        f(r["done_s"]), "reached" if r["reached"] else "NOT reached",
        r.get("requests"), f((r.get("bytes") or 0) / 1e6, "%.1f"), r.get("seeks"),
        f(r["psi_io_some_s"]), f(r.get("busy_s")), f(r.get("guest_calib_s"))))


def text_trace(results):
    """The guest's tracefs text (the 'trace' section), for bootpack trace --import."""
    for line in sections(results).get("trace", []):
        print(line)


def unescape(p):
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m[1], 16)), p)


def lists(trace, out):
    """Reader list from a bootpack trace: one line per traced range,
    'path<TAB>offset<TAB>length<TAB>phys<TAB>first_ns', in first-access order
    (sreadahead-style reads in this order; ureadahead-style sorts by phys)."""
    rows, path = [], None
    with open(trace) as f:
        for line in f:
            p = line.rstrip("\n").split(" ")
            if p[0] == "F":
                path = unescape(" ".join(p[5:]))
            elif p[0] == "R" and path is not None and p[4] != "-":
                rows.append((int(p[3]), path, int(p[1]), int(p[2]), int(p[4])))
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    with open(out, "w") as f:
        for first, path, off, ln, phys in rows:
            f.write("%s\t%d\t%d\t%d\t%d\n" % (path, off, ln, phys, first))
    print("%s: %d ranges, %d bytes, %d files" % (out, len(rows), sum(r[3] for r in rows),
                                                 len({r[1] for r in rows})), file=sys.stderr)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


KINDS = ("dir", "itable", "xtree", "bitmap", "sb", "journal", "xattr", "data", "free", "unknown")


def class_rows(g, scale):
    """Medians over a group's boots of the read classes (read_classes())."""
    cl = [b["reads"] for b in g if b.get("reads")]
    if not cl:
        return {}

    def m(get):
        return med([get(c) for c in cl])
    r = {
        "pack_known": all(c.get("pack_known") for c in cl),
        "reader_busy_unscaled_s": m(lambda c: c["reader"]["busy_s"] / scale),
        "packed_demand_requests": m(lambda c: c["packed"]["requests"]),
        "packed_demand_busy_unscaled_s": m(lambda c: c["packed"]["busy_s"] / scale),
        "miss_requests": m(lambda c: c["misses"]["requests"]),
        "miss_bytes": m(lambda c: c["misses"]["bytes"]),
        "miss_busy_unscaled_s": m(lambda c: c["misses"]["busy_s"] / scale),
        "miss_by_kind": {},
    }
    for k in KINDS:
        req = m(lambda c: c["misses"]["by_kind"].get(k, {}).get("requests", 0))
        busy = m(lambda c: c["misses"]["by_kind"].get(k, {}).get("busy_s", 0.0) / scale)
        if req:
            r["miss_by_kind"][k] = {"requests": req, "busy_unscaled_s": busy}
    return r


def class_table(rows, f):
    """The reads of each boot by class: the reader's, boot processes' reads of
    packed data, and misses (data the pack does not hold) by kind."""
    out = ["Reads before done by class (medians; disk time unscaled, from the filter's log): "
           "reader; boot processes reading data the pack holds; misses = boot processes reading "
           "data the pack does not hold (all of a strategy's demand reads when it has no pack), "
           "as a share of the stock boot's requests, and by kind (bp-blockkind: dir, itable = "
           "inode table, xtree = extent/indirect blocks, bitmap, sb = superblock/descriptors, "
           "journal, data = file data, free = blocks of no file now). Kind: requests / busy s.",
           "",
           "| model | strategy | reader busy s | packed demand req. (busy s) | misses req. | "
           "misses MB | misses busy s | misses / stock req. | " + " | ".join(KINDS[:-1]) + " |",
           "|---|---|---|---|---|---|---|---|" + "---|" * (len(KINDS) - 1)]
    for r in rows:
        if "miss_requests" not in r:
            continue
        share = (r["miss_requests"] / r["stock_requests"] * 100
                 if r.get("stock_requests") and r["miss_requests"] is not None else None)
        kinds = []
        for k in KINDS[:-1]:
            v = r["miss_by_kind"].get(k)
            kinds.append("%d / %.2f" % (v["requests"], v["busy_unscaled_s"] or 0) if v else "–")
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["model"], r["strategy"], f(r["reader_busy_unscaled_s"]),
            ("%s (%s)" % (f(r["packed_demand_requests"], "%d"),
                          f(r["packed_demand_busy_unscaled_s"])) if r["pack_known"] else "–"),
            f(r["miss_requests"], "%d"), f((r["miss_bytes"] or 0) / 1e6, "%.1f"),
            f(r["miss_busy_unscaled_s"]), f(share, "%.1f %%"), " | ".join(kinds)))
    out.append("")
    return out


def table(rundir):
    boots = []
    for root, dirs, files in os.walk(rundir, followlinks=True):
        dirs.sort()
        if "results.log" in files and "boot.env" in files:
            # recomputed from the raw output: the figures follow report.py
            b = boot(root)
            with open(os.path.join(root, "boot.json"), "w") as f:
                json.dump(b, f, indent=1)
            rel = os.path.relpath(root, rundir).split(os.sep)
            if len(rel) >= 3:
                b["model"], b["strategy"] = rel[0], rel[1]
                boots.append(b)
    groups = {}
    for b in boots:
        groups.setdefault((b["model"], b["strategy"]), []).append(b)
    order_s = ["stock", "sreadahead", "ureadahead", "bootpack", "bootpack-service", "bootpack-initrd"]
    models = sorted({m for m, _ in groups}, key=lambda m: list(SEQ_RATE).index(m) if m in SEQ_RATE else 9)
    rows = []
    for m in models:
        # T_phys: bytes of the valid stock boots of this model; else of every
        # model's valid stock boots (what a boot reads hardly depends on the disk)
        stock = [b for b in groups.get((m, "stock"), []) if b.get("valid")]
        if not stock:
            stock = [b for (mm, st), g in groups.items() if st == "stock" for b in g if b.get("valid")]
        b_stock = med([b.get("bytes") for b in stock])
        rate = SEQ_RATE.get(m)
        for st in sorted({s for mm, s in groups if mm == m},
                         key=lambda x: order_s.index(x) if x in order_s else 9):
            g_all = groups[(m, st)]
            g = [b for b in g_all if b.get("valid")] or g_all
            scale = g[0].get("scale", 1.0)
            t_phys = b_stock / rate * scale if b_stock and rate else None
            t_str = t_stream(m, int(b_stock)) * scale if b_stock and t_stream(m, int(b_stock)) else None
            busy = med([b.get("busy_s") for b in g])
            busy_r = med([b.get("busy_read_s") for b in g])
            demand = [sum(v["requests"] for k, v in b["trace"].get("by_process", {}).items()
                          if k not in READER_COMMS) for b in g if b.get("trace")]
            reader = [sum(v["requests"] for k, v in b["trace"].get("by_process", {}).items()
                          if k in READER_COMMS) for b in g if b.get("trace")]
            rows.append({
                "model": m, "strategy": st, "boots": len(g_all),
                "valid": sum(1 for b in g_all if b.get("valid")),
                "reached": sum(1 for b in g_all if b.get("reached")),
                "scale": scale,
                "done_s": med([b.get("done_s") for b in g]),
                "done_s_all": [b.get("done_s") for b in g_all],
                "session_s": med([b.get("session_s") for b in g]),
                "session_s_all": [b.get("session_s") for b in g_all],
                "valid_all": [bool(b.get("valid")) for b in g_all],
                "done_2008_s": (med([b.get("done_s") for b in g]) or 0) / scale if scale else None,
                "io_wait_s": med([b.get("psi_io_some_s") for b in g]),
                "busy_s": busy,
                "busy_unscaled_s": busy / scale if busy is not None and scale else None,
                "bytes": med([b.get("bytes") for b in g]),
                "requests": med([b.get("requests") for b in g]),
                "seeks": med([b.get("seeks") for b in g]),
                "demand_requests": med(demand),
                "reader_requests": med(reader),
                "t_phys_s": t_phys,
                "t_phys_unscaled_s": t_phys / scale if t_phys else None,
                "busy_over_t_phys": busy / t_phys if busy is not None and t_phys else None,
                "busy_read_s": busy_r,
                "busy_read_unscaled_s": busy_r / scale if busy_r is not None and scale else None,
                "busy_read_over_t_phys": busy_r / t_phys if busy_r is not None and t_phys else None,
                "t_stream_s": t_str,
                "t_stream_unscaled_s": t_str / scale if t_str else None,
                "busy_read_over_t_stream": busy_r / t_str if busy_r is not None and t_str else None,
                "guest_calib_s": med([b.get("guest_calib_s") for b in g]),
                "stock_requests": med([b.get("requests") for b in stock]),
            })
            rows[-1].update(class_rows(g, scale))
    out = {"rundir": rundir, "rows": rows}
    env = os.path.join(rundir, "run.env")
    if os.path.exists(env):
        out["run"] = kv(open(env).read().splitlines())
    json.dump(out, open(os.path.join(rundir, "results.json"), "w"), indent=1)

    def f(x, fmt="%.2f"):
        return "–" if x is None else fmt % x
    lines = []
    run = out.get("run", {})
    lines.append("# bench-boot results %s" % run.get("date", ""))
    lines.append("")
    if run:
        lines.append("Run: " + ", ".join("%s=%s" % (k, run[k]) for k in
                     ("models", "strategies", "boots", "scale", "calib_tcg_factor", "calib_tcg_factor_big",
                      "calib_tcg_factor_exec", "kernel", "seed", "host_loadavg_start", "host_loadavg_end", "wall_s") if k in run))
        lines.append("")
        lines.append("done-booting: guest clock (CPU < 5 %% and no disk read for 2 s), TCG; "
                     "÷ scale: the same boot at 2008 speed (CPU and disk both ÷ the TCG factor). "
                     "Disk busy and T_phys are scaled (× %s); busy unscaled = the modelled 2008 disk; "
                     "reads busy: the part of it spent reading (the boot's writes are alike in "
                     "every strategy; T_phys counts reads). T_phys = the stock boot's bytes / the model's "
                     "sequential rate; T_stream = the same bytes as one stream of the model's largest "
                     "commands (transfer, each command's cost, and on cloud-cold each 512 KiB chunk's "
                     "first-touch fetch), the floor of a disk that charges per command or per chunk. "
                     "requests/seeks/MB: the guest's block trace, reads before done; demand = by boot "
                     "processes, reader = by the readahead reader. ✗ = invalid boot, left out of the "
                     "medians: idle window not seen (the host did not run the vCPU: < half of its "
                     "ticks accounted), not reached, or a read after done." % run.get("scale", "?"))
        lines.append("")
    lines.append("| model | strategy | boots | done-booting s (median; each boot) | ÷ scale | I/O wait s | disk busy s | "
                 "busy unscaled s | reads busy unscaled s | MB read | requests | seeks | demand req. | "
                 "reader req. | T_phys s | busy/T_phys | reads busy/T_phys | T_stream s | reads busy/T_stream |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        lines.append("| %s | %s | %d%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["model"], r["strategy"], r["boots"],
            "" if r["valid"] == r["boots"] else " (%d invalid)" % (r["boots"] - r["valid"]),
            f(r["done_s"], "%.1f") + " (" + ", ".join(f(x, "%.1f") + ("" if v else "✗")
                                                     for x, v in zip(r["done_s_all"], r["valid_all"])) + ")",
            f(r["done_2008_s"]),
            f(r["io_wait_s"]), f(r["busy_s"]), f(r["busy_unscaled_s"]), f(r["busy_read_unscaled_s"]),
            f((r["bytes"] or 0) / 1e6, "%.1f"), f(r["requests"], "%d"), f(r["seeks"], "%d"),
            f(r["demand_requests"], "%d"), f(r["reader_requests"], "%d"),
            f(r["t_phys_s"]), f(r["busy_over_t_phys"]), f(r["busy_read_over_t_phys"]),
            f(r["t_stream_s"]), f(r["busy_read_over_t_stream"])))
    lines.append("")
    if any(r["session_s_all"] and any(x is not None for x in r["session_s_all"]) for r in rows):
        lines.append("Desktop session (the marker its autostart entry writes to the kernel log) "
                     "and done-booting (idle, not before the session), guest clock:")
        lines.append("")
        lines.append("| model | strategy | session s (median; each boot) | done-booting s | "
                     "after the session s |")
        lines.append("|---|---|---|---|---|")
        for r in rows:
            lines.append("| %s | %s | %s | %s | %s |" % (
                r["model"], r["strategy"],
                f(r["session_s"], "%.1f") + " (" + ", ".join(f(x, "%.1f") for x in r["session_s_all"]) + ")",
                f(r["done_s"], "%.1f"),
                f(r["done_s"] - r["session_s"], "%.1f") if r["done_s"] is not None and
                r["session_s"] is not None else "–"))
        lines.append("")
    lines += class_table(rows, f)
    md = "\n".join(lines) + "\n"
    open(os.path.join(rundir, "results.md"), "w").write(md)
    sys.stdout.write(md)


def monitor_txt(bootdir):
    """BOOTDIR/monitor.txt for diskfilter's SVG drawer (format in /work/team/bench-boot.md)."""
    sec = sections(os.path.join(bootdir, "results.log"))
    s = kv(sec.get("summary", []))
    out = ["# bootpack-monitor 1", "# t_us cpu_busy io_wait read_bytes"]
    prev = None
    for line in sec.get("samples", []):
        if line.startswith("#"):
            continue
        p = line.split()
        if len(p) < 10:
            continue
        t, busy, allt, rd_sect, psi = float(p[0]), int(p[1]), int(p[2]), int(p[4]), int(p[9])
        if prev:
            dt_us = (t - prev[0]) * 1000
            da = allt - prev[2]
            out.append("%d %.3f %.3f %d" % (t * 1000, (busy - prev[1]) / da if da else 0.0,
                                           min(1.0, (psi - prev[4]) / dt_us) if dt_us else 0.0,
                                           (rd_sect - prev[3]) * 512))
        prev = (t, busy, allt, rd_sect, psi)
    bt = block_trace(sec.get("trace", []), None)
    if bt.get("reader_first_s") is not None:
        out.append("# event %d reader-start" % (bt["reader_first_s"] * 1e6))
        out.append("# event %d reader-end" % (bt["reader_last_s"] * 1e6))
    if s.get("done_ms") and float(s["done_ms"]) >= 0:
        out.append("# event %d done-booting" % (float(s["done_ms"]) * 1000))
    open(os.path.join(bootdir, "monitor.txt"), "w").write("\n".join(out) + "\n")


def probe(pdir, models):
    """bench-boot.sh probe: the model each in-guest probe named, against the emulated one."""
    rows = []
    for m in models:
        r = {"model": m, "named": None}
        try:
            d = json.load(open(os.path.join(pdir, m, "probe.json")))["probe"]
        except (OSError, ValueError, KeyError) as e:
            r["error"] = str(e)
            rows.append(r)
            continue
        lat = d.get("latency", {})
        others = [x for x in d.get("models", []) if x["model"] != d.get("model")]
        own = [x for x in d.get("models", []) if x["model"] == m]
        r.update({
            "named": d.get("model"), "distance": d.get("distance"),
            "runner_up": others[0]["model"] if others else None,
            "runner_up_distance": others[0]["distance"] if others else None,
            "emulated_distance": own[0]["distance"] if own else None,
            "far_ms": lat.get("far", {}).get("ms"),
            "first_ms": lat.get("first", {}).get("ms"),
            "again_ms": lat.get("again", {}).get("ms"),
            "rate_mbs": d.get("rate_mbs"), "max_request": d.get("max_request"),
            "rotational": d.get("rotational"), "seconds": d.get("seconds"), "scale": d.get("scale"),
            "reader_max_request": d.get("reader", {}).get("max_request"),
        })
        rows.append(r)
    json.dump(rows, open(os.path.join(pdir, "probe.json"), "w"), indent=1)

    def f(x, fmt="%.2f"):
        return "–" if x is None else fmt % x
    out = ["# bootpack probe inside the guest (%s)" % os.path.basename(os.path.normpath(pdir)), "",
           "`bench-boot.sh probe`: /dev/vda of a TCG guest, served by nbdkit through the delay filter "
           "(the model stretched by the probe's scale, %s; `bootpack probe --scale`), probed before "
           "anything else reads it." % ", ".join(sorted({"%.2f" % r["scale"] for r in rows if r.get("scale")})), "",
           "| emulated | named | ok | distance (emulated's) | then | far ms | first / again ms | MB/s "
           "| max request KiB | rotational |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["named"] is None:
            out.append("| %s | – | ✗ | %s | | | | | | |" % (r["model"], r.get("error", "no probe output")))
            continue
        out.append("| %s | %s | %s | %s (%s) | %s %s | %s | %s / %s | %s | %s | %s |" % (
            r["model"], r["named"], "✓" if r["named"] == r["model"] else "✗",
            f(r["distance"]), f(r["emulated_distance"]), r["runner_up"] or "",
            f(r["runner_up_distance"]), f(r["far_ms"], "%.3f"), f(r["first_ms"], "%.3f"),
            f(r["again_ms"], "%.3f"), f(r["rate_mbs"], "%.1f"),
            f(r["max_request"] / 1024 if r["max_request"] else None, "%d"),
            "yes" if r["rotational"] else "no"))
    ok = sum(1 for r in rows if r["named"] == r["model"])
    out += ["", "%d of %d models named as emulated." % (ok, len(rows)), ""]
    open(os.path.join(pdir, "probe.md"), "w").write("\n".join(out))
    print("\n".join(out))


def medians(rundir):
    """For each model: the median valid boot of each strategy (by done-booting), as
    'MODEL STRATEGY BOOTDIR' lines, strategies in the table's order."""
    order_s = ["stock", "sreadahead", "ureadahead", "bootpack", "bootpack-service", "bootpack-initrd"]
    for m in sorted(os.listdir(rundir)):
        mdir = os.path.join(rundir, m)
        if not os.path.isdir(mdir):
            continue
        for st in sorted(os.listdir(mdir), key=lambda x: order_s.index(x) if x in order_s else 9):
            boots = []
            for bd in sorted(os.listdir(os.path.join(mdir, st))):
                f = os.path.join(mdir, st, bd, "boot.json")
                try:
                    b = json.load(open(f))
                except (OSError, ValueError):
                    continue
                if b.get("valid") and b.get("done_s") is not None:
                    boots.append((b["done_s"], os.path.join(mdir, st, bd)))
            if boots:
                boots.sort()
                print(m, st, boots[(len(boots) - 1) // 2][1])


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd = sys.argv[1]
    if cmd == "boot":
        json.dump(boot(sys.argv[2]), sys.stdout, indent=1)
        print()
    elif cmd == "show":
        show(sys.argv[2])
    elif cmd == "table":
        table(sys.argv[2])
    elif cmd == "monitor":
        monitor_txt(sys.argv[2])
    elif cmd == "text-trace":
        text_trace(sys.argv[2])
    elif cmd == "lists":
        lists(sys.argv[2], sys.argv[3])
    elif cmd == "medians":
        medians(sys.argv[2])
    elif cmd == "probe":
        probe(sys.argv[2], sys.argv[3:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
