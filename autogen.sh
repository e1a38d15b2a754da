#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Regenerate the build system: ./autogen.sh && ./configure && make
set -e
cd "$(dirname "$0")"
autoreconf -fi
