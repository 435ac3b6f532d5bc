#!/usr/bin/env bash
# Installs the Debian packages Proxy Tuner's tools and tests drive (nginx, haproxy, neovim,
# chromium, wrk, h2load, ...), without leaving nginx/haproxy running as system services.
# Needs root. Called by scripts/setup.sh (the README's set-up) and so by .ci/run.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
started=$(date +%s)
say() { printf '\n=== [setup +%ss] %s\n' "$(( $(date +%s) - started ))" "$*"; }
if [[ $(id -u) -ne 0 ]]; then
  echo "scripts/install-system-packages.sh needs root (apt-get); run it with sudo" >&2
  exit 1
fi

# --- system packages -------------------------------------------------------------------------
packages=(
  nginx haproxy haproxy-doc neovim chromium ripgrep libkrb5-dev wrk nghttp2-client openssl
  # the host nginx's own stream/mail modules and the other Debian modules the corpus uses
  libnginx-mod-stream libnginx-mod-mail libnginx-mod-http-geoip libnginx-mod-http-image-filter
  libnginx-mod-http-xslt-filter
  # Debian's third-party nginx modules (server/src/languages/nginx/data/modules.json; test/modules/ checks
  # their facts against the binary with each loaded)
  libnginx-mod-http-auth-pam libnginx-mod-http-brotli-filter libnginx-mod-http-brotli-static
  libnginx-mod-http-cache-purge libnginx-mod-http-dav-ext libnginx-mod-http-echo
  libnginx-mod-http-fancyindex libnginx-mod-http-geoip2 libnginx-mod-http-headers-more-filter
  libnginx-mod-http-js libnginx-mod-http-lua libnginx-mod-http-memc libnginx-mod-http-modsecurity
  libnginx-mod-http-ndk libnginx-mod-http-set-misc libnginx-mod-http-srcache-filter
  libnginx-mod-http-subs-filter libnginx-mod-http-uploadprogress libnginx-mod-http-upstream-fair
  libnginx-mod-nchan libnginx-mod-rtmp libnginx-mod-stream-geoip2 libnginx-mod-stream-js
  # the version matrix's roots (scripts/provision-matrix.sh), the sandbox, the adversarial suite
  debootstrap bubblewrap strace
  # code-server's native modules (node-pty, kerberos, argon2) build from source offline
  build-essential python3 pkg-config
  git ca-certificates curl tar gzip procps
  # the .pre-commit-hooks.yaml test (test/cli/precommit.test.ts)
  pre-commit
  # the second editor of the LSP tests: Emacs with eglot in batch mode (test/editors/emacs.test.ts)
  emacs-nox elpa-eglot
)

# Remember which of nginx/haproxy this run installs: only those services are ours to stop.
newly_installed=()
for svc in nginx haproxy; do
  if ! dpkg-query -W -f='${Status}' "$svc" 2>/dev/null | grep -q 'install ok installed'; then
    newly_installed+=("$svc")
  fi
done

# Debian's postinst scripts start nginx and haproxy as services (nginx on port 80). A
# policy-rc.d that answers 101 ("action forbidden") keeps them from starting at all; it is
# removed again afterwards if this script put it there.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [[ ! -e "$policy" ]]; then
  printf '#!/bin/sh\n# Installed by proxy-tuner .ci/run for the duration of apt-get install.\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  own_policy=1
fi
cleanup_policy() { if [[ "$own_policy" == 1 ]]; then rm -f "$policy"; own_policy=0; fi; }
trap cleanup_policy EXIT

say "apt-get update"
apt-get update
say "apt-get install ${packages[*]}"
apt-get install -y --no-install-recommends "${packages[@]}"
cleanup_policy

# Should a service of a package installed above be running anyway (no policy-rc.d support),
# stop it through its own init script, identified by its pid file, never by process name.
for svc in "${newly_installed[@]}"; do
  pidfile="/run/${svc}.pid"
  if [[ -s "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    say "stopping the $svc service started by its package"
    if command -v invoke-rc.d >/dev/null; then
      invoke-rc.d --force "$svc" stop || true
    elif command -v service >/dev/null; then
      service "$svc" stop || true
    fi
  fi
done

say "versions"
# First line of a tool's version output (sed reads it all: `head` could SIGPIPE the tool,
# which pipefail would turn into a failure).
first_line() { "$@" 2>&1 | sed -n 1p; }
first_line nginx -v
first_line haproxy -v
first_line nvim --version
first_line chromium --version || true
first_line rg --version
command -v wrk h2load

