#!/usr/bin/env bash
# scripts/kube.sh — a real single-node Kubernetes cluster (v1.34.4), built
# offline from Kubernetes' own Go modules, for shutdownlab's Kubernetes
# scenarios. `make kube-up` / `make kube-down` call it; docs/kube-kit.md
# says what it runs, where its state lives and what `down` removes.
#
#   scripts/kube.sh up      build (once, cached by version), start, wait for
#                           Ready; the LAST line on stdout is
#                           `export KUBECONFIG=...` (progress goes to stderr)
#   scripts/kube.sh down    stop everything and remove every trace but the
#                           binary cache
#   scripts/kube.sh build   only build the binaries and the pause image
#   scripts/kube.sh status  say whether the kit runs (exit 0 if it does)
#   scripts/kube.sh env     print the export line of a running kit
#
# Settings (environment): SHUTDOWNLAB_KUBE_STATE (state directory, default
# /var/lib/shutdownlab-kube), SHUTDOWNLAB_KUBE_CACHE (binary cache, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/shutdownlab/kube/v1.34.4),
# SHUTDOWNLAB_KUBE_REGISTRY_PORT (5000), SHUTDOWNLAB_KUBE_BRIDGE (slkube0),
# SHUTDOWNLAB_KUBE_NET (10.88.0 — the bridge is .1/24, pods get the rest),
# SHUTDOWNLAB_KUBE_SERVICE_CIDR (10.96.0.0/16), SHUTDOWNLAB_KUBE_KEEP_LOGS
# (a directory `down` copies the logs into before it removes the state).
#
# Network rule of the machines this runs on: traffic goes only to loopback
# and to the networks the kit creates. So every component binds to
# 127.0.0.1 or to the bridge address; pods get a route to the Service range
# only (no default route) and a mangle-table guard drops anything from the
# bridge to elsewhere; the kit's containerd gets a proxy on a closed
# loopback port so a stray image name can never reach a public registry.
set -euo pipefail

KUBE_VERSION=v1.34.4
NODE_NAME=shutdownlab-kube
CONTEXT=shutdownlab-kube

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC="$ROOT/cmd/kube"
CACHE=${SHUTDOWNLAB_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/shutdownlab/kube/$KUBE_VERSION}
STATE=${SHUTDOWNLAB_KUBE_STATE:-/var/lib/shutdownlab-kube}
BRIDGE=${SHUTDOWNLAB_KUBE_BRIDGE:-slkube0}
NET=${SHUTDOWNLAB_KUBE_NET:-10.88.0}
NODE_IP="$NET.1"
POD_CIDR="$NET.0/24"
SERVICE_CIDR=${SHUTDOWNLAB_KUBE_SERVICE_CIDR:-10.96.0.0/16}
svc_base=${SERVICE_CIDR%/*}
KUBERNETES_SVC_IP="${svc_base%.*}.$(( ${svc_base##*.} + 1 ))"
REGISTRY_PORT=${SHUTDOWNLAB_KUBE_REGISTRY_PORT:-5000}
REGISTRY="127.0.0.1:$REGISTRY_PORT"
PAUSE_IMAGE="$REGISTRY/shutdownlab-kube/pause:1"

APISERVER_PORT=6443
ETCD_CLIENT_PORT=2379
ETCD_PEER_PORT=2380
KUBELET_PORT=10250
KUBELET_HEALTHZ_PORT=10248
CM_PORT=10257
SCHED_PORT=10259
PROXY_HEALTHZ_PORT=10256
PROXY_METRICS_PORT=10249

KUBE="$CACHE/kube"
PKI="$STATE/pki"
LOGS="$STATE/logs"
PIDS="$STATE/pids"
CTRD="$STATE/containerd"
CTRD_SOCK="$CTRD/containerd.sock"
KUBECONFIG_ADMIN="$STATE/kubeconfig"
MARKER="$STATE/.shutdownlab-kube"

# Sysctls the kubelet (kernel.*, vm.*), the CNI bridge (ip_forward) or
# kube-proxy (conntrack, route_localnet) may set; `up` records them, `down`
# puts back any that changed.
SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.ip_forward
  net.ipv4.conf.all.route_localnet net.bridge.bridge-nf-call-iptables
  net.bridge.bridge-nf-call-ip6tables net.netfilter.nf_conntrack_max
  net.netfilter.nf_conntrack_tcp_timeout_established
  net.netfilter.nf_conntrack_tcp_timeout_close_wait
  net.netfilter.nf_conntrack_tcp_be_liberal net.netfilter.nf_conntrack_udp_timeout
  net.netfilter.nf_conntrack_udp_timeout_stream net.ipv6.conf.all.forwarding)

# Components in start order; `down` stops them in reverse, the kubelet
# first (see down).
COMPONENTS=(registry etcd containerd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy)

log() { printf '[kube %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

need_root() {
  [ "$(id -u)" -eq 0 ] || die "the kit runs containerd, the kubelet and iptables: run as root (sudo make kube-$1)"
}

# ---------------------------------------------------------------- packages

ensure_packages() {
  # package → a file it installs that the kit uses
  local -A files=(
    [containerd]=/usr/bin/containerd
    [runc]=/usr/sbin/runc
    [containernetworking-plugins]=/usr/lib/cni/bridge
    [docker-registry]=/usr/bin/docker-registry
    [iptables]=/usr/sbin/iptables
    [iproute2]=/usr/sbin/ip
    [openssl]=/usr/bin/openssl
    [curl]=/usr/bin/curl
    [util-linux]=/usr/bin/setsid
  )
  local missing=() pkg
  for pkg in containerd runc containernetworking-plugins docker-registry iptables iproute2 openssl curl util-linux; do
    [ -e "${files[$pkg]}" ] || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local cmd="apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${missing[*]}"
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    die "missing host packages: ${missing[*]}; install them with: sudo sh -c '$cmd'"
  fi
  log "installing ${missing[*]} (apt)"
  # docker-registry ships an init script: it must not start a registry on
  # all interfaces. policy-rc.d 101 keeps every package service down.
  local policy=/usr/sbin/policy-rc.d made=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made=1
  fi
  local rc=0
  sh -c "$cmd" >"${TMPDIR:-/tmp}/shutdownlab-kube-apt.log" 2>&1 || rc=$?
  [ "$made" = 1 ] && rm -f "$policy"
  [ "$rc" -eq 0 ] || die "apt-get failed (log: ${TMPDIR:-/tmp}/shutdownlab-kube-apt.log)"
  for pkg in "${missing[@]}"; do
    [ -e "${files[$pkg]}" ] || die "$pkg installed but ${files[$pkg]} is still missing"
  done
}

# ------------------------------------------------------------------- build

# The cache key: the kit's sources, its module graph and the Go version. A
# changed input rebuilds; the same inputs never do.
build_key() {
  {
    echo "$KUBE_VERSION"
    go version
    cat "$SRC/go.mod" "$SRC/go.sum" "$SRC"/*.go "$SRC"/pause/*.go
  } | sha256sum | cut -c1-16
}

ldflags() {
  local p f="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    f="$f -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=34"
    f="$f -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  printf '%s' "$f"
}

build() {
  command -v go >/dev/null 2>&1 || die "go not found on PATH; the kit is built from source (Go 1.26+)"
  mkdir -p "$CACHE"
  local key
  key=$(build_key)
  if [ -x "$KUBE" ] && [ -x "$CACHE/pause" ] && [ -s "$CACHE/pause-image.tar" ] &&
    [ "$(cat "$CACHE/key" 2>/dev/null)" = "$key" ]; then
    log "binaries cached in $CACHE (key $key)"
    return 0
  fi
  rm -f "$CACHE/key"
  local t0 blog="$CACHE/build.log"
  t0=$(date +%s)
  log "building kube $KUBE_VERSION (etcd, apiserver, controller-manager, scheduler, kubelet, kube-proxy, kubectl) into $CACHE"
  log "a cold build takes about 20 minutes on 2 cores; progress every 30 s; log: $blog"
  (cd "$SRC" && CGO_ENABLED=0 nice -n 10 go build -v -trimpath -ldflags "$(ldflags)" -o "$KUBE.tmp" .) >"$blog" 2>&1 &
  local pid=$! n last
  while kill -0 "$pid" 2>/dev/null; do
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -0 "$pid" 2>/dev/null || break
    n=$(grep -c '^[a-z]' "$blog" || true)
    last=$(tail -n 1 "$blog")
    log "  building: $(( $(date +%s) - t0 ))s, $n packages compiled (last: $last)"
    if [ $(( $(date +%s) - t0 )) -gt 5400 ]; then
      kill "$pid" 2>/dev/null || true
      die "build still running after 90 minutes; see $blog"
    fi
  done
  if ! wait "$pid"; then
    tail -n 30 "$blog" >&2
    die "go build of cmd/kube failed (log: $blog)"
  fi
  mv -f "$KUBE.tmp" "$KUBE"
  log "kube built in $(( $(date +%s) - t0 ))s ($(du -h "$KUBE" | cut -f1))"
  (cd "$SRC" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$CACHE/pause" ./pause) ||
    die "go build of cmd/kube/pause failed"
  build_pause_image
  echo "$key" >"$CACHE/key"
}

# The sandbox image: the static pause binary in a FROM-scratch image, built
# by Docker's legacy builder and kept as a `docker save` archive in the
# cache, so a warm `up` needs no Docker at all. The Docker image is removed
# again: the archive is what the kit imports.
build_pause_image() {
  command -v docker >/dev/null 2>&1 || die "docker is needed once, to build the pause image"
  local ctx tag=shutdownlab-kube-pause:build
  ctx=$(mktemp -d)
  cp "$CACHE/pause" "$ctx/pause"
  printf 'FROM scratch\nCOPY pause /pause\nENTRYPOINT ["/pause"]\n' >"$ctx/Dockerfile"
  DOCKER_BUILDKIT=0 docker build -q --label shutdownlab-kube=pause -t "$tag" "$ctx" >/dev/null ||
    { rm -rf "$ctx"; die "docker build of the pause image failed"; }
  rm -rf "$ctx"
  docker save "$tag" -o "$CACHE/pause-image.tar.tmp" || die "docker save of the pause image failed"
  docker rmi "$tag" >/dev/null || true
  mv -f "$CACHE/pause-image.tar.tmp" "$CACHE/pause-image.tar"
  log "pause image archived in $CACHE/pause-image.tar"
}

# --------------------------------------------------------------- processes

pid_of() { cat "$PIDS/$1.pid" 2>/dev/null || true; }

alive() {
  local pid
  pid=$(pid_of "$1")
  [ -n "$pid" ] && running_pid "$pid" && grep -qa -- "$(cmd_mark "$1")" "/proc/$pid/cmdline" 2>/dev/null
}

# A pid that exists and is not a zombie (the kit's processes are children
# of init once up has returned, and init may reap them late).
running_pid() {
  local st
  st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$st" ] && [ "$st" != Z ]
}

# What a component's command line contains: checked before a pid is
# signalled, so a recycled pid is never killed.
cmd_mark() {
  case "$1" in
    registry) echo docker-registry ;;
    containerd) echo "$CTRD/config.toml" ;;
    *) echo "$1" ;;
  esac
}

start_bg() {
  local name=$1
  shift
  log "starting $name"
  (
    # Close every descriptor the caller handed down beyond stdio (a
    # `flock FILE make kube-up` would otherwise leave its lock held by the
    # kit's daemons for as long as they run).
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
    exec setsid "$@" >"$LOGS/$name.log" 2>&1 </dev/null
  ) &
  echo $! >"$PIDS/$name.pid"
}

tail_log() {
  log "last lines of $LOGS/$1.log:"
  tail -n "${2:-25}" "$LOGS/$1.log" >&2 2>/dev/null || true
}

# wait_for COMPONENT SECONDS DESCRIPTION COMMAND...: poll COMMAND once a
# second; fail naming the component and its log when it died or the time
# ran out.
wait_for() {
  local name=$1 secs=$2 what=$3 i
  shift 3
  for ((i = 0; i < secs; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    if [ "$name" != - ] && ! alive "$name"; then
      tail_log "$name"
      die "$name exited while waiting for $what"
    fi
    sleep 1
  done
  [ "$name" != - ] && tail_log "$name"
  die "timed out after ${secs}s waiting for $what (${name})"
}

stop_one() {
  local name=$1 secs=${2:-15} pid i t0
  pid=$(pid_of "$name")
  t0=$(date +%s%3N)
  if alive "$name"; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < secs * 10; i++)); do
      running_pid "$pid" || break
      sleep 0.1
    done
    if running_pid "$pid"; then
      log "$name did not stop in ${secs}s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
    fi
    log "stopped $name ($(( $(date +%s%3N) - t0 )) ms)"
  fi
  rm -f "$PIDS/$name.pid"
}

# The kit's containerd shims: re-parented to init, found by the kit's own
# containerd socket on their command line (Docker's shims name Docker's).
kit_shims() {
  local p
  for p in /proc/[0-9]*; do
    if grep -qa -- "$CTRD_SOCK" "$p/cmdline" 2>/dev/null &&
      grep -qa containerd-shim "$p/cmdline" 2>/dev/null; then
      echo "${p#/proc/}"
    fi
  done
}

# --------------------------------------------------------------- preflight

preflight() {
  local p
  [[ "$NET" =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || die "SHUTDOWNLAB_KUBE_NET=$NET: want three octets, e.g. 10.88.0"
  [[ "$SERVICE_CIDR" =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}/(1[2-9]|2[0-4])$ ]] ||
    die "SHUTDOWNLAB_KUBE_SERVICE_CIDR=$SERVICE_CIDR: want an IPv4 network from /12 to /24, e.g. 10.96.0.0/16"
  [[ "$REGISTRY_PORT" =~ ^[0-9]+$ ]] || die "SHUTDOWNLAB_KUBE_REGISTRY_PORT=$REGISTRY_PORT: want a port number"
  ip link show "$BRIDGE" >/dev/null 2>&1 && die "interface $BRIDGE exists already (another kit? run: $0 down)"
  for p in "$POD_CIDR" "$SERVICE_CIDR"; do
    if ip -4 route show to match "${p%/*}" | grep -qv '^default' ||
      [ -n "$(ip -4 route show root "$p")" ]; then
      die "$p overlaps a route on this host ($(ip -4 route show to match "${p%/*}" | grep -v '^default' | head -n1)); set SHUTDOWNLAB_KUBE_NET / SHUTDOWNLAB_KUBE_SERVICE_CIDR"
    fi
  done
  for p in "127.0.0.1:$REGISTRY_PORT" "127.0.0.1:$ETCD_CLIENT_PORT" "127.0.0.1:$ETCD_PEER_PORT" \
    "127.0.0.1:$KUBELET_HEALTHZ_PORT" "127.0.0.1:$CM_PORT" "127.0.0.1:$SCHED_PORT" \
    "127.0.0.1:$PROXY_HEALTHZ_PORT" "127.0.0.1:$PROXY_METRICS_PORT"; do
    if ss -Hltn "sport = :${p##*:}" | grep -qE "(127\.0\.0\.1|\*|0\.0\.0\.0|\[::\]):${p##*:} "; then
      die "port ${p##*:} is taken on $p (ss -ltnp); the kit needs it"
    fi
  done
  if iptables-save 2>/dev/null | grep -qE '^:(KUBE-|CNI-)' || ip6tables-save 2>/dev/null | grep -qE '^:(KUBE-|CNI-)'; then
    die "iptables already has KUBE-/CNI- chains: another Kubernetes runs here (or a kit's leftovers: $0 down)"
  fi
  for p in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
    [ -e "$p" ] && die "$p exists: another kubelet runs here (or a kit's leftovers: $0 down)"
  done
  [ -e /proc/sys/net/bridge/bridge-nf-call-iptables ] || modprobe br_netfilter 2>/dev/null ||
    die "the br_netfilter module is not loaded (Services need it): modprobe br_netfilter"
}

# ------------------------------------------------------------ certificates

pki_cert() { # NAME CN ORG(or -) KIND(client|server|both) SAN(or -)
  local name=$1 cn=$2 org=$3 kind=$4 san=$5 subj ext usage
  subj="/CN=$cn"
  [ "$org" != - ] && subj="$subj/O=$org"
  case "$kind" in
    client) usage=clientAuth ;;
    server) usage=serverAuth ;;
    both) usage=serverAuth,clientAuth ;;
  esac
  ext="$PKI/$name.ext"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$usage"
    [ "$san" != - ] && echo "subjectAltName=$san"
  } >"$ext"
  openssl ecparam -name prime256v1 -genkey -noout -out "$PKI/$name.key" 2>/dev/null
  openssl req -new -key "$PKI/$name.key" -subj "$subj" -out "$PKI/$name.csr" 2>/dev/null
  openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -set_serial "0x$(openssl rand -hex 16)" \
    -days 365 -extfile "$ext" -out "$PKI/$name.crt" 2>/dev/null
  rm -f "$PKI/$name.csr" "$ext"
}

make_pki() {
  log "generating certificates in $PKI"
  mkdir -p "$PKI"
  chmod 700 "$PKI"
  openssl ecparam -name prime256v1 -genkey -noout -out "$PKI/ca.key" 2>/dev/null
  openssl req -x509 -new -key "$PKI/ca.key" -subj "/CN=shutdownlab-kube-ca" -days 365 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
    -out "$PKI/ca.crt" 2>/dev/null
  pki_cert apiserver kube-apiserver - server \
    "IP:$NODE_IP,IP:$KUBERNETES_SVC_IP,IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  pki_cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters client -
  pki_cert admin shutdownlab-kube-admin system:masters client -
  pki_cert controller-manager system:kube-controller-manager - client -
  pki_cert scheduler system:kube-scheduler - client -
  pki_cert kube-proxy system:kube-proxy - client -
  pki_cert kubelet-client "system:node:$NODE_NAME" system:nodes client -
  pki_cert kubelet "$NODE_NAME" - server "IP:$NODE_IP,DNS:$NODE_NAME"
  openssl ecparam -name prime256v1 -genkey -noout -out "$PKI/sa.key" 2>/dev/null
  openssl ec -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
}

kubeconfig() { # FILE USER CERTNAME EMBED(0|1)
  local file=$1 user=$2 cert=$3 embed=$4 ca crt key
  if [ "$embed" = 1 ]; then
    ca="certificate-authority-data: $(base64 -w0 <"$PKI/ca.crt")"
    crt="client-certificate-data: $(base64 -w0 <"$PKI/$cert.crt")"
    key="client-key-data: $(base64 -w0 <"$PKI/$cert.key")"
  else
    ca="certificate-authority: $PKI/ca.crt"
    crt="client-certificate: $PKI/$cert.crt"
    key="client-key: $PKI/$cert.key"
  fi
  cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: $CONTEXT
  cluster:
    server: https://$NODE_IP:$APISERVER_PORT
    $ca
users:
- name: $user
  user:
    $crt
    $key
contexts:
- name: $CONTEXT
  context:
    cluster: $CONTEXT
    user: $user
current-context: $CONTEXT
EOF
  chmod 600 "$file"
}

# ----------------------------------------------------------------- configs

write_configs() {
  mkdir -p "$CTRD/root" "$CTRD/state" "$CTRD/runc" "$CTRD/opt" "$CTRD/certs.d/$REGISTRY" \
    "$STATE/cni/net.d" "$STATE/cni/ipam" "$STATE/kubelet" "$STATE/pod-logs" "$STATE/etcd" "$STATE/registry"
  chmod 700 "$STATE/etcd"
  kubeconfig "$KUBECONFIG_ADMIN" shutdownlab-kube-admin admin 1
  kubeconfig "$STATE/controller-manager.kubeconfig" system:kube-controller-manager controller-manager 0
  kubeconfig "$STATE/scheduler.kubeconfig" system:kube-scheduler scheduler 0
  kubeconfig "$STATE/kube-proxy.kubeconfig" system:kube-proxy kube-proxy 0
  kubeconfig "$STATE/kubelet.kubeconfig" "system:node:$NODE_NAME" kubelet-client 0

  cat >"$CTRD/config.toml" <<EOF
# The kit's own containerd (not Docker's): its own root, state and sockets.
version = 2
root = "$CTRD/root"
state = "$CTRD/state"

[grpc]
  address = "$CTRD_SOCK"
[ttrpc]
  address = "$CTRD_SOCK.ttrpc"
[debug]
  address = "$CTRD/debug.sock"
  level = "info"
[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = "$CTRD/opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # This VM forbids lowering oom_score_adj: without this every sandbox
  # fails with runc's "can't get final child's PID from pipe: EOF".
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "/usr/sbin/runc"
        Root = "$CTRD/runc"
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni/net.d"
    max_conf_num = 1
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$CTRD/certs.d"
EOF
  cat >"$CTRD/certs.d/$REGISTRY/hosts.toml" <<EOF
server = "http://$REGISTRY"

[host."http://$REGISTRY"]
  capabilities = ["pull", "resolve"]
EOF

  # Pods get the Service range routed through the bridge and no default
  # route: nothing in a pod can reach past the kit's networks.
  cat >"$STATE/cni/net.d/10-shutdownlab-kube.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "shutdownlab-kube",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$NODE_IP"}]],
        "routes": [{"dst": "$SERVICE_CIDR"}],
        "dataDir": "$STATE/cni/ipam"
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF

  cat >"$STATE/registry.yml" <<EOF
version: 0.1
log:
  level: info
  accesslog:
    disabled: false
storage:
  filesystem:
    rootdirectory: $STATE/registry
  delete:
    enabled: true
http:
  addr: $REGISTRY
EOF

  cat >"$STATE/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ_PORT
tlsCertFile: $PKI/kubelet.crt
tlsPrivateKeyFile: $PKI/kubelet.key
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: $PKI/ca.crt
authorization:
  mode: Webhook
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://$CTRD_SOCK
imageServiceEndpoint: unix://$CTRD_SOCK
# Never collect images (the pause image has no registry to come back from)
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
# No eviction on a busy developer disk
evictionHard:
  memory.available: "100Mi"
  nodefs.available: "1%"
  imagefs.available: "1%"
  nodefs.inodesFree: "1%"
podLogsDir: $STATE/pod-logs
# No cluster DNS; and no host resolv.conf in pods (no lookups leave the node)
resolvConf: ""
podCIDR: $POD_CIDR
maxPods: 50
serializeImagePulls: false
registerNode: true
rotateCertificates: false
serverTLSBootstrap: false
shutdownGracePeriod: 0s
EOF

  cat >"$STATE/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection:
  kubeconfig: $STATE/kube-proxy.kubeconfig
mode: iptables
hostnameOverride: $NODE_NAME
bindAddress: $NODE_IP
healthzBindAddress: 127.0.0.1:$PROXY_HEALTHZ_PORT
metricsBindAddress: 127.0.0.1:$PROXY_METRICS_PORT
clusterCIDR: $POD_CIDR
detectLocalMode: ClusterCIDR
nodePortAddresses: ["$NODE_IP/32"]
iptables:
  localhostNodePorts: false
  masqueradeAll: false
  syncPeriod: 30s
# Leave the host's conntrack sysctls alone
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
EOF
}

# ----------------------------------------------------------------- network

# The kit's own chain in the mangle table (which kube-proxy and the kubelet
# never reorder): from the bridge, only the bridge's subnet.
GUARD=SLKUBE-GUARD

net_up() {
  log "creating bridge $BRIDGE ($NODE_IP/24), route $SERVICE_CIDR, guard chain $GUARD"
  ip link add "$BRIDGE" type bridge
  echo 1 >"/proc/sys/net/ipv6/conf/$BRIDGE/disable_ipv6" 2>/dev/null || true
  ip addr add "$NODE_IP/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  # Host → ClusterIP: kube-proxy's DNAT rewrites these; one that is not
  # rewritten goes onto the bridge, never to the default gateway.
  ip route add "$SERVICE_CIDR" dev "$BRIDGE" src "$NODE_IP"
  iptables -t mangle -N "$GUARD"
  iptables -t mangle -A "$GUARD" -d "$POD_CIDR" -j RETURN
  iptables -t mangle -A "$GUARD" -m comment --comment "shutdownlab-kube: pods reach only the kit's network" -j DROP
  iptables -t mangle -A FORWARD -i "$BRIDGE" -j "$GUARD"
  iptables -t mangle -A INPUT -i "$BRIDGE" -j "$GUARD"
  # Docker sets the FORWARD policy to DROP: accept the bridge's own
  # traffic (pod to pod, and pod to a Service's pod through the host).
  iptables -t filter -N SLKUBE-FORWARD
  iptables -t filter -A SLKUBE-FORWARD -i "$BRIDGE" -o "$BRIDGE" -j ACCEPT
  iptables -t filter -I FORWARD 1 -j SLKUBE-FORWARD
}

# Remove every iptables rule and chain named KUBE-*, CNI-* or SLKUBE-*, and
# every rule jumping to one, in both families and all tables: what the
# kubelet, kube-proxy, the CNI plugins and the kit added.
ipt_cleanup() {
  local fam table save chains rules script
  for fam in iptables ip6tables; do
    for table in filter nat mangle raw; do
      save=$("$fam-save" -t "$table" 2>/dev/null) || continue
      chains=$(sed -n 's/^:\(\(KUBE\|CNI\|SLKUBE\)-[^ ]*\) .*/\1/p' <<<"$save")
      rules=$(grep -E '^-A [^ ]+ .*-j (KUBE|CNI|SLKUBE)-' <<<"$save" | grep -vE '^-A (KUBE|CNI|SLKUBE)-' || true)
      [ -z "$chains" ] && [ -z "$rules" ] && continue
      script="*$table"$'\n'
      [ -n "$rules" ] && script+="$(awk '{ sub(/^-A /, "-D "); print }' <<<"$rules")"$'\n'
      if [ -n "$chains" ]; then
        script+="$(awk '{print "-F " $0}' <<<"$chains")"$'\n'
        script+="$(awk '{print "-X " $0}' <<<"$chains")"$'\n'
      fi
      script+="COMMIT"$'\n'
      "$fam-restore" --noflush <<<"$script" || log "warning: $fam-restore cleanup of table $table failed"
    done
  done
}

# ----------------------------------------------------------------- running

running() {
  [ -f "$MARKER" ] || return 1
  local c
  for c in "${COMPONENTS[@]}"; do alive "$c" || return 1; done
  curl -sf --max-time 3 --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
    "https://$NODE_IP:$APISERVER_PORT/readyz" >/dev/null
}

kubectl_kit() { "$KUBE" kubectl --kubeconfig "$KUBECONFIG_ADMIN" "$@"; }

node_ready() {
  [ "$(kubectl_kit get node "$NODE_NAME" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]
}

record_before() {
  local k v
  : >"$STATE/sysctl.before"
  for k in "${SYSCTLS[@]}"; do
    if v=$(sysctl -n "$k" 2>/dev/null); then printf '%s=%s\n' "$k" "$v" >>"$STATE/sysctl.before"; fi
  done
  # Directories outside the state directory that something may create:
  # `down` removes the ones that were not there before.
  : >"$STATE/dirs.absent"
  for k in /var/log/containers /var/log/pods /run/containerd /run/containerd/s /var/run/netns /etc/cni /var/lib/cni /run/kubernetes /var/run/kubernetes; do
    [ -e "$k" ] || echo "$k" >>"$STATE/dirs.absent"
  done
  # The kubelet's device-plugin socket has a fixed path
  # (/var/lib/kubelet/device-plugins/kubelet.sock), whatever --root-dir says.
  [ -e /var/lib/kubelet ] || echo /var/lib/kubelet >"$STATE/kubelet-dir.absent"
  # nftables tables (iptables-nft makes a table the first time a rule goes
  # into it: mangle for the guard, ip6 tables for the kubelet).
  if command -v nft >/dev/null; then nft list tables >"$STATE/nft-tables.before" 2>/dev/null || true; fi
}

up() {
  need_root up
  ensure_packages
  build
  if running; then
    log "the kit already runs (state $STATE); nothing to start"
    echo "export SHUTDOWNLAB_REGISTRY=$REGISTRY/shutdownlab"
    echo "export KUBECONFIG=$KUBECONFIG_ADMIN"
    return 0
  fi
  if [ -e "$STATE" ] || ip link show "$BRIDGE" >/dev/null 2>&1; then
    log "a stopped or half-started kit is in the way: taking it down first"
    down
  fi
  preflight
  local t0
  t0=$(date +%s)
  mkdir -p "$STATE" "$LOGS" "$PIDS"
  chmod 755 "$STATE"
  echo "$KUBE_VERSION" >"$MARKER"
  record_before
  net_up
  make_pki
  write_configs

  start_bg registry /usr/bin/docker-registry serve "$STATE/registry.yml"
  start_bg etcd "$KUBE" etcd --name "$NODE_NAME" --data-dir "$STATE/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "$NODE_NAME=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state new \
    --log-level warn --quota-backend-bytes 2147483648
  # A proxy on a closed loopback port: an image that is not in the kit's
  # registry fails at once instead of reaching a public registry.
  start_bg containerd env HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 \
    NO_PROXY="127.0.0.1,localhost,$POD_CIDR" \
    /usr/bin/containerd --config "$CTRD/config.toml"
  wait_for etcd 30 "etcd health" curl -sf --max-time 2 "http://127.0.0.1:$ETCD_CLIENT_PORT/health"
  start_bg kube-apiserver "$KUBE" kube-apiserver \
    --bind-address="$NODE_IP" --secure-port="$APISERVER_PORT" --advertise-address="$NODE_IP" \
    --etcd-servers="http://127.0.0.1:$ETCD_CLIENT_PORT" \
    --service-cluster-ip-range="$SERVICE_CIDR" \
    --client-ca-file="$PKI/ca.crt" --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
    --kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt" --kubelet-client-key="$PKI/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority="$PKI/ca.crt" --kubelet-preferred-address-types=InternalIP \
    --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$PKI/sa.pub" \
    --service-account-signing-key-file="$PKI/sa.key" --api-audiences=https://kubernetes.default.svc \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --allow-privileged=true --profiling=false --cert-dir="$STATE/apiserver-certs" \
    --v=1
  wait_for containerd 30 "containerd socket" ctr --address "$CTRD_SOCK" version
  wait_for registry 20 "registry on $REGISTRY" curl -sf --max-time 2 "http://$REGISTRY/v2/"
  log "importing the pause image into the kit's containerd as $PAUSE_IMAGE"
  ctr --address "$CTRD_SOCK" -n k8s.io images import "$CACHE/pause-image.tar" >/dev/null ||
    die "ctr images import of $CACHE/pause-image.tar failed"
  ctr --address "$CTRD_SOCK" -n k8s.io images tag --force docker.io/library/shutdownlab-kube-pause:build "$PAUSE_IMAGE" >/dev/null ||
    die "ctr images tag of the pause image failed"
  ctr --address "$CTRD_SOCK" -n k8s.io images rm docker.io/library/shutdownlab-kube-pause:build >/dev/null || true

  wait_for kube-apiserver 60 "kube-apiserver /readyz" curl -sf --max-time 2 --cacert "$PKI/ca.crt" \
    --cert "$PKI/admin.crt" --key "$PKI/admin.key" "https://$NODE_IP:$APISERVER_PORT/readyz"
  start_bg kube-controller-manager "$KUBE" kube-controller-manager \
    --kubeconfig="$STATE/controller-manager.kubeconfig" \
    --authentication-kubeconfig="$STATE/controller-manager.kubeconfig" \
    --authorization-kubeconfig="$STATE/controller-manager.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$CM_PORT" \
    --service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" \
    --use-service-account-credentials=true --leader-elect=false \
    --allocate-node-cidrs=false --service-cluster-ip-range="$SERVICE_CIDR" \
    --profiling=false --v=1
  start_bg kube-scheduler "$KUBE" kube-scheduler \
    --kubeconfig="$STATE/scheduler.kubeconfig" \
    --authentication-kubeconfig="$STATE/scheduler.kubeconfig" \
    --authorization-kubeconfig="$STATE/scheduler.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$SCHED_PORT" --leader-elect=false --profiling=false --v=1
  start_bg kubelet "$KUBE" kubelet --config="$STATE/kubelet.yaml" --kubeconfig="$STATE/kubelet.kubeconfig" \
    --root-dir="$STATE/kubelet" --cert-dir="$STATE/kubelet/pki" \
    --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" --v=1
  start_bg kube-proxy "$KUBE" kube-proxy --config="$STATE/kube-proxy.yaml" --v=1

  wait_for kubelet 90 "node $NODE_NAME Ready" node_ready
  wait_for kube-controller-manager 60 "the default ServiceAccount" kubectl_kit -n default get serviceaccount default
  wait_for kube-proxy 30 "kube-proxy /healthz" curl -sf --max-time 2 "http://127.0.0.1:$PROXY_HEALTHZ_PORT/healthz"
  local c
  for c in "${COMPONENTS[@]}"; do alive "$c" || { tail_log "$c"; die "$c is not running"; }; done
  log "ready in $(( $(date +%s) - t0 ))s: node $NODE_NAME Ready, API https://$NODE_IP:$APISERVER_PORT, registry $REGISTRY"
  log "state $STATE (logs in $LOGS); stop with: make kube-down"
  echo "export SHUTDOWNLAB_REGISTRY=$REGISTRY/shutdownlab"
  echo "export KUBECONFIG=$KUBECONFIG_ADMIN"
}

down() {
  need_root down
  local t0 c p
  t0=$(date +%s)
  if [ ! -e "$STATE" ] && ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    log "no kit here (no $STATE, no $BRIDGE)"
    return 0
  fi
  log "stopping the kit in $STATE"
  # No controller or scheduler re-creates pods, and no kubelet restarts
  # containers, while the sandboxes go.
  stop_one kube-controller-manager 10
  stop_one kube-scheduler 10
  stop_one kubelet 15
  if [ -S "$CTRD_SOCK" ] && [ -x "$KUBE" ] && alive containerd; then
    timeout 90 "$KUBE" cri-reset --endpoint "unix://$CTRD_SOCK" --timeout 80s >&2 ||
      log "warning: cri-reset did not remove every sandbox (cleanup continues)"
  fi
  stop_one kube-proxy 10
  stop_one containerd 15
  for p in $(kit_shims); do
    log "killing leftover shim $p"
    kill -KILL "$p" 2>/dev/null || true
  done
  stop_one kube-apiserver 15
  stop_one etcd 15
  stop_one registry 10

  # Anything left in the kubelet's cgroups is the kit's: kill it first.
  while read -r p; do
    log "killing leftover pod process $p"
    kill -KILL "$p" 2>/dev/null || true
  done < <(find /sys/fs/cgroup/*/kubepods -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u)

  # Mounts under the state directory (kubelet volumes, overlay rootfs, shm,
  # netns), deepest first; a busy one is detached.
  local m
  while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "warning: cannot unmount $m"
  done < <(awk -v s="$STATE" 'index($5, s) == 1 { print $5 }' /proc/self/mountinfo | sort -r)

  if [ -f "$MARKER" ] || [ -e "$STATE" ]; then
    if [ -x "$KUBE" ]; then timeout 30 "$KUBE" kube-proxy --cleanup >/dev/null 2>&1 || true; fi
    ipt_cleanup
  fi

  if ip link show "$BRIDGE" >/dev/null 2>&1; then
    for c in $(ip -o link show master "$BRIDGE" 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
      ip link del "$c" 2>/dev/null || true
    done
    ip link del "$BRIDGE" || log "warning: cannot delete $BRIDGE"
  fi

  # The kubelet's cgroups under every hierarchy, children first.
  for p in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
    [ -d "$p" ] || continue
    find "$p" -depth -type d -exec rmdir {} + 2>/dev/null || true
    [ -d "$p" ] && log "warning: cannot remove cgroup $p"
  done

  if [ -f "$STATE/sysctl.before" ]; then
    local k v now
    while IFS='=' read -r k v; do
      now=$(sysctl -n "$k" 2>/dev/null) || continue
      if [ "$now" != "$v" ]; then
        log "restoring $k=$v (was $now)"
        sysctl -qw "$k=$v" >/dev/null || log "warning: cannot restore $k"
      fi
    done <"$STATE/sysctl.before"
  fi

  if [ -f "$STATE/dirs.absent" ]; then
    # /var/log/containers holds the kubelet's links into the state dir.
    find /var/log/containers -maxdepth 1 -type l -lname "$STATE/*" -delete 2>/dev/null || true
    # Empty directories only (e.g. libcni's result cache /var/lib/cni/results,
    # which containerd 1.6 cannot move): a file left there is reported.
    while read -r p; do
      [ -d "$p" ] || continue
      find "$p" -depth -type d -empty -delete 2>/dev/null || true
      [ -e "$p" ] && log "warning: $p is not empty; left in place"
    done < <(sort -r "$STATE/dirs.absent")
  fi

  if [ -f "$STATE/kubelet-dir.absent" ] && [ -d /var/lib/kubelet ]; then
    rm -rf /var/lib/kubelet
  fi
  if [ -f "$STATE/nft-tables.before" ]; then
    local fam name
    while read -r _ fam name; do
      grep -qx "table $fam $name" "$STATE/nft-tables.before" && continue
      # only a table left empty (base chains, no rules) by the kit's use
      if ! nft list table "$fam" "$name" | grep -qvE '^[[:space:]]*(table|chain|type|\}|$)'; then
        nft delete table "$fam" "$name" || log "warning: cannot delete nftables table $fam $name"
      else
        log "warning: nftables table $fam $name has rules; left in place"
      fi
    done < <(nft list tables 2>/dev/null)
  fi

  if [ -n "${SHUTDOWNLAB_KUBE_KEEP_LOGS:-}" ] && [ -d "$LOGS" ]; then
    mkdir -p "$SHUTDOWNLAB_KUBE_KEEP_LOGS"
    cp -a "$LOGS/." "$SHUTDOWNLAB_KUBE_KEEP_LOGS/"
    log "logs copied to $SHUTDOWNLAB_KUBE_KEEP_LOGS"
  fi
  if awk -v s="$STATE" 'index($5, s) == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
    die "mounts remain under $STATE; not removing it"
  fi
  rm -rf "$STATE"
  log "down in $(( $(date +%s) - t0 ))s; binaries kept in $CACHE"
}

status() {
  if running; then
    log "running: node $NODE_NAME, API https://$NODE_IP:$APISERVER_PORT, registry $REGISTRY, state $STATE"
    return 0
  fi
  log "not running"
  return 1
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  build) build ;;
  status) status ;;
  env) running || die "the kit is not running"; echo "export SHUTDOWNLAB_REGISTRY=$REGISTRY/shutdownlab"; echo "export KUBECONFIG=$KUBECONFIG_ADMIN" ;;
  *) echo "usage: $0 up|down|build|status|env" >&2; exit 2 ;;
esac
