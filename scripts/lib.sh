# Shared helpers for the set-up scripts. Sourced, not run.

# Runs a command as root (directly when we are root, through sudo otherwise).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Installs the Debian packages given as arguments that are not installed yet.
apt_install() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "==> installing Debian packages: ${missing[*]}"
        as_root apt-get update -qq
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
}

# Makes sure cargo is on PATH (rustup's default location).
ensure_cargo() {
    if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
        export PATH="$HOME/.cargo/bin:$PATH"
    fi
    command -v cargo >/dev/null 2>&1 || { echo "cargo is required (https://rustup.rs)"; exit 1; }
}

# Build products live outside the clone so a fresh clone builds warm.
use_shared_target_dir() {
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gantry/target}"
    mkdir -p "$CARGO_TARGET_DIR"
}

# Packages every build of Gantry needs (the Tauri app links WebKitGTK).
BUILD_PACKAGES=(build-essential pkg-config libssl-dev libwebkit2gtk-4.1-dev libayatana-appindicator3-dev librsvg2-dev)
