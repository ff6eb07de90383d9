#!/bin/sh
# tests/grade/test_grade_slurm.sh: `cudojo grade --slurm --shards 4` for real,
# on a one-node Slurm cluster (munge + slurmctld + slurmd) that this test
# starts as root (the recipe of ../shared/tools/slurm-single-node.sh) and
# stops again. A small class (solutions, starters, wrong variants; workspace
# folders and archives) is graded locally and as a 4-task array job; the
# merged gradebook.csv must equal the local one cell by cell. Then a failed
# shard is named with its log, the rest is merged, and the exit status is 1;
# --no-wait prints the merge command. Skips, saying why, when not root or
# when the Slurm packages cannot be installed. Emulator, no GPU needed.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
skip_all() { echo "skip - slurm array grading: $1"; exit 0; }

[ "$(id -u)" = 0 ] || skip_all "not root (starting munge, slurmctld and slurmd needs root)"
if ! command -v sbatch >/dev/null 2>&1 || ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1 &&
   ! [ -x /usr/sbin/munged ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null 2>&1 ||
        { apt-get update -qq >/dev/null 2>&1 &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null 2>&1; } ||
        skip_all "the Slurm packages (slurm-wlm, munge) cannot be installed here"
fi
command -v sbatch >/dev/null 2>&1 || skip_all "sbatch is still missing after installing slurm-wlm"

T=$(mktemp -d /tmp/cudojo-slurm-XXXXXX)
chmod 755 "$T"
STARTED=""
cleanup() {
    # Only the daemons this test started, each by its own pid.
    for p in $STARTED; do kill "$p" 2>/dev/null; done
    sleep 1
    for p in $STARTED; do kill -9 "$p" 2>/dev/null; done
    [ -n "$CUDOJO_TEST_KEEP" ] && cp -r "$T" "$CUDOJO_TEST_KEEP"; rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1 CUDOJO_SLURM_POLL_S=1

# ---- the cluster ----
start_cluster() {
    H=$(hostname); CPUS=$(nproc); MEM=$(( $(awk '/MemTotal/{print $2}' /proc/meminfo) / 1024 - 1024 ))
    mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge /var/lib/munge \
             /var/log/munge /etc/munge
    [ -f /etc/munge/munge.key ] || dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
    chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null
    chmod 400 /etc/munge/munge.key
    if [ ! -f /etc/slurm/slurm.conf ]; then
        cat > /etc/slurm/slurm.conf <<EOF
ClusterName=lab
SlurmctldHost=$H
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$H CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=lab Nodes=$H Default=YES MaxTime=INFINITE State=UP
EOF
    fi
    if ! pgrep -x munged >/dev/null; then
        /usr/sbin/munged --force 2>/dev/null || return 1
        sleep 0.5
        STARTED="$STARTED $(cat /run/munge/munged.pid 2>/dev/null || pgrep -x -n munged)"
    fi
    if ! pgrep -x slurmctld >/dev/null; then
        slurmctld -i 2>/dev/null || slurmctld 2>/dev/null || return 1
        sleep 1
        STARTED="$STARTED $(pgrep -x -n slurmctld)"
    fi
    if ! pgrep -x slurmd >/dev/null; then
        slurmd 2>/dev/null || return 1
        sleep 1
        STARTED="$STARTED $(pgrep -x -n slurmd)"
    fi
    for _ in $(seq 1 30); do
        sinfo -h -o %T 2>/dev/null | grep -Eq '^(idle|mixed|allocated)' && return 0
        scontrol update nodename="$H" state=resume >/dev/null 2>&1
        sleep 1
    done
    return 1
}
start_cluster || skip_all "the one-node Slurm cluster did not come up ($(sinfo 2>&1 | tail -1))"
ok "a one-node Slurm cluster is up ($(sinfo -h -o '%P %T %c' | head -1))"

cd "$T" || exit 1
mkdir -p course subs
cp -r "$LESSONS/01-hello-gpu" course/ || exit 1

# A class of 8: per student a solution, the starter or a wrong variant per exercise.
python3 - "$LESSONS/01-hello-gpu" subs <<'EOF' || { nok "generating the class"; exit 0; }
import io, json, os, sys, tarfile, time
L, subs = sys.argv[1:3]
ex = [("vector-add.cu", "vector-add-no-guard.cu"), ("grid-stride.cu", "grid-stride-block-stride.cu")]
def read(p): return open(p, "rb").read()
now = int(time.time() * 1000)
for i in range(8):
    name = f"st{i}"
    files = []
    for j, (f, wrong) in enumerate(ex):
        role = (i + j) % 3
        data = read(f"{L}/solutions/{f}") if role == 0 else read(f"{L}/{f}") if role == 1 else read(f"{L}/solutions/wrong/{wrong}")
        files.append((f"hello-gpu/{f}", data))
    if i % 2:
        man = {"format": "cudojo-submission", "format_version": 1, "student": name, "workspace_uuid": "u-" + name,
               "course_version": "x", "submitted_unix_ms": now, "app_version": "test", "files": []}
        with tarfile.open(f"{subs}/{name}.tar.gz", "w:gz") as t:
            for n, data in [("cudojo-submission.json", json.dumps(man).encode())] + files:
                info = tarfile.TarInfo(n); info.size = len(data); info.mode = 0o644
                t.addfile(info, io.BytesIO(data))
    else:
        os.makedirs(f"{subs}/{name}/hello-gpu")
        for n, data in files: open(f"{subs}/{name}/{n}", "wb").write(data)
EOF

EXS=vector-add,grid-stride
"$BIN" --backend=emu grade subs/* --course course --out local --exercises $EXS --jobs 2 >local.out 2>&1
rc=$?
if [ $rc = 0 ] && [ -s local/gradebook.csv ]; then ok "the class is graded locally"; else nok "the class is graded locally" "rc=$rc" "$(tail -5 local.out)"; fi

start=$(date +%s)
"$BIN" --backend=emu grade subs/* --course course --out "$T/slurm-out" --exercises $EXS --slurm --shards 4 \
    --time 10:00 >slurm.out 2>slurm.err
rc=$?
if [ $rc = 0 ] && [ -s slurm-out/gradebook.csv ]; then
    ok "grade --slurm --shards 4 runs the array job and merges it ($(( $(date +%s) - start )) s)"
else
    nok "grade --slurm --shards 4 runs the array job and merges it" "rc=$rc" "$(tail -8 slurm.err)" \
        "$(cat slurm-out/slurm/*.log 2>/dev/null | tail -8)"
fi
if grep -q -- '--array=0-3' slurm-out/slurm/grade.sbatch && grep -q 'shard "$i/4"' slurm-out/slurm/grade.sbatch &&
   grep -q "$BIN" slurm-out/slurm/grade.sbatch; then
    ok "the batch script is a 4-task array running this cudojo on shard \$SLURM_ARRAY_TASK_ID/4"
else
    nok "the batch script is a 4-task array running this cudojo on shard \$SLURM_ARRAY_TASK_ID/4" \
        "$(cat slurm-out/slurm/grade.sbatch | head -20)"
fi
n_shard_dbs=$(ls slurm-out/shards/*/grade.db 2>/dev/null | wc -l)
if [ "$n_shard_dbs" = 4 ] && [ "$(ls slurm-out/slurm/*.log 2>/dev/null | wc -l)" = 4 ]; then
    ok "each task graded its shard into its own database, with its own log"
else
    nok "each task graded its shard into its own database, with its own log" "$(ls -R slurm-out | head -20)"
fi
if grep -q "tasks done" slurm.err; then ok "waiting shows tasks done/total"; else nok "waiting shows tasks done/total" "$(cat slurm.err | head)"; fi
if [ -s local/gradebook.csv ] && cmp -s local/gradebook.csv slurm-out/gradebook.csv; then
    ok "the merged gradebook equals the local run's, cell by cell"
else
    nok "the merged gradebook equals the local run's, cell by cell" "$(diff local/gradebook.csv slurm-out/gradebook.csv | head -10)"
fi
if [ "$(wc -l < slurm-out/gradebook.csv)" = 9 ] && grep -q '^st0,' slurm-out/gradebook.csv; then
    ok "the merged gradebook has every student"
else
    nok "the merged gradebook has every student" "$(cat slurm-out/gradebook.csv)"
fi

# A shard that fails: a cudojo that fails for shard 2 only (the others run the real one).
cat > fake-cudojo <<EOF
#!/bin/sh
case "\$*" in *"--shard 2/4"*) echo "shard 2 breaks on purpose" >&2; exit 3 ;; esac
exec "$BIN" "\$@"
EOF
chmod +x fake-cudojo
# CUDOJO_SLURM_SELF names the program the tasks run instead of this cudojo (on a
# cluster: a wrapper that loads modules first).
CUDOJO_SLURM_SELF="$T/fake-cudojo" "$BIN" --backend=emu grade subs/* --course course --out "$T/fail-out" \
    --exercises $EXS --slurm --shards 4 >fail.out 2>fail.err
rc=$?
if [ $rc = 1 ] && grep -q "shard 2 of 4 failed (exit status 3)" fail.err && grep -q "fail-out/slurm/.*_2.log" fail.err &&
   [ -s fail-out/gradebook.csv ] && [ "$(wc -l < fail-out/gradebook.csv)" = 7 ]; then
    ok "a failed shard is named with its log; the others are merged; exit status 1"
else
    nok "a failed shard is named with its log; the others are merged; exit status 1" "rc=$rc" "$(tail -6 fail.err)" \
        "$(cat fail-out/gradebook.csv 2>/dev/null)"
fi

"$BIN" --backend=emu grade subs/* --course course --out "$T/nowait-out" --exercises $EXS --slurm --shards 2 \
    --no-wait >nowait.out 2>nowait.err
rc=$?
job=$(sed -n 's/^submitted slurm job \([0-9]*\).*/\1/p' nowait.out)
if [ $rc = 0 ] && [ -n "$job" ] && grep -q -- "--merge $T/nowait-out/shards/\*/grade.db" nowait.out; then
    ok "--no-wait submits and prints the merge command"
else
    nok "--no-wait submits and prints the merge command" "rc=$rc" "$(cat nowait.out nowait.err | tail -5)"
fi
[ -n "$job" ] && scancel "$job" 2>/dev/null
"$BIN" grade subs/* --course course --out x --slurm >usage.out 2>&1
if [ $? = 2 ] && grep -q "needs --shards" usage.out; then ok "--slurm without --shards is a usage error"; else nok "--slurm without --shards is a usage error" "$(cat usage.out)"; fi
