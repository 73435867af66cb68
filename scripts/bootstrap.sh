# Sourced by scripts/test and scripts/demo: make .venv with everything installed.
# Idempotent and quick when nothing changed (the install is skipped while pyproject.toml
# is unchanged). Usage: NEED_DEBS="mosquitto chromium" source scripts/bootstrap.sh
# (a variable, not arguments: a sourced file sees its caller's arguments when given none).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

need_debs=()
for pkg in ${NEED_DEBS:-}; do
  case "$pkg" in
    mosquitto) command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || need_debs+=(mosquitto) ;;
    chromium) [ -x /usr/bin/chromium ] || need_debs+=(chromium) ;;
    nats-server) command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || need_debs+=(nats-server) ;;
    *) dpkg -s "$pkg" >/dev/null 2>&1 || need_debs+=("$pkg") ;;
  esac
done
if [ ${#need_debs[@]} -gt 0 ]; then
  echo "== installing Debian packages: ${need_debs[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_debs[@]}"
fi

PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for cand in python3 python3.13 python3.12 python3.11; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      PY="$cand"; break
    fi
  done
fi
[ -n "$PY" ] || { echo "Python 3.11 or newer is needed" >&2; exit 1; }

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv with $PY"
  "$PY" -m venv .venv
fi
stamp=".venv/.installed-$(cat pyproject.toml | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "== installing the project and its test tools into .venv"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[test]'
  rm -f .venv/.installed-*
  touch "$stamp"
fi
export PATH="$ROOT/.venv/bin:$PATH"
