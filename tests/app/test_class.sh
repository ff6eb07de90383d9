#!/bin/sh
# tests/app/test_class.sh: `cudojo class report` as an instructor uses it on
# a gradebook.json (the C tests cover grade.db): the text report with the
# histogram and a row per exercise, block characters only in a UTF-8 locale
# and no colour when not a terminal; failure kinds in words; in Chinese
# (LANG=zh_CN.UTF-8, installed or not) the kinds and the reasons a file is
# refused are Chinese and the table's headings line up with its columns by
# display width (a CJK character is two columns); --json gives the computed report
# (kinds as ids);
# --html writes one self-contained page and nothing else; a missing file,
# bad JSON or a wrong option is status 2 naming the problem. No GPU.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
T=$(mktemp -d /tmp/cudojo-class-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache"
unset NO_COLOR LC_ALL LC_MESSAGES LANGUAGE
cd "$T" || exit 1
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
check() { # name, command (string), then a test expression on $out/$rc
    name=$1; cmd=$2; test=$3
    out=$(eval "$cmd" 2>&1); rc=$?
    if eval "$test"; then ok "$name"; else nok "$name" "rc=$rc" "$(printf "%s\n" "$out" | head -30)"; fi
}

# Six students, two exercises; one name is hostile.
cat >gradebook.json <<'EOF'
{"format":"cudojo-gradebook","format_version":1,"course_version":"feedc0de12345678","backend":"emu","generated_unix_ms":1,
 "exercises":[{"id":"vector-add","chapter":"hello-gpu","title":"Vector add","points":1,"kind":"kernel"},
              {"id":"block-sum","chapter":"shared","title":"Block sum","points":3,"kind":"kernel"}],
 "students":[
  {"student":"ann","total":4,"max_total":4,"problems":[],"exercises":{"vector-add":{"verdict":"pass","fast":true},"block-sum":{"verdict":"pass","fast":true}},"progress":null},
  {"student":"ben","total":4,"max_total":4,"problems":[],"exercises":{"vector-add":{"verdict":"pass"},"block-sum":{"verdict":"pass"}},"progress":null},
  {"student":"cat","total":1,"max_total":4,"problems":[],"exercises":{"vector-add":{"verdict":"pass"},"block-sum":{"verdict":"fail","failure_kind":"race"}},"progress":null},
  {"student":"dan","total":1,"max_total":4,"problems":[],"exercises":{"vector-add":{"verdict":"pass"},"block-sum":{"verdict":"fail","failure_kind":"race"}},"progress":null},
  {"student":"eve","total":0,"max_total":4,"problems":[],"exercises":{"vector-add":{"verdict":"fail","failure_kind":"out-of-bounds"},"block-sum":{"verdict":"fail","failure_kind":"barrier"}},"progress":null},
  {"student":"<b>fay</b>\u001b[2J","total":0,"max_total":4,"problems":["<script>x</script>"],"exercises":{"vector-add":{"verdict":"missing","failure_kind":"missing"},"block-sum":{"verdict":"missing","failure_kind":"missing"}},"progress":null}],
 "similarity":[{"exercise":"block-sum","students":["ann","<b>fay</b>\u001b[2J"],"fingerprint":"00ff","tokens":77}]}
EOF

check "report prints the histogram and a row per exercise" "LANG=C.UTF-8 $BIN class report gradebook.json" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | grep -q "Class report: 6 students" &&
     printf "%s\n" "$out" | grep -Eq "90–100% +(█)+ +2$" && printf "%s\n" "$out" | grep -Eq "^  vector-add +4/6  67%" &&
     printf "%s\n" "$out" | grep -Eq "^  block-sum +2/6  33% +17%" &&
     printf "%s\n" "$out" | grep -q "failed: race 2 · barrier misuse 1 · not submitted 1" &&
     printf "%s\n" "$out" | grep -q "failed: not submitted 1 · out of bounds 1" &&
     printf "%s\n" "$out" | grep -q "block-sum: ann, <b>fay</b>^\[\[2J (77 tokens)"'

# Each heading ends in the column its cells end in (all but the first are right-aligned).
aligned() {
    printf "%s\n" "$out" | python3 -c "
import sys, unicodedata
lines = sys.stdin.read().split('\n')
w = lambda s: sum(2 if unicodedata.east_asian_width(c) in 'WF' else 1 for c in s)
h = next(i for i, l in enumerate(lines) if '已通过' in l and '通过用时' in l)
head, row = lines[h], lines[h + 1]
ends = lambda l, words: [w(l[:l.index(x, l.index(p) + len(p) if p else 0) + len(x)]) for p, x in words]
want = ends(head, [('', '已通过'), ('已通过', '快速'), ('快速', '尝试次数'), ('尝试次数', '通过用时')])
cells = row.split()
got = ends(row, [(cells[0], cells[2]), (cells[2], cells[3]), (cells[3], cells[4]), (cells[4], cells[5])])
sys.exit(0 if want == got else print(want, got, file=sys.stderr) or 1)
"
}
check "report in Chinese: kinds in words, headings aligned by display width" \
    "LANG=zh_CN.UTF-8 $BIN class report gradebook.json" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | grep -q "未通过：数据竞争 2 · 屏障用错 1 · 未提交 1" &&
     printf "%s\n" "$out" | grep -q "未提交 1 · 越界 1" && ! printf "%s\n" "$out" | grep -q "race" && aligned'

check "report without a terminal has no escape sequence" \
    "LANG=C.UTF-8 $BIN class report gradebook.json >plain.txt; echo rc=\$?; tr -cd '\\033' <plain.txt | wc -c" \
    'printf "%s\n" "$out" | grep -q "rc=0" && [ "$(printf "%s\n" "$out" | tail -1 | tr -d " ")" = 0 ] &&
     grep -q "block-sum: ann" plain.txt'

check "report in the C locale is ASCII" "LANG=C $BIN class report gradebook.json" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | grep -Eq "90-100% +#+ +2$" && ! printf "%s" "$out" | LC_ALL=C grep -q "[^ -~]"'

check "report of the --out folder reads its gradebook.json" "$BIN class report ." \
    '[ $rc = 0 ] && printf "%s\n" "$out" | grep -q "Class report: 6 students"'

check "--json gives the computed report" "$BIN class report gradebook.json --json" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | python3 -c "
import json, sys
r = json.load(sys.stdin)
assert r[\"format\"] == \"cudojo-class-report\" and r[\"students\"] == 6
va, bs = r[\"exercises\"]
assert va[\"passed\"] == 4 and abs(bs[\"fast_rate\"] - 1/6) < 1e-9 and bs[\"failures\"][0] == {\"kind\": \"race\", \"count\": 2}
assert [b[\"count\"] for b in r[\"histogram\"]] == [2, 0, 2, 0, 0, 0, 0, 0, 0, 2]
"'

check "--html writes one self-contained escaped page and prints no report" \
    "$BIN class report gradebook.json --html report.html" \
    '[ $rc = 0 ] && [ -s report.html ] && printf "%s\n" "$out" | grep -q "written to report.html" &&
     ! printf "%s\n" "$out" | grep -q "vector-add" && grep -q "<svg" report.html &&
     grep -q "&lt;script&gt;x&lt;/script&gt;" report.html && grep -q "&lt;b&gt;fay&lt;/b&gt;" report.html &&
     ! grep -Eq "<script|<b>fay|<link|@import|url\(|https?:" report.html'

check "--html into a missing folder is status 2 naming it" "$BIN class report gradebook.json --html no/such/r.html" \
    '[ $rc = 2 ] && printf "%s\n" "$out" | grep -q "no/such/r.html" && [ ! -e no ]'

check "a missing GRADEDB is status 2 naming it" "$BIN class report nothing.db" \
    '[ $rc = 2 ] && printf "%s\n" "$out" | grep -q "nothing.db"'

printf '{"format": "cudojo-gradebook",\n "students": [,]}\n' >bad.json
check "bad JSON is status 2 with file and line" "$BIN class report bad.json" \
    '[ $rc = 2 ] && printf "%s\n" "$out" | grep -q "bad.json:2"'

printf '{"format": "cudojo-progress", "format_version": 1}\n' >progress.json
check "a progress export is not a gradebook" "$BIN class report progress.json" \
    '[ $rc = 2 ] && printf "%s\n" "$out" | grep -q "progress.json is not a cudojo gradebook"'
check "why a file is not a gradebook, in Chinese" \
    "LANG=zh_CN.UTF-8 $BIN class report progress.json; LANG=zh_CN.UTF-8 $BIN class report nothing.db; mkdir -p empty;
     LANG=zh_CN.UTF-8 $BIN class report empty" \
    'printf "%s\n" "$out" | grep -q "progress.json 不是 cudojo 成绩册" && printf "%s\n" "$out" | grep -q "无法打开 nothing.db" &&
     printf "%s\n" "$out" | grep -q "empty 里既没有 grade.db 也没有 gradebook.json"'

check "usage errors are status 2" "$BIN class report; echo rc1=\$?; $BIN class frobnicate x; echo rc2=\$?;
      $BIN class report gradebook.json --bogus; echo rc3=\$?; $BIN class report a b; echo rc4=\$?" \
    'printf "%s\n" "$out" | grep -q "rc1=2" && printf "%s\n" "$out" | grep -q "rc2=2" &&
     printf "%s\n" "$out" | grep -q "rc3=2" && printf "%s\n" "$out" | grep -q "rc4=2" &&
     printf "%s\n" "$out" | grep -q "unknown subcommand .frobnicate."'

check "help names the options" "$BIN class --help" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | grep -q -- "--html FILE" && printf "%s\n" "$out" | grep -q -- "--tui"'
