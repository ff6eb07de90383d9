#!/bin/sh
# tests/lessons/test_authoring.sh: lessons/AUTHORING.md's tutorial works as
# written. The `$ ` lines between its "tutorial: begin" and "tutorial: end"
# marks run in order in an empty temporary folder (cudojo being this build):
# `cudojo new` makes a chapter and its exercises, `cudojo verify` passes
# them on the emulator, and `cudojo lint` (status 1) lists the TODO(author)
# stubs left to write.
BIN=${CUDOJO_BIN:-build/cudojo}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
DOC=$(pwd)/lessons/AUTHORING.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME=$tmp/data XDG_CACHE_HOME=${XDG_CACHE_HOME:-$tmp/cache} NO_COLOR=1

sed -n '/<!-- tutorial: begin/,/<!-- tutorial: end/p' "$DOC" | sed -n 's/^\$ //p' > "$tmp/steps"
if [ "$(grep -c '^cudojo new exercise' "$tmp/steps")" -lt 2 ] || ! grep -q '^cudojo verify' "$tmp/steps"; then
    echo "not ok - the tutorial in AUTHORING.md has its steps (new chapter, new exercise, verify)"
    cat "$tmp/steps"
    exit 0
fi
mkdir "$tmp/root"
cd "$tmp/root" || exit 1
status=0
n=0
while IFS= read -r step; do
    n=$((n + 1))
    cmd=$(printf '%s' "$step" | sed "s|^cudojo |\"$BIN\" --backend=emu |")
    eval "$cmd" > "$tmp/out.$n" 2>&1
    rc=$?
    case $step in
        "cudojo lint"*) want=1 ;;   # the skeleton's TODO(author) stubs are still there
        *) want=0 ;;
    esac
    if [ "$rc" = "$want" ]; then
        echo "ok - AUTHORING.md tutorial step $n: $step (exit $rc)"
    else
        echo "not ok - AUTHORING.md tutorial step $n: $step exits $rc, want $want"
        sed 's/^/    /' "$tmp/out.$n" | tail -20
        status=1
    fi
    case $step in
        "cudojo verify"*)
            if grep -q '0 not, 0 skipped' "$tmp/out.$n" && ! grep -q 'lessons/' "$tmp/out.$n"; then
                echo "ok - step $n verifies every file of the new chapter, named by its real path"
            else
                echo "not ok - step $n verifies every file of the new chapter, named by its real path"
                sed 's/^/    /' "$tmp/out.$n" | tail -20
            fi ;;
        "cudojo lint"*)
            if grep -q 'README.md:3: a TODO(author) stub' "$tmp/out.$n"; then
                echo "ok - step $n: lint lists the stubs to write, file:line"
            else
                echo "not ok - step $n: lint lists the stubs to write, file:line"
                sed 's/^/    /' "$tmp/out.$n" | tail -20
            fi ;;
    esac
done < "$tmp/steps"
cd "$tmp/root" || exit 1
# Everything the tutorial promised is there: two exercises, each with its four files.
for f in 01-intro/chapter.lua 01-intro/scale.lua 01-intro/scale.cu 01-intro/solutions/scale.cu \
         01-intro/solutions/wrong/scale-off-by-one.cu 01-intro/scale-program.lua 01-intro/solutions/scale-program.cu; do
    [ -f "mypack/$f" ] || { echo "not ok - the tutorial made mypack/$f"; exit 0; }
done
if grep -q '"scale", "scale-program"' mypack/01-intro/chapter.lua; then
    echo "ok - chapter.lua lists both exercises in the order they were made"
else
    echo "not ok - chapter.lua lists both exercises in the order they were made"
    cat mypack/01-intro/chapter.lua
fi
