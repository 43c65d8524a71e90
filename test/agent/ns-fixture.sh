#!/usr/bin/env bash
# A node in miniature, for test/agent/namespaces.test.ts. Runs as pid 1 of a fresh PID and mount namespace
# (unshare --mount --pid --kill-child --mount-proc), so every mount below and every process it starts disappears
# with it, whatever happens to the test: the kernel tears the namespaces down when this script exits.
#
#   ns-fixture.sh MODE ROOT RWX_BIN [CAPS]
#   MODE private: the "plugin" mounts in a mount namespace of its own with private propagation (the fault)
#   MODE shared:  the plugin's namespace keeps the shared kubelet dir, so its mounts propagate out (healthy)
#   CAPS all (default): the agent runs with root's capabilities; sys_ptrace: as uid 0 with CAP_SYS_PTRACE only,
#        like the DaemonSet; none: as uid 0 with no capability at all
#
# Pod e's volume mount is held busy by two processes (see 6.), for the busy mounts check.
#
# Writes ROOT/report.json (rwx agent --once -o json), ROOT/exit, ROOT/tree-before and ROOT/tree-after.
set -euo pipefail
MODE=$1 ROOT=$2 RWX=$3 CAPS=${4:-all}
K=$ROOT/kubelet
DRV=test.csi.rwx.dev
CSI=$K/plugins/kubernetes.io/csi
sha() { printf %s "$1" | sha256sum | cut -d' ' -f1; }
uid() { printf '%s-0000-4000-8000-000000000000' "$1"; }

# The kubelet dir: a shared bind mount, as on a node where the kubelet's root propagates.
mkdir -p "$K"
mount --bind "$K" "$K"
mount --make-shared "$K"

stage() { # DRIVER_DIR NAME -> the globalmount path, created
  mkdir -p "$CSI/$1/$2/globalmount"
  printf '%s/%s/%s/globalmount' "$CSI" "$1" "$2"
}
pod_dir() { # UID PV HANDLE -> the pod's mount path, created, with the kubelet's vol_data.json
  local d="$K/pods/$1/volumes/kubernetes.io~csi/$2"
  mkdir -p "$d/mount"
  printf '{"driverName":"%s","volumeHandle":"%s","specVolID":"%s"}\n' "$DRV" "$3" "$2" >"$d/vol_data.json"
  printf '%s/mount' "$d"
}

# 1. Staged by the plugin in its own namespace, published to pod a.
PLUGIN_STAGE=$(stage "$DRV" "$(sha vol-plugin)")
PLUGIN_POD=$(pod_dir "$(uid aaaaaaaa)" pv-plugin vol-plugin)
mkdir -p "$CSI/$DRV-socket"

# 2. Staged on the host and in use by pods b and c.
USED=$(stage "$DRV" "$(sha vol-used)")
mount -t tmpfs -o size=1m used "$USED"
mount --bind "$USED" "$(pod_dir "$(uid bbbbbbbb)" pv-used vol-used)"
mount --bind "$USED" "$(pod_dir "$(uid cccccccc)" pv-used vol-used)"

# 3. Staged on the host, no pod left: the orphaned stage reference.
mount -t tmpfs -o size=1m orphan "$(stage "$DRV" "$(sha vol-orphan)")"

# 4. A leftover staging directory, nothing mounted.
stage "$DRV" "$(sha vol-leftover)" >/dev/null

# 5. The older layout, plugins/kubernetes.io/csi/pv/NAME/globalmount, in use by pod d.
OLD=$(stage pv pv-old)
mount -t tmpfs -o size=1m old "$OLD"
mount --bind "$OLD" "$(pod_dir "$(uid dddddddd)" pv-old vol-old)"

# The plugin: a process named csi-plugin in a mount namespace of its own. Like a container runtime binding a
# hostPath, it first binds a plain host directory (its socket dir) at the same path: that must not count.
mkdir -p "$ROOT/bin"
ln -sf "$(command -v sleep)" "$ROOT/bin/csi-plugin"
PROP=private
[ "$MODE" = shared ] && PROP=unchanged
unshare --mount --propagation "$PROP" sh -c "
  mount --bind '$CSI/$DRV-socket' '$CSI/$DRV-socket'
  mount -t tmpfs -o size=1m plugin-volume '$PLUGIN_STAGE'
  mount --bind '$PLUGIN_STAGE' '$PLUGIN_POD'
  touch '$ROOT/ready'
  exec '$ROOT/bin/csi-plugin' 120
" &
for _ in $(seq 1 200); do [ -e "$ROOT/ready" ] && break; sleep 0.05; done
[ -e "$ROOT/ready" ] || { echo "the plugin did not come up" >&2; exit 1; }

# 6. Pod e's volume, whose unpublish is stuck: its mount is busy. Made after the plugin, so the plugin's namespace
# counts stay as they are. A process named holder keeps its working directory on it, on the host; a process named
# reader, in a mount namespace of its own (like a container, which gets a copy of the host's mounts), holds a file
# open through a bind of the volume at ROOT/data.
BUSY=$(pod_dir "$(uid eeeeeeee)" pv-busy vol-busy)
mount -t tmpfs -o size=1m busy "$BUSY"
touch "$BUSY/file"
ln -sf "$(command -v sleep)" "$ROOT/bin/holder"
ln -sf "$(command -v sleep)" "$ROOT/bin/reader"
(cd "$BUSY" && exec "$ROOT/bin/holder" 120) &
mkdir -p "$ROOT/data"
unshare --mount sh -c "
  mount --bind '$BUSY' '$ROOT/data'
  exec 3<'$ROOT/data/file'
  touch '$ROOT/reader-ready'
  exec '$ROOT/bin/reader' 120
" &
for _ in $(seq 1 200); do [ -e "$ROOT/reader-ready" ] && break; sleep 0.05; done
[ -e "$ROOT/reader-ready" ] || { echo "the reader did not come up" >&2; exit 1; }

tree() { find "$ROOT/kubelet" -printf '%p %y %m %s %T@\n' | sort; }
tree >"$ROOT/tree-before"
AS=()
case $CAPS in
sys_ptrace) AS=(setpriv --inh-caps=-all,+sys_ptrace --ambient-caps=-all,+sys_ptrace --bounding-set=-all,+sys_ptrace --) ;;
none) AS=(setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all --) ;;
esac
set +e
"${AS[@]}" node "$RWX" agent --once -o json --kubelet-dir "$K" --host-pid $$ --node "ns-$MODE" >"$ROOT/report.json"
echo $? >"$ROOT/exit"
set -e
tree >"$ROOT/tree-after"
