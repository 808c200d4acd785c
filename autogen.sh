#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# autogen.sh --- generate the configure script and Makefile.in files
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf --force --install --warnings=all,no-portability
echo "Now run ./configure && make"
