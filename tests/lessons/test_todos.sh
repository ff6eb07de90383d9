#!/bin/sh
# tests/lessons/test_todos.sh: a starter's TODO says what to do, not the code.
# For every lessons/*/X.cu with a solutions/X.cu, a TODO comment (its line and
# the comment lines under it) must not hold a line of the solution's code
# or the expression it returns or assigns (spaces ignored; lines the
# starter's own code already has do not count).
# One ok/not ok line per chapter, naming the file, line and the answer given.
LESSONS=${LESSONS:-lessons}
if ! command -v python3 >/dev/null 2>&1; then echo "skip - starter TODOs (python3 is not installed)"; exit 0; fi
python3 - "$LESSONS" <<'PY'
import glob, os, re, sys

def code(line):
    """A line's code without its // comment, spaces removed."""
    return re.sub(r"\s+", "", line.split("//", 1)[0])

def answers(starter, solution):
    """Solution code lines worth hiding, also as bare expressions (no `return`,
    no `;`): long enough, and not already in the starter's code."""
    have = {code(l) for l in starter}
    out = set()
    for c in (code(l) for l in solution):
        # A bare call such as __syncthreads() names what to use, not where.
        if c in have or c.startswith("#") or re.fullmatch(r"[\w.:]+\(\);?", c):
            continue
        for v in (c, re.sub(r"^return", "", c).rstrip(";")):
            if len(v) >= 10 and v not in have:
                out.add(v)
    return out

def todo_blocks(lines):
    """(line number, text) of each TODO comment with the comment lines below it."""
    for i, l in enumerate(lines):
        if "TODO" not in l or "//" not in l:
            continue
        text = l.split("//", 1)[1]
        j = i + 1
        while j < len(lines) and lines[j].lstrip().startswith("//"):
            text += lines[j].split("//", 1)[1]
            j += 1
        yield i + 1, re.sub(r"\s+", "", text)

root = sys.argv[1]
for chapter in sorted(glob.glob(os.path.join(root, "[0-9]*"))):
    bad = []
    for starter in sorted(glob.glob(os.path.join(chapter, "*.cu"))):
        sol = os.path.join(chapter, "solutions", os.path.basename(starter))
        if not os.path.exists(sol):
            continue
        slines = open(starter, encoding="utf-8").read().split("\n")
        hide = answers(slines, open(sol, encoding="utf-8").read().split("\n"))
        for n, text in todo_blocks(slines):
            for a in sorted(hide):
                if a in text:
                    bad.append("%s:%d: the TODO gives the solution's line %s" % (starter, n, a))
                    break
    name = os.path.basename(chapter)
    if bad:
        print("not ok - starter TODOs of %s say what to do, not the code" % name)
        for b in bad:
            print("    " + b)
    else:
        print("ok - starter TODOs of %s say what to do, not the code" % name)
PY
