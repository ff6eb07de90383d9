#!/bin/sh
# tests/programs/run.sh: the conformance suite of whole CUDA programs. Each
# tests/programs/NAME.cu is compiled by nvcc (cached in $BUILD/programs by the
# SHA-256 of its source, flags and nvcc version), run on the emulator runtime
# ($BUILD/emurt/libcudart.so.<major>) or on NVIDIA's libcudart, and its stdout
# is compared with tests/programs/expected/NAME.out (the H200's answer).
#
#   sh tests/programs/run.sh [--runtime=emu|cuda] [--out DIR] [--timeout S] [--max-output MB] [NAME...]
#   sh tests/programs/run.sh --compile-only [NAME...]   (fills the cache, runs nothing:
#                                 compile here, carry $BUILD/programs to a GPU machine)
#
# Prints "ok - NAME" or "not ok - NAME (why)" with the diff and the end of
# stderr indented below it; exit status 1 if any program failed. With --out
# DIR each program's stdout/stderr go to DIR/NAME.out and DIR/NAME.err and a
# table to DIR/compare.txt (its last line is the summary).
#
# Tags, one per line anywhere in a source, "// cudojo: KEY=VALUE":
#   devices=N     CUDOJO_EMU_DEVICES for the emulator runtime (default 1)
#   args=A B      argv[1..] (split on blanks)
#   stdin=FILE    stdin from tests/programs/FILE (default /dev/null)
#   nvcc=FLAGS    extra nvcc flags (e.g. --default-stream per-thread)
#   emu-ptx=80    built with compute_80 PTX beside the sm_90 SASS, as cudojo
#                 builds a program whose compute_90 PTX the emulator cannot
#                 decode (kernels/program_compile.c); else compute_90 PTX
#   timeout=S     seconds before the program is killed (default 30)
#   exit=N        the exit status it must end with (default 0)
#   emu-fails=TXT on the emulator runtime the program must fail (a feature the
#                 emulator lacks) with TXT in its stderr: it fails loudly,
#                 naming what is missing, and its stdout is not compared
#   emu-errors=TXT  on the emulator runtime, the program's error findings
#                 ("FILE.cu:LINE: error: ...", stderr) are there and each one
#                 holds TXT (a fault the program makes on purpose); without
#                 the tag it must have none: a correct program (Thrust and
#                 CUB among them) reported as racing or reading uninitialised
#                 memory fails, not only a wrong stdout
# Each program runs in a fresh temporary directory as its cwd, so the files it
# writes go nowhere else. A file it writes (its stdout and stderr among them)
# may grow to --max-output MB (default 8; `ulimit -f`): a program that writes
# more is stopped there (SIGXFSZ) and fails with "output over N MB" (on the
# H200 the first printf_star wrote 1.29 GB of zeros). Environment: BUILD
# (default build), CUDA_HOME (default /usr/local/cuda).
here=$(cd "$(dirname "$0")" && pwd)
runtime=emu; outdir=""; names=""; deftimeout=30; compile_only=""; maxmb=8
while [ $# -gt 0 ]; do
    case $1 in
        --runtime=*) runtime=${1#--runtime=} ;;
        --compile-only) compile_only=1 ;;
        --out) outdir=$2; shift ;;
        --out=*) outdir=${1#--out=} ;;
        --timeout) deftimeout=$2; shift ;;
        --timeout=*) deftimeout=${1#--timeout=} ;;
        --max-output) maxmb=$2; shift ;;
        --max-output=*) maxmb=${1#--max-output=} ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) names="$names ${1%.cu}" ;;
    esac
    shift
done
case $runtime in emu|cuda) ;; *) echo "run.sh: --runtime is emu or cuda, not $runtime" >&2; exit 2 ;; esac
case $maxmb in ''|*[!0-9]*|0) echo "run.sh: --max-output is a whole number of MB, not '$maxmb'" >&2; exit 2 ;; esac
maxbytes=$((maxmb * 1048576))
BUILD=${BUILD:-build}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
nvcc=$CUDA_HOME/bin/nvcc
if [ ! -x "$nvcc" ]; then echo "run.sh: no nvcc at $nvcc (set CUDA_HOME)" >&2; exit 2; fi
mkdir -p "$BUILD/programs" || exit 2
cache=$(cd "$BUILD/programs" && pwd)
nvver=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
major=${nvver%%.*}
emurt=""
if [ "$runtime" = emu ] && [ -z "$compile_only" ]; then
    emurt=$(cd "$BUILD/emurt" 2>/dev/null && pwd)
    if [ -z "$emurt" ] || [ ! -f "$emurt/libcudart.so.$major" ]; then
        echo "run.sh: no emulator runtime at $BUILD/emurt/libcudart.so.$major (make BUILD=$BUILD $BUILD/emurt/libcudart.so.$major)" >&2
        exit 2
    fi
fi
# `make san` builds the emulator runtime with ASan: a program that is not
# instrumented can load it only with the ASan runtime loaded first.
asan=""
if [ "$runtime" = emu ]; then
    asan=$(ldd "$emurt/libcudart.so.$major" 2>/dev/null | awk '/libasan\.so/ { print $3 }')
    [ -n "$asan" ] && export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
fi
if [ -n "$outdir" ]; then
    mkdir -p "$outdir" || exit 2
    outdir=$(cd "$outdir" && pwd)
    printf '%-24s %-8s %-6s %s\n' NAME RESULT EXIT "FIRST DIFFERENCE (expected | got)" > "$outdir/compare.txt"
fi
if [ -z "$names" ]; then
    for f in "$here"/*.cu; do names="$names $(basename "$f" .cu)"; done
fi
# stdout line-buffered (stdbuf), so a program killed at the timeout still
# shows how far it got; the same on both runtimes.
linebuf=""; command -v stdbuf > /dev/null 2>&1 && linebuf="stdbuf -oL"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
# The options cudojo builds a program with on an H200 (program_nvcc_options,
# kernels/program_compile.c; expanded under set -f: code=[...] is no glob).
basecflags="-lineinfo -Xcompiler -g1 -Xcompiler -pipe -nodlink -cudart shared"
gencode="-gencode arch=compute_90,code=[compute_90,sm_90]"
# cudojo's build when the emulator cannot decode the compute_90 PTX (tag emu-ptx=80)
gencode80="-gencode arch=compute_80,code=compute_80 -gencode arch=compute_90,code=sm_90"

tag() { # tag KEY FILE: the value of "// cudojo: KEY=" in FILE, or nothing
    sed -n "s|^[[:space:]]*// cudojo: $1=\(.*\)|\1|p" "$2" | head -1 | sed 's/[[:space:]]*$//'
}
indent() { sed 's/^/    /'; }

npass=0; nfail=0
for name in $names; do
    src=$here/$name.cu
    if [ ! -f "$src" ]; then echo "not ok - $name (no $src)"; nfail=$((nfail + 1)); continue; fi
    extra=$(tag nvcc "$src")
    cflags=$basecflags
    # -rdc=true's device code is linked: not without the device link step
    case " $extra " in *" -rdc=true "*) cflags=$(echo "$basecflags" | sed 's/ -nodlink//') ;; esac
    gflags=$gencode
    [ "$(tag emu-ptx "$src")" = 80 ] && gflags=$gencode80
    key=$( { cat "$src"; echo "$cflags $gflags $extra"; echo "$nvver"; } | sha256sum | cut -c1-16)
    exe=$cache/$name-$key
    why=""
    if [ ! -x "$exe" ]; then
        rm -rf "$tmp/c"; mkdir -p "$tmp/c"
        cp "$src" "$tmp/c/$name.cu"
        # Compiled from a copy named NAME.cu in an empty directory, so __FILE__
        # and device assert messages say "NAME.cu" wherever the suite runs.
        # shellcheck disable=SC2086
        if (set -f; cd "$tmp/c" && "$nvcc" $cflags $gflags $extra -o "$name" "$name.cu") > "$tmp/compile.log" 2>&1; then
            mv "$tmp/c/$name" "$exe.tmp$$" && mv "$exe.tmp$$" "$exe"
        else
            why="compile failed"
        fi
    fi
    if [ -n "$compile_only" ]; then
        if [ -z "$why" ]; then echo "ok - $name (compiled)"; npass=$((npass + 1))
        else echo "not ok - $name ($why)"; indent < "$tmp/compile.log" | tail -20; nfail=$((nfail + 1)); fi
        continue
    fi
    got=$tmp/$name.out; err=$tmp/$name.err
    rc=""
    if [ -z "$why" ]; then
        devices=$(tag devices "$src"); args=$(tag args "$src"); stdin=$(tag stdin "$src")
        t=$(tag timeout "$src"); want_rc=$(tag exit "$src")
        in=/dev/null; [ -n "$stdin" ] && in=$here/$stdin
        rm -rf "$tmp/cwd"; mkdir -p "$tmp/cwd"
        # shellcheck disable=SC2086
        # ulimit -f counts 512-byte blocks in sh (dash, and bash as sh)
        if [ "$runtime" = emu ]; then
            (cd "$tmp/cwd" && ulimit -f $((maxbytes / 512)) && exec env LD_LIBRARY_PATH="$emurt${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
                LD_PRELOAD="${asan:+$asan:}$emurt/libcudart.so.$major" CUDOJO_EMU_DEVICES="${devices:-1}" \
                timeout -k 2 "${t:-$deftimeout}" $linebuf "$exe" $args) < "$in" > "$got" 2> "$err"
        else
            (cd "$tmp/cwd" && ulimit -f $((maxbytes / 512)) && exec env LD_LIBRARY_PATH="$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
                timeout -k 2 "${t:-$deftimeout}" $linebuf "$exe" $args) < "$in" > "$got" 2> "$err"
        fi
        rc=$?
        emu_fails=$(tag emu-fails "$src")
        if [ "$runtime" = emu ] && [ -n "$emu_fails" ]; then
            if [ $rc -ne 0 ] && [ $rc -lt 124 ] && grep -qF -- "$emu_fails" "$err"; then
                echo "ok - $name (the emulator runtime refuses it, saying: $emu_fails)"; npass=$((npass + 1))
            else
                echo "not ok - $name (expected to fail on the emulator runtime with \"$emu_fails\" on stderr; exit $rc)"
                tail -12 "$err" | indent; nfail=$((nfail + 1))
            fi
            if [ -n "$outdir" ]; then
                cp "$got" "$outdir/$name.out"; cp "$err" "$outdir/$name.err"
                printf '%-24s %-8s %-6s %s\n' "$name" refused "$rc" "emulator lacks it: $emu_fails" >> "$outdir/compare.txt"
            fi
            continue
        fi
        if [ $rc -eq 153 ] || [ "$(wc -c < "$got")" -ge $maxbytes ] || [ "$(wc -c < "$err")" -ge $maxbytes ]; then
            why="output over $maxmb MB (stopped there, exit $rc)"
        elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then why="did not finish within ${t:-$deftimeout} s"
        elif [ $rc -gt 128 ]; then why="killed by signal $((rc - 128))"
        elif [ "$rc" != "${want_rc:-0}" ]; then why="exit status $rc, expected ${want_rc:-0}"
        fi
        exp=$here/expected/$name.out
        if [ ! -f "$exp" ]; then why="${why:+$why; }no expected/$name.out"
        elif ! cmp -s "$exp" "$got"; then why="${why:+$why; }stdout differs"
        fi
        if [ "$runtime" = emu ]; then
            want_err=$(tag emu-errors "$src")
            found=$(grep '\.cu:[0-9]*: error: ' "$err")
            if [ -z "$want_err" ] && [ -n "$found" ]; then
                why="${why:+$why; }error findings on stderr, and the program is correct"
            elif [ -n "$want_err" ] && { [ -z "$found" ] || printf '%s\n' "$found" | grep -vqF -- "$want_err"; }; then
                why="${why:+$why; }its error findings are not all \"$want_err\""
            fi
        fi
    else
        : > "$got"; cp "$tmp/compile.log" "$err"
    fi
    if [ -z "$why" ]; then
        echo "ok - $name"; npass=$((npass + 1)); result=same
    else
        echo "not ok - $name ($why)"; nfail=$((nfail + 1)); result=differs
        [ -f "$here/expected/$name.out" ] && diff -u "$here/expected/$name.out" "$got" | tail -n +3 | head -40 | cut -c1-300 | indent
        if [ -s "$err" ]; then echo "    --- stderr (last lines)"; tail -12 "$err" | cut -c1-300 | indent; fi
    fi
    if [ -n "$outdir" ]; then
        cp "$got" "$outdir/$name.out"; cp "$err" "$outdir/$name.err"
        first=""
        if [ -f "$here/expected/$name.out" ] && ! cmp -s "$here/expected/$name.out" "$got"; then
            first=$(diff "$here/expected/$name.out" "$got" | awk '/^</ && !e { e = substr($0, 3, 200) } /^>/ && !g { g = substr($0, 3, 200) } END { print e " | " g }')
        fi
        [ -n "$why" ] && [ -z "$first" ] && first=$why
        printf '%-24s %-8s %-6s %s\n' "$name" "$result" "${rc:--}" "$first" >> "$outdir/compare.txt"
    fi
done
if [ -n "$compile_only" ]; then
    echo "# $npass of $((npass + nfail)) programs compiled into $cache"
    [ $nfail -eq 0 ]; exit
fi
summary="$npass of $((npass + nfail)) programs print what expected/ says on runtime=$runtime, $nfail differ"
[ -n "$outdir" ] && echo "$summary" >> "$outdir/compare.txt"
echo "# $summary"
[ $nfail -eq 0 ]
