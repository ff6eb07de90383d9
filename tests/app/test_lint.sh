#!/bin/sh
# tests/app/test_lint.sh: `cudojo lint`. The course that ships is clean; a
# finished skeleton of `cudojo new` is clean; each kind of problem an author
# can leave (missing Chinese text, one hint, no wrong variant, a TODO that
# gives the answer, a README claim no CLAIMS.tsv row backs, an unused file,
# a TODO(author) stub, a module that is not required, or missing or broken
# where it is) is reported as file:line: message, with exit status 1.
BIN=${CUDOJO_BIN:-build/cudojo}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
here=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME=$tmp/data XDG_CACHE_HOME=${XDG_CACHE_HOME:-$tmp/cache} NO_COLOR=1

check() {   # check NAME TEST, on $tmp/o and $rc
    if eval "$2"; then echo "ok - $1"; else
        echo "not ok - $1 (exit $rc)"
        sed 's/^/    /' "$tmp/o" | tail -15
    fi
}

"$BIN" lint lessons > "$tmp/o" 2>&1; rc=$?
check "cudojo lint lessons: the course is clean" '[ $rc = 0 ]'

mkdir "$tmp/p" && cd "$tmp/p" || exit 1
"$BIN" new chapter intro > /dev/null && "$BIN" new exercise intro scale > /dev/null
"$BIN" lint . > "$tmp/o" 2>&1; rc=$?
check "a fresh skeleton lists its TODO(author) stubs, file:line" \
    '[ $rc = 1 ] && grep -q "^01-intro/scale.lua:1: a TODO(author) stub" $tmp/o && grep -q "^01-intro/README.zh-CN.md:3: a TODO(author) stub" $tmp/o'
find 01-intro -type f -exec sed -i 's/TODO(author): *//' {} +
"$BIN" lint . > "$tmp/o" 2>&1; rc=$?
check "the skeleton with its stubs written is clean" '[ $rc = 0 ]'

# one problem of each kind
rm 01-intro/README.zh-CN.md
sed -i '/^  title_zh = /d; /^  hints_zh = {/,/^  },/d' 01-intro/scale.lua
sed -i 's|^  wrong = .*||' 01-intro/scale.lua
sed -i 's|^    // threads past the end (i >= n) must not touch x or y.|    // TODO: if (i < n) y[i] = a * x[i];|' 01-intro/scale.cu
printf '\n## Common mistakes\n\n| mistake | on the emulator |\n| --- | --- |\n| no guard | an out-of-bounds read, with the line |\n' >> 01-intro/README.md
echo "scratch" > 01-intro/notes.txt
mkdir -p 01-intro/solutions/wrong && echo "// old" > 01-intro/solutions/wrong/scale-old.cu
"$BIN" lint . > "$tmp/o" 2>&1; rc=$?
check "problems make the exit status 1" '[ $rc = 1 ]'
check "a missing README.zh-CN.md is named" 'grep -q "^01-intro/README.zh-CN.md: missing: the lesson in Chinese" $tmp/o'
check "no title_zh, at the line of title" 'grep -q "^01-intro/scale.lua:[0-9]*: no title_zh" $tmp/o'
check "no hints_zh, at the line of hints" 'grep -q "^01-intro/scale.lua:[0-9]*: no hints_zh: the 2 hints in Chinese" $tmp/o'
check "no wrong variant" 'grep -q "^01-intro/scale.lua:[0-9]*: no wrong variant" $tmp/o'
check "a starter TODO that holds the solution's line, at its line" \
    'grep -q "^01-intro/scale.cu:10: the TODO gives away the solution.s line .y\[i\]=a\*x\[i\]." $tmp/o'
check "a README claim of a finding with no CLAIMS.tsv row, at its line" \
    'grep -q "^01-intro/README.md:[0-9]*: says the emulator reports an out-of-bounds finding here, but CLAIMS.tsv has no row for 01-intro with a finding oob" $tmp/o'
check "files nothing uses are named (a note, a wrong variant nobody lists)" \
    'grep -q "^01-intro/notes.txt: no exercise uses this file" $tmp/o && grep -q "^01-intro/solutions/wrong/scale-old.cu: no exercise uses this file" $tmp/o'
printf '01-intro\tscale\tsolutions/wrong/scale-old.cu\toob-global\tno guard: out of bounds\n01-intro\tnope\tx.cu\toob-global\tx\n' > CLAIMS.tsv
sed -i 's|^    local a = 2.5|    -- solutions/wrong/scale-old.cu is the claim'"'"'s file\n&|' 01-intro/scale.lua
sed -i 's|^  hints = {|  hints = { "only one" },\n  hints_old = {|' 01-intro/scale.lua
"$BIN" lint . > "$tmp/o" 2>&1; rc=$?
check "a CLAIMS.tsv row backs the claim; a row naming an exercise the chapter lacks is reported" \
    '! grep -q "README.md:[0-9]*: says the emulator" $tmp/o && grep -q "^CLAIMS.tsv:2: chapter 01-intro has no exercise .nope." $tmp/o'
check "a file the exercise names is used; the loader's warnings (one hint, an unknown field) are reported" \
    '! grep -q "scale-old.cu: no exercise uses" $tmp/o && grep -q "^01-intro/scale.lua:[0-9]*: .*at least 2 hints" $tmp/o && grep -q "^01-intro/scale.lua:[0-9]*: .*hints_old" $tmp/o'
"$BIN" lint 01-intro --json > "$tmp/o" 2>&1; rc=$?
check "--json on one chapter folder: the problems as a list with file, line, code, message" \
    '[ $rc = 1 ] && grep -q "\"code\": \"todo-answer\"" $tmp/o && grep -q "\"clean\": false" $tmp/o'
"$BIN" lint "$tmp/nowhere" > "$tmp/o" 2>&1; rc=$?
check "a pack that does not exist is an error (exit 2)" '[ $rc = 2 ] && grep -q "no such directory" $tmp/o'
cd "$here" || exit 1

# a chapter's modules (require): used ones are not "unused"; a module that is
# missing or does not compile is reported at the requiring line
mkdir "$tmp/q" && cd "$tmp/q" || exit 1
"$BIN" new chapter mods > /dev/null && "$BIN" new exercise mods double > /dev/null
find 01-mods -type f -exec sed -i 's/TODO(author): *//' {} +
mkdir 01-mods/lib
printf 'local inner = require("inner")\nreturn { a = inner.a }\n' > 01-mods/lib/shared.lua
printf 'return { a = 2.5 }\n' > 01-mods/lib/inner.lua
printf 'return {}\n' > 01-mods/lib/spare.lua
sed -i 's|^return {|local shared = require("shared")\n&|; s|^    local a = 2.5|    local a = shared.a|' 01-mods/double.lua
"$BIN" lint . > "$tmp/o" 2>&1; rc=$?
check "modules an exercise requires (and what they require) are used; one nobody requires is named" \
    '[ $rc = 1 ] && grep -q "^01-mods/lib/spare.lua: no exercise uses this file" $tmp/o && ! grep -q "shared.lua\|inner.lua" $tmp/o'
printf 'local m = {}\n\nfunction m.f(\n  return 1\nend\nreturn m\n' > 01-mods/lib/spare.lua
sed -i 's|^    local k = t:kernel("double")|    local spare = require("spare")\n    local missing = require "shraed"\n&|' 01-mods/double.lua
"$BIN" lint . > "$tmp/o" 2>&1; rc=$?
check "a module required in run(t) that does not compile: at the requiring line, with the module's line" \
    'grep -q "^01-mods/double.lua:25: require .spare.: the module does not compile: 01-mods/lib/spare.lua:4:" $tmp/o'
check "a module required in run(t) that does not exist: at the requiring line" \
    'grep -q "^01-mods/double.lua:26: require .shraed.: no such module of this chapter (01-mods/lib/shraed.lua does not exist)" $tmp/o'
sed -i 's|^local shared = require("shared")|local shared = require("../shared")|' 01-mods/double.lua
"$BIN" lint . > "$tmp/o" 2>&1; rc=$?
check "a require at the top of the file runs as the pack loads: a name with .. is refused there, once" \
    '[ $(grep -c "^01-mods/double.lua:4: require ...\/shared.: a module name is one identifier" $tmp/o) = 1 ]'
cd "$here" || exit 1
