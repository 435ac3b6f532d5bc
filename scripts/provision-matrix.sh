#!/usr/bin/env bash
# Provisions the version matrix: the nginx and HAProxy binaries the tests and the product judge
# configs with (docs/architecture.md, "The version matrix").
#   - bookworm: the host's own nginx 1.22.1 / HAProxy 2.6.12 (scripts/install-system-packages.sh
#     installs them with Debian's stream, mail, geoip, image-filter and xslt modules and the
#     third-party libnginx-mod-* modules);
#   - trixie (nginx 1.26.x, HAProxy 3.0.x) and sid (nginx 1.30.x, HAProxy 3.2.x, python3-locust)
#     as minimal Debian roots made by debootstrap in $PROXY_TUNER_MATRIX_DIR (default: the
#     git-ignored .matrix/ of the repo), skipped when already there; the third-party nginx
#     modules each suite packages are installed into a root where missing.
# Then writes $DIR/binaries.json, the one registry of binaries (read by host/matrix code and the
# tests), and a launcher per binary in $DIR/bin/ that runs a root's binary through the root's own
# loader and libraries, so it can be used wherever a binary path is asked for.
# Needs root (debootstrap). Called by scripts/setup.sh and so by .ci/run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$(pwd)"
dir="${PROXY_TUNER_MATRIX_DIR:-$repo/.matrix}"
started=$(date +%s)
say() { printf '\n=== [matrix +%ss] %s\n' "$(( $(date +%s) - started ))" "$*"; }

if [[ "${PROXY_TUNER_NO_MATRIX:-}" == 1 ]]; then
  say "PROXY_TUNER_NO_MATRIX=1: no version matrix provisioned"
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "scripts/provision-matrix.sh needs root (debootstrap); run it with sudo" >&2
  exit 1
fi
command -v debootstrap >/dev/null || { echo "debootstrap is missing (scripts/install-system-packages.sh installs it)" >&2; exit 1; }

# The Debian archive apt already uses on this machine (never a host written into this script).
mirror=""
if [[ -r /etc/apt/sources.list.d/debian.sources ]]; then
  mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
fi
if [[ -z "$mirror" && -r /etc/apt/sources.list ]]; then
  mirror=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list)
fi
[[ -n "$mirror" ]] || { echo "no Debian archive found in apt's sources" >&2; exit 1; }

# Debian's nginx module packages the corpus uses, in every root.
modules=libnginx-mod-stream,libnginx-mod-mail,libnginx-mod-http-geoip,libnginx-mod-http-image-filter,libnginx-mod-http-xslt-filter
# Debian's third-party nginx modules (libnginx-mod-*) each suite packages: installed into every
# root, fresh or already provisioned (see install_third_party below). The host's (bookworm's)
# list is in scripts/install-system-packages.sh.
third_party="libnginx-mod-http-auth-pam libnginx-mod-http-brotli-filter libnginx-mod-http-brotli-static
  libnginx-mod-http-cache-purge libnginx-mod-http-dav-ext libnginx-mod-http-echo libnginx-mod-http-fancyindex
  libnginx-mod-http-geoip2 libnginx-mod-http-headers-more-filter libnginx-mod-http-js libnginx-mod-http-lua
  libnginx-mod-http-memc libnginx-mod-http-modsecurity libnginx-mod-http-ndk libnginx-mod-http-set-misc
  libnginx-mod-http-srcache-filter libnginx-mod-http-subs-filter libnginx-mod-http-uploadprogress
  libnginx-mod-http-upstream-fair libnginx-mod-nchan libnginx-mod-rtmp libnginx-mod-stream-geoip2
  libnginx-mod-stream-js libnginx-mod-http-auth-spnego libnginx-mod-http-push-stream"
# sid also gets python3-locust (the distributed-load test) and nodejs (a current node for
# `npm run bench:lsp`, which times `check` under it beside the machine's node 20), through apt
# rather than debootstrap: debootstrap's resolver does not follow virtual packages, and leaves
# python3-zmq unconfigured
declare -A third_party_extra=( [trixie]="" [sid]="python3-locust nodejs libnginx-mod-http-auth-jwt libnginx-mod-http-eval
  libnginx-mod-http-hmac-secure-link libnginx-mod-http-xss libnginx-mod-http-zstd-filter libnginx-mod-http-zstd-static" )

mkdir -p "$dir"
pids=()
for suite in trixie sid; do
  root="$dir/$suite"
  if [[ -e "$root/.provisioned" ]]; then
    say "$suite root already at $root"
    continue
  fi
  (
    rm -rf "$root.tmp"
    for attempt in 1 2 3; do
      if debootstrap --variant=minbase --include="nginx,haproxy,$modules" \
          "$suite" "$root.tmp" "$mirror" >"$dir/$suite.debootstrap.out" 2>&1; then
        rm -rf "$root"
        mv "$root.tmp" "$root"
        date -u +%FT%TZ >"$root/.provisioned"
        exit 0
      fi
      echo "debootstrap $suite failed (attempt $attempt); last lines:" >&2
      tail -n 5 "$dir/$suite.debootstrap.out" >&2
      rm -rf "$root.tmp"
      sleep $(( attempt * 5 ))
    done
    exit 1
  ) &
  pids+=($!)
  say "debootstrap $suite into $root (background, pid $!)"
done
for p in "${pids[@]}"; do wait "$p"; done

# --- third-party nginx modules: installed into each root where missing (idempotent) ---------
install_third_party() { # install_third_party SUITE
  local suite=$1 root="$dir/$1" missing=() p
  [[ -x "$root/usr/sbin/nginx" ]] || return 0
  for p in $third_party ${third_party_extra[$suite]}; do
    chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [[ ${#missing[@]} -gt 0 ]] || { say "$suite root has its third-party nginx modules"; return 0; }
  say "$suite root: apt-get install ${missing[*]}"
  local mounted=0 own_policy=0 rc=0
  if ! mountpoint -q "$root/proc"; then mount -t proc proc "$root/proc" && mounted=1; fi
  if [[ ! -e "$root/usr/sbin/policy-rc.d" ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"; chmod 755 "$root/usr/sbin/policy-rc.d"; own_policy=1
  fi
  # a root debootstrap left with a package unconfigured (sid's python3-zmq lacked python3-cffi-backend)
  # makes apt refuse every install until its dependencies are completed
  chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -f --no-install-recommends >"$dir/$suite.modules.out" 2>&1 || true
  chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -f --no-install-recommends "${missing[@]}" >>"$dir/$suite.modules.out" 2>&1 \
    || { chroot "$root" apt-get -o Acquire::Check-Valid-Until=false update >>"$dir/$suite.modules.out" 2>&1 \
         && chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -f --no-install-recommends "${missing[@]}" >>"$dir/$suite.modules.out" 2>&1; } || rc=$?
  if [[ $own_policy == 1 ]]; then rm -f "$root/usr/sbin/policy-rc.d"; fi
  if [[ $mounted == 1 ]]; then umount "$root/proc"; fi
  if [[ $rc -ne 0 ]]; then
    echo "installing the third-party nginx modules into $root failed; last lines:" >&2
    tail -n 5 "$dir/$suite.modules.out" >&2
    return 1
  fi
}
# a failure leaves the root's nginx without them (test/modules/realBinary.test.ts then says so) but the rest of the matrix usable
for suite in trixie sid; do install_third_party "$suite" || echo "warning: the $suite root has not all its third-party nginx modules" >&2; done

# --- launchers and the registry ------------------------------------------------------------
mkdir -p "$dir/bin"
launcher() { # launcher NAME ROOT BINARY
  local name=$1 root=$2 bin=$3
  cat >"$dir/bin/$name" <<EOF
#!/bin/sh
# Runs $root$bin through its own root's loader and libraries (scripts/provision-matrix.sh).
exec "$root/lib64/ld-linux-x86-64.so.2" --library-path "$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu" "$root$bin" "\$@"
EOF
  chmod 755 "$dir/bin/$name"
}
version_of() { # version_of nginx|haproxy COMMAND...
  local product=$1; shift
  if [[ $product == nginx ]]; then
    "$@" -v 2>&1 | sed -n 's|^nginx version: nginx/\([0-9.]*\).*|\1|p'
  else
    "$@" -v 2>&1 | sed -n 's|^HAProxy version \([0-9][0-9.]*\).*|\1|p'
  fi
}

entries=()
add_entry() { # add_entry product version suite root path
  entries+=("$(printf '{"product":"%s","version":"%s","suite":"%s","root":"%s","path":"%s","modulesDir":"%s","confDir":"%s"}' \
    "$1" "$2" "$3" "$4" "$5" "$4/usr/lib/nginx/modules" "$4/etc/$1")")
}
for product in nginx haproxy; do
  if command -v "$product" >/dev/null; then
    v=$(version_of "$product" "$(command -v "$product")")
    [[ -n "$v" ]] && add_entry "$product" "$v" bookworm "" "$(command -v "$product")"
  fi
  for suite in trixie sid; do
    root="$dir/$suite"
    [[ -x "$root/usr/sbin/$product" ]] || continue
    v=$(version_of "$product" "$root/lib64/ld-linux-x86-64.so.2" --library-path "$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu" "$root/usr/sbin/$product")
    [[ -n "$v" ]] || continue
    launcher "$product-$v" "$root" "/usr/sbin/$product"
    add_entry "$product" "$v" "$suite" "$root" "$dir/bin/$product-$v"
  done
done
{
  echo '{'
  echo '  "generated": "scripts/provision-matrix.sh; do not edit",'
  echo '  "binaries": ['
  for i in "${!entries[@]}"; do
    sep=','; [[ $i -eq $(( ${#entries[@]} - 1 )) ]] && sep=''
    echo "    ${entries[$i]}$sep"
  done
  echo '  ]'
  echo '}'
} >"$dir/binaries.json.tmp"
mv "$dir/binaries.json.tmp" "$dir/binaries.json"
say "registry $dir/binaries.json:"
cat "$dir/binaries.json"
