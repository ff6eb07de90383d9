#!/bin/sh
# tools/call-circles.sh DIR: the call circles between the object files of
# one module (DIR holds its .o files, e.g. build/obj/app/tui). A file calls
# another when it uses a function or variable the other defines (nm: an
# undefined symbol here, a defined one there). Prints each pair of files
# that call each other ("a.o <-> b.o"), then each longer circle tsort finds
# ("circle: a.o b.o c.o"). Exit status 0 when there is none, 1 when there
# is one, 2 on bad usage.
set -u
dir=${1:-}
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    echo "usage: tools/call-circles.sh DIR (a folder of .o files)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/defs"
: >"$tmp/uses"
for o in "$dir"/*.o; do
    [ -f "$o" ] || continue
    f=$(basename "$o")
    nm --defined-only -g "$o" | awk -v f="$f" 'NF >= 3 { print $3, f }' >>"$tmp/defs"
    nm -u "$o" | awk -v f="$f" '{ print $NF, f }' >>"$tmp/uses"
done
# edges "user definer", one per pair of files
awk 'NR == FNR { def[$1] = $2; next } ($1 in def) && def[$1] != $2 { print $2, def[$1] }' \
    "$tmp/defs" "$tmp/uses" | sort -u >"$tmp/edges"
found=0
awk '{ e[$1 " " $2] = 1 } END { for (k in e) { split(k, p, " "); if (p[1] < p[2] && (p[2] " " p[1]) in e) print p[1] " <-> " p[2] } }' \
    "$tmp/edges" | sort >"$tmp/pairs"
if [ -s "$tmp/pairs" ]; then cat "$tmp/pairs"; found=1; fi
# longer circles: tsort names the files of each loop it meets on stderr
tsort "$tmp/edges" 2>"$tmp/loops" >/dev/null
awk '/input contains a loop/ { if (n) print "circle:" line; n = 0; line = ""; next }
     { sub(/^tsort: /, ""); line = line " " $0; n++ }
     END { if (n) print "circle:" line }' "$tmp/loops" >"$tmp/circles"
if [ -s "$tmp/circles" ]; then cat "$tmp/circles"; found=1; fi
exit $found
