#!/usr/bin/env bash
# CDI generation over a driver root with many matching libraries (each with a SONAME link):
# time and peak memory of `manifests --target cdi --dev-root R` for 10,000, 30,000 and 100,000.
# Linear in the libraries: every path is resolved inside the root once, the links matched
# through a set. Needs root (the root's device nodes are made with mknod).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet -p gpushare
bin=$PWD/target/release/gpushare
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$("$bin" --sim t4x4 detect --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["driver_version"])')
for n in 10000 30000 100000; do
  root="$work/root-$n"
  mkdir -p "$root/dev" "$root/usr/lib/x86_64-linux-gnu"
  for g in 0 1 2 3; do mknod "$root/dev/nvidia$g" c 195 "$g"; done
  mknod "$root/dev/nvidiactl" c 195 255
  python3 - "$root/usr/lib/x86_64-linux-gnu" "$version" "$n" <<'PY'
import os, sys
lib, version, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    name = f"libnv{i}.so.{version}"
    open(os.path.join(lib, name), "w").close()
    os.symlink(name, os.path.join(lib, f"libnv{i}.so.1"))
PY
  /usr/bin/time -f "%e %M" -o "$work/time" "$bin" --sim t4x4 manifests --target cdi \
    --dev-root "$root" --nvidia-cdi-hook-path /bin/true >/dev/null 2>&1
  read -r secs kib <"$work/time"
  printf '%7d libraries: %6.2f s, peak %6.1f MB\n' "$n" "$secs" "$(echo "$kib / 1024" | bc -l)"
done
