#!/usr/bin/env bash
# Install gpushare: the binary, shell completions and the man page.
#
#   ./install.sh [--prefix DIR | --system] [--binary PATH] [--uninstall]
#
# Default prefix: ~/.local (binary in ~/.local/bin). --system uses /usr/local and asks for sudo
# only when the directories are not writable. Without --binary, the binary is built with cargo.
# Re-running is safe: files are replaced atomically.
set -euo pipefail

prefix="${HOME}/.local"
binary=""
uninstall=0
system=0

usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
    --prefix=*) prefix="${1#*=}"; shift ;;
    --system) system=1; prefix=/usr/local; shift ;;
    --binary) binary="${2:?--binary needs a path}"; shift 2 ;;
    --binary=*) binary="${1#*=}"; shift ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "error: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done

bindir="$prefix/bin"
share="$prefix/share"
targets=(
  "$bindir/gpushare"
  "$share/bash-completion/completions/gpushare"
  "$share/zsh/site-functions/_gpushare"
  "$share/fish/vendor_completions.d/gpushare.fish"
  "$share/man/man1/gpushare.1"
)

sudo_cmd=()
need_sudo() {
  local dir="$1"
  while [ ! -d "$dir" ]; do dir="$(dirname "$dir")"; done
  [ ! -w "$dir" ]
}
if [ "$system" = 1 ] && [ "$(id -u)" != 0 ] && need_sudo "$bindir"; then
  sudo_cmd=(sudo)
fi

if [ "$uninstall" = 1 ]; then
  # The pages of the commands are ours by name (gpushare-init.1, gpushare-mig-apply.1, …).
  for f in "${targets[@]}" "$share/man/man1"/gpushare-*.1; do
    if [ -e "$f" ]; then "${sudo_cmd[@]}" rm -f "$f" && echo "removed $f"; fi
  done
  exit 0
fi

here="$(cd "$(dirname "$0")" && pwd)"
if [ -z "$binary" ]; then
  command -v cargo >/dev/null || { echo "error: cargo not found; install Rust (https://rustup.rs) or pass --binary PATH" >&2; exit 1; }
  (cd "$here" && cargo build --release --locked -p gpushare)
  binary="$here/target/release/gpushare"
fi
[ -x "$binary" ] || { echo "error: $binary is not an executable" >&2; exit 2; }

install_file() { # src dest mode
  local src="$1" dest="$2" mode="$3"
  "${sudo_cmd[@]}" mkdir -p "$(dirname "$dest")"
  "${sudo_cmd[@]}" install -m "$mode" "$src" "$dest.tmp.$$"
  "${sudo_cmd[@]}" mv -f "$dest.tmp.$$" "$dest"
  echo "installed $dest"
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$binary" completions bash > "$tmp/gpushare.bash"
"$binary" completions zsh > "$tmp/_gpushare"
"$binary" completions fish > "$tmp/gpushare.fish"
"$binary" --quiet man --dir "$tmp/man"

install_file "$binary" "${targets[0]}" 755
install_file "$tmp/gpushare.bash" "${targets[1]}" 644
install_file "$tmp/_gpushare" "${targets[2]}" 644
install_file "$tmp/gpushare.fish" "${targets[3]}" 644
for page in "$tmp/man"/*.1; do
  install_file "$page" "$share/man/man1/$(basename "$page")" 644
done

case ":$PATH:" in
  *":$bindir:"*) ;;
  *) echo "note: $bindir is not on PATH; add it to use gpushare" ;;
esac
"${targets[0]}" --version
