#!/usr/bin/env bash
# Builds the two production images from the unchanged docker/Dockerfile.api and
# docker/Dockerfile.dispatcher with podman (buildah), as ops build them with Docker — except for the
# base image. The Dockerfiles take their base as the build argument NODE_IMAGE (default: the
# official node:20-bookworm-slim); official images cannot be pulled on this machine, so this script
# first makes a local stand-in of it: a Debian bookworm minbase root filesystem (debootstrap, from
# the machine's own Debian mirror) with this machine's Node.js runtime and npm in /usr/local, and a
# `node` user of uid/gid 1000, as in the official image.
#
# Caches outside the clone (CONTAINER_CACHE_DIR, default /var/cache/coldchain-ci): the debootstrap
# root filesystem as a tarball, and podman's own image store (/var/lib/containers), which keeps the
# imported stand-in (tagged by Node version) and every build layer. Cold on a fresh machine it
# installs podman, buildah and debootstrap and builds everything.
#
# Usage: scripts/containers/build-images.sh        (prints the two image names and their sizes)
# Environment: IMAGE_TAG (default ci), CONTAINER_CACHE_DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."

cache_dir="${CONTAINER_CACHE_DIR:-/var/cache/coldchain-ci}"
tag="${IMAGE_TAG:-ci}"
# crun fails on this host's hybrid cgroup layout; runc works. No systemd: cgroupfs.
podman=(podman --runtime runc --cgroup-manager cgroupfs)
limits=(--ulimit nofile=20000:20000 --ulimit nproc=4096:4096)

log() { echo "== containers: $*"; }

need=()
command -v podman >/dev/null 2>&1 || need+=(podman)
command -v buildah >/dev/null 2>&1 || need+=(buildah)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
command -v runc >/dev/null 2>&1 || need+=(runc)
if [ "${#need[@]}" -gt 0 ]; then
  log "installing ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

node_version="$(node --version | sed 's/^v//')"
node_major="${node_version%%.*}"
# Raise when the stand-in's recipe below changes: the cached one is then rebuilt.
standin_revision=2
base="localhost/coldchain-node-standin:${node_version}-bookworm-slim-r${standin_revision}"
mkdir -p "$cache_dir"

# The first Debian mirror apt uses here (deb822 or one-line sources): debootstrap takes the same.
debian_mirror() {
  local uri
  uri="$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v -- '-security' | head -n 1 || true)"
  [ -n "$uri" ] || uri="$(grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep -v -- '-security' | head -n 1 || true)"
  [ -n "$uri" ] || { echo "no Debian mirror in /etc/apt/sources.list*" >&2; exit 1; }
  echo "$uri"
}

if ! "${podman[@]}" image exists "$base"; then
  rootfs_tar="$cache_dir/bookworm-minbase.tar"
  work="$(mktemp -d /var/tmp/coldchain-standin.XXXXXX)"
  # debootstrap mounts /proc and /sys inside the target: never delete through a mount.
  trap 'umount -R "$work/rootfs/proc" "$work/rootfs/sys" 2>/dev/null || true; rm -rf --one-file-system "$work"' EXIT
  if [ ! -s "$rootfs_tar" ]; then
    log "debootstrap --variant=minbase bookworm (cold: a few minutes)"
    debootstrap --variant=minbase bookworm "$work/rootfs" "$(debian_mirror)" >"$work/debootstrap.log" 2>&1 || { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
    # What the official -slim images leave out: package lists, caches, documentation.
    rm -rf "$work/rootfs"/var/lib/apt/lists/* "$work/rootfs"/var/cache/apt/*.bin "$work/rootfs"/var/cache/apt/archives/*.deb \
      "$work/rootfs"/usr/share/doc/* "$work/rootfs"/usr/share/man/* "$work/rootfs"/usr/share/info/* "$work/rootfs"/var/log/*.log
    tar -C "$work/rootfs" --numeric-owner -cf "$rootfs_tar.tmp" . && mv "$rootfs_tar.tmp" "$rootfs_tar"
    rm -rf "$work/rootfs"
  fi
  log "making the node:${node_major}-bookworm-slim stand-in $base"
  mkdir -p "$work/rootfs" && tar -C "$work/rootfs" --numeric-owner -xf "$rootfs_tar"
  # As in the official image: node and npm in /usr/local, a `node` user and group of id 1000.
  node_bin="$(readlink -f "$(command -v node)")"
  npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
  install -D -m 0755 "$node_bin" "$work/rootfs/usr/local/bin/node"
  mkdir -p "$work/rootfs/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$work/rootfs/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/local/bin/npx"
  # This machine reaches the npm registry through a TLS proxy whose CA its npm trusts (npm's cafile):
  # so does the stand-in's npm, for the images' `npm ci`. Node itself keeps its own CA list.
  npm_cafile="$(npm config get cafile 2>/dev/null || true)"
  if [ -n "$npm_cafile" ] && [ "$npm_cafile" != "null" ] && [ -f "$npm_cafile" ]; then
    install -D -m 0644 "$npm_cafile" "$work/rootfs$npm_cafile"
    mkdir -p "$work/rootfs/usr/local/etc" && echo "cafile=$npm_cafile" >"$work/rootfs/usr/local/etc/npmrc"
  fi
  chroot "$work/rootfs" /usr/sbin/groupadd --gid 1000 node
  chroot "$work/rootfs" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  # The official image's entrypoint: `docker run IMAGE -e '…'` runs node with those arguments.
  cat >"$work/rootfs/usr/local/bin/docker-entrypoint.sh" <<'SH'
#!/bin/sh
set -e
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
SH
  chmod 0755 "$work/rootfs/usr/local/bin/docker-entrypoint.sh"
  chroot "$work/rootfs" /usr/local/bin/node --version >/dev/null
  tar -C "$work/rootfs" --numeric-owner -c . | "${podman[@]}" import \
    --change "ENV NODE_VERSION=${node_version}" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
    --change 'CMD ["node"]' \
    - "$base" >/dev/null
  rm -rf "$work"
  trap - EXIT
else
  log "stand-in $base is cached"
fi

for app in api dispatcher; do
  log "building localhost/coldchain-$app:$tag from docker/Dockerfile.$app"
  started=$(date +%s)
  # --network host: the build's `npm ci` reaches the npm registry through the host's network.
  # --format docker: OCI image metadata has no HEALTHCHECK, Docker's (what ops build) keeps it.
  "${podman[@]}" build --quiet --layers --format docker --network host "${limits[@]}" \
    --build-arg "NODE_IMAGE=$base" -f "docker/Dockerfile.$app" -t "localhost/coldchain-$app:$tag" . >/dev/null
  log "built localhost/coldchain-$app:$tag in $(( $(date +%s) - started )) s"
done
# Layers of earlier builds (older sources) pile up: drop what no tag uses and is over 3 days old
# (a cached npm ci layer that old is rebuilt once).
"${podman[@]}" image prune -f --filter until=72h >/dev/null 2>&1 || true
"${podman[@]}" images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E "coldchain-(api|dispatcher):$tag|coldchain-node-standin" | sed 's/^/== containers: image /'
