#!/bin/sh
# Stands in front of claude: appends the `--mcp-config` file's path, its mode and its
# folder's mode, as the CLI is started, to $MCP_PROBE_LOG; then runs claude ($1) with the
# remaining arguments.
claude="$1"
shift
prev=""
for a in "$@"; do
    if [ "$prev" = "--mcp-config" ]; then
        echo "$a $(stat -c %a "$a") $(stat -c %a "$(dirname "$a")")" >>"$MCP_PROBE_LOG"
    fi
    prev="$a"
done
exec "$claude" "$@"
