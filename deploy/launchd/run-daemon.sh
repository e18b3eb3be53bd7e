#!/bin/sh
# Runs the daemon for launchd (deploy/launchd/com.tao.draft-review.plist): `run-daemon.sh <node> dist/main.js`.
#
# launchd restarts a job that exits non-zero (KeepAlive with SuccessfulExit false) and has no setting that
# spares one exit code, as systemd's RestartPreventExitStatus=78 does. The daemon exits 78 when it refuses to
# start because of its configuration or the data in HARNESS_DIR (a damaged file, named with its line and what
# to do): started again, it would refuse again, every ThrottleInterval, for good. So this wrapper passes
# SIGTERM and SIGINT on to the daemon and waits for it; exit 78 becomes 0, which launchd leaves stopped, and
# every other code is passed on (1 = a bug, or 128+n after a signal), which launchd restarts.
"$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM
trap 'kill -INT "$child" 2>/dev/null' INT
while :; do
  wait "$child"
  status=$?
  # A trapped signal ends `wait` early (status > 128) while the daemon is still stopping: wait for it again.
  kill -0 "$child" 2>/dev/null || break
done
if [ "$status" -eq 78 ]; then
  echo "draft-review: it refused to start (exit 78, see the message above); launchd leaves it stopped. Fix what the message names, then: launchctl kickstart gui/$(id -u)/com.tao.draft-review" >&2
  exit 0
fi
exit "$status"
