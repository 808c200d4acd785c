#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh --- the main job on the embedded default: a generated, aged ext4
# image. Until the whole pipeline is built it shows the image's
# fragmentation report, which is what relayout will fix.
set -euo pipefail
cd "$(dirname "$0")"
out=${BP_DEMO_DIR:-demo}
mkdir -p "$out"
img=$out/aged-ext4.img
if [ ! -s "$img" ]; then
	echo "== generating the aged ext4 image $img"
	fixtures/mkfixture.sh --aged --bindir fixtures ext4 "$img"
fi
echo "== fragmentation of $img"
fixtures/bp-fragreport "$img"
