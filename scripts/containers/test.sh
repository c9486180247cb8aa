#!/usr/bin/env bash
# npm run test:containers: builds the two production images (scripts/containers/build-images.sh,
# cached), then runs test/containers/ (jest project "containers") against them: the compose
# file's migrate, api and dispatcher services under podman, on this machine's PostgreSQL,
# RabbitMQ and Redis. Prints one closing line, "containers: N passed, M failed" ("containers: FAILED: …" on
# failure), and exits non-zero on failure.
set -uo pipefail
cd "$(dirname "$0")/../.."

began=$(date +%s)
if ! bash scripts/containers/build-images.sh; then
  echo "containers: FAILED: the image build, after $(( $(date +%s) - began )) s"
  exit 1
fi
built=$(date +%s)
echo "== containers: image build step took $(( built - began )) s"
results="$(mktemp /tmp/containers-results.XXXXXX.json)"
node --experimental-vm-modules node_modules/jest/bin/jest.js --runInBand --selectProjects containers --json --outputFile="$results" "$@"
status=$?
ended=$(date +%s)
counts="$(node -e 'try { const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(`${r.numPassedTests} passed, ${r.numFailedTests + r.numRuntimeErrorTestSuites} failed`); } catch { console.log("0 passed, 1 failed"); }' "$results")"
rm -f "$results"
echo "== containers: image build $(( built - began )) s, container test $(( ended - built )) s"
if [ "$status" -eq 0 ]; then echo "containers: $counts"; else echo "containers: FAILED: $counts"; fi
exit "$status"
