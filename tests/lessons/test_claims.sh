#!/bin/sh
# tests/lessons/test_claims.sh: every claim lessons/CLAIMS.tsv records — what a
# chapter's README says the emulator reports for a mistake — holds: the file
# that makes the mistake fails on the emulator with a finding of that code.
# A README claim with no row here is a claim nobody checks: add one.
BIN=${CUDOJO_BIN:-build/cudojo}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
here=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v python3 > /dev/null 2>&1; then echo "skip - claims (no python3 to read the JSON)"; exit 0; fi
export XDG_DATA_HOME=$tmp/data XDG_CACHE_HOME=${XDG_CACHE_HOME:-$tmp/cache} NO_COLOR=1
"$BIN" init "$tmp/ws" > /dev/null 2>&1 || { echo "not ok - claims: cudojo init failed"; exit 0; }
n=0
grep -v '^#' lessons/CLAIMS.tsv | while IFS='	' read -r chapter id file code claim; do
    [ -z "$chapter" ] && continue
    got=$(cd "$tmp/ws" && "$BIN" run "$id" --file "$here/lessons/$chapter/$file" --backend=emu --json 2>/dev/null |
        python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d.get("verdict"), " ".join(sorted(set(x.get("code", "?") for x in (d.get("diagnostics") or [])))))' 2>&1)
    verdict=${got%% *}
    if [ "$verdict" = fail ] && printf '%s\n' "$got" | tr ' ' '\n' | grep -qx "$code"; then
        echo "ok - $chapter $id: $claim"
    else
        echo "not ok - $chapter $id: $claim"
        echo "    $file should fail with a $code finding; it gave: $got"
    fi
done
