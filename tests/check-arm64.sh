#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-arm64.sh --- make check-arm64: cross-build for aarch64 in build-arm64/
# and run the C unit tests under qemu-aarch64 (not part of CI).
# Needs gcc-aarch64-linux-gnu qemu-user and the arm64 -dev libraries
# (./setup.sh deps-arm64). libext2fs-dev:arm64 conflicts with the amd64 one,
# so it is unpacked (dpkg -x) into build-arm64/sysroot instead.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
b=$top/build-arm64
sr=$b/sysroot
mkdir -p "$b"
if [ ! -f "$sr/usr/lib/aarch64-linux-gnu/pkgconfig/ext2fs.pc" ]; then
	(cd "$b" && apt-get download libext2fs-dev:arm64 libext2fs2:arm64 >/dev/null)
	for d in "$b"/libext2fs*arm64.deb; do dpkg -x "$d" "$sr"; done
fi
export PKG_CONFIG_LIBDIR=$sr/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/lib/aarch64-linux-gnu/pkgconfig
export PKG_CONFIG_SYSROOT_DIR=
# a copy of the tracked files: the source tree may be configured in place
mkdir -p "$b/src"
(cd "$top" && git ls-files -z | xargs -0 cp -a --parents -t "$b/src")
cd "$b/src"
[ -f configure ] || ./autogen.sh >/dev/null 2>&1
[ -f Makefile ] || ./configure -q --host=aarch64-linux-gnu \
	CPPFLAGS="-isystem $sr/usr/include" LDFLAGS="-L$sr/usr/lib/aarch64-linux-gnu -Wl,-rpath-link,$sr/usr/lib/aarch64-linux-gnu"
make -s -j2
make -s -j2 check TESTS= >/dev/null
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
export LD_LIBRARY_PATH=$sr/usr/lib/aarch64-linux-gnu:$sr/lib/aarch64-linux-gnu
pass=0 fail=0
for t in tests/unit/test-* readahead-pack/parse/test-pack-parse readahead-pack/reader/test-reader-conf trace/test-*; do
	[ -x "$t" ] && [ ! -d "$t" ] || continue
	for pg in 4096 16384 65536; do
		if timeout 60 qemu-aarch64 -L /usr/aarch64-linux-gnu -p $pg "$t" >"$t.qemu-$pg.log" 2>&1; then
			pass=$((pass + 1)); echo "ok   $t (pages $pg)"
		else
			fail=$((fail + 1)); echo "FAIL $t (pages $pg)"
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
