#!/bin/sh
# tests/app/test_submit.sh: `cudojo submit` and `cudojo progress --merge` as
# a learner uses them: the archive holds the manifest (with each file's
# SHA-256), progress.json and every exercise file; a bad name or place writes
# nothing; two workspaces' progress merge without doubling, from a
# progress.db, a folder or a submission archive. Emulator only, no GPU.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
T=$(mktemp -d /tmp/cudojo-submit-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1 CUDOJO_LESSONS="$LESSONS"
unset CUDOJO_STUDENT
cd "$T" || exit 1
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
check() { # name, command (string), then a test expression on $out/$rc
    name=$1; cmd=$2; test=$3
    out=$(eval "$cmd" 2>&1); rc=$?
    if eval "$test"; then ok "$name"; else nok "$name" "rc=$rc" "$(printf "%s\n" "$out" | head -20)"; fi
}
py() { python3 -c "$1"; }

$BIN init a >/dev/null 2>&1 && $BIN init b >/dev/null 2>&1 || { nok "init two workspaces"; exit 1; }
cd a || exit 1
echo '// alice was here' >> hello-gpu/vector-add.cu

check "submit writes NAME-date.cudojo.tar.zst and says what is in it" "$BIN submit --student alice" \
    '[ $rc = 0 ] && ls alice-*.cudojo.tar.zst >/dev/null 2>&1 && printf "%s\n" "$out" | grep -q "exercise files"'
ARCH=$(ls "$T"/a/alice-*.cudojo.tar.zst 2>/dev/null | head -1)
# The archive is read back with tar and the zstd program; a machine without
# zstd (the GPU machine) skips these two checks rather than failing them.
if command -v zstd >/dev/null 2>&1; then
check "the archive holds the manifest, progress.json and the learner's files" \
    "tar --zstd -tf '$ARCH'" \
    'printf "%s\n" "$out" | head -1 | grep -qx "cudojo-submission.json" && printf "%s\n" "$out" | grep -qx progress.json &&
     printf "%s\n" "$out" | grep -qx hello-gpu/vector-add.cu && ! printf "%s\n" "$out" | grep -q "progress.db"'
mkdir -p "$T/x" && tar --zstd -xf "$ARCH" -C "$T/x"
check "the manifest names the student, course version and each file's SHA-256" \
    "py 'import json,hashlib
m = json.load(open(\"$T/x/cudojo-submission.json\"))
assert m[\"format\"] == \"cudojo-submission\" and m[\"format_version\"] == 1 and m[\"student\"] == \"alice\"
assert len(m[\"course_version\"]) == 64 and len(m[\"workspace_uuid\"]) == 36 and m[\"submitted_unix_ms\"] > 0
f = [x for x in m[\"files\"] if x[\"path\"] == \"hello-gpu/vector-add.cu\"][0]
data = open(\"$T/x/hello-gpu/vector-add.cu\", \"rb\").read()
assert f[\"sha256\"] == hashlib.sha256(data).hexdigest() and f[\"bytes\"] == len(data) and b\"alice was here\" in data
assert m[\"missing\"] == [] and len(m[\"files\"]) > 10
p = json.load(open(\"$T/x/progress.json\")); assert p[\"format\"] == \"cudojo-progress\"
'" '[ $rc = 0 ]'
else
    echo "skip - the archive holds the manifest, progress.json and the learner's files (no zstd program here)"
    echo "skip - the manifest names the student, course version and each file's SHA-256 (no zstd program here)"
fi
check "the student name comes from CUDOJO_STUDENT when not given" \
    "CUDOJO_STUDENT=bob $BIN submit -o bob.tar.zst --json" \
    '[ $rc = 0 ] && [ -f bob.tar.zst ] && printf "%s\n" "$out" | grep -q "\"student\": \"bob\""'
check "a student name with '/' is refused and nothing is written" \
    "$BIN submit --student ../evil -o evil.tar.zst" \
    '[ $rc = 2 ] && printf "%s\n" "$out" | grep -q "cannot be used" && [ ! -e evil.tar.zst ]'
check "an output folder that does not exist: an error and no file left" \
    "$BIN submit --student alice -o $T/nowhere/a.tar.zst" \
    '[ $rc = 2 ] && printf "%s\n" "$out" | grep -q "nowhere/a.tar.zst" && [ ! -d $T/nowhere ]'
check "no temporary file is left beside the archives" "ls -a" \
    '! printf "%s\n" "$out" | grep -q "tmp-"'

# Progress: one attempt in a, merged into b three ways; only the first adds it.
check "a run in workspace a is recorded" "$BIN --backend=emu run vector-add" '[ $rc = 1 ]'
$BIN submit --student alice -o "$T/alice2.tar.zst" >/dev/null 2>&1
cd "$T/b" || exit 1
check "progress --merge A/.cudojo/progress.db adds its attempt" "$BIN progress --merge $T/a/.cudojo/progress.db" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | grep -q "1 attempt added, 0 already here"'
check "merging the workspace folder again adds nothing" "$BIN progress --merge $T/a" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | grep -q "0 attempts added, 1 already here"'
check "merging a's submission archive adds nothing either" "$BIN progress --merge $T/alice2.tar.zst --json" \
    "[ \$rc = 0 ] && printf '%s\n' \"\$out\" | py 'import json,sys; d=json.load(sys.stdin)[\"merged\"][0]; assert d[\"attempts_added\"] == 0 and d[\"attempts_present\"] == 1'"
check "b's progress shows the merged attempt and the merged workspace" "$BIN progress --json" \
    "printf '%s\n' \"\$out\" | py 'import json,sys; d=json.load(sys.stdin); e=[x for x in d[\"exercises\"] if x[\"id\"]==\"vector-add\"][0]; assert len(e[\"attempts\"]) == 1 and len(d[\"merged_workspaces\"]) == 1'"
echo "not progress" > junk.json
check "merging a file that is not progress names it and fails" "$BIN progress --merge junk.json" \
    '[ $rc = 1 ] && printf "%s\n" "$out" | grep -q "junk.json"'
check "progress takes no other argument" "$BIN progress extra" '[ $rc = 2 ]'
