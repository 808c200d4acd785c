#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-arm64.sh --- make check-arm64: cross-build for aarch64 in build-arm64/,
# run the C unit tests under qemu-aarch64 at 4, 16 and 64 KiB pages, then the
# reader's shell cases with the aarch64 bootpack-read (not part of CI).
#
#   tests/check-arm64.sh [--unit-only|--reader-only|--build-only]
#
# Installs what it lacks (as root, Debian 12 archive): gcc-aarch64-linux-gnu,
# qemu-user, pkg-config. The arm64 libraries are not installed: their debs
# (apt-get download, arm64 added to dpkg's architectures if missing) are
# unpacked into a sysroot under $BP_ARM64_CACHE (default
# $BP_CACHE_ROOT/arm64: /var/cache/bootpack/arm64 as root), which is also the root qemu-aarch64 loads
# libraries from: ld.so and libc.so.6 of one build (the cross toolchain's
# ld.so with another libc.so.6 hangs in fork()).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
b=$top/build-arm64
# the caches' place of every harness (bench/boot/env.sh): /var/cache/bootpack
# as root, else $XDG_CACHE_HOME/bootpack
# shellcheck source=bench/boot/env.sh
. "$top/bench/boot/env.sh"
cache=${BP_ARM64_CACHE:-$BP_CACHE_ROOT/arm64}
sr=$cache/sysroot
multi=aarch64-linux-gnu
debs="libc6 libgcc-s1 zlib1g zlib1g-dev libblkid1 libblkid-dev libcom-err2 comerr-dev libext2fs2
libext2fs-dev libuuid1"
do_unit=1 do_reader=1
case ${1:-} in
--unit-only) do_reader=0 ;;
--reader-only) do_unit=0 ;;
--build-only) do_unit=0 do_reader=0 ;;
esac

need_pkgs=()
command -v $multi-gcc >/dev/null || need_pkgs+=("gcc-$multi")
command -v qemu-aarch64 >/dev/null || need_pkgs+=(qemu-user)
command -v pkg-config >/dev/null || need_pkgs+=(pkg-config)
if [ ${#need_pkgs[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || { echo "check-arm64: needs ${need_pkgs[*]} (apt-get install as root)"; exit 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need_pkgs[@]}" >/dev/null
fi

# The sysroot: the arm64 debs unpacked, absolute symbolic links made relative
# (libfoo.so -> /lib/...: else the linker would follow them out of it).
if [ ! -f "$sr/.debs" ] || [ "$(cat "$sr/.debs")" != "$debs" ]; then
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		[ "$(id -u)" = 0 ] || { echo "check-arm64: dpkg --add-architecture arm64 needs root"; exit 1; }
		dpkg --add-architecture arm64
		apt-get update -q >/dev/null
	fi
	rm -rf "$sr" "$cache/debs"
	mkdir -p "$cache/debs" "$sr"
	# shellcheck disable=SC2046,SC2086
	(cd "$cache/debs" && apt-get download -q $(printf '%s:arm64 ' $debs) 2>&1 |
		grep -v '^W: Download is performed unsandboxed' || :)
	for d in "$cache"/debs/*.deb; do dpkg -x "$d" "$sr"; done
	find "$sr" -type l -lname '/*' | while read -r l; do
		t=$(readlink "$l")
		ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$sr$t")" "$l"
	done
	echo "$debs" >"$sr/.debs"
fi
[ -f "$sr/usr/lib/$multi/pkgconfig/ext2fs.pc" ] || { echo "check-arm64: no ext2fs.pc in $sr"; exit 1; }

export PKG_CONFIG_LIBDIR=$sr/usr/lib/$multi/pkgconfig:$sr/usr/share/pkgconfig
export PKG_CONFIG_SYSROOT_DIR=$sr
# A copy of the tracked files: the source tree may be configured in place.
mkdir -p "$b/src"
(cd "$top" && git ls-files -z | xargs -0 cp -a --parents -t "$b/src")
cd "$b/src"
[ -f configure ] || ./autogen.sh >/dev/null 2>&1
# -isystem: the sysroot's headers are system headers (no -Wundef noise) even
# where pkg-config names them with -I.
conf=("--host=$multi" --enable-static-reader
	CPPFLAGS="-isystem $sr/usr/include"
	LDFLAGS="-L$sr/usr/lib/$multi -L$sr/lib/$multi -Wl,-rpath-link,$sr/usr/lib/$multi:$sr/lib/$multi")
if [ ! -f Makefile ] || [ "$(cat ../configured 2>/dev/null)" != "${conf[*]}" ]; then
	./configure -q "${conf[@]}"
	make -s clean >/dev/null
	echo "${conf[*]}" >../configured
fi
make -s -j2
make -s -j2 check TESTS= >/dev/null
file bootpack bootpack-read | sed "s|$b/src/||"

export QEMU_LD_PREFIX=$sr
fail=0

if [ $do_unit = 1 ]; then
	pass=0 ufail=0
	for t in tests/unit/test-* readahead-pack/parse/test-pack-parse \
		readahead-pack/reader/test-reader-conf trace/test-* loop/test-judge; do
		[ -x "$t" ] && [ ! -d "$t" ] || continue
		for pg in 4096 16384 65536; do
			if timeout -s KILL 120 qemu-aarch64 -p $pg "$t" >"$t.qemu-$pg.log" 2>&1; then
				pass=$((pass + 1)); echo "ok   $t (pages $pg)"
			else
				ufail=$((ufail + 1)); echo "FAIL $t (pages $pg): $(tail -n 3 "$t.qemu-$pg.log")"
			fi
		done
	done
	echo "unit: $pass passed, $ufail failed"
	[ $ufail = 0 ] || fail=1
fi

if [ $do_reader = 1 ]; then
	# The reader's shell cases with READER = the aarch64 bootpack-read under
	# qemu-aarch64 (4 KiB pages: the host's page cache has 4 KiB pages), the
	# rest (bootpack, the helpers, the oracles) native from a native build.
	[ -x "$top/bootpack" ] && [ -x "$top/tests/ts/reader/bp-mincore" ] ||
		{ echo "check-arm64: the reader's cases need a native build (make && make check TESTS=)"; exit 1; }
	cat >"$b/bootpack-read-qemu" <<-EOF
		#!/bin/sh
		exec qemu-aarch64 -p 4096 "$b/src/bootpack-read" "\$@"
	EOF
	chmod +x "$b/bootpack-read-qemu"
	# Not here: the cases that run the reader's binary by other means than
	# $READER (valgrind; readelf and a copy of it on a fixture; ldd and a
	# copy in a bare chroot; the tests' own static build), and those about
	# the io_uring method's requests: qemu-user 7.2 has no io_uring (ENOSYS;
	# the reader says so and reads with pread, as on a kernel without it).
	skip="valgrind-clean prefetch-self static-entry pid1-bare-init-meta pid1-trace-boot
		in-flight-window requests-whole max-request-from-probe"
	cases=()
	for c in "$top"/tests/ts/reader/*.sh; do
		n=$(basename "$c" .sh)
		[ "$n" != reader-lib ] || continue
		case " ${skip//[$'\t\n']/ } " in *" $n "*) echo "not run under qemu-user: reader/$n" ;; *) cases+=("reader/$n") ;; esac
	done
	rc=0
	# qemu-user 7.2 has no openat2(2) either: the reader always takes its
	# openat(2) fallback (pid1-skips-unsafe-paths expects that verdict then).
	READER=$b/bootpack-read-qemu BP_READER_NO_OPENAT2=1 "$top/tests/run.sh" "${cases[@]}" || rc=$?
	[ $rc = 0 ] || fail=1
fi
exit $fail
