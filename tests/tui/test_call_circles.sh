#!/bin/sh
# tests/tui/test_call_circles.sh: no two files of app/tui/ call each other,
# directly or round a longer circle (issue 18: screens return requests, only
# tui_main.c builds screens, and screens call tui_services.c, which calls
# none of them). tools/call-circles.sh reads the object files' symbols; it
# is first shown to find a pair and a three-file circle in small objects
# made here. Prints ok / not ok / skip per case.
BUILD=${BUILD:-build}
CC=${CC:-cc}
T=$(mktemp -d /tmp/cudojo-circles-XXXXXX)
trap 'rm -rf "$T"' EXIT
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }

# a.c and b.c call each other; c.c -> d.c -> e.c -> c.c; f.c calls a.c only.
mkdir -p "$T/pair" "$T/ring" "$T/none"
printf 'void b(void);\nvoid a(void) { b(); }\n' >"$T/pair/a.c"
printf 'void a(void);\nvoid b(void) { a(); }\n' >"$T/pair/b.c"
printf 'void d(void);\nvoid c(void) { d(); }\n' >"$T/ring/c.c"
printf 'void e(void);\nvoid d(void) { e(); }\n' >"$T/ring/d.c"
printf 'void c(void);\nvoid e(void) { c(); }\n' >"$T/ring/e.c"
printf 'void g(void);\nvoid f(void) { g(); }\n' >"$T/none/f.c"
printf 'void g(void) { }\n' >"$T/none/g.c"
for f in "$T"/*/*.c; do "$CC" -c -o "${f%.c}.o" "$f" || { nok setup "cc failed on $f"; exit 0; }; done

out=$(sh tools/call-circles.sh "$T/pair"); rc=$?
if [ $rc -eq 1 ] && echo "$out" | grep -q "^a.o <-> b.o$"; then ok call_circles_names_two_files_calling_each_other
else nok call_circles_names_two_files_calling_each_other "status $rc" "$out"; fi

out=$(sh tools/call-circles.sh "$T/ring"); rc=$?
if [ $rc -eq 1 ] && echo "$out" | grep -q "^circle:.*c.o" && echo "$out" | grep -q "d.o" && echo "$out" | grep -q "e.o"
then ok call_circles_names_a_longer_circle
else nok call_circles_names_a_longer_circle "status $rc" "$out"; fi

out=$(sh tools/call-circles.sh "$T/none"); rc=$?
if [ $rc -eq 0 ] && [ -z "$out" ]; then ok call_circles_is_quiet_without_one
else nok call_circles_is_quiet_without_one "status $rc" "$out"; fi

if ! ls "$BUILD"/obj/app/tui/*.o >/dev/null 2>&1; then
    echo "skip - app_tui_has_no_call_circle (no objects in $BUILD/obj/app/tui: build first)"
    exit 0
fi
out=$(sh tools/call-circles.sh "$BUILD/obj/app/tui"); rc=$?
if [ $rc -eq 0 ]; then ok app_tui_has_no_call_circle
else nok app_tui_has_no_call_circle "$out"; fi
