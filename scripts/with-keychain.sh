#!/usr/bin/env bash
# Runs a command next to a real, unlocked OS keychain: a private D-Bus session
# with gnome-keyring's Secret Service, whose keyring lives in a fresh temporary
# folder. Used by the keychain tests (they re-run themselves through it) and by
# CI; it never touches the user's own keyring.
#
#   bash scripts/with-keychain.sh npx vitest run src-main/secrets/keychain.test.ts
#
# Needs the packages dbus and gnome-keyring (Debian/Ubuntu: apt-get install dbus gnome-keyring).
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: bash scripts/with-keychain.sh <command> [args...]" >&2
  exit 2
fi
for tool in dbus-run-session gnome-keyring-daemon; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "with-keychain: '$tool' is not installed; install the packages dbus and gnome-keyring." >&2
    exit 127
  fi
done

sandbox="$(mktemp -d "${TMPDIR:-/tmp}/outpost-keychain.XXXXXX")"
trap 'rm -rf "$sandbox"' EXIT
# Stopped from outside (a test that failed midway stops the whole process group): clean up all the same.
trap 'exit 143' TERM
trap 'exit 130' INT
mkdir -p "$sandbox/data" "$sandbox/config" "$sandbox/cache" "$sandbox/runtime"
chmod 700 "$sandbox/runtime"

# The keyring files go to XDG_DATA_HOME/keyrings, the daemon's socket to
# XDG_RUNTIME_DIR; HOME stays as it is so npm and npx find their caches.
export XDG_DATA_HOME="$sandbox/data"
export XDG_CONFIG_HOME="$sandbox/config"
export XDG_CACHE_HOME="$sandbox/cache"
export XDG_RUNTIME_DIR="$sandbox/runtime"
# Tells the tests they run inside this sandbox (and where it is, so they can scan it).
export OUTPOST_KEYCHAIN_SANDBOX="$sandbox"
unset GNOME_KEYRING_CONTROL

# The throwaway password unlocks (and creates) the login keyring of the sandbox.
dbus-run-session -- sh -c 'printf %s outpost-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"' with-keychain "$@"
