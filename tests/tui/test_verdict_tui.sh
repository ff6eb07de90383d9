#!/bin/sh
# tests/tui/test_verdict_tui.sh: the workbench shows a verdict as soon as
# it comes, before what runs after it (t:program{ after = }, lua/API.md):
# a one-exercise pack whose profile function takes a while (a Lua loop
# stands in for Nsight Compute's start, which the emulator never makes)
# is run in a detached tmux on the emulator. PASS and "profiling after the
# verdict…" show while the function runs; the final result then replaces
# it, with what the function logged under its heading; Esc during the
# profile keeps the verdict. The pack's second exercise keeps a
# compute-sanitizer run instead (after = function(san)): the workbench
# says "checking with compute-sanitizer after the verdict…", not a
# profiler's words. Needs tmux and nvcc (a program exercise); prints ok /
# not ok / skip per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
CASES="verdict_shows_while_profiling final_result_replaces_it esc_during_the_profile_keeps_the_verdict sanitizer_after_the_verdict_says_so"
skip_all() { for c in $CASES; do echo "skip - $c ($1)"; done; exit 0; }
command -v tmux >/dev/null 2>&1 || skip_all "tmux is not installed"
T=$(mktemp -d /tmp/cudojo-vtui-XXXXXX)
SOCK="cudojo-vtui-test-$$"
TM="tmux -L $SOCK -f /dev/null"
. "$(dirname "$0")/tmux.sh"
cleanup() { $TM kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT INT TERM
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache"
unset NO_COLOR VISUAL EDITOR LC_ALL LC_MESSAGES

P="$T/pack/01-p"
mkdir -p "$P/solutions"
echo "return { id = 'p', title = 'Profiles', order = 1, exercises = { 'prog', 'san' } }" > "$P/chapter.lua"
printf '%s\n' '#include <stdio.h>' 'int main(void) { puts("sum = 42"); return 0; }' > "$P/solutions/prog.cu"
cp "$P/solutions/prog.cu" "$P/prog.cu"
cp "$P/solutions/prog.cu" "$P/solutions/san.cu"
cp "$P/solutions/prog.cu" "$P/san.cu"
cat > "$P/san.lua" <<'EOF'
return {
  id = 'san',
  kind = 'program',
  title = 'A verdict before its racecheck',
  source = 'san.cu',
  solution = 'solutions/san.cu',
  timeout = 60,
  run = function(t)
    local r = t:program{ sanitizer = 'racecheck', after = function(san)
      local x = 0
      for i = 1, 120000000 do x = x + i end   -- racecheck's own start, roughly
      t:log('racecheck: %s', tostring(san.available))
    end }
    t:expect_output(r, 'sum = 42')
  end,
}
EOF
cat > "$P/prog.lua" <<'EOF'
return {
  id = 'prog',
  kind = 'program',
  title = 'A verdict before its profile',
  source = 'prog.cu',
  solution = 'solutions/prog.cu',
  timeout = 60,
  run = function(t)
    local r = t:program{ profile = 'ncu', after = function(prof)
      local x = 0
      for i = 1, 120000000 do x = x + i end   -- the profiler's own start, roughly
      t:log('ncu: stand-in figures (%s)', tostring(prof.available))
    end }
    t:expect_output(r, 'sum = 42')
  end,
}
EOF
out=$("$BIN" --lessons "$T/pack" --backend=emu run prog --file "$P/solutions/prog.cu" --json 2>/dev/null)
echo "$out" | grep -q '"verdict": *"pass"' || skip_all "the program does not build here (no nvcc?)"
WS="$T/ws"
"$BIN" --lessons "$T/pack" init "$WS" >/dev/null 2>&1 || { echo "not ok - setup (cudojo init failed)"; exit 0; }

ok() { echo "ok - $1"; }
nok() { name=$1; shift; echo "not ok - $name"; for l in "$@"; do echo "    $l"; done; }
screen() { $TM capture-pane -p -t tui 2>/dev/null; }
keys() { $TM send-keys -t tui "$@"; sleep 0.2; }
dump() { screen | sed 's/^/    | /'; }
tm_new -d -s tui -x 100 -y 40 "cd '$WS' && env LANG=C.UTF-8 '$BIN' --backend=emu; sleep 30"
wait_for "Course map" 10
keys Enter
wait_for "prog\.cu" 5

keys r
if wait_for "profiling after the verdict" 60 && screen | grep -q "PASS" && screen | grep -Eq "Result: PASS · profiling [0-9.]+ s"
then ok verdict_shows_while_profiling
else nok verdict_shows_while_profiling "$(dump)"; fi

if wait_for "What Nsight Compute measured" 60 && screen | grep -q "ncu: stand-in figures (false)" &&
    ! screen | grep -q "profiling after the verdict" && screen | grep -q "PASS"
then ok final_result_replaces_it
else nok final_result_replaces_it "$(dump)"; fi

keys r
if wait_for "profiling after the verdict" 60 && keys Escape && wait_for "the verdict stands" 5 &&
    screen | grep -q "PASS" && ! screen | grep -q "profiling after the verdict"
then ok esc_during_the_profile_keeps_the_verdict
else nok esc_during_the_profile_keeps_the_verdict "$(dump)"; fi

# the second exercise: compute-sanitizer after the verdict, in its own words
keys ']'
wait_for "san\.cu" 5 && keys r
if wait_for "checking with compute-sanitizer" 60 &&
    screen | grep -q "PASS" && screen | grep -Eq "Result: PASS · compute-sanitizer [0-9.]+ s" &&
    ! screen | grep -q "profiling"
then ok sanitizer_after_the_verdict_says_so
else nok sanitizer_after_the_verdict_says_so "$(dump)"; fi
