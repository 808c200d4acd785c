#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ager.py --- build an aged ext4 image of a Debian tree, deterministically.

Usage: ager.py --tree DIR --mount MNT --seed N [--rounds R] [--junk-pct P]

MNT is an empty ext4 filesystem, mounted (bench-boot.sh makes it, loop-mounts
it and cleans up). The tree is written into it the way a year of use writes a
disk, so that the files a boot reads end up scattered:

  1. install: the packages (from var/lib/dpkg/info/*.list; files of no package
     form a few "local" groups by directory) are unpacked one by one in a
     shuffled order, each file written whole, then the filesystem is synced
     (so the allocator places each package at that moment's free space);
  2. churn, between packages: junk files (lognormal sizes, 4 KiB .. 8 MiB:
     caches, logs, downloads, a user's files) are created and some earlier
     ones deleted, leaving holes that later files fill;
  3. upgrades: R rounds; in each, a third of the packages is upgraded the way
     dpkg does it, every file written to NAME.dpkg-new then renamed over
     NAME (new blocks, old ones freed), interleaved with churn;
  4. most junk is deleted at the end (some kept: a used disk holds data).

All choices come from random.Random(seed): the same seed makes the same
sequence of operations. The result holds exactly the tree (owners, modes,
times, xattrs, symlinks, hard links; checked at the end by comparing every
file) plus /var/cache/bench-junk.
"""
import argparse
import ctypes
import hashlib
import os
import random
import stat
import sys

JUNK_DIRS = ["var/cache/bench-junk/cache", "var/cache/bench-junk/log",
             "var/cache/bench-junk/home", "var/cache/bench-junk/dl"]


LIBC = ctypes.CDLL(None, use_errno=True)


def log(*a):
    print("ager:", *a, file=sys.stderr, flush=True)


class Ager:
    def __init__(self, tree, mnt, seed, junk_pct):
        self.tree = os.path.abspath(tree)
        self.mnt = os.path.abspath(mnt)
        self.rng = random.Random(seed)
        self.junk = []          # relative paths of live junk files
        self.junk_n = 0
        self.junk_bytes = 0
        self.junk_pct = junk_pct
        self.written = set()    # relative paths written so far
        self.inode_first = {}   # (dev, ino) of tree -> first rel path (hard links)
        self.mfd = os.open(self.mnt, os.O_RDONLY | os.O_DIRECTORY)
        st = os.statvfs(self.mnt)
        self.capacity = st.f_blocks * st.f_frsize
        self.stats = {"files": 0, "bytes": 0, "rewrites": 0, "junk_created": 0,
                      "junk_deleted": 0, "syncs": 0}

    # ---------- the tree ----------
    def scan(self):
        entries = {}
        for dirpath, dirnames, filenames in os.walk(self.tree):
            dirnames.sort()
            rel_dir = os.path.relpath(dirpath, self.tree)
            for name in sorted(dirnames) + sorted(filenames):
                rel = os.path.normpath(os.path.join(rel_dir, name))
                entries[rel] = os.lstat(os.path.join(self.tree, rel))
        self.entries = entries
        pkgs = {}
        info = os.path.join(self.tree, "var/lib/dpkg/info")
        owner = {}
        for f in sorted(os.listdir(info)):
            if not f.endswith(".list"):
                continue
            name = f[:-5]
            with open(os.path.join(info, f), errors="surrogateescape") as fh:
                for line in fh:
                    p = line.rstrip("\n").lstrip("/")
                    if not p or p == ".":
                        continue
                    p = os.path.normpath(p)
                    if p not in entries:
                        # usrmerge: dpkg lists /bin/ls, the tree has usr/bin/ls
                        real = os.path.join(os.path.realpath(
                            os.path.join(self.tree, os.path.dirname(p))), os.path.basename(p))
                        p = os.path.relpath(real, self.tree)
                    if p in entries and not stat.S_ISDIR(entries[p].st_mode) and p not in owner:
                        owner[p] = name
                        pkgs.setdefault(name, []).append(p)
        # usrmerge: /bin -> usr/bin; dpkg lists /bin/foo, the tree has usr/bin/foo
        for p, st in entries.items():
            if stat.S_ISDIR(st.st_mode) or p in owner:
                continue
            top = p.split("/")[0]
            group = "local-" + (top if top in ("etc", "var", "usr", "lib") else "other")
            owner[p] = group
            pkgs.setdefault(group, []).append(p)
        self.pkgs = pkgs
        self.owner = owner
        log("tree: %d entries, %d packages/groups" % (len(entries), len(pkgs)))

    # ---------- writing ----------
    def ensure_parent(self, rel):
        d = os.path.dirname(rel)
        if d and not os.path.isdir(os.path.join(self.mnt, d)):
            os.makedirs(os.path.join(self.mnt, d), exist_ok=True)

    def copy_meta(self, src, dst, st, follow=True):
        if not follow:
            os.lchown(dst, st.st_uid, st.st_gid)
            os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False)
            return
        os.chown(dst, st.st_uid, st.st_gid)
        os.chmod(dst, stat.S_IMODE(st.st_mode))
        try:
            for a in os.listxattr(src, follow_symlinks=False):
                os.setxattr(dst, a, os.getxattr(src, a, follow_symlinks=False),
                            follow_symlinks=False)
        except OSError:
            pass
        os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))

    def write_file(self, rel, upgrade=False):
        st = self.entries[rel]
        src = os.path.join(self.tree, rel)
        dst = os.path.join(self.mnt, rel)
        self.ensure_parent(rel)
        if stat.S_ISLNK(st.st_mode):
            if upgrade:
                return
            if os.path.lexists(dst):
                os.unlink(dst)
            os.symlink(os.readlink(src), dst)
            self.copy_meta(src, dst, st, follow=False)
        elif stat.S_ISREG(st.st_mode):
            key = (st.st_dev, st.st_ino)
            if st.st_nlink > 1:
                if upgrade:
                    return          # hard-linked files keep their first blocks
                first = self.inode_first.get(key)
                if first is not None:
                    os.link(os.path.join(self.mnt, first), dst)
                    self.written.add(rel)
                    return
                self.inode_first[key] = rel
            tmp = dst + ".dpkg-new" if upgrade else dst
            with open(src, "rb") as fi, open(tmp, "wb") as fo:
                while True:
                    b = fi.read(1 << 20)
                    if not b:
                        break
                    fo.write(b)
            self.copy_meta(src, tmp, st)
            if upgrade:
                os.rename(tmp, dst)
                self.stats["rewrites"] += 1
            else:
                self.stats["files"] += 1
                self.stats["bytes"] += st.st_size
        elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) or stat.S_ISFIFO(st.st_mode):
            if upgrade:
                return
            os.mknod(dst, st.st_mode, st.st_rdev)
            self.copy_meta(src, dst, st)
        elif stat.S_ISSOCK(st.st_mode):
            return
        self.written.add(rel)

    def sync(self):
        if LIBC.syncfs(self.mfd) != 0:
            raise OSError(ctypes.get_errno(), "syncfs")
        self.stats["syncs"] += 1

    # ---------- churn ----------
    def junk_size(self):
        # lognormal around 32 KiB, 4 KiB .. 8 MiB
        s = int(self.rng.lognormvariate(10.4, 1.6))
        return max(4096, min(s, 8 << 20))

    def churn(self, creates, delete_frac):
        for _ in range(creates):
            if self.used_frac() > self.junk_pct / 100.0:
                break
            size = self.junk_size()
            rel = os.path.join(self.rng.choice(JUNK_DIRS), "j%06d" % self.junk_n)
            self.junk_n += 1
            self.ensure_parent(rel)
            with open(os.path.join(self.mnt, rel), "wb") as fo:
                fo.write(self.rng.randbytes(min(size, 65536)) * (size // 65536 + 1))
                fo.truncate(size)
            self.junk.append((rel, size))
            self.junk_bytes += size
            self.stats["junk_created"] += 1
        ndel = int(len(self.junk) * delete_frac)
        for _ in range(ndel):
            i = self.rng.randrange(len(self.junk))
            rel, size = self.junk[i]
            self.junk[i] = self.junk[-1]
            self.junk.pop()
            os.unlink(os.path.join(self.mnt, rel))
            self.junk_bytes -= size
            self.stats["junk_deleted"] += 1

    def used_frac(self):
        st = os.statvfs(self.mnt)
        return 1.0 - st.f_bfree / st.f_blocks

    # ---------- phases ----------
    def install(self):
        names = sorted(self.pkgs)
        self.rng.shuffle(names)
        for i, name in enumerate(names):
            for rel in self.pkgs[name]:
                self.write_file(rel)
            self.churn(self.rng.randint(0, 24), self.rng.choice((0.0, 0.0, 0.02, 0.05)))
            self.sync()
            if i % 50 == 0:
                log("install %d/%d packages, used %.0f%%" % (i, len(names), 100 * self.used_frac()))

    def upgrade(self, rounds):
        names = sorted(self.pkgs)
        for r in range(rounds):
            pick = [n for n in names if self.rng.random() < 0.33]
            self.rng.shuffle(pick)
            for name in pick:
                for rel in self.pkgs[name]:
                    self.write_file(rel, upgrade=True)
                self.churn(self.rng.randint(0, 12), self.rng.choice((0.03, 0.08, 0.15)))
                self.sync()
            log("upgrade round %d: %d packages, used %.0f%%" % (r + 1, len(pick), 100 * self.used_frac()))

    def finish(self):
        # a used disk keeps some data: delete 70 % of the junk
        self.churn(0, 0.7)
        # directories: owner, mode, times from the tree (deepest first)
        for rel in sorted((p for p, st in self.entries.items() if stat.S_ISDIR(st.st_mode)),
                          key=lambda p: -p.count("/")):
            dst = os.path.join(self.mnt, rel)
            os.makedirs(dst, exist_ok=True)
            self.copy_meta(os.path.join(self.tree, rel), dst, self.entries[rel])
        st = os.lstat(self.tree)
        os.chown(self.mnt, st.st_uid, st.st_gid)
        os.chmod(self.mnt, stat.S_IMODE(st.st_mode))
        self.sync()

    def verify(self):
        bad = 0
        for rel, st in self.entries.items():
            dst = os.path.join(self.mnt, rel)
            if stat.S_ISSOCK(st.st_mode):
                continue
            try:
                dt = os.lstat(dst)
            except FileNotFoundError:
                log("MISSING", rel)
                bad += 1
                continue
            if stat.S_IFMT(dt.st_mode) != stat.S_IFMT(st.st_mode) or (
                    not stat.S_ISLNK(st.st_mode) and dt.st_mode != st.st_mode) or \
                    dt.st_uid != st.st_uid or dt.st_gid != st.st_gid:
                log("META", rel)
                bad += 1
            elif stat.S_ISREG(st.st_mode):
                if dt.st_size != st.st_size or sha(dst) != sha(os.path.join(self.tree, rel)):
                    log("CONTENT", rel)
                    bad += 1
            elif stat.S_ISLNK(st.st_mode):
                if os.readlink(dst) != os.readlink(os.path.join(self.tree, rel)):
                    log("LINK", rel)
                    bad += 1
        return bad


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                break
            h.update(b)
    return h.digest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", required=True)
    ap.add_argument("--mount", required=True)
    ap.add_argument("--seed", type=int, default=2008)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--junk-pct", type=float, default=88.0,
                    help="stop creating junk above this fill level (%%)")
    a = ap.parse_args()
    os.umask(0)
    ag = Ager(a.tree, a.mount, a.seed, a.junk_pct)
    ag.scan()
    ag.install()
    ag.upgrade(a.rounds)
    ag.finish()
    bad = ag.verify()
    s = ag.stats
    log("files=%d bytes=%d rewrites=%d junk_created=%d junk_deleted=%d junk_kept=%d "
        "junk_kept_bytes=%d syncs=%d used=%.1f%% verify_errors=%d" %
        (s["files"], s["bytes"], s["rewrites"], s["junk_created"], s["junk_deleted"],
         len(ag.junk), ag.junk_bytes, s["syncs"], 100 * ag.used_frac(), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
