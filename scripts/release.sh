#!/usr/bin/env bash
# Build the release binary for old glibc (2.17: RHEL 7, Ubuntu 16.04 and newer) with cargo-zigbuild,
# and check that it needs nothing newer. A static musl build cannot dlopen NVML or libcuda, so the
# release links glibc dynamically with a low baseline instead.
#
#   scripts/release.sh            # -> target/x86_64-unknown-linux-gnu/release/gpushare
#
# Needs: pip install cargo-zigbuild (brings ziglang). Set GLIBC to change the baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
glibc="${GLIBC:-2.17}"
target="x86_64-unknown-linux-gnu"

if ! command -v cargo-zigbuild >/dev/null; then
  python3 -m pip install --quiet cargo-zigbuild
fi
cargo zigbuild --release --locked -p gpushare --target "$target.$glibc"
bin="target/$target/release/gpushare"

echo "== $bin"
ls -l "$bin"
echo "== dynamic libraries (ldd)"
ldd "$bin" | sed 's/^/  /'
if ldd "$bin" | grep '=>' | grep -vqE 'lib(c|m|dl|pthread|rt|gcc_s)\.so'; then
  echo "FAIL: links a library outside glibc" >&2
  exit 1
fi
echo "== newest glibc symbol version needed (objdump -T)"
newest=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
echo "  $newest"
if [ "$(printf '%s\n' "$newest" "GLIBC_$glibc" | sort -V | tail -1)" != "GLIBC_$glibc" ]; then
  echo "FAIL: needs $newest, newer than GLIBC_$glibc" >&2
  exit 1
fi
echo "ok: runs on glibc $glibc and newer"
"$bin" --version
