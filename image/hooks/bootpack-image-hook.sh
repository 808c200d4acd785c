#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack-image-hook --- the image builders' hook: optimize the boot of each
# disk image a builder wrote, in place, with 'bootpack image'.
#
#   bootpack-image-hook [IMAGE...]
#
# With no IMAGE: every *.raw and *.img in the builder's output directory,
# $OUTPUTDIR (mkosi's post-output script) or $ARTIFACTDIR (a debos 'run'
# action with 'postprocess: true'), or the current directory.
# BOOTPACK: the bootpack binary (default: bootpack in PATH, then /usr/sbin);
# BOOTPACK_IMAGE_ARGS: more arguments for 'bootpack image' (e.g. --chunk 4M).
# A failure fails the hook, and so the build: an image is never shipped half
# optimized without anyone seeing it ('bootpack image' leaves an image it
# could not optimize as it was).
set -eu

bp=${BOOTPACK:-$(command -v bootpack || echo /usr/sbin/bootpack)}
[ -x "$bp" ] || { echo "bootpack-image-hook: no bootpack ($bp): install the bootpack package" >&2; exit 1; }
if [ $# = 0 ]; then
	dir=${OUTPUTDIR:-${ARTIFACTDIR:-.}}
	for f in "$dir"/*.raw "$dir"/*.img; do
		[ -f "$f" ] && [ ! -L "$f" ] && set -- "$@" "$f"
	done
	[ $# -gt 0 ] || { echo "bootpack-image-hook: no *.raw or *.img in $dir" >&2; exit 1; }
fi
for img in "$@"; do
	echo "bootpack-image-hook: bootpack image $img" >&2
	# shellcheck disable=SC2086
	"$bp" image ${BOOTPACK_IMAGE_ARGS:-} "$img"
done
