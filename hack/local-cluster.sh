#!/usr/bin/env bash
# A real Kubernetes v1.37.2 on this machine, for e2e tests: etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler, and per node
# Debian's containerd + runc + CNI bridge plugins and a real kubelet (two
# nodes by default), all on loopback, with storage classes of known
# performance (loop devices with blkio caps) provisioned by
# local-path-provisioner, and a GlusterFS class for shared volumes.
# See usage() below and hack/local-cluster/README.md.
set -euo pipefail

usage() {
  cat <<EOF
Usage: hack/local-cluster.sh COMMAND

Commands:
  up                 install what is missing (apt), build the binaries (cached), start the
                     cluster, create the storage classes; waits until every node is Ready and
                     the default ServiceAccount exists. A no-op if it already runs.
  down [--purge]     stop everything and remove every process, mount, loop device, cgroup,
                     bridge and netns it created (also after a crash). Keeps the PKI, the
                     built helper binaries and the logs in the state folder unless --purge
                     (or STORAGEBENCH_CLUSTER_PURGE=1) is given, which removes the folder.
  status             components with PID and alive/dead, kubeconfig, node readiness,
                     storage classes with their caps and loop devices.
  kubeconfig         print the admin kubeconfig path:  export KUBECONFIG=\$(hack/local-cluster.sh kubeconfig)
  load-image FILE    import an image tarball (docker-archive or OCI) into every node's
                     containerd (namespace k8s.io). Pods must use imagePullPolicy Never or
                     IfNotPresent with a non-latest tag: nothing is ever pulled.
  logs [COMPONENT]   list the log files, or print the tail of one component's log.
  set-cap CLASS IOPS[:BANDWIDTH]
                     change a running class's caps (0 = uncapped; bandwidth as in
                     STORAGEBENCH_CLASSES): the harness sets them at once in every cgroup,
                     running pods included, and the class's storagebench.dev/iops-cap and
                     bandwidth-cap-bytes annotations follow. For drift tests; down forgets it.
  provisioner stop|start
                     kill (SIGKILL, as a crash would) or restart the cluster's dynamic
                     provisioner (local-path-provisioner), for tests of stalled provisioning.
  smoke              smoke test of a running cluster: restricted-PSS Jobs on every class
                     (filesystem and block PVs, and 2 pods sharing one RWX claim), 4 KiB
                     O_DIRECT random read/write IOPS vs the caps, io_uring availability.

Environment (defaults in brackets):
  STORAGEBENCH_CLUSTER_DIR    state folder, everything lives under it [/var/lib/storagebench-cluster]
  STORAGEBENCH_NODES          kubelets (nodes): "localhost" on 127.0.0.1, then "127.0.0.2", ...,
                              each with its own containerd, pod subnet and cgroup root [2]
  STORAGEBENCH_CLASSES        name:iops[:bandwidth],... 0 = uncapped, bandwidth in bytes/s with
                              optional Ki/Mi/Gi or k/M/G suffix
                              [fast:0,capped-8000:8000,capped-1500:1500]
  STORAGEBENCH_CLASS_SIZE     size of each class's ext4 loop device (sparse) [2Gi]
  STORAGEBENCH_PVS_PER_CLASS  static ReadWriteMany filesystem PVs per class (ReadWriteOnce claims
                              are provisioned dynamically), capacity = 90% of size / count [4]
  STORAGEBENCH_GLUSTER        name:iops[:bandwidth] of the GlusterFS class (a network file system
                              for shared claims; the caps are its brick device's), or none
                              [gluster:2000]
  STORAGEBENCH_BLOCK_PV_SIZE  size of each class's raw-block PV (a second loop device) [256Mi]
  STORAGEBENCH_BACKING        memory: the loop devices' backing files live on a tmpfs under the
                              state folder (RAM is only used as data is written; the device is
                              never the bottleneck, so a class measures exactly its cap even
                              when other work loads the VM disk); disk: sparse files on the
                              state folder's file system [memory]
  STORAGEBENCH_CAP_SCOPE      device: all pods share one budget per class device (like a disk);
                              container: every container gets the full cap [device]
  STORAGEBENCH_APISERVER_PORT [6443]   STORAGEBENCH_ETCD_PORT [2379] (peer port = +1)
  STORAGEBENCH_CLUSTER_PURGE  1 = down also removes the state folder
  STORAGEBENCH_CACHE          cache of the Kubernetes binaries (see hack/k8s-binaries.sh)
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

state=${STORAGEBENCH_CLUSTER_DIR:-/var/lib/storagebench-cluster}
classes_spec=${STORAGEBENCH_CLASSES:-fast:0,capped-8000:8000,capped-1500:1500}
class_size=${STORAGEBENCH_CLASS_SIZE:-2Gi}
pvs_per_class=${STORAGEBENCH_PVS_PER_CLASS:-4}
block_pv_size=${STORAGEBENCH_BLOCK_PV_SIZE:-256Mi}
backing=${STORAGEBENCH_BACKING:-memory}
cap_scope=${STORAGEBENCH_CAP_SCOPE:-device}
gluster_spec=${STORAGEBENCH_GLUSTER:-gluster:2000}
apiserver_port=${STORAGEBENCH_APISERVER_PORT:-6443}
kv_port=${STORAGEBENCH_ETCD_PORT:-2379} # not ETCD_*: etcd reads those as flags
kv_peer_port=$((kv_port + 1))

# Networking: pods sit on our own bridge with no default route (and IP
# forwarding is left as it is), so they can reach only the bridge subnet and
# the kubernetes Service address, which lives on the bridge and is forwarded
# by the harness to the apiserver on 127.0.0.1. There is no kube-proxy and no
# cluster DNS (pods get a resolv.conf pointing at 127.0.0.1).
bridge=sbench0 # node 1's; it also holds the kubernetes Service address
cni_network=storagebench-local
service_cidr=10.124.0.0/24
service_ip=10.124.0.1 # first address of service_cidr: the kubernetes Service
pause_image=localhost/storagebench/pause:3.10-local

# Nodes: STORAGEBENCH_NODES kubelets on this machine. Node 1 is "localhost"
# on 127.0.0.1 with its files at the top of the state folder; node i (2..N)
# is named after its address 127.0.0.i (all of 127.0.0.0/8 is this host's)
# and has its own folder
# node-i/, its own containerd, CNI bridge sbench<i-1> and pod subnet
# 10.123.<i-1>.0/24, and the cgroup root /storagebench-node-i (its pods'
# cgroups live there). The apiserver reaches a kubelet by its Hostname
# address, the node name: "localhost" and "127.0.0.i" need no DNS (the
# kubelet refuses a loopback InternalIP, and nothing resolves other names).
node_count=${STORAGEBENCH_NODES:-2}
node_name() { if [ "$1" = 1 ]; then echo localhost; else echo "127.0.0.$1"; fi; }
node_ip() { echo "127.0.0.$1"; }
node_dir() { if [ "$1" = 1 ]; then echo "$state"; else echo "$state/node-$1"; fi; }
node_sock() { echo "$(node_dir "$1")/containerd/containerd.sock"; }
node_bridge() { echo "sbench$(($1 - 1))"; }
node_subnet() { echo "10.123.$(($1 - 1)).0/24"; }
node_gateway() { echo "10.123.$(($1 - 1)).1"; }
node_cgroup_root() { [ "$1" = 1 ] || echo "storagebench-node-$1"; }
# node_component NODE NAME: the component's name on that node (containerd,
# kubelet: node 1 keeps the plain names).
node_component() { if [ "$1" = 1 ]; then echo "$2"; else echo "$2-node-$1"; fi; }
node_indices() { seq 1 "$node_count"; }
shared_blkio_cgroup=storagebench-local-cluster
label_key=storagebench.dev/local-cluster
# Dynamic provisioning: rancher's local-path-provisioner (kind's and k3s's
# default), under its upstream provisioner name, namespace and account.
lpp_name=rancher.io/local-path
lpp_namespace=local-path-storage
lpp_service_account=local-path-provisioner-service-account
# The network file system class: GlusterFS's glusterd and brick in a network
# namespace of ours (glusterd refuses bricks on 127.0.0.0/8), reached from
# the host over a veth pair; the host mounts the volume with the FUSE client.
gluster_netns=sbgluster
gluster_veth_host=sbgl0
gluster_veth_ns=sbgl1
gluster_host_addr=10.125.0.1
gluster_server_addr=10.125.0.2
gluster_volume=sbvol
lpp_version=$(awk '$1 == "github.com/rancher/local-path-provisioner" {print $2}' "$(dirname "${BASH_SOURCE[0]}")/tools/local-path-provisioner/go.mod")

# set_components: what runs, for the node count and GlusterFS setting in
# effect (the environment's for up, what up recorded for the other verbs).
set_components() {
  [[ $node_count =~ ^[1-9]$ ]] || die "STORAGEBENCH_NODES must be 1 to 9 (got '$node_count')"
  local i
  components=(etcd kube-apiserver kube-controller-manager kube-scheduler)
  for i in $(node_indices); do components+=("$(node_component "$i" containerd)"); done
  components+=(harness)
  for i in $(node_indices); do components+=("$(node_component "$i" kubelet)"); done
  components+=(local-path-provisioner)
  [ "$gluster_spec" = none ] || components+=(glusterd)
}

pki=$state/pki
run=$state/run
logs=$state/logs
bin=$state/bin
kubeconfig=$state/kubeconfig

log() { echo "local-cluster: $*" >&2; }
die() { log "error: $*"; exit 1; }

check_state_path() {
  case "$state" in
    /*) ;;
    *) die "STORAGEBENCH_CLUSTER_DIR must be an absolute path (got '$state')" ;;
  esac
  state=$(realpath -m "$state")
  case "$state" in
    / | /var | /var/lib | /tmp | /root | /home | /usr | /etc | /opt | /run | /srv)
      die "refusing to use '$state' as the state folder: pick a dedicated folder" ;;
  esac
  pki=$state/pki run=$state/run logs=$state/logs bin=$state/bin
  kubeconfig=$state/kubeconfig
}

need_root() { [ "$(id -u)" = 0 ] || die "must run as root (loop devices, mounts, cgroups, containerd)"; }

# ---------------------------------------------------------------- processes

pidfile() { echo "$run/$1.pid"; }

# pid_of NAME: the recorded PID if that process is alive and still ours (its
# command line mentions the state folder, so a recycled PID is never taken).
pid_of() {
  local f pid
  f=$(pidfile "$1")
  [ -f "$f" ] || return 1
  pid=$(cat "$f" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "$state" || return 1
  echo "$pid"
}

alive() { pid_of "$1" >/dev/null; }

# start NAME CMD...: runs CMD in its own session, output to the log file,
# PID recorded.
start() {
  local name=$1; shift
  mkdir -p "$run" "$logs"
  echo "=== $(date -Is) starting: $*" >>"$logs/$name.log"
  setsid "$@" >>"$logs/$name.log" 2>&1 </dev/null &
  local pid=$! i
  echo "$pid" >"$(pidfile "$name")"
  # Until the child has exec'd, its command line is this script's, which
  # pid_of does not take for the component: a check in that window said
  # "exited" of a provisioner that was starting (seen once in CI).
  for i in $(seq 500); do
    [ -r "/proc/$pid/cmdline" ] || break
    tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "$state" && break
    sleep 0.02
  done
}

fail_component() {
  local name=$1; shift
  log "error: $*"
  if [ -f "$logs/$name.log" ]; then
    log "last lines of $logs/$name.log:"
    tail -n 30 "$logs/$name.log" >&2
  fi
  log "the cluster is half up: run 'hack/local-cluster.sh down' to clean up"
  exit 1
}

# wait_until NAME SECONDS DESCRIPTION CMD...: polls CMD every 0.2 s; fails
# with NAME's log tail on timeout or when NAME died.
wait_until() {
  local name=$1 secs=$2 what=$3; shift 3
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    # Asked twice, half a second apart: while a process execs, its command
    # line reads empty for a moment, and pid_of would not know it (a
    # provisioner that went on to start was reported as exited in CI).
    alive "$name" || { sleep 0.5 && alive "$name"; } || fail_component "$name" "$name exited while waiting for $what"
    [ "$SECONDS" -lt "$deadline" ] || fail_component "$name" "timed out after ${secs}s waiting for $what"
    sleep 0.2
  done
}

# stop NAME... : SIGTERM to all of them at once, SIGKILL to those still
# running after STOP_GRACE seconds (default 10). PID files are removed.
stop() {
  local name pid pids=() i
  for name in "$@"; do
    if pid=$(pid_of "$name"); then
      log "stopping $name (pid $pid)"
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  for ((i = 0; i < ${STOP_GRACE:-10} * 10 && ${#pids[@]} > 0; i++)); do
    local still=()
    for pid in "${pids[@]}"; do
      # Exited, or a zombie waiting for init to reap it.
      [ -d "/proc/$pid" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ] && still+=("$pid")
    done
    pids=("${still[@]}")
    [ ${#pids[@]} -gt 0 ] && sleep 0.1
  done
  for pid in "${pids[@]}"; do
    log "pid $pid did not stop in time: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  done
  for name in "$@"; do rm -f "$(pidfile "$name")"; done
}

# ------------------------------------------------------------------ install

install_packages() {
  local missing=() cmd pkg gluster_packages=
  [ "$gluster_spec" = none ] || gluster_packages="glusterd:glusterfs-server gluster:glusterfs-server mount.glusterfs:glusterfs-client"
  for pair in containerd:containerd runc:runc ctr:containerd containerd-shim-runc-v2:containerd \
    /usr/lib/cni/bridge:containernetworking-plugins /usr/lib/cni/host-local:containernetworking-plugins \
    /usr/lib/cni/loopback:containernetworking-plugins mkfs.ext4:e2fsprogs losetup:mount \
    mount:mount setsid:util-linux lsblk:util-linux ip:iproute2 curl:curl /bin/busybox:busybox-static $gluster_packages; do
    cmd=${pair%%:*} pkg=${pair#*:}
    if [ "$pkg" = busybox-static ]; then
      # Only the static build runs in the helper image (no libc there);
      # Debian's plain busybox also installs /bin/busybox.
      dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q "install ok installed" && continue
    elif [[ $cmd == /* ]]; then [ -x "$cmd" ] && continue; else command -v "$cmd" >/dev/null && continue; fi
    [[ " ${missing[*]} " == *" $pkg "* ]] || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing with apt-get: ${missing[*]}"
  # Package scripts must not start Debian's own containerd service: this
  # cluster runs its own containerd with its own config and socket.
  local policy=/usr/sbin/policy-rc.d created_policy=
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && created_policy=1
  fi
  local rc=0
  { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$logs/apt.log" 2>&1 || rc=$?
  [ -n "$created_policy" ] && rm -f "$policy"
  if [ $rc -ne 0 ]; then
    tail -n 20 "$logs/apt.log" >&2
    die "apt-get install failed (log: $logs/apt.log)"
  fi
}

# ------------------------------------------------------------------- builds

# local_path_settings: where the provisioner's binary and helper image are.
# The helper pods run sh, mkdir and rm: Debian's static busybox (its sh runs
# the applets without links) is the image's /bin/sh, tagged by its version.
local_path_settings() {
  local bb
  lpp_bin=$tools_bin/local-path-provisioner-$lpp_version
  bb=$(/bin/busybox 2>&1 | awk 'NR == 1 {sub(/^v/, "", $2); print $2}')
  [[ $bb =~ ^[0-9][0-9.]*$ ]] || die "cannot read the version of /bin/busybox (got '$bb')"
  lpp_helper_image=localhost/storagebench/local-path-helper:busybox-$bb
  lpp_helper_tar=$bin/local-path-helper-$bb.tar
}

build_tools() {
  mkdir -p "$bin"
  log "building the Kubernetes binaries (cached): hack/k8s-binaries.sh all"
  k8s_bin=$("$repo/hack/k8s-binaries.sh" all | tail -n 1)
  for b in etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl; do
    [ -x "$k8s_bin/$b" ] || die "hack/k8s-binaries.sh did not produce $k8s_bin/$b"
  done
  kubectl_bin=$k8s_bin/kubectl
  (cd "$here/local-cluster" && CGO_ENABLED=0 go build -trimpath -o "$bin/sbcluster.tmp" . && mv "$bin/sbcluster.tmp" "$bin/sbcluster") ||
    die "building hack/local-cluster failed"
  local_path_settings
  if [ ! -x "$lpp_bin" ]; then
    log "building local-path-provisioner $lpp_version from hack/tools/local-path-provisioner (cached in $tools_bin)"
    mkdir -p "$tools_bin"
    go -C "$here/tools/local-path-provisioner" build -trimpath -o "$lpp_bin.$$.tmp" github.com/rancher/local-path-provisioner &&
      mv "$lpp_bin.$$.tmp" "$lpp_bin" || die "building local-path-provisioner failed"
  fi
  if [ ! -s "$lpp_helper_tar" ]; then
    log "building the provisioner's helper image $lpp_helper_image"
    go -C "$here/image" run . build --binary /bin/busybox --entrypoint /bin/sh --user 0:0 \
      --name "${lpp_helper_image%:*}" --tag "${lpp_helper_image##*:}" --out "$lpp_helper_tar" >&2 ||
      die "building the helper image failed"
  fi
  if [ ! -s "$bin/pause.tar" ]; then
    log "building the pause image $pause_image"
    go -C "$here/image" run . build-pause --out "$bin/pause.tar" >&2 || die "building the pause image failed"
  fi
}

kc() { "$kubectl_bin" --kubeconfig "$kubeconfig" --request-timeout=10s "$@"; }

# ---------------------------------------------------------------- configs

write_kubeconfig() { # FILE USER CERTBASE
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: storagebench-local
  cluster:
    server: https://127.0.0.1:$apiserver_port
    certificate-authority: $pki/ca.crt
users:
- name: $2
  user:
    client-certificate: $pki/$3.crt
    client-key: $pki/$3.key
contexts:
- name: storagebench-local
  context: {cluster: storagebench-local, user: $2}
current-context: storagebench-local
EOF
}

write_configs() {
  mkdir -p "$state/conf" "$state/cni/net.d" "$state/containerd" "$state/kubelet" "$logs/pods"
  write_kubeconfig "$kubeconfig" admin admin
  write_kubeconfig "$state/conf/controller-manager.kubeconfig" kube-controller-manager controller-manager
  write_kubeconfig "$state/conf/scheduler.kubeconfig" kube-scheduler scheduler
  # Pods get no usable DNS server (nothing may leave the machine).
  echo "nameserver 127.0.0.1" >"$state/conf/resolv.conf"
  for i in $(node_indices); do write_node_configs "$i"; done
}

# write_node_configs NODE: the node's kubelet kubeconfig, CNI network,
# containerd and kubelet configs, in its folder.
write_node_configs() {
  local i=$1 d certs serving pods_log cgroup_root
  d=$(node_dir "$i")
  certs=kubelet-client serving=kubelet-serving pods_log=$logs/pods
  if [ "$i" != 1 ]; then
    certs=kubelet-client-$(node_name "$i") serving=kubelet-serving-$(node_name "$i") pods_log=$logs/pods-node-$i
  fi
  mkdir -p "$d/conf" "$d/cni/net.d" "$d/containerd" "$d/kubelet" "$pods_log"
  write_kubeconfig "$d/conf/kubelet.kubeconfig" kubelet "$certs"
  cat >"$d/cni/net.d/10-$cni_network.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "$cni_network",
  "plugins": [{
    "type": "bridge", "bridge": "$(node_bridge "$i")",
    "isGateway": false, "isDefaultGateway": false, "ipMasq": false, "hairpinMode": false,
    "ipam": {
      "type": "host-local", "dataDir": "$d/cni/ipam",
      "ranges": [[{"subnet": "$(node_subnet "$i")", "gateway": "$(node_gateway "$i")"}]],
      "routes": [{"dst": "$service_ip/32"}]
    }
  }]
}
EOF

  cat >"$d/containerd/config.toml" <<EOF
version = 2
root = "$d/containerd/root"
state = "$d/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper",
  "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = "$(node_sock "$i")"
[ttrpc]
  address = "$(node_sock "$i").ttrpc"
[debug]
  address = ""
[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = "$d/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_image"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  disable_apparmor = true
  device_ownership_from_security_context = true
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$d/containerd/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$d/cni/net.d"
    max_conf_num = 1
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$d/containerd/certs.d"
EOF

  cgroup_root=$(node_cgroup_root "$i")
  cat >"$d/conf/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $(node_ip "$i")
port: 10250
readOnlyPort: 0
healthzBindAddress: $(node_ip "$i")
healthzPort: 10248
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $pki/ca.crt}
authorization: {mode: Webhook}
tlsCertFile: $pki/$serving.crt
tlsPrivateKeyFile: $pki/$serving.key
rotateCertificates: false
serverTLSBootstrap: false
containerRuntimeEndpoint: unix://$(node_sock "$i")
imageServiceEndpoint: unix://$(node_sock "$i")
cgroupDriver: cgroupfs
cgroupsPerQOS: true
${cgroup_root:+cgroupRoot: /$cgroup_root}
failCgroupV1: false
failSwapOn: false
enforceNodeAllocatable: []
makeIPTablesUtilChains: false
# Imported images (pause, the operator) can never be pulled again: never
# garbage-collect them.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
imageMinimumGCAge: 87600h
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, nodefs.inodesFree: 1%, imagefs.available: 1%}
resolvConf: $state/conf/resolv.conf
clusterDomain: cluster.local
hairpinMode: none
podLogsDir: $pods_log
volumePluginDir: $d/kubelet/volume-plugins
shutdownGracePeriod: 0s
serializeImagePulls: false
maxPods: 110
EOF
}

# ------------------------------------------------------------------ storage

bytes_of() { "$bin/sbcluster" classes "x:0:$1" | awk '{print $3}'; }

# new_loop FILE SIZE: a sparse backing file and its direct-IO loop device
# (printed), recorded in $state/loops.
new_loop() {
  local loop
  rm -f "$1"
  truncate -s "$2" "$1"
  loop=$(losetup --direct-io=on --find --show "$1") || die "losetup failed for $1"
  echo "$loop $1" >>"$state/loops"
  echo "$loop"
}

# mount_ext4 LOOP LABEL DIR: a fresh ext4 on the loop device, mounted.
mount_ext4() {
  mkfs.ext4 -q -F -m 0 -L "sb-$2" -J size=32 -E lazy_itable_init=0,lazy_journal_init=0 "$1" ||
    die "mkfs.ext4 failed on $1"
  mount -o noatime "$1" "$3"
}

# storage_class_yaml NAME IOPS BPS CAP-SCOPE LOOPS BINDING [ANNOTATION]: a
# class local-path-provisioner serves, annotated with its ground truth.
storage_class_yaml() {
  cat <<EOF
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: $1
  labels: {$label_key: "true"}
  annotations:
    storagebench.dev/iops-cap: "$2"
    storagebench.dev/bandwidth-cap-bytes: "$3"
    storagebench.dev/cap-scope: "$4"
    storagebench.dev/backing: "$backing"
    storagebench.dev/loop-devices: "$5"
${7:+    $7}
provisioner: $lpp_name
volumeBindingMode: $6
reclaimPolicy: Delete
EOF
}

setup_storage() {
  local size_b block_b per_b name iops bps dir fsloop blkloop fsdev blkdev i
  size_b=$(bytes_of "$class_size") || die "STORAGEBENCH_CLASS_SIZE '$class_size' is not a size"
  block_b=$(bytes_of "$block_pv_size") || die "STORAGEBENCH_BLOCK_PV_SIZE '$block_pv_size' is not a size"
  [[ $pvs_per_class =~ ^[1-9][0-9]*$ ]] || die "STORAGEBENCH_PVS_PER_CLASS must be a positive number"
  per_b=$((size_b * 9 / 10 / pvs_per_class / 1048576)) # MiB, leaving ext4 overhead aside
  "$bin/sbcluster" classes "$classes_spec" >"$run/classes.parsed" || die "bad STORAGEBENCH_CLASSES '$classes_spec'"
  local n_backing
  n_backing=$(wc -l <"$run/classes.parsed")
  if [ "$gluster_spec" != none ]; then
    "$bin/sbcluster" classes "$gluster_spec" >"$run/gluster.parsed" && [ "$(wc -l <"$run/gluster.parsed")" = 1 ] ||
      die "STORAGEBENCH_GLUSTER must be one name:iops[:bandwidth] or none (got '$gluster_spec')"
    read -r name _ _ <"$run/gluster.parsed"
    awk -v n="$name" '$1 == n {exit 1}' "$run/classes.parsed" ||
      die "STORAGEBENCH_GLUSTER: class $name is also in STORAGEBENCH_CLASSES"
    n_backing=$((n_backing + 1))
  fi
  mkdir -p "$state/storage"
  case "$backing" in
    memory)
      mount -t tmpfs -o "size=$(((size_b + block_b) * n_backing + 64 * 1048576)),mode=0700" storagebench-backing "$state/storage" ||
        die "mounting the tmpfs for the backing files failed"
      ;;
    disk) ;;
    *) die "STORAGEBENCH_BACKING must be memory or disk (got '$backing')" ;;
  esac
  : >"$state/loops"
  : >"$run/caps.conf"
  : >"$run/classes.conf"
  : >"$state/conf/storage.yaml"
  lpp_paths=()
  # Static PVs may be used from every node: their folders and devices are on
  # this machine, which every node is.
  local node_values= n
  for n in $(node_indices); do node_values+="${node_values:+, }\"$(node_name "$n")\""; done
  while read -r name iops bps; do
    dir=$state/storage/$name
    mkdir -p "$dir/mnt"
    fsloop=$(new_loop "$dir/fs.img" "$size_b")
    blkloop=$(new_loop "$dir/block.img" "$block_b")
    mount_ext4 "$fsloop" "$name" "$dir/mnt"
    # Dynamically provisioned volumes: local-path-provisioner's helper pods
    # make one folder per claim here (see write_provisioner_config).
    mkdir -p "$dir/mnt/dynamic"
    lpp_paths+=("$name=$dir/mnt/dynamic")
    fsdev=$(lsblk -dno MAJ:MIN "$fsloop" | tr -d ' ')
    blkdev=$(lsblk -dno MAJ:MIN "$blkloop" | tr -d ' ')
    echo "$name $fsdev $iops $bps" >>"$run/caps.conf"
    echo "$name $blkdev $iops $bps" >>"$run/caps.conf"
    echo "$name $iops $bps $fsloop $blkloop $dir/mnt" >>"$run/classes.conf"
    {
      storage_class_yaml "$name" "$iops" "$bps" "$cap_scope" "$fsloop,$blkloop" WaitForFirstConsumer
      for ((i = 0; i < pvs_per_class; i++)); do
        mkdir -p "$dir/mnt/rwx-$i"
        chmod 1777 "$dir/mnt/rwx-$i"
        cat <<EOF
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: $name-rwx-$i
  labels: {$label_key: "true", storagebench.dev/class: $name}
spec:
  capacity: {storage: ${per_b}Mi}
  accessModes: [ReadWriteMany]
  volumeMode: Filesystem
  persistentVolumeReclaimPolicy: Retain
  storageClassName: $name
  local: {path: $dir/mnt/rwx-$i}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [$node_values]}]
EOF
      done
      cat <<EOF
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: $name-block
  labels: {$label_key: "true", storagebench.dev/class: $name}
spec:
  capacity: {storage: $((block_b / 1048576))Mi}
  accessModes: [ReadWriteOnce]
  volumeMode: Block
  persistentVolumeReclaimPolicy: Retain
  storageClassName: $name
  local: {path: $blkloop}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [$node_values]}]
EOF
    } >>"$state/conf/storage.yaml"
  done <"$run/classes.parsed"
  [ "$gluster_spec" = none ] || setup_gluster_storage
  write_provisioner_config "${lpp_paths[@]}"
}

# setup_gluster_storage: the brick's capped loop device (its caps bound the
# volume: every IO of every client ends on it) and the class, provisioned by
# local-path-provisioner on the volume's mount (sharedFileSystemPath: every
# access mode, no node affinity). The volume itself starts in setup_gluster.
setup_gluster_storage() {
  local name iops bps dir brickloop brickdev
  read -r name iops bps <"$run/gluster.parsed"
  dir=$state/storage/$name
  mkdir -p "$dir/brick" "$dir/mnt"
  brickloop=$(new_loop "$dir/brick.img" "$size_b")
  mount_ext4 "$brickloop" "$name" "$dir/brick"
  brickdev=$(lsblk -dno MAJ:MIN "$brickloop" | tr -d ' ')
  echo "$name $brickdev $iops $bps" >>"$run/caps.conf"
  echo "$name $iops $bps $brickloop - $dir/mnt" >>"$run/classes.conf"
  lpp_paths+=("$name=shared:$dir/mnt/dynamic")
  # Immediate, as network file system classes are: with WaitForFirstConsumer
  # the scheduler pins every pod waiting for a shared claim to the node its
  # first pod was given (the claim's selected node), so clients sharing one
  # claim would all land on one node.
  storage_class_yaml "$name" "$iops" "$bps" "volume (the brick's device)" "$brickloop" Immediate \
    "storagebench.dev/network-file-system: \"GlusterFS $(glusterd --version | awk 'NR == 1 {print $2}') (FUSE client), volume $gluster_volume on $gluster_server_addr, one brick, performance.strict-o-direct on\"" \
    >>"$state/conf/storage.yaml"
}

# setup_gluster: the network namespace and veth pair, glusterd in it, the
# volume on the brick, and the FUSE mount on the host.
setup_gluster() {
  local name dir g
  read -r name _ _ <"$run/gluster.parsed"
  dir=$state/storage/$name
  ip netns add "$gluster_netns"
  ip link add "$gluster_veth_host" type veth peer name "$gluster_veth_ns"
  ip link set "$gluster_veth_ns" netns "$gluster_netns"
  ip addr add "$gluster_host_addr/30" dev "$gluster_veth_host"
  ip link set "$gluster_veth_host" up
  ip -n "$gluster_netns" addr add "$gluster_server_addr/30" dev "$gluster_veth_ns"
  ip -n "$gluster_netns" link set "$gluster_veth_ns" up
  ip -n "$gluster_netns" link set lo up
  # Everything glusterd keeps (its working and run folders, the CLI socket)
  # under the state folder; only the bricks' sockets go to /run/gluster
  # whatever the config says (down removes ours).
  mkdir -p "$state/gluster/glusterd" "$state/gluster/run"
  cat >"$state/gluster/glusterd.vol" <<EOF
volume management
    type mgmt/glusterd
    option working-directory $state/gluster/glusterd
    option run-directory $state/gluster/run
    option glusterd-sockfile $state/gluster/run/glusterd.socket
    option transport-type socket
    option transport.address-family inet
    option transport.socket.bind-address $gluster_server_addr
    option transport.socket.listen-port 24007
    option ping-timeout 0
    option event-threads 1
    option base-port 49152
    option max-port 49251
end-volume
EOF
  # In the root blkio cgroup, whose caps hold the brick's device, whatever
  # cgroup this script was started from.
  start glusterd bash -c 'echo $$ >/sys/fs/cgroup/blkio/cgroup.procs && exec "$@"' glusterd \
    ip netns exec "$gluster_netns" glusterd -N -f "$state/gluster/glusterd.vol" --log-file=- --pid-file="$state/gluster/run/glusterd.pid"
  g=(ip netns exec "$gluster_netns" gluster --mode=script --glusterd-sock="$state/gluster/run/glusterd.socket" --log-file="$logs/gluster-cli.log")
  wait_until glusterd 30 "glusterd" "${g[@]}" volume list
  mkdir -p "$dir/brick/data"
  { "${g[@]}" volume create "$gluster_volume" "$gluster_server_addr:$dir/brick/data" force &&
    "${g[@]}" volume set "$gluster_volume" performance.strict-o-direct on &&
    "${g[@]}" volume start "$gluster_volume"; } >>"$logs/glusterd.log" 2>&1 ||
    fail_component glusterd "creating the GlusterFS volume failed"
  mount -t glusterfs -o "log-file=$logs/gluster-mount.log" "$gluster_server_addr:/$gluster_volume" "$dir/mnt" ||
    fail_component glusterd "mounting the GlusterFS volume failed (log: $logs/gluster-mount.log)"
  mkdir -p "$dir/mnt/dynamic"
}

# gluster_down: the FUSE mount first (its client process must not be killed
# under a live mount), then every process in the namespace (glusterd and the
# brick), the namespace and the veth pair, the bricks' stale sockets.
gluster_down() {
  local mp l listening
  while read -r mp; do
    umount "$mp" 2>/dev/null || umount -l "$mp" 2>/dev/null || true
  done < <(awk -v s="$state/" '$3 == "fuse.glusterfs" && index($2, s) == 1 {print $2}' /proc/self/mounts)
  if ip netns list 2>/dev/null | grep -qw "$gluster_netns"; then
    for ((l = 0; l < 50; l++)); do
      [ -z "$(ip netns pids "$gluster_netns" 2>/dev/null)" ] && break
      # shellcheck disable=SC2046
      kill -$([ $l -lt 20 ] && echo TERM || echo KILL) $(ip netns pids "$gluster_netns") 2>/dev/null || true
      sleep 0.1
    done
    ip netns del "$gluster_netns" 2>/dev/null || log "warning: cannot delete network namespace $gluster_netns"
  fi
  rm -f "$(pidfile glusterd)"
  ip link del "$gluster_veth_host" 2>/dev/null || true
  if [ -d /run/gluster ]; then
    listening=$(ss -xlH 2>/dev/null | awk '{print $5}')
    for l in /run/gluster/*.socket; do
      [ -S "$l" ] && ! grep -qxF -- "$l" <<<"$listening" && rm -f "$l"
    done
    rmdir /run/gluster/snaps /run/gluster 2>/dev/null || true
  fi
  # The bricks log under /var/log/glusterfs/bricks, named by their path.
  rm -f "/var/log/glusterfs/bricks/$(tr / - <<<"${state#/}")"-*.log
}

# write_provisioner_config CLASS=PATH|CLASS=shared:PATH...: local-path-
# provisioner's config (one folder per class, on that class's capped device;
# shared: a file system every node mounts), the helper pod it starts
# to make and remove a volume's folder, and what those pods need in the
# cluster (namespace, service account, the scripts' ConfigMap).
write_provisioner_config() {
  local pair first=1
  {
    echo '{"storageClassConfigs": {'
    for pair in "$@"; do
      [ $first = 1 ] || echo ','
      first=0
      case "${pair#*=}" in
        shared:*) printf '  "%s": {"sharedFileSystemPath": "%s"}' "${pair%%=*}" "${pair#*=shared:}" ;;
        *) printf '  "%s": {"nodePathMap": [{"node": "DEFAULT_PATH_FOR_NON_LISTED_NODES", "paths": ["%s"]}]}' "${pair%%=*}" "${pair#*=}" ;;
      esac
    done
    printf '\n}}\n'
  } >"$state/conf/local-path-config.json"
  # Upstream's helper pod, minus its system-node-critical priority (nothing
  # competes for this node) and with our image (busybox: sh, mkdir, rm).
  cat >"$state/conf/local-path-helper-pod.yaml" <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: helper-pod
spec:
  containers:
  - name: helper-pod
    image: $lpp_helper_image
    imagePullPolicy: IfNotPresent
EOF
  cat >>"$state/conf/storage.yaml" <<EOF
---
apiVersion: v1
kind: Namespace
metadata:
  name: $lpp_namespace
  labels: {$label_key: "true"}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: $lpp_service_account
  namespace: $lpp_namespace
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: local-path-config
  namespace: $lpp_namespace
data:
  setup: |-
    #!/bin/sh
    set -eu
    mkdir -m 0777 -p "\$VOL_DIR"
  teardown: |-
    #!/bin/sh
    set -eu
    rm -rf "\$VOL_DIR"
EOF
}

setup_network() {
  local i br
  for i in $(node_indices); do
    br=$(node_bridge "$i")
    if ! ip link show "$br" >/dev/null 2>&1; then
      ip link add "$br" type bridge
    fi
    # A bridge without an address of its own takes the lowest MAC among its
    # ports, so it changes whenever a pod's veth comes or goes. Pods cache the
    # gateway's (and the Service address's) MAC, and after such a change their
    # packets to the API go to a MAC nobody has until the neighbour entry
    # expires: 30 to 45 s without the API after pod churn. A fixed, locally
    # administered address (02:...) stops that.
    ip link set "$br" address "02:5b:be:00:00:0$i"
    ip addr replace "$(node_gateway "$i")/24" dev "$br"
    ip link set "$br" up
  done
  # The kubernetes Service address lives on node 1's bridge; pods of every
  # node reach it through their gateway (it is an address of this host).
  ip addr replace "$service_ip/32" dev "$bridge"
}

# setup_node_cgroups: the cgroup roots of nodes 2..N in every cgroup v1
# controller (the kubelet refuses a cgroupRoot that does not exist); cpuset
# children start empty, so they get their parent's CPUs and memory nodes.
setup_node_cgroups() {
  local i root c
  for i in $(node_indices); do
    root=$(node_cgroup_root "$i")
    [ -n "$root" ] || continue
    for c in /sys/fs/cgroup/*/; do
      [ -e "$c/cgroup.procs" ] || continue
      mkdir -p "$c$root"
      if [ -e "$c$root/cpuset.cpus" ]; then
        cat "${c}cpuset.cpus" >"$c$root/cpuset.cpus"
        cat "${c}cpuset.mems" >"$c$root/cpuset.mems"
      fi
    done
  done
}

# ----------------------------------------------------------------------- up

cmd_up() {
  need_root
  local t0=$SECONDS c running=() dead=()
  for c in "${components[@]}"; do
    if alive "$c"; then running+=("$c"); else dead+=("$c"); fi
  done
  if [ ${#dead[@]} -eq 0 ]; then
    log "already running (nothing to do); kubeconfig: $kubeconfig"
    echo "$kubeconfig"
    return 0
  fi
  if [ ${#running[@]} -gt 0 ] || [ -d "$run" ] || [ -f "$state/loops" ]; then
    log "leftovers of an earlier run (running: ${running[*]:-none}); cleaning up first"
    cmd_down
  fi
  [ -d /sys/fs/cgroup/blkio ] && [ -e /sys/fs/cgroup/blkio/blkio.throttle.read_iops_device ] ||
    die "cgroup v1 blkio controller not found at /sys/fs/cgroup/blkio (needed for the IOPS caps)"
  mkdir -p "$state" "$logs" "$run"
  touch "$state/.storagebench-local-cluster"
  # Fresh logs for this run; the previous run's stay in logs/previous.
  if compgen -G "$logs/*.log" >/dev/null; then
    rm -rf "$logs/previous" && mkdir -p "$logs/previous"
    mv "$logs"/*.log "$logs/previous/"
    [ -d "$logs/pods" ] && mv "$logs/pods" "$logs/previous/pods"
    for d in "$logs"/pods-node-*; do [ -d "$d" ] && mv "$d" "$logs/previous/"; done
  fi
  install_packages
  build_tools
  local tb=$SECONDS
  local i nodes_arg=
  for i in $(node_indices); do nodes_arg+="${nodes_arg:+,}$(node_name "$i")=$(node_ip "$i")"; done
  "$bin/sbcluster" pki --dir "$pki" --service-ip "$service_ip" --nodes "$nodes_arg" || die "creating the PKI failed"
  for port in "$kv_port" "$kv_peer_port" "$apiserver_port" 10250 10248; do
    if ss -Htln "sport = :$port" | grep -q .; then
      die "port $port on this machine is in use: $(ss -Htlnp "sport = :$port" | head -1)"
    fi
  done
  write_configs
  printf 'cap_scope=%q\nbacking=%q\ngluster_spec=%q\nnode_count=%q\nlpp_bin=%q\nlpp_helper_image=%q\n' \
    "$cap_scope" "$backing" "$gluster_spec" "$node_count" "$lpp_bin" "$lpp_helper_image" >"$run/settings"
  setup_storage
  setup_network
  setup_node_cgroups
  [ "$gluster_spec" = none ] || setup_gluster

  start etcd "$k8s_bin/etcd" --name=storagebench --data-dir="$state/etcd" \
    --listen-client-urls="http://127.0.0.1:$kv_port" --advertise-client-urls="http://127.0.0.1:$kv_port" \
    --listen-peer-urls="http://127.0.0.1:$kv_peer_port" --initial-advertise-peer-urls="http://127.0.0.1:$kv_peer_port" \
    --initial-cluster="storagebench=http://127.0.0.1:$kv_peer_port" --log-level=warn
  wait_until etcd 60 "etcd health" curl -fsS --noproxy '*' "http://127.0.0.1:$kv_port/health"

  start kube-apiserver "$k8s_bin/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$kv_port" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$apiserver_port" \
    --endpoint-reconciler-type=none \
    --service-cluster-ip-range="$service_cidr" \
    --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
    --client-ca-file="$pki/ca.crt" \
    --kubelet-client-certificate="$pki/apiserver-kubelet-client.crt" --kubelet-client-key="$pki/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority="$pki/ca.crt" \
    --kubelet-preferred-address-types=Hostname,InternalIP \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --allow-privileged=true --profiling=false --event-ttl=1h
  wait_until kube-apiserver 90 "kube-apiserver /readyz" kc get --raw /readyz

  start kube-controller-manager "$k8s_bin/kube-controller-manager" \
    --kubeconfig="$state/conf/controller-manager.kubeconfig" \
    --leader-elect=false --secure-port=0 --bind-address=127.0.0.1 \
    --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
    --use-service-account-credentials=true --service-cluster-ip-range="$service_cidr" \
    --allocate-node-cidrs=false --profiling=false
  start kube-scheduler "$k8s_bin/kube-scheduler" \
    --kubeconfig="$state/conf/scheduler.kubeconfig" \
    --leader-elect=false --secure-port=0 --bind-address=127.0.0.1 --profiling=false

  local ctrd kubelet_c kubepods
  for i in $(node_indices); do
    ctrd=$(node_component "$i" containerd)
    start "$ctrd" containerd --config "$(node_dir "$i")/containerd/config.toml"
    wait_until "$ctrd" 60 "$ctrd socket" ctr --address "$(node_sock "$i")" version
    for img in "$bin/pause.tar" "$lpp_helper_tar"; do
      ctr --address "$(node_sock "$i")" -n k8s.io images import "$img" >>"$logs/$ctrd.log" 2>&1 ||
        fail_component "$ctrd" "importing the image $img failed"
    done
  done
  kubepods=kubepods
  for i in $(node_indices); do [ "$i" = 1 ] || kubepods+=",$(node_cgroup_root "$i")/kubepods"; done

  start harness "$bin/sbcluster" harness --state "$state" --scope "$cap_scope" \
    --shared-cgroup "$shared_blkio_cgroup" --apiserver "https://127.0.0.1:$apiserver_port" \
    --proxy-listen "$service_ip:443" --proxy-target "127.0.0.1:$apiserver_port" --kubepods "$kubepods"

  # One kubelet after the other: each removes the sockets in the device
  # plugin folder every kubelet shares (its path is hard-coded) and then
  # listens there, so two starting together can remove each other's socket
  # between those steps ("bind: address already in use", seen on a cold up).
  local plugin_sock=/var/lib/kubelet/device-plugins/kubelet.sock
  for i in $(node_indices); do
    kubelet_c=$(node_component "$i" kubelet)
    rm -f "$plugin_sock"
    start "$kubelet_c" "$k8s_bin/kubelet" --config="$(node_dir "$i")/conf/kubelet.yaml" \
      --kubeconfig="$(node_dir "$i")/conf/kubelet.kubeconfig" --hostname-override="$(node_name "$i")" \
      --root-dir="$(node_dir "$i")/kubelet" --cert-dir="$(node_dir "$i")/kubelet/pki" --v=1
    wait_until "$kubelet_c" 60 "$kubelet_c listening in the device plugin folder" test -S "$plugin_sock"
  done
  for i in $(node_indices); do
    kubelet_c=$(node_component "$i" kubelet)
    wait_until "$kubelet_c" 90 "node $(node_name "$i") Ready" \
      bash -c "'$kubectl_bin' --kubeconfig '$kubeconfig' --request-timeout=5s get node $(node_name "$i") -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
  done
  wait_until kube-controller-manager 90 "the default ServiceAccount" kc -n default get serviceaccount default

  kc apply -f "$state/conf/storage.yaml" >"$logs/storage-apply.log" 2>&1 ||
    { cat "$logs/storage-apply.log" >&2; die "creating the storage classes failed"; }
  start_provisioner
  for c in "${components[@]}"; do alive "$c" || fail_component "$c" "$c died during start-up"; done
  log "up in $((SECONDS - t0))s (start after builds: $((SECONDS - tb))s)"
  cmd_status
}

# start_provisioner: local-path-provisioner as a process of the host (like
# the harness) with the admin kubeconfig; its helper pods run in the cluster.
start_provisioner() {
  local from
  from=$(($(stat -c %s "$logs/local-path-provisioner.log" 2>/dev/null || echo 0) + 1))
  start local-path-provisioner "$lpp_bin" start --kubeconfig "$kubeconfig" \
    --provisioner-name "$lpp_name" --namespace "$lpp_namespace" \
    --service-account-name "$lpp_service_account" --helper-image "$lpp_helper_image" \
    --config "$state/conf/local-path-config.json" --helper-pod-file "$state/conf/local-path-helper-pod.yaml"
  # It logs this once its informers run and it takes claims (looked for in
  # what this start wrote: the log is appended to).
  wait_until local-path-provisioner 60 "local-path-provisioner to start" \
    bash -c "tail -c +$from '$logs/local-path-provisioner.log' | grep -q 'Started provisioner controller'"
}

# cmd_provisioner stop|start: stops (SIGKILL, as a crash would) or restarts
# the provisioner of a running cluster, for tests of what benchmarks do when
# provisioning stalls.
cmd_provisioner() {
  need_root
  local pid
  case "${1:-}" in
    stop)
      pid=$(pid_of local-path-provisioner) || die "local-path-provisioner is not running"
      kill -KILL "$pid"
      while [ -d "/proc/$pid" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]; do sleep 0.1; done
      rm -f "$(pidfile local-path-provisioner)"
      log "local-path-provisioner killed (pid $pid)"
      ;;
    start)
      alive kube-apiserver || die "the cluster is not running (hack/local-cluster.sh up)"
      alive local-path-provisioner && die "local-path-provisioner is already running"
      # The binary and helper image up started with (run/settings).
      [ -n "${lpp_helper_image:-}" ] || local_path_settings
      start_provisioner
      log "local-path-provisioner started (pid $(pid_of local-path-provisioner))"
      ;;
    *) die "usage: hack/local-cluster.sh provisioner stop|start" ;;
  esac
}

# --------------------------------------------------------------------- down

# Processes of ours that no PID file names: containerd shims (their command
# line names our socket), container processes (their root is a rootfs under
# the state folder, or they sit in the kubelet's or our cgroups).
stray_pids() {
  # A few processes in all (this runs on busy machines, often): grep and find
  # over /proc. The "[/]" keeps grep from matching its own command line.
  local re
  re="[/]$(sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"${state#/}")/"
  {
    grep -laE -- "$re" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3
    find /proc/[0-9]*/root -maxdepth 0 -lname "$state/*" 2>/dev/null | cut -d/ -f3
    find /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/*/storagebench-node-* "/sys/fs/cgroup/blkio/$shared_blkio_cgroup" -name cgroup.procs -exec cat {} + 2>/dev/null
  } | sort -un | grep -vxE "$$|$BASHPID" || true
}

kill_strays() {
  local i pids
  for ((i = 0; i < 20; i++)); do
    pids=$(stray_pids)
    [ -z "$pids" ] && return 0
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    sleep 0.2
  done
  log "warning: processes still alive: $(stray_pids | tr '\n' ' ')"
}

# our_loops [kubelet]: loop devices of ours. Class loops are recorded in
# $state/loops ("device backing-file" per line) and matched by backing file;
# after a lazy unmount of the backing tmpfs the kernel shows the file's path
# relative to that tmpfs, so a recorded path ending in it matches too. Loops
# whose backing file is under the state folder (the kubelet locks block
# volumes with a loop on the device file it maps) are ours as well.
our_loops() {
  local l dev f rec_dev rec_path
  for l in /sys/block/loop*; do
    f=$(cat "$l/loop/backing_file" 2>/dev/null) || continue
    dev=/dev/${l#/sys/block/}
    case "$f" in
      "$state"/*) echo "$dev"; continue ;;
    esac
    [ -f "$state/loops" ] || continue
    while read -r rec_dev rec_path; do
      if [ "$dev" = "$rec_dev" ] && [ "$f" != / ] && [[ $rec_path == *"$f" ]]; then echo "$dev"; fi
    done <"$state/loops"
  done | sort -u
}

detach_loops() {
  local l
  for l in $(our_loops); do
    losetup -d "$l" 2>/dev/null || true
  done
}

# unmount_all [lazy]: unmounts every mount point under the state folder and
# every mount of one of our loop devices, deepest first. Without "lazy" a
# busy mount is left for a later pass: lazily unmounting the tmpfs that holds
# the loop devices' backing files would hide them from our_loops.
unmount_all() {
  local i mps loops lazy=${1:-}
  for ((i = 0; i < 4; i++)); do
    loops=$(our_loops | tr '\n' '|')
    mps=$(awk -v s="$state/" -v l="|$loops" '
      { mp=$5; gsub(/\\040/, " ", mp); src=""; for (j=7; j<=NF; j++) if ($j=="-") { src=$(j+2); break } }
      index(mp "/", s)==1 || (src != "" && index(l, "|" src "|")) { print mp }' /proc/self/mountinfo | awk '{ print length, $0 }' | sort -rn | cut -d' ' -f2-)
    [ -z "$mps" ] && return 0
    while IFS= read -r mp; do
      umount "$mp" 2>/dev/null || { [ -n "$lazy" ] && umount -l "$mp" 2>/dev/null; } || true
    done <<<"$mps"
  done
  [ -n "$lazy" ] && log "warning: mounts left: $mps"
  return 0
}

remove_cgroups() {
  local i left d
  for ((i = 0; i < 25; i++)); do
    left=0
    for d in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/*/storagebench-node-* "/sys/fs/cgroup/blkio/$shared_blkio_cgroup"; do
      [ -d "$d" ] || continue
      # Deepest first.
      while IFS= read -r sub; do rmdir "$sub" 2>/dev/null || left=1; done < <(find "$d" -depth -type d 2>/dev/null)
    done
    [ $left = 0 ] && return 0
    sleep 0.2
  done
  log "warning: cgroups left: $(ls -d /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/*/storagebench-node-* "/sys/fs/cgroup/blkio/$shared_blkio_cgroup" 2>/dev/null | tr '\n' ' ')"
}

cmd_down() {
  need_root
  local purge=${STORAGEBENCH_CLUSTER_PURGE:-0} t0=$SECONDS l
  [ "${1:-}" = --purge ] && purge=1
  local kubelets=() ctrds=() i
  for i in 1 2 3 4 5 6 7 8 9; do
    kubelets+=("$(node_component "$i" kubelet)") ctrds+=("$(node_component "$i" containerd)")
  done
  stop local-path-provisioner "${kubelets[@]}" # first: nothing starts pods or restarts containers after this
  gluster_down
  stop harness "${ctrds[@]}" kube-scheduler kube-controller-manager kube-apiserver etcd
  kill_strays # containers, shims, anything else of ours whose PID file is gone
  # Root-cgroup caps of our loop devices (the harness removes them on a clean
  # stop; after a crash they would stay until the loops are detached).
  if [ -f "$run/caps.conf" ]; then
    while read -r _ dev _ _; do
      for f in read_iops write_iops read_bps write_bps; do
        echo "$dev 0" >"/sys/fs/cgroup/blkio/blkio.throttle.${f}_device" 2>/dev/null || true
      done
    done <"$run/caps.conf"
  fi
  # Order matters: the kubelet's lock loops, then the mounts (pod volumes,
  # class file systems), then the class loops, and only then the tmpfs that
  # holds their backing files.
  detach_loops
  unmount_all
  detach_loops
  sleep 0.2 # loop detach is asynchronous: let autoclear finish
  unmount_all lazy
  remove_cgroups
  # Network: veths on our bridges (normally gone with the netns), the bridges.
  for br in $(our_bridges); do
    for l in $(ip -o link show master "$br" 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
      ip link del "$l" 2>/dev/null || true
    done
    ip link del "$br" 2>/dev/null || log "warning: cannot delete bridge $br"
  done
  # Files outside the state folder: the kubelet's log symlinks, the CNI
  # result cache and stale shim sockets of our containerd.
  for l in /var/log/containers/*; do
    [ -L "$l" ] && case "$(readlink "$l")" in "$state"/*) rm -f "$l" ;; esac
  done
  rmdir /var/log/containers 2>/dev/null || true
  for l in /var/lib/cni/results/*; do
    [ -f "$l" ] && grep -qF -- "$state/" "$l" && rm -f "$l"
  done
  rmdir /var/lib/cni/results /var/lib/cni 2>/dev/null || true
  # The kubelet's device-plugin socket path is fixed (not under --root-dir).
  rm -f /var/lib/kubelet/device-plugins/kubelet.sock
  rmdir /var/lib/kubelet/device-plugins /var/lib/kubelet 2>/dev/null || true
  # containerd shims keep their sockets in /run/containerd/s whatever the
  # config says; a killed shim leaves its socket behind. Remove sockets no
  # process listens on (ours are all dead by now), then the folders if empty.
  if [ -d /run/containerd/s ]; then
    local listening
    listening=$(ss -xlH 2>/dev/null | awk '{print $5}')
    for l in /run/containerd/s/*; do
      [ -S "$l" ] && ! grep -qxF -- "$l" <<<"$listening" && rm -f "$l"
    done
    rmdir /run/containerd/s /run/containerd 2>/dev/null || true
  fi
  if [ -d "$state" ]; then
    if [ "$purge" = 1 ]; then
      if [ -e "$state/.storagebench-local-cluster" ]; then
        rm -rf "$state"
      else
        log "warning: not removing $state: no .storagebench-local-cluster marker in it"
      fi
    else
      rm -rf "$state/etcd" "$state/containerd" "$state/kubelet" "$state/storage" "$state/cni" "$state/run" "$state/gluster" "$state"/node-[0-9]
      [ -n "$(our_loops)" ] || rm -f "$state/loops"
    fi
  fi
  log "down in $((SECONDS - t0))s$([ "$purge" = 1 ] && echo " (state folder removed)" || echo "; kept $pki, $bin and $logs")"
  report_leftovers
}

# our_bridges: the nodes' bridges (sbench0..8, whatever STORAGEBENCH_NODES
# says now), by name (also one left by a crash before its address was set).
our_bridges() {
  ip -o link show type bridge 2>/dev/null | awk -F': ' '$2 ~ /^sbench[0-8]$/ {print $2}'
}

report_leftovers() {
  local out=""
  [ -n "$(stray_pids)" ] && out+=" processes: $(stray_pids | tr '\n' ' ');"
  grep -qF -- " $state/" /proc/self/mountinfo && out+=" mounts under $state;"
  [ -n "$(our_loops)" ] && out+=" loop devices: $(our_loops | tr '\n' ' ');"
  compgen -G "/sys/fs/cgroup/*/kubepods" >/dev/null || compgen -G "/sys/fs/cgroup/*/storagebench-node-*" >/dev/null ||
    [ -d "/sys/fs/cgroup/blkio/$shared_blkio_cgroup" ] && out+=" cgroups;"
  for l in $(our_bridges); do out+=" bridge $l;"; done
  ip netns list 2>/dev/null | grep -qw "$gluster_netns" && out+=" network namespace $gluster_netns;"
  ip link show "$gluster_veth_host" >/dev/null 2>&1 && out+=" veth $gluster_veth_host;"
  if [ -n "$out" ]; then
    log "warning: left behind:$out"
    return 1
  fi
  log "nothing left behind (no process, mount, loop device, cgroup, bridge or network namespace of ours)"
}

# ------------------------------------------------------------------- status

cmd_status() {
  local c pid ready=unknown
  # What up was started with, not what this shell's environment says now.
  # shellcheck disable=SC1091
  [ -f "$run/settings" ] && . "$run/settings"
  echo "state folder: $state"
  for c in "${components[@]}"; do
    if pid=$(pid_of "$c"); then
      printf '  %-24s pid %-8s alive\n' "$c" "$pid"
    elif [ -f "$(pidfile "$c")" ]; then
      printf '  %-24s pid %-8s dead (log: %s)\n' "$c" "$(cat "$(pidfile "$c")")" "$logs/$c.log"
    else
      printf '  %-24s %-12s not started\n' "$c" "-"
    fi
  done
  echo "kubeconfig: $kubeconfig   (export KUBECONFIG=$kubeconfig)"
  if alive kube-apiserver && [ -x "${kubectl_bin:-}" ]; then
    ready=$(kc get nodes -o jsonpath='{range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}' 2>/dev/null || echo "not registered")
  fi
  echo "nodes Ready: $ready"
  echo "storage classes (cap scope: $cap_scope; backing: $backing; IOPS cap applies to reads and to writes):"
  if [ -f "$run/classes.conf" ]; then
    printf '  %-16s %-10s %-14s %-12s %-12s %s\n' CLASS IOPS-CAP BANDWIDTH-CAP FS-LOOP BLOCK-LOOP MOUNT
    while read -r name iops bps fsloop blkloop mnt; do
      printf '  %-16s %-10s %-14s %-12s %-12s %s\n' "$name" "$([ "$iops" = 0 ] && echo none || echo "$iops")" \
        "$([ "$bps" = 0 ] && echo none || echo "${bps}B/s")" "$fsloop" "$blkloop" "$mnt"
    done <"$run/classes.conf"
  else
    echo "  (none: not up)"
  fi
}

cmd_load_image() {
  need_root
  [ $# -eq 1 ] || die "usage: hack/local-cluster.sh load-image FILE.tar"
  [ -f "$1" ] || die "no such file: $1"
  alive containerd || die "the cluster's containerd is not running (hack/local-cluster.sh up)"
  local i
  for i in $(node_indices); do
    ctr --address "$(node_sock "$i")" -n k8s.io images import "$1" || die "importing $1 into node $(node_name "$i")'s containerd failed"
  done
}

cmd_set_cap() {
  need_root
  [ $# -eq 2 ] || die "usage: hack/local-cluster.sh set-cap CLASS IOPS[:BANDWIDTH]"
  local class=$1 parsed iops bps pid want got i
  alive harness || die "the cluster's harness is not running (hack/local-cluster.sh up)"
  grep -q "^$class " "$run/classes.conf" 2>/dev/null ||
    die "set-cap: no class '$class' (classes: $(awk '{print $1}' "$run/classes.conf" | tr '\n' ' '))"
  parsed=$("$bin/sbcluster" classes "$class:$2") || die "set-cap: '$2' is not IOPS[:BANDWIDTH] (e.g. 1000 or 1000:64Mi)"
  read -r _ iops bps <<<"$parsed"
  awk -v c="$class" -v i="$iops" -v b="$bps" '$1 == c {$3 = i; $4 = b} {print}' "$run/caps.conf" >"$run/caps.conf.new"
  mv "$run/caps.conf.new" "$run/caps.conf"
  awk -v c="$class" -v i="$iops" -v b="$bps" '$1 == c {$2 = i; $3 = b} {print}' "$run/classes.conf" >"$run/classes.conf.new"
  mv "$run/classes.conf.new" "$run/classes.conf"
  pid=$(pid_of harness)
  kill -HUP "$pid"
  # Done when the shared cgroup (device scope) or the root holds the new
  # read IOPS limit of the class's file-system device (none when uncapped).
  want=$(awk -v c="$class" '$1 == c {print $2; exit}' "$run/caps.conf")
  for ((i = 0; i < 50; i++)); do
    got=$(cat "/sys/fs/cgroup/blkio/$shared_blkio_cgroup/blkio.throttle.read_iops_device" /sys/fs/cgroup/blkio/blkio.throttle.read_iops_device 2>/dev/null |
      awk -v d="$want" '$1 == d {print $2; exit}')
    if [ "${got:-0}" = "$iops" ]; then break; fi
    sleep 0.1
  done
  [ "${got:-0}" = "$iops" ] || die "set-cap: the harness did not apply $iops IOPS to $want (its log: $logs/harness.log)"
  kc annotate storageclass "$class" --overwrite "storagebench.dev/iops-cap=$iops" "storagebench.dev/bandwidth-cap-bytes=$bps" >/dev/null ||
    die "set-cap: annotating storage class $class failed"
  log "class $class: IOPS cap $iops, bandwidth cap $bps B/s"
}

cmd_logs() {
  if [ $# -eq 0 ]; then ls -1 "$logs"/*.log 2>/dev/null || log "no logs in $logs"; return 0; fi
  tail -n "${LINES_TAIL:-50}" "$logs/$1.log"
}

main() {
  check_state_path
  local k8s_cache=${STORAGEBENCH_CACHE:-$HOME/.cache/storagebench}
  kubectl_bin=$k8s_cache/k8s/v1.37.2/kubectl
  tools_bin=$k8s_cache/bin
  # shellcheck disable=SC1091
  [ "${1:-}" != up ] && [ -f "$run/settings" ] && . "$run/settings"
  set_components
  case "${1:-}" in
    up) cmd_up ;;
    down) shift; cmd_down "$@" ;;
    status) cmd_status ;;
    kubeconfig) echo "$kubeconfig" ;;
    load-image) shift; cmd_load_image "$@" ;;
    logs) shift; cmd_logs "$@" ;;
    set-cap) shift; cmd_set_cap "$@" ;;
    provisioner) shift; cmd_provisioner "$@" ;;
    smoke) exec "$here/local-cluster/smoke.sh" ;;
    -h | --help | help) usage ;;
    *) usage >&2; exit 2 ;;
  esac
}

main "$@"
