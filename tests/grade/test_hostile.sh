#!/bin/sh
# tests/grade/test_hostile.sh: `cudojo grade` on a class of hostile
# submissions (docs/grading-sandbox.md says what is enforced): a program
# that reads the instructor's files, writes outside its folder, signals its
# worker and everyone (kill -1), opens a socket, leaves its session; a
# source that #includes the course's solution or /etc/passwd (directly,
# through a comment, a macro or the assembler's .incbin, or an .incbin made
# of adjacent strings, which only the confined compile stops); a program
# that prints Markdown (links, images, HTML) into its feedback; a workspace whose
# chapter folder is a link to the solutions, or whose progress database is a
# link to the grading database; a program that spins ignoring SIGTERM, one
# that floods its output with terminal escapes, one that fills the disk
# with files under the per-file limit (CUDOJO_RUN_DISK_MB=64 here). Each gets a failing verdict
# with its reason, the honest solution still passes, no secret reaches the
# gradebook, nothing is left running, nothing outside is touched.
# Emulator runtime + nvcc, no GPU needed.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
BUILD=${BUILD:-build}
T=$(mktemp -d /tmp/cudojo-hostile-XXXXXX)
trap 'rm -rf "$T" /tmp/cudojo-hostile-escaped-$$' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1
cd "$T" || exit 1
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
skip() { echo "skip - $1"; }
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then
    skip "grade: hostile programs (no nvcc)"; exit 0
fi
EMURT=$(cd "$(dirname "$BIN")" && pwd)/emurt
[ -d "$EMURT" ] || EMURT=$(pwd)/$BUILD/emurt
# Landlock (Linux 5.13+) shuts a graded program in; without it those checks skip.
LANDLOCK=$(python3 -c 'import ctypes; print(ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1))' 2>/dev/null)
[ "${LANDLOCK:-0}" -gt 0 ] 2>/dev/null || LANDLOCK=0

mkdir -p course/hostile/solutions subs
cat > course/hostile/chapter.lua <<'EOF'
return { id = "hostile", title = "Hostile", order = 1, exercises = { "hello" } }
EOF
# timeout: the whole run's (the compile included): under make san on a loaded
# 2-core machine nvcc took ~3.9 of 4 s, and the disk filler was killed at
# 0.1 s before the disk limit's first look (250 ms)
cat > course/hostile/hello.lua <<'EOF'
return {
  id = "hello", kind = "program", title = "Say hello", source = "hello.cu",
  solution = "solutions/hello.cu", timeout = 8, timed = false,
  hints = { "Print hello.", "printf(\"hello\\n\");" },
  run = function(t)
    local r = t:program{}
    if r.stdout ~= "hello\n" then t:fail("expected hello, the program printed: " .. r.stdout) end
  end,
}
EOF
printf '#include <cstdio>\nint main() { return 0; }\n' > course/hostile/hello.cu
printf '#include <cstdio>\nint main() { printf("hello\\n"); return 0; }\n' > course/hostile/solutions/hello.cu
SECRET="TOPSECRET-$$-k3y"
echo "$SECRET" > secret.txt
SOL="$T/course/hostile/solutions/hello.cu"
student() { mkdir -p "subs/$1/hostile"; cat > "subs/$1/hostile/hello.cu"; }
cp course/hostile/solutions/hello.cu subs/honest.cu 2>/dev/null; student honest < subs/honest.cu; rm subs/honest.cu
student prober <<EOF
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <csignal>
#include <unistd.h>
#include <sys/socket.h>
static const char *how(bool ok) { return ok ? "ALLOWED" : strerror(errno); }
int main() {
    FILE *f = fopen("$T/secret.txt", "r");
    char buf[100] = "";
    if (f && fgets(buf, sizeof buf, f)) printf("read secret: %s", buf);
    else printf("read secret: %s\n", strerror(errno));
    printf("read solution: %s\n", how(fopen("$SOL", "r") != NULL));
    printf("read grade.db: %s\n", how(fopen("$T/out/grade.db", "r") != NULL));
    printf("write outside: %s\n", how(fopen("/tmp/cudojo-hostile-escaped-$$", "w") != NULL));
    printf("signal worker: %s\n", how(kill(getppid(), SIGKILL) == 0));
    printf("signal everyone: %s\n", how(kill(-1, SIGTERM) == 0));
    printf("socket: %s\n", how(socket(AF_INET, SOCK_STREAM, 0) >= 0));
    printf("unix socket: %s\n", how(socket(AF_UNIX, SOCK_STREAM, 0) >= 0));
    printf("setsid: %s\n", how(setsid() >= 0));
    printf("fork: %s\n", how(fork() >= 0));
    return 0;
}
EOF
student incl <<EOF
#include <cstdio>
#/* comment */include "$SOL"
EOF
student macro <<'EOF'
#define F "/etc/passwd"
#include F
int main() {}
EOF
student incbin <<'EOF'
asm(".incbin \"/etc/passwd\"");
int main() {}
EOF
student incbin2 <<EOF
#include <cstdio>
asm(".section .rodata\\n.globl stolen\\nstolen:\\n.inc" "bin \\"$T/secret.txt\\"\\n.byte 0\\n.text\\n");
extern const char stolen[];
int main() { printf("%s", stolen); return 0; }
EOF
student marker <<'EOF'
#include <cstdio>
int main() {
    printf("![pixel](http://evil.example/p.png) <img src=\"http://evil.example/q.png\"> [click](http://evil.example/)\n");
    printf("~~~\n<script>alert(1)</script> http://evil.example/x\n");
    return 0;
}
EOF
student spinner <<'EOF'
#include <csignal>
int main() { signal(SIGTERM, SIG_IGN); for (volatile int i = 0;; i++) {} }
EOF
student flood <<'EOF'
#include <cstdio>
int main() {
    for (int i = 0; i < 200000; i++) printf("\033[2J\033]0;pwned\007\x9b" "31m flood %d\n", i);
    return 0;
}
EOF
student filler <<'EOF'
#include <cstdio>
#include <unistd.h>
static char block[1 << 20];
int main() {   /* 8 MiB files under the per-file limit, half of them deleted but held open */
    for (int i = 0; i < 400; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%d", i);
        FILE *f = fopen(name, "w");
        if (!f) return 1;
        for (int k = 0; k < 8; k++) fwrite(block, 1, sizeof block, f);
        fflush(f);
        if (i % 2) unlink(name);
    }
    return 0;
}
EOF
mkdir -p subs/linked && ln -s "$T/course/hostile/solutions" subs/linked/hostile
student dblink < course/hostile/solutions/hello.cu
mkdir -p subs/dblink/.cudojo && ln -s "$T/out/grade.db" subs/dblink/.cudojo/progress.db

t0=$(date +%s)
CUDOJO_EMURT_DIR=$EMURT CUDOJO_RUN_DISK_MB=64 timeout 300 "$BIN" grade --course course --out out --jobs 2 subs/* >grade.out 2>&1
rc=$?
t1=$(date +%s)
if [ $rc -eq 0 ] && [ -f out/gradebook.csv ]; then ok "grade: a class of hostile submissions is graded to the end ($((t1 - t0)) s)"
else nok "grade: a class of hostile submissions is graded to the end" "rc=$rc" "$(tail -20 grade.out)"; exit 0; fi

cell() { awk -F, -v s="$1" '$1 == s { print $2 }' out/gradebook.csv; }
fb() { cat "out/students/$1/feedback.md" 2>/dev/null; }
has() { fb "$1" | grep -qF -- "$2"; }

if [ "$(cell honest)" = 1 ] && [ "$(cell dblink)" = 1 ]; then ok "grade: the honest solution passes inside the sandbox"
else nok "grade: the honest solution passes inside the sandbox" "$(cat out/gradebook.csv)" "$(fb honest)"; fi

for probe in "signal worker: Operation not permitted" "signal everyone: Operation not permitted" \
             "socket: Permission denied" "unix socket: Permission denied" "setsid: Operation not permitted" "fork: Resource temporarily unavailable"; do
    if [ "${probe%%:*}" = "unix socket" ] && [ -e /dev/nvidiactl ]; then
        skip "grade: a program is refused: unix socket (on a GPU: NVIDIA's runtime needs Unix sockets for MPS)"
    elif has prober "$probe"; then ok "grade: a program is refused: ${probe%%:*}"
    else nok "grade: a program is refused: ${probe%%:*}" "$(fb prober | head -20)"; fi
done
if [ "$LANDLOCK" -gt 0 ]; then
    for probe in "read secret: Permission denied" "read solution: Permission denied" "read grade.db: Permission denied" \
                 "write outside: Permission denied"; do
        if has prober "$probe"; then ok "grade: a program is shut in by Landlock: ${probe%%:*}"
        else nok "grade: a program is shut in by Landlock: ${probe%%:*}" "$(fb prober | head -20)"; fi
    done
    if ! grep -rqF "$SECRET" out && [ ! -e /tmp/cudojo-hostile-escaped-$$ ]; then
        ok "grade: no secret reaches the gradebook and nothing is written outside"
    else nok "grade: no secret reaches the gradebook and nothing is written outside" "$(grep -rlF "$SECRET" out)"; fi
else
    skip "grade: a program is shut in by Landlock (this kernel has no Landlock)"
fi

for s in incl macro incbin; do
    if [ "$(cell $s)" = 0 ] && has $s "compile-error" && has $s "refused in graded work"; then
        ok "grade: a source that reads a file at compile time ($s) fails with the reason"
    else nok "grade: a source that reads a file at compile time ($s) fails with the reason" "$(fb $s)"; fi
done
if ! grep -rq "root:" out; then ok "grade: no line of /etc/passwd reaches the gradebook"
else nok "grade: no line of /etc/passwd reaches the gradebook" "$(grep -rl "root:" out)"; fi

if [ "$(cell linked)" = 0 ] && has linked "outside the submission"; then
    ok "grade: a chapter folder that links to the solutions is graded as missing, saying why"
else nok "grade: a chapter folder that links to the solutions is graded as missing, saying why" "$(fb linked)"; fi
if has dblink "progress.db is a symbolic link, not a file: not read" && [ "$(cell honest)" = 1 ]; then
    ok "grade: a progress database that links to the grading database is not opened"
else nok "grade: a progress database that links to the grading database is not opened" "$(fb dblink)"; fi

if [ "$(cell spinner)" = 0 ] && has spinner "did not finish within"; then
    ok "grade: a program that spins ignoring SIGTERM times out"
else nok "grade: a program that spins ignoring SIGTERM times out" "$(fb spinner)"; fi
if [ "$(cell filler)" = 0 ] && has filler "filled its folder past the limit"; then
    ok "grade: a program that fills the disk with files under the per-file limit is stopped, saying why"
else nok "grade: a program that fills the disk with files under the per-file limit is stopped, saying why" "$(fb filler)"; fi
if [ "$(cell incbin2)" = 0 ] && ! grep -rqF "$SECRET" out; then
    ok "grade: an assembler directive made of adjacent strings cannot read a file into a graded program"
else nok "grade: an assembler directive made of adjacent strings cannot read a file into a graded program" "$(fb incbin2)"; fi
# Every line of feedback.md holding what the program printed is inside a fenced code block.
outside=$(awk '/^~~~/ { match($0, /^~+/); n = RLENGTH
                        if (!fence) { fence = n; next }
                        if (n >= fence && $0 ~ /^~+[ \t]*$/) { fence = 0; next } }
               !fence && /evil\.example/ { print }' out/students/marker/feedback.md)
if [ "$(cell marker)" = 0 ] && has marker "evil.example" && [ -z "$outside" ]; then
    ok "grade: a program's output in feedback.md is fenced (no Markdown link, image or HTML of it)"
else nok "grade: a program's output in feedback.md is fenced (no Markdown link, image or HTML of it)" "$outside" "$(fb marker)"; fi
left=$(ps -eo pid,args | grep -F "$T/" | grep -v grep)
if [ -z "$left" ]; then ok "grade: nothing of the class is left running"
else nok "grade: nothing of the class is left running" "$left"; fi

esc=$(printf '\033')
if [ "$(cell flood)" = 0 ] && ! grep -rqF --exclude=grade.db "$esc" out grade.out && [ "$(wc -c < out/students/flood/feedback.md)" -lt 4000000 ]; then
    ok "grade: a flood of terminal escapes fails, bounded, with no escape in the gradebook or on the terminal"
else nok "grade: a flood of terminal escapes fails, bounded, with no escape in the gradebook or on the terminal" \
    "$(wc -c out/students/flood/feedback.md)" "$(grep -rlF --exclude=grade.db "$esc" out grade.out)"; fi
