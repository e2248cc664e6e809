#!/usr/bin/env bash
# Installs Hearth as a systemd service on Raspberry Pi OS / Debian. Run as root from a checkout:
#   sudo bash scripts/install.sh
set -euo pipefail

PREFIX=/opt/hearth
SERVICE=hearth
MIN_NODE=20.19.0

die() { echo "install: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (sudo bash scripts/install.sh)"
command -v node >/dev/null || die "Node.js >= $MIN_NODE is required (Node 22 LTS recommended)"
node -e "
const [a,b,c]=process.versions.node.split('.').map(Number), [x,y,z]='$MIN_NODE'.split('.').map(Number);
process.exit(a>x||(a===x&&(b>y||(b===y&&c>=z)))?0:1)" || die "Node $(node -v) is too old; need >= $MIN_NODE"
command -v systemctl >/dev/null || die "systemd is required"

src=$(cd "$(dirname "$0")/.." && pwd)

if ! id -u hearth >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/hearth --no-create-home --shell /usr/sbin/nologin hearth
fi
# Serial Zigbee coordinators are owned by group dialout.
getent group dialout >/dev/null && usermod -a -G dialout hearth

mkdir -p "$PREFIX"
# Copy the sources (no build step: the hub runs its TypeScript through tsx).
tar -C "$src" --exclude=./node_modules --exclude=./data --exclude=./.git --exclude=./test/output --exclude=./dist -cf - . | tar -C "$PREFIX" -xf -
cd "$PREFIX"
npm ci --omit=dev --no-audit --no-fund
# The one build step (esbuild, ~1 s): the service runs plain JavaScript from dist/.
node scripts/build.mjs
chown -R root:root "$PREFIX"

install -d -m 0750 -o root -g hearth /etc/hearth
[ -f /etc/hearth/hearth.env ] || install -m 0640 -o root -g hearth /dev/null /etc/hearth/hearth.env

# `hearth <command>` for the operator: runs as the service user, on the service's data and settings.
cat > /usr/local/bin/hearth <<'SH'
#!/bin/sh
set -a
[ -r /etc/hearth/hearth.env ] && . /etc/hearth/hearth.env
set +a
exec runuser -u hearth -- env HEARTH_DATA_DIR=/var/lib/hearth node --max-semi-space-size=2 --max-old-space-size=128 /opt/hearth/dist/core/cli/main.js "$@"
SH
chmod 0755 /usr/local/bin/hearth

install -m 0644 "$PREFIX/systemd/hearth.service" /etc/systemd/system/$SERVICE.service
systemctl daemon-reload
systemctl enable --now $SERVICE
# The first start makes the data directory; the run file appears once the hub answers.
for _ in $(seq 60); do
  [ -f /var/lib/hearth/run/control.json ] && break
  sleep 1
done
echo
# The addresses a phone on this network opens (hostname.local and the LAN addresses), and the setup code
# while nobody has set up the hub. `sudo hearth status` prints the same later.
hearth status || echo "Hearth is starting; run 'sudo hearth status' in a moment for the addresses to open."
