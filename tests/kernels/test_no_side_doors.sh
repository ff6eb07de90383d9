#!/bin/sh
# tests/kernels/test_no_side_doors.sh: the backend interface has no side
# doors (issue 18 item 1). Outside kernels/cuda/ only the backend factory
# (kernels/backend_factory.c, and kernels/backend.h declaring
# cuda_backend_new) may include a kernels/cuda/ header or name a function or
# constant the GPU backend declares: everything else (app/, lua/, the rest of
# kernels/, bench/, base/, progress-db/) talks to a Backend. The names are
# read from kernels/cuda/*.h, so a new one is covered the day it is added.
# Tests (tests/) may test kernels/cuda/ directly, and so may
# bench/peaks_check.cu, which exists to hold kernels/cuda/cuda_peaks.c's
# figure against a plain cudaMemcpy.
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/    /'; }

# side_doors ROOT: "file:line: text" for every side door under ROOT
side_doors() {
    r=$1
    { grep -ohE '\b(cuda|cupti|inject)_[a-z0-9_]+[[:space:]]*\(' "$r"/kernels/cuda/*.h | sed 's/[[:space:]]*($//'
      grep -ohE '#define[[:space:]]+(CUDA|CUPTI|INJECT)_[A-Z0-9_]+' "$r"/kernels/cuda/*.h | awk '{ print $2 }'
      echo cuda_backend_new; } | sort -u > "$work/names"
    (cd "$r" && find app base kernels lua progress-db bench -name '*.[ch]' -o -name '*.cu' 2> /dev/null) |
        grep -v '^kernels/cuda/' | grep -vx 'kernels/backend_factory.c' | grep -vx 'kernels/backend.h' |
        grep -vx 'bench/peaks_check.cu' | sort > "$work/files"
    (cd "$r" && while read -r f; do
        grep -nH -F '"kernels/cuda/' "$f"
        # code only: a comment may name the GPU backend's things (where a
        # message comes from); lines keep their numbers
        strip_comments < "$f" | grep -nwF -f "$work/names" | sed "s|^|$f:|"
    done < "$work/files") | sort -u
}

# C with its comments blanked out, line for line (strings are left alone,
# so a "/*" inside one would hide code: none of ours has one).
strip_comments() {
    awk '{
        out = ""; line = $0
        while (length(line) > 0) {
            if (inc) {
                e = index(line, "*/")
                if (e == 0) { line = ""; break }
                line = substr(line, e + 2); inc = 0
            } else {
                b = index(line, "/*"); s = index(line, "//")
                if (s > 0 && (b == 0 || s < b)) { out = out substr(line, 1, s - 1); line = ""; break }
                if (b == 0) { out = out line; line = ""; break }
                out = out substr(line, 1, b - 1); line = substr(line, b + 2); inc = 1
            }
        }
        print out
    }'
}

found=$(side_doors "$root")
if [ -z "$found" ]; then ok "no file outside kernels/cuda/ and the backend factory names the GPU backend"
else notok "no file outside kernels/cuda/ and the backend factory names the GPU backend" "$found"; fi

# The check itself: a tree with one side door of each kind is caught, and a
# mention in another word (compile_cuda_x, cuda_home) is not.
mkdir -p "$work/t/kernels/cuda" "$work/t/app" "$work/t/lua"
printf 'bool cuda_backend_usable(const Backend *b);\n#define CUDA_DIAG_STICKY "gpu-fault"\n' > "$work/t/kernels/cuda/cuda_backend.h"
printf '#include "kernels/cuda/cuda_backend.h"\nint f(void) { return compile_cuda_x() + cuda_home(); }\n' > "$work/t/app/a.c"
printf 'int g(const Backend *b) { return cuda_backend_usable(b); }\nconst char *s = CUDA_DIAG_STICKY;\n' > "$work/t/lua/b.c"
printf '/* CUDA_DIAG_STICKY: where the message comes from */\nint h(void); // cuda_backend_usable() says so\n' > "$work/t/lua/c.c"
got=$(side_doors "$work/t" | sed 's/:.*//' | tr '\n' ' ')
want="app/a.c lua/b.c lua/b.c "
if [ "$got" = "$want" ]; then ok "the check finds an include, a call and a constant of the GPU backend elsewhere"
else notok "the check finds an include, a call and a constant of the GPU backend elsewhere" "got: $got; want: $want"; fi
