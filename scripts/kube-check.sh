#!/usr/bin/env bash
# scripts/kube-check.sh — did `make kube-down` leave the host as `make
# kube-up` found it? Take a snapshot before up and one after down, then
# compare:
#
#   scripts/kube-check.sh snapshot DIR
#   scripts/kube-check.sh compare BEFORE_DIR AFTER_DIR
#
# A snapshot holds: the kit's processes (and the full process list, for
# the record), mount points, iptables-save / ip6tables-save /
# iptables-legacy-save / nft list tables, links and addresses, cgroup
# directories named kubepods, the sysctls the kubelet, the CNI bridge and
# kube-proxy may change, the directories outside the state dir that a
# kubelet, containerd or a CNI plugin may create, and the kit's Docker
# images. `compare` fails (exit 1) on any difference that can be the
# kit's; differences that are Docker's own (another user's containers
# starting or stopping meanwhile) are printed as information only.
# Needs root (iptables-save).
set -euo pipefail

STATE=${SHUTDOWNLAB_KUBE_STATE:-/var/lib/shutdownlab-kube}
BRIDGE=${SHUTDOWNLAB_KUBE_BRIDGE:-slkube0}
NET=${SHUTDOWNLAB_KUBE_NET:-10.88.0}
SERVICE_CIDR=${SHUTDOWNLAB_KUBE_SERVICE_CIDR:-10.96.0.0/16}
CACHE=${SHUTDOWNLAB_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/shutdownlab/kube/v1.34.4}

SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.ip_forward
  net.ipv4.conf.all.route_localnet net.bridge.bridge-nf-call-iptables
  net.bridge.bridge-nf-call-ip6tables net.netfilter.nf_conntrack_max
  net.netfilter.nf_conntrack_tcp_timeout_established
  net.netfilter.nf_conntrack_tcp_timeout_close_wait
  net.netfilter.nf_conntrack_tcp_be_liberal net.netfilter.nf_conntrack_udp_timeout
  net.netfilter.nf_conntrack_udp_timeout_stream net.ipv6.conf.all.forwarding)
PATHS=(/var/log/containers /var/log/pods /run/containerd /run/containerd/s /var/run/netns /etc/cni
  /var/lib/cni /run/kubernetes /var/run/kubernetes /var/lib/kubelet /etc/kubernetes /opt/containerd
  /opt/cni "$STATE")

# Rules without packet counters, so two saves of the same rules compare equal.
norm_ipt() { sed -e '/^#/d' -e 's/\[[0-9]*:[0-9]*\]//g' -e 's/ *$//'; }

snapshot() {
  local d=$1 p cmd
  mkdir -p "$d"
  # The kit's processes: its binary, its containerd (and shims, which name
  # its socket), its registry, and whatever runs in the kubelet's cgroups.
  for p in /proc/[0-9]*; do
    cmd=$(tr '\0' ' ' 2>/dev/null <"$p/cmdline") || continue
    if grep -qE "$STATE|$CACHE/kube|docker-registry" <<<"$cmd"; then
      printf '%s\n' "$cmd"
    elif grep -q kubepods "$p/cgroup" 2>/dev/null; then
      printf 'in kubepods: %s\n' "$cmd"
    fi
  done | sort >"$d/kit-processes"
  ps -eo comm= | sort | uniq -c >"$d/process-names"
  awk '{ print $5, $9 }' /proc/self/mountinfo | sort >"$d/mounts"
  iptables-save 2>/dev/null | norm_ipt >"$d/iptables"
  ip6tables-save 2>/dev/null | norm_ipt >"$d/ip6tables"
  if command -v iptables-legacy-save >/dev/null; then iptables-legacy-save 2>/dev/null | norm_ipt >"$d/iptables-legacy"; fi
  if command -v ip6tables-legacy-save >/dev/null; then ip6tables-legacy-save 2>/dev/null | norm_ipt >"$d/ip6tables-legacy"; fi
  if command -v nft >/dev/null; then nft list tables 2>/dev/null | sort >"$d/nft-tables"; fi
  ip -o link show | awk -F': ' '{ print $2 }' | cut -d@ -f1 | sort >"$d/links"
  ip -o link show | awk '/ veth/ && !/ master / { print $2 }' | sort >"$d/veths-without-master"
  ip -o -4 addr show | awk '{ print $2, $4 }' | sort >"$d/addresses"
  ip -4 route show | sort >"$d/routes"
  find /sys/fs/cgroup -maxdepth 3 -type d -name 'kubepods*' 2>/dev/null | sort >"$d/cgroups"
  for p in "${SYSCTLS[@]}"; do printf '%s=%s\n' "$p" "$(sysctl -n "$p" 2>/dev/null || echo absent)"; done >"$d/sysctls"
  # Whether each path exists; for the kit's own paths also what is in them.
  # (/run/containerd/s holds Docker's shim sockets too: presence only.)
  for p in "${PATHS[@]}"; do
    if [ ! -e "$p" ]; then
      printf '%s absent\n' "$p"
    elif [ "$p" = /run/containerd ] || [ "$p" = /run/containerd/s ]; then
      printf '%s present\n' "$p"
    else
      printf '%s present (%s entries)\n' "$p" "$(find "$p" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)"
    fi
  done >"$d/paths"
  find /var/run/netns -maxdepth 1 -name 'cni-*' 2>/dev/null | sort >"$d/netns" || true
  if command -v docker >/dev/null; then
    docker images --format '{{.Repository}}:{{.Tag}}' 2>/dev/null | grep -E 'shutdownlab-kube|^127\.0\.0\.1:' | sort >"$d/docker-images" || true
    docker ps -a --format '{{.Names}}' 2>/dev/null | grep shutdownlab-kube | sort >"$d/docker-containers" || true
  fi
  date -Is >"$d/taken"
}

# check FILE PATTERN [NOT]: a difference fails when a changed line matches
# PATTERN (the kit's names and addresses) and not NOT (Docker's own paths);
# PATTERN "" = any difference fails.
failures=0
check() {
  local f=$1 pat=$2 not=${3:-} diffs
  [ -e "$A/$f" ] || [ -e "$B/$f" ] || return 0
  diffs=$(diff <(cat "$A/$f" 2>/dev/null) <(cat "$B/$f" 2>/dev/null) | grep -E '^[<>]' || true)
  if [ -z "$diffs" ]; then
    printf 'ok    %s\n' "$f"
    return 0
  fi
  local bad
  if [ -z "$pat" ]; then bad=$diffs; else bad=$(grep -E "$pat" <<<"$diffs" || true); fi
  if [ -n "$not" ] && [ -n "$bad" ]; then bad=$(grep -vE "$not" <<<"$bad" || true); fi
  if [ -n "$bad" ]; then
    printf 'FAIL  %s\n' "$f"
    awk '{ print "        " $0 }' <<<"$bad"
    failures=$((failures + 1))
  else
    printf 'ok    %s (differences not the kit'"'"'s:)\n' "$f"
    awk 'NR <= 20 { print "        " $0 }' <<<"$diffs"
  fi
}

compare() {
  A=$1 B=$2
  local net svc s kit
  net=${NET//./\\.}\\.
  s=${SERVICE_CIDR%/*}
  s=${s%.*.*}
  svc=${s//./\\.}\\.
  kit="KUBE-|CNI-|SLKUBE|$BRIDGE|$net|$svc"
  check kit-processes ""
  check process-names 'kube|etcd|docker-registry|pause'
  check mounts "$STATE|kubelet|containerd|netns|cni|kubepods|overlay|shm|tmpfs" '/var/lib/docker|/run/docker|/var/run/docker'

  # A table header (*mangle) that appears or goes is a change of the
  # ruleset too: iptables-nft creates a table on first use.
  check iptables "$kit|^[<>] \\*"
  check ip6tables "$kit|^[<>] \\*"
  check iptables-legacy "$kit|^[<>] \\*"
  check ip6tables-legacy "$kit|^[<>] \\*"
  check nft-tables ""
  check links "$BRIDGE"
  check veths-without-master ""
  check addresses "$BRIDGE|$net"
  check routes "$BRIDGE|$net|$svc"
  check cgroups ""
  check sysctls ""
  check paths ""
  check netns ""
  check docker-images ""
  check docker-containers ""
  if [ "$failures" -gt 0 ]; then
    echo "kube-check: $failures difference(s) that can be the kit's"
    echo "0 passed, 1 failed"
    return 1
  fi
  echo "kube-check: clean (nothing of the kit is left)"
  echo "1 passed, 0 failed"
}

case "${1:-}" in
  snapshot) [ $# -eq 2 ] || { echo "usage: $0 snapshot DIR" >&2; exit 2; }; snapshot "$2" ;;
  compare) [ $# -eq 3 ] || { echo "usage: $0 compare BEFORE AFTER" >&2; exit 2; }; compare "$2" "$3" ;;
  *) echo "usage: $0 snapshot DIR | compare BEFORE AFTER" >&2; exit 2 ;;
esac
