#!/usr/bin/env bash
# `npm run test:all`: installs what the tests run that npm cannot (Debian's chromium, nginx and
# awscli, each only when missing), then runs `npm test` with any arguments given. The README's
# quick start and .ci/run both use it, so a fresh machine runs the whole suite as CI does.
set -uo pipefail
cd "$(dirname "$0")/.."

# - chromium: the install page test drives it (playwright-core cannot download a browser here);
# - nginx: the GitHub Pages-like host (test/support/nginx.ts starts its own, never the service);
# - awscli: the generated upload.sh runs it against a local S3 (test/support/s3.ts).
packages=()
[ -x /usr/bin/chromium ] || packages+=(chromium)
[ -x /usr/sbin/nginx ] || packages+=(nginx)
aws --version >/dev/null 2>&1 || packages+=(awscli)
if [ "${#packages[@]}" -gt 0 ]; then
  echo "Installing Debian packages the tests need: ${packages[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  # policy-rc.d exit 101: the nginx package must not start (or enable) its service on install.
  policy=/usr/sbin/policy-rc.d
  added_policy=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null && $sudo chmod 755 "$policy" && added_policy=1
  fi
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
  apt_status=$?
  [ -z "$added_policy" ] || $sudo rm -f "$policy"
  [ "$apt_status" -eq 0 ] || { echo "Could not install ${packages[*]} with apt-get; install them and run again." >&2; exit 1; }
fi

# A version manager's shim for `aws` (pyenv's) can shadow Debian's and fail: put Debian's first.
if ! aws --version >/dev/null 2>&1 && [ -x /usr/bin/aws ]; then
  aws_bin="$(mktemp -d)"
  ln -s /usr/bin/aws "$aws_bin/aws"
  export PATH="$aws_bin:$PATH"
fi

exec npm test -- "$@"
