#!/bin/sh
# tests/kernels/test_call_circles.sh: no two files of one engine folder (or
# of lua/ or app/tui/) call each other (issue 18 item 6). A circle A.c <->
# B.c means neither file can be read, tested or replaced without the other;
# a small shared header or a change of owner removes it
# (kernels/cuda/cuda_state.c owns what the GPU backend and its streams
# share). Read from the built objects: A depends on
# B when A.o uses a function B.o defines (a call or a table of function
# pointers; shared data such as emurt's g_rt is not a call). Folders
# checked: kernels/cuda, kernels/emu, kernels/emurt, lua and app/tui
# (tests/tui/test_call_circles.sh also holds app/tui to no longer circle).
BUILD=${BUILD:-build}
dirs="kernels/cuda kernels/emu kernels/emurt lua app/tui"
# Circles allowed: none (issue 18 removed the last ones by a change of
# owner: emu_run.c merges its workers, emu_backend.c holds the recorder,
# lua/run_ctx.c has what the parts of a run share). One line each, "a.c
# b.c" in name order; keep it empty.
allowed=""
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/    /'; }

# circles DIR (objects in OBJDIR): prints "a.o <-> b.o (sym, sym)" per circle
circles() {
    objdir=$1
    for o in "$objdir"/*.o; do
        n=$(basename "$o")
        nm -g --defined-only "$o" 2> /dev/null | awk 'NF == 3 && $2 == "T" { print $3 }' | sort -u > "$work/def.$n"
        nm -u "$o" 2> /dev/null | awk '{ print $NF }' | sort -u > "$work/und.$n"
    done
    for a in "$objdir"/*.o; do
        na=$(basename "$a")
        for b in "$objdir"/*.o; do
            nb=$(basename "$b")
            [ "$na" \< "$nb" ] || continue
            ab=$(comm -12 "$work/und.$na" "$work/def.$nb" | head -3 | tr '\n' ' ')
            [ -n "$ab" ] || continue
            ba=$(comm -12 "$work/und.$nb" "$work/def.$na" | head -3 | tr '\n' ' ')
            [ -n "$ba" ] || continue
            printf '%s\n' "$allowed" | grep -qx "${na%.o}.c ${nb%.o}.c" && continue
            echo "${na%.o}.c -> ${nb%.o}.c ($ab) and back ($ba)"
        done
    done
}

for d in $dirs; do
    objdir=$BUILD/obj/$d
    [ "$d" = kernels/emurt ] && objdir=$BUILD/pic/$d
    if ! ls "$objdir"/*.o > /dev/null 2>&1; then echo "skip - no two files of $d call each other ($objdir is not built)"; continue; fi
    c=$(circles "$objdir")
    if [ -z "$c" ]; then ok "no two files of $d call each other"; else notok "no two files of $d call each other" "$c"; fi
done

# The checker itself finds a circle where there is one.
mkdir -p "$work/fake"
printf 'int b(void);\nint a(void) { return b(); }\n' > "$work/fake/a.c"
printf 'int a(void);\nint b(void) { return a() + 1; }\n' > "$work/fake/b.c"
printf 'int a(void);\nint c(void) { return a(); }\n' > "$work/fake/c.c"
if (cd "$work/fake" && cc -c a.c b.c c.c 2> /dev/null); then
    c=$(circles "$work/fake")
    if [ "$c" = "a.c -> b.c (b ) and back (a )" ]; then ok "the checker finds a.c <-> b.c and not c.c -> a.c"
    else notok "the checker finds a.c <-> b.c and not c.c -> a.c" "$c"; fi
fi
