#!/bin/sh
# tests/lessons/test_glossary.sh: every chapter's README.zh-CN.md uses the
# words of lessons/GLOSSARY.zh-CN.md: none of the variants its "Not these"
# table rejects appears in running text (code spans, code blocks, exercise
# ids like warp-reduce and the English in brackets after a term, 线程束（warp）,
# do not count). One ok/not ok line per chapter, naming file, line and word.
LESSONS=${LESSONS:-lessons}
if ! command -v python3 >/dev/null 2>&1; then echo "skip - glossary (python3 is not installed)"; exit 0; fi
python3 - "$LESSONS" <<'PY'
import glob, os, re, sys

root = sys.argv[1]
gloss = open(os.path.join(root, "GLOSSARY.zh-CN.md"), encoding="utf-8").read()
section = gloss.split("## Not these", 1)
if len(section) < 2:
    print("not ok - GLOSSARY.zh-CN.md has a \"Not these\" table")
    sys.exit(0)
rules = []   # (variant, the word to use)
for line in section[1].split("\n"):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 3 or cells[0] in ("English", "") or set(cells[0]) <= set("- "):
        continue
    for v in cells[2].split(" / "):
        if v.strip():
            rules.append((v.strip(), cells[1]))
if not rules:
    print("not ok - GLOSSARY.zh-CN.md's \"Not these\" table has rows")
    sys.exit(0)

def pattern(v):
    # A Latin word matches whole, not inside an id or identifier (warp-reduce,
    # warp_sum), nor as the English in brackets after its Chinese: （warp）.
    if re.fullmatch(r"[A-Za-z]+", v):
        return re.compile(r"(?<![\w\-（])" + v + r"(?![\w\-）])", re.I)
    return re.compile(re.escape(v))

def running_text(text):
    """(line number, text) with code blocks and code spans blanked out."""
    fence = False
    for n, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence:
            continue
        yield n, re.sub(r"`[^`]*`", "", line)

pats = [(pattern(v), v, use) for v, use in rules]
for path in sorted(glob.glob(os.path.join(root, "[0-9]*", "README.zh-CN.md"))):
    bad = []
    for n, line in running_text(open(path, encoding="utf-8").read()):
        for p, v, use in pats:
            if p.search(line):
                bad.append("%s:%d: %s, where the glossary says %s" % (path, n, v, use))
    chapter = os.path.basename(os.path.dirname(path))
    if bad:
        print("not ok - %s's README.zh-CN.md uses the glossary's words" % chapter)
        for b in bad[:20]:
            print("    " + b)
        if len(bad) > 20:
            print("    ... and %d more" % (len(bad) - 20))
    else:
        print("ok - %s's README.zh-CN.md uses the glossary's words" % chapter)
PY
