#!/bin/bash
# Print `key|state|value` for each sysctl key given: state is writable, read-only or absent.
# Read-only: the lab's nspawn hosts mount /proc/sys read-only except /proc/sys/net.
set -u
for key in "$@"; do
  path="/proc/sys/${key//.//}"
  if [ ! -e "$path" ]; then
    printf '%s|absent|\n' "$key"
  elif [ -w "$path" ]; then
    printf '%s|writable|%s\n' "$key" "$(cat "$path")"
  else
    printf '%s|read-only|%s\n' "$key" "$(cat "$path")"
  fi
done
