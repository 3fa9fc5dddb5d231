#!/usr/bin/env bash
# Build benchmarks/ns2/static_route.cc into a module that the packaged ns-2.35
# (Debian's ns2) loads at run time, so that ns-2 can run the static 802.11
# chains tcplab runs with `routing = "static"` (docs/validation.md, "The
# same static chains in ns-2.35").
#
#   benchmarks/ns2/build_static_route.sh [OUT.so]     # default: build/ns2/libstaticroute.so
#
# Needs ns (apt-get install ns2), g++, the Tcl and TclCL headers
# (tcl8.6-dev, tclcl-dev, libotcl1-dev) and ns-2.35's source headers: from $NS2_SRC (an
# unpacked ns-2.35 tree) or from Debian's source package (`apt-get source
# ns2`, which needs a deb-src entry; as root the script adds one for the
# system's Debian suite if none answers). As root it apt-installs what is
# missing. Exits 0 when the module is there, 1 with one line saying what is
# missing otherwise (scripts/install-peers.sh calls it and carries on).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/build/ns2/libstaticroute.so}"
src="$here/static_route.cc"
if [ -f "$out" ] && [ "$out" -nt "$src" ]; then
    exit 0
fi
fail() { echo "build_static_route: $*" >&2; exit 1; }
command -v ns >/dev/null 2>&1 || fail "ns-2 is not installed (apt-get install ns2)"
if [ -n "${NS2_SRC:-}" ] && [ ! -f "$NS2_SRC/common/agent.h" ]; then
    fail "NS2_SRC=$NS2_SRC is not an ns-2.35 tree (no common/agent.h)"
fi
as_root=0
[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && as_root=1
export DEBIAN_FRONTEND=noninteractive
need=()
command -v g++ >/dev/null 2>&1 || need+=(g++)
[ -f /usr/include/tcl8.6/tcl.h ] || need+=(tcl8.6-dev)
[ -f /usr/include/tclcl/tclcl.h ] || need+=(tclcl-dev)
# tclcl.h includes otcl.h; Debian's libtclcl1-dev does not depend on it.
[ -f /usr/include/otcl.h ] || need+=(libotcl1-dev)
if [ ${#need[@]} -gt 0 ]; then
    [ $as_root = 1 ] || fail "missing ${need[*]} (apt-get install ${need[*]})"
    apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null 2>&1; apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1; } \
        || fail "apt-get install ${need[*]} failed"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tree="${NS2_SRC:-}"
if [ -z "$tree" ]; then
    # apt-get source may fail on the Debian part of the package (a mirror
    # without it) after the upstream tarball, the part needed, came.
    fetch() { (cd "$work" && apt-get source --download-only -q ns2 >/dev/null 2>&1); ls "$work"/ns2_*.orig.tar.* >/dev/null 2>&1; }
    if ! fetch; then
        [ $as_root = 1 ] || fail "no ns-2.35 source: set NS2_SRC to an unpacked ns-2.35 tree, or enable deb-src and retry"
        if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
            # A deb-src entry for the suite the system's packages come from.
            suite="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
            [ -n "$suite" ] || fail "no ns-2.35 source and no Debian suite to fetch it from; set NS2_SRC"
            printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
                "$suite" > /etc/apt/sources.list.d/tcplab-ns2-src.sources
        fi
        apt-get update -q >/dev/null 2>&1
        fetch || fail "apt-get source ns2 failed; set NS2_SRC to an unpacked ns-2.35 tree"
    fi
    tarball="$(ls "$work"/ns2_*.orig.tar.* 2>/dev/null | head -1)"
    [ -n "$tarball" ] || fail "apt-get source ns2 gave no ns2_*.orig.tar.*"
    # Only the headers are needed.
    tar -xf "$tarball" -C "$work" --wildcards '*.h' 2>/dev/null || fail "cannot unpack $tarball"
    tree="$(ls -d "$work"/ns-2.35* 2>/dev/null | head -1)"
fi
[ -f "$tree/common/agent.h" ] || fail "$tree is not an ns-2.35 tree (no common/agent.h)"

# What ns-2.35's configure writes into autoconf.h on Linux x86-64 (the
# source package ships only autoconf.h.in); the module's classes must have
# the layout the packaged binary was built with.
gen="$work/gen"
mkdir -p "$gen"
if [ ! -f "$tree/autoconf.h" ]; then
    cat > "$gen/autoconf.h" <<'EOF'
#define _GNU_SOURCE 1
#define RANDOM_RETURN_TYPE long
#define HAVE_INT64 1
#define SIZEOF_LONG 8
#define HAVE_SOCKLEN_T 1
#define HAVE_BCOPY 1
#define HAVE_BZERO 1
#define HAVE_GETRUSAGE 1
#define HAVE_SBRK 1
#define HAVE_SNPRINTF 1
#define HAVE_STRTOLL 1
#define HAVE_STRTOQ 1
#define HAVE_FEENABLEEXCEPT 1
#define STDC_HEADERS 1
#define HAVE_STRING_H 1
#define HAVE_STRINGS_H 1
#define HAVE_ARPA_INET_H 1
#define HAVE_NETINET_IN_H 1
#define HAVE_NET_ETHERNET_H 1
#define HAVE_FENV_H 1
#ifdef __cplusplus
#define HAVE_STL 1
#ifndef CPP_NAMESPACE
#define CPP_NAMESPACE std
#endif
using namespace CPP_NAMESPACE;
#endif
EOF
fi
incs=(-I"$gen" -I"$tree")
for d in common mac mobile trace routing tools classifier queue link tcp apps mcast adc satellite wpan diffserv qs asim sctp; do
    incs+=(-I"$tree/$d")
done
mkdir -p "$(dirname "$out")"
# The flags of ns-2.35's own Makefile that reach these headers.
g++ -shared -fPIC -O2 -Wall -Wno-write-strings -Wno-deprecated-declarations \
    -DUSE_INTERP_RESULT -DTCP_DELAY_BIND_ALL -DNO_TK -DTCLCL_CLASSINSTVAR -DNDEBUG \
    -DLINUX_TCP_HEADER -DUSE_SHM -DHAVE_LIBTCLCL -DHAVE_TCLCL_H -DHAVE_LIBOTCL1_14 \
    -DHAVE_OTCL_H -DHAVE_LIBTCL8_6 -DHAVE_TCLINT_H -DHAVE_TCL_H -DHAVE_CONFIG_H \
    -DNS_DIFFUSION -DSMAC_NO_SYNC -DCPP_NAMESPACE=std -DUSE_SINGLE_ADDRESS_SPACE \
    -I/usr/include/tclcl -I/usr/include/tcl8.6 "${incs[@]}" \
    -o "$out.tmp" "$src" 2>"$work/cc.log" || { tail -5 "$work/cc.log" >&2; fail "compiling static_route.cc failed"; }
mv "$out.tmp" "$out"
