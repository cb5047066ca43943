# check_lib.bash — what scripts/check.sh counts with, sourced by it and by
# tests/scenarios/check_lib.sh: run_tap runs one TAP producer and adds its
# cases to passed, failed and skipped; run_queue runs the jobs of the
# queue array side by side.  The caller sets log (the file each suite's
# whole output goes to).
passed=0 failed=0 skipped=0

# run_tap SUITE COMMAND...: run one TAP producer, add its counts.  Its
# summary line names the command's file, or TAP_NAME when that is set.
run_tap() {
    local suite=$1; shift
    local out rc p=0 f=0 s=0 plan=0 n t0=$SECONDS
    # A hung suite fails after CID_SUITE_TIMEOUT seconds instead of eating
    # CI's whole budget.
    out=$(timeout --kill-after=30 "${CID_SUITE_TIMEOUT:-1500}" "$@" 2>&1); rc=$?
    [ "$rc" -eq 124 ] && out+=$'\n'"# timed out after ${CID_SUITE_TIMEOUT:-1500} s"
    printf '=== %s: %s (exit %d)\n%s\n' "$suite" "$*" "$rc" "$out" >>"$log"
    p=$(grep -cE '^ok [0-9]+' <<<"$out" | tr -d ' ')
    s=$(grep -cE '^ok [0-9]+.*# *(SKIP|skip)' <<<"$out" | tr -d ' ')
    f=$(grep -cE '^not ok [0-9]+' <<<"$out" | tr -d ' ')
    p=$((p - s))
    plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' <<<"$out" | tail -n 1)
    n=$((p + s + f))
    # The suite's lines go out in one write: other jobs print beside it.
    local report=
    if [ -n "$plan" ] && [ "$plan" -gt "$n" ]; then
        f=$((f + plan - n))
        report+="  $suite: $* ran $n of $plan planned cases"$'\n'
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=$((f + 1))
        report+="  $suite: $* exited $rc with no failed case reported:"$'\n'
        report+=$(tail -n 20 <<<"$out" | sed 's/^/    /')$'\n'
    fi
    if [ "$f" -gt 0 ]; then
        # Each failed case with its diagnostics: the C tests (tests/tap.h)
        # print them before the "not ok" line, scripts/tap.bash and node
        # --test after it.
        report+=$(awk '/^#/ {if (after) print "    " $0; else d = d "    " $0 "\n"; next}
             /^not ok/ {printf "  FAIL %s\n%s", $0, d; d = ""; after = 1; next}
             {d = ""; after = 0}' <<<"$out")$'\n'
    fi
    # Each suite's own time, to see where a run's minutes go.
    report+=$(printf '%-10s %-44s %4d passed, %d failed, %d skipped (%d s)' "$suite" "${TAP_NAME:-$(basename "$1")}" "$p" "$f" "$s" \
        $((SECONDS - t0)))$'\n'
    printf '%s' "$report"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
}

# run_queue DIR WORKERS: run the jobs of the queue array (each a command
# line, eval'd), WORKERS at a time, each worker taking the next job off
# the queue until it is empty, then add up the workers' counts.  A
# worker's counts travel back through DIR/wN.counts, and its log
# (DIR/wN.log) joins $log at the end; a suite's lines reach stdout as it
# ends.  A worker that ends without its counts file (killed, say) is a
# failed case.
run_queue() {
    local dir=$1 workers=$2 w p f s pids=()
    rm -rf "$dir"
    mkdir -p "$dir"
    echo 0 >"$dir/next"
    for ((w = 1; w <= workers; w++)); do
        _queue_worker "$dir" "w$w" &
        pids+=($!)
    done
    for ((w = 1; w <= workers; w++)); do
        wait "${pids[$((w - 1))]}"
        cat "$dir/w$w.log" >>"$log"
        if read -r p f s <"$dir/w$w.counts" 2>/dev/null; then
            passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
        else
            echo "  FAIL check worker $w ended without its counts (see $dir/w$w.log)"
            failed=$((failed + 1))
        fi
    done
}

# shared JOB... / exclusive JOB...: a queue job that uses what another
# job may change for everyone (the server's installed chronoid) holds
# $CHECK_SHARED_LOCK shared while it runs; the job that changes it holds
# it exclusive, so it starts when the last shared job has ended, while
# jobs that are neither still run beside it (a shared job dequeued after
# it would wait: queue it earlier).  The job itself runs with the lock's
# descriptor closed, so that a process it leaves running (a server that
# has yet to stop) does not hold the lock after it.  exclusive gives up
# after CID_SUITE_TIMEOUT seconds (1500), as a failed case.
shared() { { flock -s 9 && "$@" 9>&-; } 9>"$CHECK_SHARED_LOCK"; }
exclusive() {
    {
        if flock -x -w "${CID_SUITE_TIMEOUT:-1500}" 9; then
            "$@" 9>&-
        else
            echo "  FAIL $*: the shared jobs still ran after ${CID_SUITE_TIMEOUT:-1500} s"
            failed=$((failed + 1))
        fi
    } 9>"$CHECK_SHARED_LOCK"
}

_queue_worker() {
    local dir=$1 me=$2 i job
    log=$dir/$me.log
    : >"$log"
    passed=0 failed=0 skipped=0
    while :; do
        i=$(flock "$dir/queue.lock" bash -c 'i=$(cat "$1"); echo $((i + 1)) >"$1"; echo "$i"' _ "$dir/next")
        [ "$i" -lt "${#queue[@]}" ] || break
        job=${queue[$i]}
        eval "$job"
    done
    echo "$passed $failed $skipped" >"$dir/$me.counts"
}

# figures_row COMMAND SECONDS: this run's counts and time as one row of
# docs/figures.md's table, with the date, the machine and the commit (and
# "+changes" when the tree differs from it).
figures_row() {
    local cmd=$1 secs=$2 cpu commit
    cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
    commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    git diff --quiet HEAD -- 2>/dev/null || commit+="+changes"
    # shellcheck disable=SC2016 # Markdown's backquotes, not an expansion
    printf '| `%s` | %d passed, %d failed, %d skipped | %d min %d s | %s | %s CPUs (%s), load %s at the end | %s |\n' \
        "$cmd" "$passed" "$failed" "$skipped" $((secs / 60)) $((secs % 60)) "$(date -u +%F)" \
        "$(nproc 2>/dev/null || echo '?')" "${cpu:-unknown CPU}" "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)" "$commit"
}

# record_figures FILE ROW: put ROW into FILE's table of runs (the one whose
# header starts "| command |") in place of the row of the same command, or
# after the table's last row; FILE is otherwise left as it was.  Status 1,
# FILE untouched, when FILE has no such table.
record_figures() {
    local file=$1 row=$2 key
    key=${row%% | *}
    if ! awk -v row="$row" -v key="$key" '
        BEGIN { st = 0 }
        st == 0 && /^\| command \|/ { st = 1; print; next }
        st == 1 && index($0, key " | ") == 1 { print row; st = 2; next }
        st == 1 && !/^\|/ { print row; st = 2 }
        { print }
        END { if (st == 1) print row; if (st == 0) exit 1 }' "$file" >"$file.new"; then
        rm -f "$file.new"
        return 1
    fi
    mv "$file.new" "$file"
}

# figures COMMAND: at the end of a run, this run's row in build/figures.row
# and, when CHRONOID_FIGURES names a file (docs/figures.md) and nothing
# failed, in that file's table.
figures() {
    local row
    row=$(figures_row "$1" "$SECONDS")
    printf '%s\n' "$row" >build/figures.row
    [ -n "${CHRONOID_FIGURES:-}" ] || return 0
    if [ "$failed" -ne 0 ]; then
        echo "figures: not recorded in $CHRONOID_FIGURES: $failed failed"
    elif record_figures "$CHRONOID_FIGURES" "$row"; then
        echo "figures: recorded in $CHRONOID_FIGURES"
    else
        echo "figures: $CHRONOID_FIGURES has no '| command |' table"
    fi
}
