#!/usr/bin/env bash
# npm run test:containers: builds the two production images (scripts/containers/build-images.sh,
# cached), then runs test/containers/ (jest project "containers") against them: the compose
# file's migrate, api and dispatcher services under podman, on this machine's PostgreSQL,
# RabbitMQ and Redis. Prints one closing line, "containers: passed" or "containers: FAILED", and
# exits non-zero on failure.
set -uo pipefail
cd "$(dirname "$0")/../.."

began=$(date +%s)
if ! bash scripts/containers/build-images.sh; then
  echo "containers: FAILED (image build) after $(( $(date +%s) - began )) s"
  exit 1
fi
built=$(date +%s)
echo "== containers: image build step took $(( built - began )) s"
node --experimental-vm-modules node_modules/jest/bin/jest.js --runInBand --selectProjects containers "$@"
status=$?
ended=$(date +%s)
if [ "$status" -eq 0 ]; then
  echo "containers: passed (build $(( built - began )) s, container test $(( ended - built )) s)"
else
  echo "containers: FAILED (build $(( built - began )) s, container test $(( ended - built )) s)"
fi
exit "$status"
