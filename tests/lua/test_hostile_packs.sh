#!/bin/sh
# tests/lua/test_hostile_packs.sh: the CLI given the hostile course packs in
# tests/lua/hostile/ (issue 16): a chapter id "..", paths to /etc/passwd,
# "../../x", symlinks out of the pack and require of a module named with a
# path or linked out of the chapter never write or read outside the
# workspace and the pack, and are refused at the author's file:line; a
# runaway pack (pcall loop, __gc loop, slow pattern, print flood, memory
# bomb) loads in bounded time and names each file. Runs on the emulator.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
HOSTILE=$(pwd)/tests/lua/hostile
T=$(mktemp -d /tmp/cudojo-hostile-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1
cd "$T" || exit 1
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
has_all() { for s in "$@"; do printf "%s\n" "$out" | grep -qF -- "$s" || return 1; done; }

# A chapter id "..": nothing lands in the workspace's parent (it was $HOME).
mkdir -p home/cuda
out=$("$BIN" --lessons "$HOSTILE/dotdot-chapter" init home/cuda 2>&1); rc=$?
left=$(find home -mindepth 1 -maxdepth 1 ! -name cuda)
if [ $rc -ne 0 ] && [ -z "$left" ] && [ ! -e home/bashrc.cu ] && has_all "lessons/01-evil/chapter.lua:3" "id"; then
    ok "a chapter id '..' is refused at chapter.lua:3 and nothing is written outside the workspace"
else
    nok "a chapter id '..' is refused at chapter.lua:3 and nothing is written outside the workspace" "rc=$rc" \
        "outside: $left" "$out"
fi

# Paths out of the pack: only the sound exercise is copied; no /etc/passwd anywhere.
out=$("$BIN" --lessons "$HOSTILE/bad-paths" init ws 2>&1); rc=$?
files=$(cd ws && find . -type f ! -path './.cudojo/*' | sort | tr '\n' ' ')
if [ "$files" = "./paths/good.cu " ] && ! grep -rqs "^root:" ws && \
   has_all "abs-solution.lua:5: error: solution file '/etc/passwd' is absolute" \
           "up-source.lua:4: error: source file '../../x' leaves the chapter folder" \
           "link-out.lua:4: error: source file 'link-out.cu' is a symlink leading outside" \
           "dotdot-id.lua:2: error: id '..'" "chapter.lua:6: error: exercise '../../escape'" \
           "link-lua.lua is a symlink leading outside" \
           "require-up.lua:2: error: require '../../../../etc/passwd': a module name is one identifier" \
           "require-link.lua:2: error: require 'passwd': lessons/01-paths/lib/passwd.lua is a symlink leading outside"; then
    ok "absolute, '..' and symlinked paths are refused at their lines and nothing outside the pack is copied"
else
    nok "absolute, '..' and symlinked paths are refused at their lines and nothing outside the pack is copied" \
        "rc=$rc" "files: $files" "$out"
fi
out=$(cd ws && "$BIN" reset good 2>&1 && "$BIN" list 2>&1); rc=$?
if [ $rc -eq 0 ] && [ ! -e ws/passwd ] && ! grep -rqs "^root:" ws; then
    ok "reset and list in that workspace touch only the sound exercise"
else
    nok "reset and list in that workspace touch only the sound exercise" "rc=$rc" "$out"
fi

# A runaway pack: every command stays quick and names the file that ran away.
start=$(date +%s)
out=$(timeout 60 "$BIN" --lessons "$HOSTILE/runaway" init ws3 2>&1); rc=$?
took=$(( $(date +%s) - start ))
if [ $rc -ne 124 ] && [ $took -lt 30 ] && \
   has_all "01-pcall-loop/chapter.lua:3" "02-gc-loop/chapter.lua:2" "03-slow-pattern/chapter.lua:3" \
           "04-print-flood/chapter.lua:3" "05-memory/chapter.lua:3" "06-spin/spin.lua:2" \
           "07-arrays/chapter.lua:3"; then
    ok "a runaway pack loads in ${took} s and names each file that ran away"
else
    nok "a runaway pack loads in bounded time and names each file that ran away" "rc=$rc took=${took}s" \
        "$(printf "%s\n" "$out" | head -20)"
fi
