#!/usr/bin/env bash
# Peer simulators and tools the cross-checks use: ns-2.35 (Debian package
# ns2), the scene files of its test suites (ns2-examples), ns-3's library
# (libns3-dev, with g++ and pkg-config to build against it) and tshark (to
# check that our pcap files decode). Optional: tests that need them are skipped when they are missing, so
# this script never fails the build; it only installs when it can (root and
# apt-get present) and the tool is not there yet.
set -u
# ns-2.35's static routing for wireless nodes (benchmarks/ns2/static_route.cc,
# which ns loads at run time): built once ns is there; the static-chain
# cross-checks are skipped without it.
static_route() {
    if command -v ns >/dev/null 2>&1; then
        bash "$(dirname "$0")/../benchmarks/ns2/build_static_route.sh" \
            || echo "install-peers: the ns-2 static-routing module was not built; the static-chain cross-checks will be skipped" >&2
    fi
}
need=()
command -v ns >/dev/null 2>&1 || need+=(ns2)
command -v tshark >/dev/null 2>&1 || need+=(tshark)
# ns-2's test suites' scene files (validation/wireless_lan_ns2.py).
[ -d /usr/share/doc/ns2/examples/tcl/mobility/scene ] || need+=(ns2-examples)
# ns-3's FQ-CoDel and CoDel (validation/fq_codel_ns3.py builds a small
# program against them; ns-2.35 has neither).
[ -f /usr/include/ns3/fq-codel-queue-disc.h ] || need+=(libns3-dev)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
if [ ${#need[@]} -eq 0 ]; then
    static_route
    exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-peers: cannot install ${need[*]} (needs root and apt-get); the cross-checks that need them will be skipped" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1; then
    apt-get update -q >/dev/null 2>&1 || true
    apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 \
        || echo "install-peers: apt-get install ${need[*]} failed; the cross-checks that need them will be skipped" >&2
fi
static_route
exit 0
