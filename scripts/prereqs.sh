#!/usr/bin/env bash
# Host prerequisites of the integration tests (`make test`), checked before
# any test runs. What is missing is installed when this user can (root, or
# passwordless sudo, on a Debian or Ubuntu host with apt-get); otherwise the
# script stops at once with one line naming the exact command to run.
#
# Used by the Makefile (`make test`) and by .ci/run, so CI sees what a new
# user sees. `make test-unit` needs none of this (Go only).
#
# SHUTDOWNLAB_PREREQS_NO_INSTALL=1 never installs (as a user without root
# would); SHUTDOWNLAB_PREREQS_ROOT=DIR looks for the host files under DIR
# (both for the script's own test).
set -euo pipefail

root="${SHUTDOWNLAB_PREREQS_ROOT:-}"

# package → a file it installs (what the tests and image builds read).
declare -A files=(
  [nodejs]=/usr/bin/node
  [node-ws]=/usr/share/nodejs/ws/package.json
  [nginx]=/usr/sbin/nginx
  [libnginx-mod-http-echo]=/usr/lib/nginx/modules/ngx_http_echo_module.so
  [postgresql-15]=/usr/lib/postgresql/15/bin/postgres
  [apache2]=/usr/sbin/apache2
  [haproxy]=/usr/sbin/haproxy
  [lighttpd]=/usr/sbin/lighttpd
)
order=(nodejs node-ws nginx libnginx-mod-http-echo postgresql-15 apache2 haproxy lighttpd)

missing=()
for pkg in "${order[@]}"; do
  [ -e "$root${files[$pkg]}" ] || missing+=("$pkg")
done

if ! command -v go >/dev/null 2>&1; then
  echo "prereqs: go not found on PATH; install Go 1.26+ (https://go.dev/dl/) and put its bin directory on PATH" >&2
  exit 1
fi

if [ ${#missing[@]} -gt 0 ]; then
  cmd="apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; fi
  fi
  can=1
  [ "${SHUTDOWNLAB_PREREQS_NO_INSTALL:-0}" = 1 ] && can=0
  [ -n "$root" ] && can=0
  command -v apt-get >/dev/null 2>&1 || can=0
  [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ] || can=0
  if [ "$can" = 0 ]; then
    echo "prereqs: missing host packages for the integration tests: ${missing[*]}; install them with: sudo sh -c '$cmd'" >&2
    exit 1
  fi
  echo "prereqs: installing ${missing[*]}" >&2
  # No host service may start from a package (nginx, apache2, haproxy,
  # lighttpd, postgresql): the project runs them only inside containers.
  policy=/usr/sbin/policy-rc.d
  made_policy=0
  if [ ! -e "$policy" ]; then
    $sudo sh -c "printf '#!/bin/sh\nexit 101\n' > $policy && chmod +x $policy"
    made_policy=1
  fi
  $sudo sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${missing[*]}" >/dev/null
  if [ "$made_policy" = 1 ]; then $sudo rm -f "$policy"; fi
  # Stop what a package started anyway where no policy applied (no init).
  [ -f /run/nginx.pid ] && $sudo /usr/sbin/nginx -s quit 2>/dev/null || true
  command -v pg_ctlcluster >/dev/null 2>&1 && $sudo pg_ctlcluster 15 main stop >/dev/null 2>&1 || true
  for pkg in "${missing[@]}"; do
    if [ ! -e "${files[$pkg]}" ]; then
      echo "prereqs: $pkg installed but ${files[$pkg]} is still missing" >&2
      exit 1
    fi
  done
fi

if ! docker info >/dev/null 2>&1; then
  echo "prereqs: the Docker engine is not reachable (docker info failed); start it (e.g. sudo systemctl start docker, or sudo dockerd &) or set DOCKER_HOST" >&2
  exit 1
fi
echo "prereqs: ok (go, docker, node, node-ws, nginx, postgresql-15, apache2, haproxy, lighttpd)" >&2
