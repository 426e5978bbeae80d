#!/usr/bin/env bash
# Build gpushare's container image from this checkout, with Debian's umoci: nothing is fetched from
# an image registry. The image holds the gpushare binary and the C libraries it links (glibc's
# loader, libc, libm, libgcc_s, copied from this machine); the NVIDIA driver's libraries and tools
# come from the node at run time (the NVIDIA container runtime, or the driver root the DRA plugin
# reads under /host).
#
#   scripts/build-image.sh [--binary PATH] [--out FILE]
#
# Without --binary it builds the release binary (cargo build --release --locked). It writes an OCI
# image archive (default target/image/gpushare.oci.tar) and prints the image's reference,
# localhost/gpushare:<version>-<first 12 hex digits of the manifest's digest>: the tag follows
# from the content, so the same binary always gives the same tag and digest (every file time is
# 0, no history, a fixed creation time). Load it with
#   ctr -n k8s.io images import --base-name localhost/gpushare FILE   # containerd (a node)
#   skopeo copy oci-archive:FILE docker://REGISTRY/gpushare:TAG       # a registry
#   podman load -i FILE
# and give the reference to the manifests: gpushare manifests ... --image gpushare=REF.
#
# Needs root (umoci keeps the files' owners) and umoci (apt-get install umoci).
set -euo pipefail
cd "$(dirname "$0")/.."

binary="" out="target/image/gpushare.oci.tar"
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=${2:?--binary needs a path}; shift 2 ;;
    --out) out=${2:?--out needs a file}; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "build-image.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
command -v umoci >/dev/null || { echo "build-image.sh: needs umoci (apt-get install umoci)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "build-image.sh: run as root (umoci keeps the files' owners)" >&2; exit 2; }
if [ -z "$binary" ]; then
  cargo build --release --locked -p gpushare >&2
  binary=target/release/gpushare
fi
[ -x "$binary" ] || { echo "build-image.sh: $binary is not an executable" >&2; exit 2; }
version=$("$binary" --version | awk '{print $2}')

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
layout=$work/layout bundle=$work/bundle
umoci init --layout "$layout"
umoci new --image "$layout:build"
umoci unpack --image "$layout:build" "$bundle" >/dev/null
root=$bundle/rootfs

# The binary, and each library it links where the loader looks for it.
install -D -m 0755 "$binary" "$root/usr/bin/gpushare"
ldd "$binary" | awk '/=> \//{print $3} /^\t\/[^ ]+ \(/{print $1}' | while read -r lib; do
  real=$(readlink -f "$lib")
  install -D -m 0755 "$real" "$root$lib"
done
# Where the loader finds the driver's libraries that the runtime mounts (/usr/lib/x86_64-linux-gnu),
# a root user for the tools that ask, and the writable directories the manifests mount over.
mkdir -p "$root/usr/lib/x86_64-linux-gnu" "$root/tmp" "$root/etc" "$root/run/gpushare" \
  "$root/var/lib/gpushare" "$root/etc/cdi" "$root/etc/gpushare" "$root/host"
chmod 1777 "$root/tmp"
printf 'root:x:0:0:root:/root:/usr/bin/gpushare\n' > "$root/etc/passwd"
printf 'root:x:0:\n' > "$root/etc/group"
find "$root" -exec touch -h -d @0 {} +

umoci repack --history.created 1970-01-01T00:00:00Z --history.created_by "scripts/build-image.sh" --image "$layout:build" "$bundle" >/dev/null
umoci config --no-history --image "$layout:build" \
  --created 1970-01-01T00:00:00Z --architecture amd64 --os linux \
  --config.entrypoint /usr/bin/gpushare --config.cmd agent \
  --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --config.label "org.opencontainers.image.title=gpushare" \
  --config.label "org.opencontainers.image.version=$version"
umoci gc --layout "$layout"

# Name it by its manifest's digest, then drop the build tag.
digest=$(python3 -c 'import json,sys
idx = json.load(open(sys.argv[1]))
print(next(m["digest"] for m in idx["manifests"] if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == "build"))' "$layout/index.json")
tag="$version-${digest#sha256:}"
tag=${tag:0:$((${#version} + 13))}
umoci tag --image "$layout:build" "$tag"
umoci rm --image "$layout:build"

mkdir -p "$(dirname "$out")"
tar -C "$layout" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf "$out.part" .
mv "$out.part" "$out"
echo "build-image.sh: $out ($(du -h "$out" | cut -f1)), $digest" >&2
echo "localhost/gpushare:$tag"
