#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""page-order-trace.py --- a bootpack trace that keeps the boot's page order

    page-order-trace.py TRACE.txt BOOT.trace DEV > PAGES.trace

TRACE.txt is the raw tracefs text of a boot (mm_filemap_add_to_page_cache
events), BOOT.trace the bootpack trace imported from it (for the F lines:
inode, generation, size, mtime, path), DEV the "major:minor" of the traced
filesystem in the events (e.g. 254:0). Every page gets the time of its first
event; pages of a file become one R range only while they are contiguous
and no page of another file was first read in between, so a file read at
its head, then others, then its tail gives two ranges. Used by the layout
benchmark (relayout/BENCH.md) to measure how far a reader must run ahead
in the boot's real page order; bootpack's own import merges adjacent pages
whatever happened between them.
"""
import re
import sys

ev_re = re.compile(r"\s(\d+\.\d+): mm_filemap_add_to_page_cache: dev (\d+:\d+) ino ([0-9a-f]+) "
                   r"(?:page=\S+ )?pfn=\S+ ofs=(\d+)(?: order=(\d+))?")


def main():
    raw, boot, dev = sys.argv[1], sys.argv[2], sys.argv[3]
    header, meta, files = [], [], {}
    for line in open(boot):
        f = line.split()
        if not f:
            continue
        if f[0] == "F":
            files[int(f[1])] = line.rstrip("\n")
        elif f[0] == "M":
            meta.append(line.rstrip("\n"))
        elif f[0] in ("R", "end"):
            continue
        else:
            header.append(line.rstrip("\n"))
    first = {}   # (ino, page) -> (time_ns, seq)
    seq = 0
    for line in open(raw):
        m = ev_re.search(line)
        if not m or m.group(2) != dev:
            continue
        t = int(round(float(m.group(1)) * 1e9))
        ino = int(m.group(3), 16)
        if ino not in files:
            continue
        pg = int(m.group(4)) // 4096
        for p in range(pg, pg + (1 << int(m.group(5) or 0))):
            if (ino, p) not in first:
                first[(ino, p)] = (t, seq)
                seq += 1
    # run: consecutive first reads of one file (no other file in between)
    order = sorted(first.items(), key=lambda kv: kv[1][1])
    run, last_ino, r = {}, None, 0
    for (ino, p), _ in order:
        if ino != last_ino:
            r += 1
            last_ino = ino
        run[(ino, p)] = r
    t0 = min((v[0] for v in first.values()), default=0)
    per = {}
    for (ino, p), (t, _) in first.items():
        per.setdefault(ino, []).append((p, t - t0, run[(ino, p)]))
    out, nrec = [], len(meta)
    for ino in sorted(per, key=lambda i: min(x[1] for x in per[i])):
        f = files[ino].split()
        size = int(f[3])
        pages = sorted(per[ino])
        ranges = []
        for p, t, rn in pages:
            if p * 4096 >= size:
                continue
            if ranges and ranges[-1][1] == p and ranges[-1][3] == rn:
                ranges[-1][1] = p + 1
                ranges[-1][2] = min(ranges[-1][2], t)
            else:
                ranges.append([p, p + 1, t, rn])
        if not ranges:
            continue
        out.append(files[ino])
        nrec += 1
        for a, b, t, _ in ranges:
            out.append("R %d %d %d -" % (a * 4096, min(b * 4096, size) - a * 4096, t))
            nrec += 1
    print("\n".join(header + meta + out))
    print("end %d" % nrec)


if __name__ == "__main__":
    main()
