#!/usr/bin/env bash
# The soak test: builds kringle-benchmarks in release mode and runs `soak`, the client driven
# by 64 loops through a fault-injecting proxy (Scripts/chaos_proxy.py) in front of nginx, an
# outage, and large fan-outs, on both transports. Exits non-zero on a broken promise (a late,
# missing or double settlement, an untyped error, a stalled fan-out, too many descriptors).
# Needs nginx (apt-get install -y nginx-light) and python3.
#
#   Scripts/soak.sh                   # the full form: a few minutes per transport
#   Scripts/soak.sh --short           # the short form CI runs: about a minute for both
#   Scripts/soak.sh --transport curl --seconds 120 --margin 0.25 --seed 7
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product kringle-benchmarks
exec "$(swift build -c release --show-bin-path)/kringle-benchmarks" soak "$@"
