#!/bin/sh
# Valkey's start and readiness check, with the password read from the file mounted from the Secret, never on a
# command line: at start it is written (quotes and backslashes escaped) into the include redis.conf reads, on an
# in-memory volume only this container mounts; `start.sh ping` hands it to valkey-cli through the environment.
# The paths and port are the container's; the variables exist for test/deploy/valkey-start.test.ts.
set -eu
PASSWORD_FILE="${VALKEY_PASSWORD_FILE:-/etc/valkey-auth/password}"
AUTH_CONF="${VALKEY_AUTH_CONF:-/run/valkey/auth.conf}"
if [ "${1:-}" = ping ]; then
  VALKEYCLI_AUTH="$(cat "$PASSWORD_FILE")"
  REDISCLI_AUTH="$VALKEYCLI_AUTH"
  export VALKEYCLI_AUTH REDISCLI_AUTH
  [ "$(valkey-cli -h 127.0.0.1 -p "${VALKEY_PORT:-6379}" ping)" = PONG ]
  exit
fi
umask 077
password="$(sed 's/[\\"]/\\&/g' "$PASSWORD_FILE")"
if [ -z "$password" ]; then
  echo "start.sh: $PASSWORD_FILE is empty: Valkey would run without a password" >&2
  exit 1
fi
printf 'requirepass "%s"\n' "$password" > "$AUTH_CONF"
exec valkey-server "${VALKEY_CONF:-/etc/valkey/redis.conf}"
