#!/usr/bin/env bash
# scripts/kube-e2e.sh — end-to-end check of a running kit (`make kube-up`
# first): an image built FROM scratch goes in through the kit's registry;
# a Deployment of 2 replicas behind a ClusterIP Service; a client pod and
# a hairpin pod reach the Service; logs through the API (apiserver →
# kubelet); a rolling restart; a pod deletion with its Killing event;
# EndpointSlices following; the namespace deleted. Also tries the registry-
# free path (docker save | ctr import). Prints one line per check and the
# times, and removes what it made (namespace, Docker images). Bounded: each
# wait has a timeout; the whole run takes about two minutes.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STATE=${SHUTDOWNLAB_KUBE_STATE:-/var/lib/shutdownlab-kube}
CACHE=${SHUTDOWNLAB_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/shutdownlab/kube/v1.34.4}
REGISTRY=127.0.0.1:${SHUTDOWNLAB_KUBE_REGISTRY_PORT:-5000}
SOCK="$STATE/containerd/containerd.sock"
export KUBECONFIG="$STATE/kubeconfig"
NS=shutdownlab-e2e
IMAGE="$REGISTRY/shutdownlab/kube-echo:e2e"
LOCAL_TAG=shutdownlab-kube-echo:e2e
IMPORT_TAG=shutdownlab-kube-echo:imported

k() { "$CACHE/kube" kubectl "$@"; }
passed=0
failed=0
ok() { printf 'PASS  %s\n' "$*"; passed=$((passed + 1)); }
bad() { printf 'FAIL  %s\n' "$*"; failed=$((failed + 1)); }
note() { printf '      %s\n' "$*"; }
ms() { date +%s%3N; }

[ -s "$KUBECONFIG" ] || { echo "kube-e2e: no kit running ($KUBECONFIG missing): make kube-up" >&2; exit 1; }

cleanup() {
  k delete namespace "$NS" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  docker rmi "$LOCAL_TAG" "$IMAGE" "$IMPORT_TAG" >/dev/null 2>&1 || true
  rm -rf "${ctx:-}"
}
trap cleanup EXIT

echo "== node"
k get nodes -o wide
if [ "$(k get node shutdownlab-kube -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')" = True ]; then
  ok "node shutdownlab-kube Ready ($(k version -o json | grep -m1 gitVersion | tr -d ' ",'))"
else
  bad "node not Ready"
fi

echo "== image: build FROM scratch, push to $REGISTRY"
ctx=$(mktemp -d)
(cd "$ROOT/cmd/kube" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$ctx/echo" ./echo)
printf 'FROM scratch\nCOPY echo /echo\nENTRYPOINT ["/echo"]\nCMD ["serve"]\n' >"$ctx/Dockerfile"
t=$(ms)
DOCKER_BUILDKIT=0 docker build -q --label shutdownlab-kube=e2e -t "$LOCAL_TAG" "$ctx" >/dev/null
docker tag "$LOCAL_TAG" "$IMAGE"
if docker push "$IMAGE" >/dev/null; then ok "docker build + push $IMAGE ($(($(ms) - t)) ms)"; else bad "docker push $IMAGE"; fi

k create namespace "$NS" >/dev/null
k -n "$NS" wait --for=create serviceaccount/default --timeout=30s >/dev/null

echo "== Deployment (2 replicas, image pulled from the registry) + ClusterIP Service"
t=$(ms)
k -n "$NS" apply -f - >/dev/null <<EOF
apiVersion: apps/v1
kind: Deployment
metadata: {name: echo}
spec:
  replicas: 2
  selector: {matchLabels: {app: echo}}
  template:
    metadata: {labels: {app: echo}}
    spec:
      terminationGracePeriodSeconds: 10
      containers:
      - name: echo
        image: $IMAGE
        imagePullPolicy: Always
        args: [serve, ":8080"]
        ports: [{containerPort: 8080}]
        readinessProbe: {httpGet: {path: /ready, port: 8080}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: echo}
spec:
  selector: {app: echo}
  ports: [{port: 80, targetPort: 8080}]
EOF
if k -n "$NS" rollout status deployment/echo --timeout=120s >/dev/null; then
  ok "Deployment echo 2/2 available ($(($(ms) - t)) ms from apply, image pulled from $REGISTRY)"
else
  bad "Deployment echo not available"; k -n "$NS" get pods -o wide; k -n "$NS" get events
fi
CIP=$(k -n "$NS" get service echo -o 'jsonpath={.spec.clusterIP}')
slice_ips() { k -n "$NS" get endpointslices -l kubernetes.io/service-name=echo \
  -o 'jsonpath={range .items[*].endpoints[?(@.conditions.ready==true)]}{.addresses[0]}{"\n"}{end}' | sort | tr '\n' ' '; }
# the IPs of the running pods that are not being deleted
pod_ips() { k -n "$NS" get pods -l app=echo --field-selector=status.phase=Running \
  -o 'jsonpath={range .items[*]}{.status.podIP}{" "}{.metadata.deletionTimestamp}{"\n"}{end}' |
  awk 'NF == 1 { print $1 }' | sort | tr '\n' ' '; }
wait_slices() { # wait until the ready endpoints are the running pods' IPs
  for _ in $(seq 60); do
    [ -n "$(pod_ips)" ] && [ "$(slice_ips)" = "$(pod_ips)" ] && [ "$(wc -w <<<"$(slice_ips)")" -eq 2 ] && return 0
    sleep 0.5
  done
  return 1
}
if wait_slices; then ok "EndpointSlice lists the 2 ready pods: $(slice_ips)"; else bad "EndpointSlice $(slice_ips) != pods $(pod_ips)"; fi

echo "== a client pod reaches the Service by its ClusterIP ($CIP)"
k -n "$NS" run client --image="$IMAGE" --restart=Never --image-pull-policy=IfNotPresent -- get "http://$CIP/" 10 100ms >/dev/null
k -n "$NS" wait --for=jsonpath='{.status.phase}'=Succeeded pod/client --timeout=60s >/dev/null || true
out=$(k -n "$NS" logs client 2>&1 || true)
if grep -q 'done: 0 of 10 failed' <<<"$out"; then
  ok "client: 10/10 requests to $CIP answered by $(grep -o 'pod=[^ ]*' <<<"$out" | sort -u | tr '\n' ' ')"
else
  bad "client pod: $out"
fi

echo "== a pod reaches itself through its own Service (hairpin)"
k -n "$NS" create service clusterip hairpin --tcp=80:8080 >/dev/null
k -n "$NS" patch service hairpin -p '{"spec":{"selector":{"app":"hairpin"}}}' >/dev/null
HIP=$(k -n "$NS" get service hairpin -o 'jsonpath={.spec.clusterIP}')
k -n "$NS" run hairpin --image="$IMAGE" --labels=app=hairpin --restart=Never -- serve-get :8080 "http://$HIP/" 5 >/dev/null
hp=""
for _ in $(seq 60); do
  hp=$(k -n "$NS" logs hairpin 2>/dev/null || true)
  grep -q '^done:' <<<"$hp" && break
  sleep 1
done
if grep -q 'done: 0 of 5 failed' <<<"$hp"; then ok "hairpin: 5/5 requests through $HIP came back to the pod itself"; else bad "hairpin: $hp"; fi

echo "== a pod's routes: its subnet and the Service range, no default route"
# Read from the host in the hairpin pod's network namespace: nothing is sent.
hpid=$(ctr --address "$SOCK" -n k8s.io tasks ls 2>/dev/null | awk 'NR > 1 && $3 == "RUNNING" { print $2; exit }')
routes=$(nsenter -t "$hpid" -n ip -4 route show 2>&1 || true)
if [ -n "$hpid" ] && ! grep -q '^default' <<<"$routes" && grep -q "$(k get svc -n default kubernetes -o 'jsonpath={.spec.clusterIP}' | cut -d. -f1-2)" <<<"$routes"; then
  ok "pod routes: $(tr '\n' ';' <<<"$routes")"
else
  bad "pod routes (pid $hpid): $routes"
fi

echo "== logs through the API (apiserver -> kubelet :10250)"
first=$(k -n "$NS" get pods -l app=echo -o 'jsonpath={.items[0].metadata.name}')
if lg=$(k -n "$NS" logs "$first" 2>&1) && grep -q 'serving on' <<<"$lg"; then
  ok "kubectl logs $first: $(wc -l <<<"$lg") lines, e.g. '$(grep -m1 GET <<<"$lg" || head -n1 <<<"$lg")'"
else
  bad "kubectl logs: $lg"
fi

echo "== rolling restart"
before=$(slice_ips)
t=$(ms)
k -n "$NS" rollout restart deployment/echo >/dev/null
if k -n "$NS" rollout status deployment/echo --timeout=120s >/dev/null && wait_slices; then
  ok "rollout restart completed in $(($(ms) - t)) ms; EndpointSlice $before-> $(slice_ips)"
else
  bad "rollout restart did not complete"
fi

echo "== pod deletion: Killing event, EndpointSlice update"
victim=$(k -n "$NS" get pods -l app=echo -o 'jsonpath={.items[0].metadata.name}')
vip=$(k -n "$NS" get pod "$victim" -o 'jsonpath={.status.podIP}')
t=$(ms)
k -n "$NS" delete pod "$victim" --timeout=60s >/dev/null
note "deleted $victim ($vip) in $(($(ms) - t)) ms"
ev=""
for _ in $(seq 20); do
  ev=$(k -n "$NS" get events --field-selector "involvedObject.name=$victim,reason=Killing" -o 'jsonpath={.items[*].message}')
  [ -n "$ev" ] && break
  sleep 0.5
done
if [ -n "$ev" ]; then ok "Killing event for $victim: $ev"; else bad "no Killing event for $victim"; fi
if wait_slices && ! grep -qw "$vip" <<<"$(slice_ips)"; then
  ok "EndpointSlice dropped $vip and lists the replacement: $(slice_ips)"
else
  bad "EndpointSlice after deletion: $(slice_ips) (pods $(pod_ips))"
fi

echo "== registry-free path: docker save | ctr import"
docker tag "$LOCAL_TAG" "$IMPORT_TAG"
if docker save "$IMPORT_TAG" | ctr --address "$SOCK" -n k8s.io images import - >/dev/null 2>&1; then
  k -n "$NS" run imported --image="docker.io/library/$IMPORT_TAG" --image-pull-policy=Never --restart=Never -- get "http://$CIP/" 2 >/dev/null
  if k -n "$NS" wait --for=jsonpath='{.status.phase}'=Succeeded pod/imported --timeout=60s >/dev/null; then
    ok "docker save | ctr -n k8s.io images import - works (pod with imagePullPolicy: Never ran)"
  else
    bad "imported image: pod did not succeed: $(k -n "$NS" get pod imported -o 'jsonpath={.status.containerStatuses[0].state}')"
  fi
else
  bad "docker save | ctr images import failed"
fi
ctr --address "$SOCK" -n k8s.io images rm "docker.io/library/$IMPORT_TAG" >/dev/null 2>&1 || true

echo "== namespace deletion"
t=$(ms)
if k delete namespace "$NS" --timeout=120s >/dev/null && ! k get namespace "$NS" >/dev/null 2>&1; then
  ok "namespace $NS deleted (finalized) in $(($(ms) - t)) ms"
else
  bad "namespace $NS deletion did not complete: $(k get namespace "$NS" -o 'jsonpath={.status}' 2>&1)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
