#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# SPDX licence headers on every source file (.rs, .c, .h, .sh) git tracks or would track.
#   scripts/spdx.sh          add the header where it is missing (or replace another licence id)
#   scripts/spdx.sh --check  list the files without it and fail if there are any (scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

ID="MIT OR Apache-2.0"
TAG="SPDX-License-Identifier:"

files() {
    git ls-files --cached --others --exclude-standard -- '*.rs' '*.c' '*.h' '*.sh' |
        while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done
}

# Whether the header is in the first five lines.
has_header() { head -n 5 "$1" | grep -qF "$TAG $ID"; }

if [ "${1:-}" = "--check" ]; then
    missing=$(files | while IFS= read -r f; do has_header "$f" || printf '%s\n' "$f"; done)
    if [ -n "$missing" ]; then
        echo "files without \"$TAG $ID\" in their first five lines (run scripts/spdx.sh):" >&2
        printf '  %s\n' $missing >&2
        exit 1
    fi
    echo "SPDX headers: $(files | wc -l) files, all $ID"
    exit 0
fi

files | while IFS= read -r f; do
    has_header "$f" && continue
    if head -n 5 "$f" | grep -qF "$TAG"; then
        # Another licence id: replace it.
        sed -i "0,/$TAG .*/s//$TAG $ID/" "$f"
        line=$(grep -m1 -F "$TAG" "$f")
        case "$line" in
        /\**) sed -i "0,/$TAG $ID\$/s//$TAG $ID *\//" "$f" ;;
        esac
    else
        case "$f" in
        *.rs) header="// $TAG $ID" ;;
        *.c | *.h) header="/* $TAG $ID */" ;;
        *.sh) header="# $TAG $ID" ;;
        esac
        if head -n 1 "$f" | grep -q '^#!'; then
            sed -i "1a $header" "$f"
        else
            sed -i "1i $header" "$f"
        fi
    fi
    echo "spdx: $f"
done
