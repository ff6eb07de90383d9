#!/bin/sh
# tests/app/test_install.sh: `make install DESTDIR=... PREFIX=/usr` (its
# install-files half, on the build at hand) puts a
# cudojo on disk that works from anywhere: the binary finds the installed
# course and the libraries it loads into programs (emulator runtime,
# recorder), the manual page cudojo(1) renders and lists every command, bash
# completion offers commands and exercise ids; `make uninstall` removes it all.
BUILD=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/    /'; }
check() { if [ "$2" = 0 ]; then ok "$1"; else notok "$1" "${3:-}"; fi; }

# On a machine that runs cudojo from a bundle (the GPU machine: no -dev
# packages, the libraries travel in dist/cudojo/lib), the plain build cannot
# load its libraries, and neither could an installed copy: nothing to test.
if ! "$BUILD/cudojo" --version > /dev/null 2>&1; then
    echo "skip - make install: $BUILD/cudojo cannot load its shared libraries here (a bundle-only machine)"
    exit 0
fi

root=$tmp/inst
# install-files is what `make install` does after building; the test must not
# rebuild the binary the other tests are running
make --no-print-directory BUILD="$BUILD" install-files DESTDIR="$root" PREFIX=/usr > "$tmp/install.log" 2>&1
check "make install DESTDIR PREFIX=/usr succeeds" $? "$(tail -20 "$tmp/install.log")"
bin=$root/usr/bin/cudojo
missing=""
for f in usr/bin/cudojo usr/share/cudojo/lessons/01-hello-gpu/chapter.lua usr/lib/cudojo/emurt \
    usr/share/man/man1/cudojo.1 usr/share/bash-completion/completions/cudojo usr/share/zsh/site-functions/_cudojo; do
    [ -e "$root/$f" ] || missing="$missing $f"
done
check "it installs the binary, the course, the runtime libraries, the man page and both completions" \
    "$([ -z "$missing" ]; echo $?)" "missing:$missing"

# from an unrelated folder, with a fresh data home: the course is the installed one
out=$(cd "$tmp" && XDG_DATA_HOME=$tmp/data XDG_CACHE_HOME=$tmp/cache NO_COLOR=1 "$bin" list 2>&1)
check "the installed cudojo lists the course from anywhere" \
    "$(printf '%s' "$out" | grep -q 'vector-add'; echo $?)" "$out"
doc=$(cd "$tmp" && XDG_DATA_HOME=$tmp/data XDG_CACHE_HOME=$tmp/cache NO_COLOR=1 "$bin" doctor 2>&1)
check "it finds its emulator runtime under PREFIX/lib/cudojo" \
    "$(printf '%s' "$doc" | grep 'emu runtime' | grep -q "$root/usr/lib/cudojo/emurt"; echo $?)" "$doc"
check "it finds the tool cage (cudojo-confine) under PREFIX/lib/cudojo" \
    "$(printf '%s' "$doc" | grep 'tool cage' | grep -q "$root/usr/lib/cudojo/confine/cudojo-confine"; echo $?)" "$doc"

man1=$root/usr/share/man/man1/cudojo.1
cmds=$("$bin" __complete commands)
nope=""
for c in $cmds; do grep -q "^\.B $c" "$man1" || nope="$nope $c"; done
check "the man page has every command of --help" "$([ -z "$nope" ] && [ -n "$cmds" ]; echo $?)" "not in it:$nope"
if command -v groff > /dev/null 2>&1; then
    warn=$(groff -man -Tutf8 -ww "$man1" 2>&1 > /dev/null)
    check "the man page renders without groff warnings" "$([ -z "$warn" ]; echo $?)" "$warn"
else
    echo "skip - the man page renders (no groff here)"
fi

if command -v bash > /dev/null 2>&1; then
    got=$(PATH="$root/usr/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(cudojo run vector-a); COMP_CWORD=2; _cudojo; echo "${COMPREPLY[*]}"' \
        _ "$root/usr/share/bash-completion/completions/cudojo" 2>&1)
    check "bash completion completes an exercise id after run" "$(printf '%s' "$got" | grep -qw 'vector-add'; echo $?)" "$got"
    got=$(PATH="$root/usr/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(cudojo ver); COMP_CWORD=1; _cudojo; echo "${COMPREPLY[*]}"' \
        _ "$root/usr/share/bash-completion/completions/cudojo" 2>&1)
    check "bash completion completes a command" "$([ "$got" = verify ]; echo $?)" "$got"
fi

make --no-print-directory BUILD="$BUILD" uninstall DESTDIR="$root" PREFIX=/usr > "$tmp/uninstall.log" 2>&1
left=$(find "$root" -type f | head -5)
check "make uninstall removes every file it installed" "$([ -z "$left" ]; echo $?)" "$left"
