#!/usr/bin/env bash
# A private root for libvirt on a development machine or in CI: runs a command in a private mount namespace
# where /etc/libvirt, /run and /var are bind-mounted from ROOT, and /etc/passwd and /etc/group are copies that
# know the users libvirt insists on (libvirt-qemu, qemu). Nothing the daemon writes reaches the host's own
# directories (CONTRIBUTING.md, "Real parts in tests").
#
#   private-root.sh exec ROOT [--kvm MODE] [--private-tmp] -- CMD [ARGS...]
#                                                             run CMD inside the private root (foreground)
#   private-root.sh libvirtd ROOT [--kvm MODE]                start libvirtd there, wait for its socket, print its URI
#   private-root.sh stop ROOT                                 stop that libvirtd and its guests
#   private-root.sh repo-view -- CMD [ARGS...]                run CMD (as root; it may drop to another user) where the
#                                                             repository is reachable by every user (see enter)
#
# --kvm gives the root a private /dev (a tmpfs with only what QEMU and libvirt need) whose /dev/kvm is chosen:
#   host    the host's /dev/kvm (absent when the host has none)
#   none    no /dev/kvm: libvirt and the launcher see a host without KVM
#   broken  a character device that is not KVM (1:3, the null device) at /dev/kvm: "present but unusable"
# Without --kvm the host's /dev is used as it is. Everything runs as root. ROOT is created when missing.
# --private-tmp binds ROOT/tmp on /tmp, so whatever CMD leaves in /tmp can be checked in ROOT/tmp afterwards.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

usage() { sed -n '2,19p' "$0" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
# Shared by `enter` and `repo-view`: hold_repo binds the repository aside (before anything covers its path) when a
# non-root command could not reach it; place_repo shows it again at its own path through a 0755 tmpfs put on the
# highest path component that is missing or not searchable by others. Only inside the command's mount namespace.
# shellcheck disable=SC2016
repo_view_fns='
    searchable() { local p="" c perm; local -a parts; IFS=/ read -ra parts <<<"${1#/}"
      for c in "${parts[@]}"; do [[ -n $c ]] || continue; p="$p/$c"
        perm=$(stat -c %A "$p" 2>/dev/null) || return 1
        [[ ${perm:9:1} == [xt] ]] || return 1
      done; }
    hold_repo() {
      held=1
      mount -t tmpfs -o mode=0755,size=64k vlt-repo-hold /mnt
      mkdir /mnt/repo
      mount --bind "$1" /mnt/repo
    }
    place_repo() {
      local top="" p="" c perm; local -a parts
      IFS=/ read -ra parts <<<"${1#/}"
      for c in "${parts[@]}"; do
        [[ -n $c ]] || continue; p="$p/$c"
        perm=$(stat -c %A "$p" 2>/dev/null) || { mkdir "$p"; top=$p; break; }
        [[ ${perm:9:1} == [xt] ]] || { top=$p; break; }
      done
      if [[ -n $top ]]; then
        mount -t tmpfs -o mode=0755,size=64k vlt-repo-view "$top"
        mkdir -p "$1"
        mount --move /mnt/repo "$1"
      fi
      umount /mnt
    }
'
if [[ $1 == repo-view ]]; then
  shift
  [[ ${1:-} == -- ]] && shift
  exec unshare -m --propagation private -- bash -c "$repo_view_fns"'
    set -e
    repo=$1; shift
    held=
    searchable "$repo" || hold_repo "$repo"
    [[ -z $held ]] || place_repo "$repo"
    exec "$@"' repo-view "$repo" "$@"
fi
verb=$1 root=$(realpath -m "$2")
shift 2
kvm= private_tmp=
while [[ ${1:-} == --kvm || ${1:-} == --private-tmp ]]; do
  if [[ $1 == --private-tmp ]]; then
    private_tmp=1
    shift
    continue
  fi
  kvm=${2:-}
  shift 2 || usage
  case $kvm in host | none | broken) ;; *) echo "private-root.sh: --kvm $kvm: expected host, none or broken" >&2; exit 2 ;; esac
done

prepare_root() {
  mkdir -p "$root"/etc/libvirt "$root"/run/libvirt "$root"/var/lib/libvirt/qemu "$root"/var/log/libvirt/qemu \
    "$root"/var/cache/libvirt "$root"/var/tmp "$root"/tmp
  # As on the host, /var/run is /run: KubeVirt's /var/run/kubevirt* paths and libvirt's /run/libvirt share one tree.
  [[ -e "$root"/var/run || -L "$root"/var/run ]] || ln -s /run "$root"/var/run
  chmod 1777 "$root"/var/tmp "$root"/tmp
  cp /etc/passwd "$root"/etc/passwd
  cp /etc/group "$root"/etc/group
  # libvirtd checks its compiled-in user before it reads qemu.conf.
  grep -q '^libvirt-qemu:' "$root"/etc/passwd || echo 'libvirt-qemu:x:64055:64055:libvirt qemu:/var/lib/libvirt:/usr/sbin/nologin' >>"$root"/etc/passwd
  grep -q '^libvirt-qemu:' "$root"/etc/group || echo 'libvirt-qemu:x:64055:' >>"$root"/etc/group
  grep -q '^qemu:' "$root"/etc/passwd || echo 'qemu:x:107:107:qemu:/var/lib/libvirt:/usr/sbin/nologin' >>"$root"/etc/passwd
  grep -q '^qemu:' "$root"/etc/group || echo 'qemu:x:107:' >>"$root"/etc/group
  grep -q '^libvirt:' "$root"/etc/group || echo 'libvirt:x:64056:' >>"$root"/etc/group
  [[ -f "$root"/etc/libvirt/libvirtd.conf ]] || cat >"$root"/etc/libvirt/libvirtd.conf <<'CONF'
unix_sock_dir = "/run/libvirt"
unix_sock_rw_perms = "0777"
auth_unix_rw = "none"
auth_unix_ro = "none"
listen_tcp = 0
listen_tls = 0
log_outputs = "3:stderr"
CONF
  [[ -f "$root"/etc/libvirt/qemu.conf ]] || cat >"$root"/etc/libvirt/qemu.conf <<'CONF'
user = "root"
group = "root"
security_driver = "none"
dynamic_ownership = 0
remember_owner = 0
cgroup_controllers = [ ]
namespaces = [ ]
stdio_handler = "file"
CONF
  [[ -f "$root"/etc/libvirt/virtlogd.conf ]] || printf 'log_outputs = "3:stderr"\n' >"$root"/etc/libvirt/virtlogd.conf
}

# The mount script runs inside the new namespace, then execs the command. `exec_prefix=exec` replaces this shell
# with it, so that in a fresh PID namespace the command itself is PID 1 and receives the signals.
# With --kvm, /dev is replaced by a tmpfs built at ROOT/.dev (invisible outside the namespace) holding binds of the
# host's harmless devices, a fresh devpts and shm, /dev/net/tun for the tap, and /dev/kvm as chosen.
#
# The repository (whose node programs the command may run as the pod's non-root user) must stay reachable at its
# own path: a clone under a directory others cannot search (`mktemp -d` makes 0700 ones), or under /tmp when
# --private-tmp covers it, is shown again at the same path through a small tmpfs (only inside the namespace; the
# host's directories and their modes are not touched).
enter() {
  ${exec_prefix:-} unshare -m --propagation private -- bash -c "$repo_view_fns"'
    set -e
    r=$1 kvm=$2 private_tmp=$3 repo=$4; shift 4
    held=
    if ! searchable "$repo" || [[ -n $private_tmp && $repo == /tmp/* ]]; then hold_repo "$repo"; fi
    if [[ -n $kvm ]]; then
      d=$r/.dev
      mkdir -p "$d"
      mount -t tmpfs -o mode=0755,nosuid,size=64k vlt-dev "$d"
      bind_dev() { [[ -e /dev/$1 ]] || return 0; mkdir -p "$(dirname "$d/$1")"; touch "$d/$1"; mount --bind "/dev/$1" "$d/$1"; }
      for n in null zero full random urandom tty vhost-net; do bind_dev "$n"; done
      # A pod gets /dev/net/tun from the device plugin, usable by its (possibly non-root) user, whatever mode the
      # host node has (0600 where no udev runs): a fresh node of the same device, open to all.
      mkdir -p "$d/net"
      mknod -m 0666 "$d/net/tun" c 10 200
      mkdir "$d/pts" "$d/shm" "$d/mqueue"
      mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$d/pts"
      ln -s pts/ptmx "$d/ptmx"
      mount -t tmpfs -o mode=1777,nosuid,nodev shm "$d/shm"
      mount -t mqueue mqueue "$d/mqueue" 2>/dev/null || rmdir "$d/mqueue"
      ln -s /proc/self/fd "$d/fd"
      ln -s /proc/self/fd/0 "$d/stdin"
      ln -s /proc/self/fd/1 "$d/stdout"
      ln -s /proc/self/fd/2 "$d/stderr"
      case $kvm in
      host) bind_dev kvm ;;
      broken) mknod -m 0666 "$d/kvm" c 1 3 ;;
      esac
      mount --move "$d" /dev
    fi
    mount --bind "$r/etc/libvirt" /etc/libvirt
    mount --bind "$r/etc/passwd" /etc/passwd
    mount --bind "$r/etc/group" /etc/group
    mount --bind "$r/run" /run
    mount --bind "$r/var" /var
    if [[ -n $private_tmp ]]; then mount --bind "$r/tmp" /tmp; fi
    [[ -z $held ]] || place_repo "$repo"
    exec "$@"' private-root "$root" "$kvm" "$private_tmp" "$repo" "$@"
}

uri() { echo "qemu+unix:///system?socket=$root/run/libvirt/libvirt-sock"; }

case $verb in
exec)
  [[ ${1:-} == -- ]] && shift
  [[ $# -ge 1 ]] || usage
  prepare_root
  exec_prefix=exec enter "$@"
  ;;
libvirtd)
  prepare_root
  rm -f "$root"/run/libvirt/libvirt-sock "$root"/run/libvirtd.pid
  # --daemon forks: the daemon stays in the private namespace after unshare's child exits.
  enter /usr/sbin/libvirtd --daemon --pid-file /run/libvirtd.pid >"$root/libvirtd.log" 2>&1 || {
    cat "$root/libvirtd.log" >&2
    exit 1
  }
  for _ in $(seq 1 150); do
    [[ -S "$root/run/libvirt/libvirt-sock" ]] && { uri; exit 0; }
    sleep 0.1
  done
  echo "libvirtd did not create its socket within 15 s; its log:" >&2
  cat "$root/libvirtd.log" >&2
  exit 1
  ;;
stop)
  pidfile="$root/run/libvirtd.pid"
  if [[ -f $pidfile ]]; then
    pid=$(cat "$pidfile")
    # Guests first, so no QEMU outlives its daemon.
    # A guest's command line names paths as the root sees them (not "$root/..."), so its pid file is the sure
    # way to find it; the pattern catches a QEMU whose pid file is already gone.
    guests=$(pgrep -f "qemu-system.*$root" || true)
    for f in "$root"/run/libvirt/qemu/*.pid "$root"/run/libvirt/qemu/run/*.pid; do
      [[ -f $f ]] || continue
      q=$(tr -dc '0-9' <"$f")
      [[ -n $q && $(cat "/proc/$q/comm" 2>/dev/null) == qemu-system* ]] && guests="$guests $q"
    done
    for q in $guests; do kill -TERM "$q" 2>/dev/null || true; done
    for q in $guests; do
      for _ in $(seq 1 30); do kill -0 "$q" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$q" 2>/dev/null || true
    done
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  fi
  ;;
*) usage ;;
esac
