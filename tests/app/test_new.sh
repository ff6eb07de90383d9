#!/bin/sh
# tests/app/test_new.sh: `cudojo new chapter|exercise` for authors, on packs
# outside lessons/: the skeleton verifies as written, nothing is overwritten,
# bad input gets a clear error; verify names the pack's real paths; a starter
# with no global load can log t:emu_metrics() ratios (0, not nil); a finding
# of many launches is shown once with a count.
BIN=${CUDOJO_BIN:-build/cudojo}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME=$tmp/data XDG_CACHE_HOME=${XDG_CACHE_HOME:-$tmp/cache} NO_COLOR=1
cudojo() { "$BIN" --backend=emu "$@"; }

check() {   # check NAME COMMAND TEST: runs COMMAND (output in $tmp/o, status in $rc), then TEST
    name=$1
    ( cd "$tmp/w" && eval "$2" ) > "$tmp/o" 2>&1
    rc=$?
    if eval "$3"; then echo "ok - $name"; else
        echo "not ok - $name (exit $rc)"
        sed 's/^/    /' "$tmp/o" | tail -15
    fi
}
mkdir -p "$tmp/w"

check "new chapter makes NN-ID with chapter.lua and both READMEs" "cudojo new chapter intro" \
    '[ $rc = 0 ] && [ -f $tmp/w/01-intro/chapter.lua ] && [ -f $tmp/w/01-intro/README.md ] && [ -f $tmp/w/01-intro/README.zh-CN.md ] && grep -q "id = \"intro\"" $tmp/w/01-intro/chapter.lua'
check "the next chapter takes the next number" "cudojo new chapter second" '[ $rc = 0 ] && [ -d $tmp/w/02-second ]'
check "new exercise writes the .lua, starter, solution and a wrong variant and lists it" \
    "cudojo new exercise intro scale" \
    '[ $rc = 0 ] && [ -f $tmp/w/01-intro/scale.lua ] && [ -f $tmp/w/01-intro/scale.cu ] && [ -f $tmp/w/01-intro/solutions/scale.cu ] && [ -f $tmp/w/01-intro/solutions/wrong/scale-off-by-one.cu ] && grep -q "exercises = { \"scale\" }" $tmp/w/01-intro/chapter.lua'
check "verify passes the skeleton: starter fails, solution passes, wrong fails; rows name the pack's own paths" \
    "cudojo verify 01-intro" \
    '[ $rc = 0 ] && grep -q "solution 01-intro/solutions/scale.cu .* pass" $tmp/o && grep -q "starter  01-intro/scale.cu .* fail" $tmp/o && grep -q "wrong    01-intro/solutions/wrong/scale-off-by-one.cu.* fail" $tmp/o && ! grep -q "lessons/" $tmp/o'

# nothing is overwritten, and nothing half-written
mkdir -p "$tmp/w/01-intro/solutions"
echo "// mine" > "$tmp/w/01-intro/solutions/taken.cu"
cp "$tmp/w/01-intro/chapter.lua" "$tmp/chapter.before"
check "new exercise refuses to overwrite a file, names it, and writes nothing" "cudojo new exercise intro taken" \
    '[ $rc = 1 ] && grep -q "01-intro/solutions/taken.cu exists already" $tmp/o && [ ! -e $tmp/w/01-intro/taken.lua ] && [ "$(cat $tmp/w/01-intro/solutions/taken.cu)" = "// mine" ] && cmp -s $tmp/chapter.before $tmp/w/01-intro/chapter.lua'
check "an exercise id the course has already is refused, naming where" "cudojo new exercise second scale" \
    '[ $rc = 1 ] && grep -q "exercise .scale. already (01-intro/scale.lua)" $tmp/o'
check "a chapter id the pack has already is refused" "cudojo new chapter intro" '[ $rc = 1 ] && grep -q "chapter .intro. already" $tmp/o'
check "a bad id is a usage error that says the rule" "cudojo new exercise intro 'no good'" \
    '[ $rc = 2 ] && grep -q "not an exercise id: use letters, digits" $tmp/o'
check "a chapter that does not exist is named, with how to make it" "cudojo new exercise nowhere x" \
    '[ $rc = 1 ] && grep -q "no chapter .nowhere." $tmp/o && grep -q "cudojo new chapter nowhere" $tmp/o'
check "new without a kind prints its usage" "cudojo new" '[ $rc = 2 ] && grep -q "usage: cudojo new chapter ID" $tmp/o'

# a pack elsewhere, by --lessons, and a chapter by its path; a hand-written chapter.lua
mkdir -p "$tmp/pack/07-mine"
cat > "$tmp/pack/07-mine/chapter.lua" <<'LUA'
return {
  id = "mine",
  title = "Mine", title_zh = "我的",
  order = 7,
  exercises = {
    -- a comment with a } in it
  },
}
LUA
check "new exercise by the chapter's folder path edits a hand-written exercises list" \
    "cudojo new exercise $tmp/pack/07-mine first && cudojo new exercise mine second --lessons $tmp/pack" \
    '[ $rc = 0 ] && tr -d " \n" < $tmp/pack/07-mine/chapter.lua | grep -q "exercises={\"first\",\"second\"--acommentwitha}init},"'
check "verify of a pack outside the current folder names it by its absolute path" "cudojo verify $tmp/pack/07-mine" \
    '[ $rc = 0 ] && grep -q "$tmp/pack/07-mine/solutions/first.cu.* pass" $tmp/o && grep -q "6 as expected, 0 not" $tmp/o && ! grep -q " lessons/" $tmp/o'
check "an error in the pack's Lua names the real file and line" \
    "sed -i 's/local a = 2.5/local a = 2.5 + nosuch/' $tmp/pack/07-mine/second.lua && cudojo verify $tmp/pack/07-mine" \
    '[ $rc = 1 ] && grep -q "$tmp/pack/07-mine/second.lua:[0-9]*: unknown global .nosuch." $tmp/o'

# t:emu_metrics() with no global request: 0, not nil (a log line must not turn the starter's failure into an exercise error)
sed -i 's|^    t:expect_close(y, want, { rel = 1e-6, abs = 1e-7 })|    local m = t:emu_metrics()\n    t:log("%.2f sectors per request, %d bank conflicts", m.sectors_per_request, m.bank_conflicts)\n&|' "$tmp/w/01-intro/scale.lua"
check "a starter with no global load can log t:emu_metrics() ratios: it fails, it is not an exercise error" \
    "grep -q sectors_per_request 01-intro/scale.lua && cudojo verify 01-intro --json" \
    '[ $rc = 0 ] && grep -q "\"verdict\": \"fail\"" $tmp/o && ! grep -q exercise-error $tmp/o'

# one finding over many launches: shown once, with the count
sed -i 's|^    k:launch{\(.*\)}$|    for _ = 1, 5 do k:launch{\1} end|' "$tmp/w/01-intro/scale.lua"
check "an out-of-bounds read in 5 launches is one finding '(in 5 launches)'" \
    "grep -q 'for _ = 1, 5' 01-intro/scale.lua && cudojo init ws --lessons . > /dev/null && cd ws && cudojo run scale --lessons .. --file ../01-intro/solutions/wrong/scale-off-by-one.cu --json" \
    '[ "$(grep -c "\"code\": \"oob-global\"" $tmp/o)" = 1 ] && grep -q "(in 5 launches)" $tmp/o'

if command -v nvcc > /dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    check "new exercise --program makes a whole-program skeleton that verify passes" \
        "cudojo new exercise second prog --program && cudojo verify 02-second" \
        '[ $rc = 0 ] && grep -q "kind = \"program\"" $tmp/w/02-second/prog.lua && grep -q "3 as expected, 0 not" $tmp/o'
else
    echo "skip - new exercise --program (no nvcc)"
fi
