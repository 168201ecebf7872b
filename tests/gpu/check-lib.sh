# The device check's library (sourced by device-check; its test,
# verdict-test, sources it too): how a step runs and is judged, the figures,
# REPORT.md and the final verdict. Globals it reads: work, out, bundle, E, T0,
# TOTAL, gpu_present (1 when this machine has a GPU).

fmt_cmd() { # the command, with the bundle and work folders shortened
    local s pre=""
    if [ "$1" = env ] && [[ "${2:-}" == LD_LIBRARY_PATH=* ]]; then
        shift
        while [[ "${1:-}" == *=* ]]; do shift; done
        pre="[engine env] "
    fi
    s=$pre$(printf '%q ' "$@")
    s=${s//"$E"/\$E}
    s=${s//"$bundle"/\$B}
    s=${s//"$work"/\$W}
    echo "${s% }"
}

# classify RC LOG GPU -> sets st (PASS SKIP FAIL TIMEOUT LOADER) and note.
# GPU 1: the step needs a GPU, so "no CUDA device" and the like end it as
# SKIP. A test program that prints Qt Test's Totals line is judged by its
# counts, not by whether some line reads PASS: no case passed is SKIP, a
# failed case (or a crash after the Totals) is FAIL. On a machine with a GPU
# every SKIP is a FAIL.
classify() {
    local rc=$1 log=$2 gpu=$3 reason totals passed failed skipped
    note=""
    if [ "$rc" -eq 127 ] || grep -q 'error while loading shared libraries' "$log"; then
        st=LOADER
        note=$(grep -m1 -E 'error while loading shared libraries|not found|No such file' "$log")
        return
    fi
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        st=TIMEOUT
        note="stopped by timeout"
        return
    fi
    if [ "$rc" -eq 3 ] && grep -q '^RESULT .*"skipped"' "$log"; then
        st=SKIP
        note=$(sed -n 's/^RESULT .*"skipped": "\([^"]*\)".*/\1/p' "$log" | head -n 1)
    elif totals=$(grep -m1 -E '^Totals: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$log"); then
        read -r passed failed skipped <<<"$(echo "$totals" | awk '{print $2, $4, $6}')"
        reason=$(grep -m1 -E '^SKIP' "$log" | sed 's/^SKIP *: *//')
        if [ "$failed" -gt 0 ] || [ "$rc" -ne 0 ]; then
            st=FAIL
            note="$failed of $((passed + failed + skipped)) cases failed, exit $rc: $(grep -m1 -E '^FAIL' "$log" || tail -n 1 "$log")"
        elif [ "$passed" -eq 0 ]; then
            st=SKIP
            note="no case ran ($skipped skipped): $reason"
        else
            st=PASS
            [ "$skipped" -gt 0 ] && note="$passed passed, $skipped skipped: $reason"
        fi
    else
        reason=$(grep -m1 -E 'SKIPPED|^SKIP|no CUDA device|could not be loaded|not built|was not found \(' "$log")
        if [ "$rc" -eq 0 ]; then
            if [ "$gpu" = 1 ] && [ -n "$reason" ] && ! grep -q -E '^PASS' "$log"; then
                st=SKIP
                note=$reason
            else
                st=PASS
            fi
        elif [ "$gpu" = 1 ] && [ -n "$reason" ]; then
            st=SKIP
            note=$reason
        else
            st=FAIL
            note=$(grep -m1 -E '^error:|FAIL!|Traceback|Error|error' "$log" || tail -n 1 "$log")
        fi
    fi
    if [ "$st" = SKIP ] && [ "$gpu_present" = 1 ]; then
        st=FAIL
        note="skipped although this machine has a GPU: $note"
    fi
}

# row ID KIND RESULT NOTE [CMD]: a step decided without running a command.
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" - 0 "$4" "${5:-}" >>"$work/steps.tsv"; }

# step ID KIND GPU BUDGET_S UNTIL CMD... ; KIND test|compare|bench|info: a test or a
# comparison that fails fails the check (besides loader errors), a comparison
# that is SKIPPED is named in the verdict line; GPU 1 lets "no CUDA device"
# end the step as SKIP.
step() {
    local id=$1 kind=$2 gpu=$3 budget=$4 until=$5
    shift 5
    local log=$work/log/$id.txt now lim t1 t2 rc secs cmd
    now=$(date +%s)
    lim=$budget
    [ $((until - now)) -lt "$lim" ] && lim=$((until - now))
    cmd=$(fmt_cmd "$@")
    if [ "$lim" -lt 5 ]; then
        row "$id" "$kind" SKIP "out of the time budget" "$cmd"
        : >"$log"
        st=SKIP
        return 99
    fi
    t1=$(date +%s%N)
    timeout -k 5 "$lim" "$@" >"$log" 2>&1 </dev/null
    rc=$?
    t2=$(date +%s%N)
    secs=$(awk -v a="$t1" -v b="$t2" 'BEGIN{printf "%.1f", (b-a)/1e9}')
    classify "$rc" "$log" "$gpu"
    if [ "$st" = TIMEOUT ] && [ "$lim" -lt "$budget" ] && [ "$kind" = bench ]; then
        st=SKIP # a benchmark the budget's end cut short: no figure, no failure
        note="cut at the end of the time budget after ${lim} s"
    elif [ "$st" = TIMEOUT ]; then
        note="stopped by timeout after ${lim} s"
    fi
    note=$(echo "$note" | tr '\t\n' '  ' | cut -c1-300 | sed 's/[[:space:]]*$//')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$kind" "$st" "$rc" "$secs" "$note" "$cmd" >>"$work/steps.tsv"
    {
        echo "======== $id ($kind): $st, exit $rc, $secs s"
        echo "\$ $cmd"
        head -c 400000 "$log"
        echo
    } >>"$out/raw-logs.txt"
    say "$(printf '%-26s %-7s exit %-3s %6s s  %s' "$id" "$st" "$rc" "$secs" "$note")"
    render_report
    return "$rc"
}

# agreement E2E_JSON: the step e2e-agreement, from the evaluator's verdict on
# each run. The CPU runs (cpu-*) are its controls: when one of them disagrees
# too, the evaluator (its port of the split, its reader) is what is wrong,
# and the GPU runs are not judged by it (a bench row, FAIL, that says so).
agreement() {
    local verdict result kind note
    verdict=$("${py:-python3}" - "$1" 2>&1 <<'EOF'
import json, sys
try:
    runs = json.load(open(sys.argv[1])).get("runs", [])
except Exception as e:
    print("FAIL\ttest\tno evaluation to read (%s)" % e)
    sys.exit()
bad = lambda rs: [r.get("run", "?") for r in rs if r.get("ok") is not True]
controls = [r for r in runs if str(r.get("run", "")).startswith("cpu-")]
gpu = [r for r in runs if not str(r.get("run", "")).startswith("cpu-")]
if not controls:
    print("FAIL\ttest\tno CPU control run was evaluated, so the evaluator cannot be trusted")
elif bad(controls):
    print("FAIL\tbench\tthe evaluator is wrong, not the GPU: the CPU control runs %s disagree with it "
          "too (GPU runs that disagree: %s)" % (", ".join(bad(controls)), ", ".join(bad(gpu)) or "none"))
elif bad(gpu):
    print("FAIL\ttest\tthe CPU controls agree with PyTorch and these GPU runs do not: %s"
          % ", ".join(bad(gpu)))
elif not gpu:
    print("SKIP\ttest\tthe CPU controls agree with PyTorch; no GPU run wrote weights to judge")
else:
    print("PASS\ttest\t%d GPU runs and %d CPU controls agree with PyTorch" % (len(gpu), len(controls)))
EOF
)
    IFS=$'\t' read -r result kind note <<<"$verdict"
    case "$result" in
    PASS | SKIP | FAIL) ;;
    *) result=FAIL kind=test note="the agreement could not be judged: $verdict" ;;
    esac
    if [ "$result" = SKIP ] && [ "$gpu_present" = 1 ]; then
        result=FAIL note="skipped although this machine has a GPU: $note"
    fi
    row e2e-agreement "$kind" "$result" "$note"
}

# figure TABLE ROW COLUMN VALUE: a figure of the step that just PASSED (a run
# stopped early prints a summary too, of a run that did not finish).
figure() { [ "$st" = PASS ] && [ -n "$4" ] && printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$work/figures.tsv"; }
# the seconds the engine's device waited for the host's rows between epochs
# ("summary: the host dealt ...; the device waited 0.012 s for them ...")
row_wait() { sed -n 's/^summary: .*the device waited \([0-9.]*\) s for them.*/\1/p' "$1" | head -n 1; }
# the engine's training samples/s from its summary line ("... : 1.04M samples/s")
engine_rate() {
    awk '/^summary: .*samples\/s/ { for (i = 1; i < NF; i++) if ($(i+1) ~ /^samples\/s/) {
            v = $i; m = 1; if (v ~ /k$/) m = 1e3; if (v ~ /M$/) m = 1e6; if (v ~ /G$/) m = 1e9
            sub(/[kMG]$/, "", v); printf "%.0f\n", v * m; exit } }' "$1"
}
result_rate() { sed -n 's/^RESULT .*"samples_per_s": \([0-9.e+-]*\).*/\1/p' "$1" | head -n 1; }

# ------------------------------------------------------------------ the report
render_table() { # TABLE ROW_HEADER "col|col|..." "num/den|..." (ratios of columns by number, 1-based)
    awk -F'\t' -v t="$1" -v rowh="$2" -v cols="$3" -v ratios="$4" '
    function f(v) { if (v == "") return "-"; if (v + 0 >= 1e6) return sprintf("%.2fM", v / 1e6);
                    if (v + 0 >= 1e3) return sprintf("%.1fk", v / 1e3); return sprintf("%.3g", v) }
    $1 == t { if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } val[$2, $3] = $4 }
    function sortrows(   i, j, k) { # rows in numeric order (the sweep runs 1, 16, 4, ...)
        for (i = 2; i <= n; i++) { k = order[i]; for (j = i - 1; j >= 1 && order[j] + 0 > k + 0; j--) order[j + 1] = order[j]; order[j + 1] = k }
    }
    END {
        if (!n) { print "(no figures)"; exit }
        sortrows()
        nc = split(cols, C, "|"); nr = (ratios == "") ? 0 : split(ratios, R, "|")
        h = "| " rowh; s = "| ---"
        for (c = 1; c <= nc; c++) { h = h " | " C[c]; s = s " | ---" }
        for (r = 1; r <= nr; r++) { split(R[r], ab, "/"); h = h " | " C[ab[1]] " / " C[ab[2]]; s = s " | ---" }
        print h " |"; print s " |"
        for (i = 1; i <= n; i++) {
            k = order[i]; line = "| " k
            for (c = 1; c <= nc; c++) line = line " | " f(val[k, C[c]])
            for (r = 1; r <= nr; r++) {
                split(R[r], ab, "/"); a = val[k, C[ab[1]]]; b = val[k, C[ab[2]]]
                line = line " | " ((a != "" && b != "" && b + 0 > 0) ? sprintf("%.2fx", a / b) : "-")
            }
            print line " |"
        }
    }' "$work/figures.tsv"
}

keylines() { # the lines of a step log worth reading in the report
    grep -E '^(Hogwild Lab|summary:|error:|warning:|PASS|FAIL|SKIP|XFAIL|Totals|SKIPPED|cuda:|the GPU modes|driver|CUDA|NCCL|data-parallel R|device reduce|gpu-hogwild|CPU Hogwild|model |experiment:|RESULT|Traceback|[A-Za-z]*Error)|samples/s|torch:|accuracy|NVIDIA|Driver Version|MiB' "$1" |
        cut -c1-400 | head -n "${2:-30}"
}

render_report() {
    local n_pass n_skip n_fail verdict
    local cpu_cols="engine threads|engine processes|engine data-parallel|PyTorch fork|ceiling"
    local cpu_ratios="1/4|2/4|3/4|1/5|2/5|3/5|4/5"
    n_pass=$(awk -F'\t' '$3=="PASS"' "$work/steps.tsv" | wc -l)
    n_skip=$(awk -F'\t' '$3=="SKIP"' "$work/steps.tsv" | wc -l)
    n_fail=$(awk -F'\t' '$3!="PASS" && $3!="SKIP"' "$work/steps.tsv" | wc -l)
    verdict=$(final_verdict)
    {
        echo "# GPU device check, $(date -u +%Y-%m-%dT%H:%MZ)"
        echo
        echo "**$verdict** ($n_pass passed, $n_skip skipped, $n_fail failed or timed out; $(elapsed) s so far of a $TOTAL s budget)."
        echo "In commands and paths, \`\$B\` is the bundle, \`\$E\` its bin/hogwild-lab-engine, \`\$W\` the check's"
        echo "work folder and \`\$OUT\` the report's; \`[engine env]\` is the engine environment under What was found."
        echo
        echo "## Machine"
        echo '```'
        echo "host $(uname -n), $(uname -sr), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
        echo "memory: $(awk '/MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo); /dev/shm: $(df -h /dev/shm 2>/dev/null | awk 'NR==2{print $2" ("$4" free)"}')"
        echo "glibc $(getconf GNU_LIBC_VERSION 2>/dev/null | cut -d' ' -f2); libstdc++: $(ldconfig -p 2>/dev/null | awk '/libstdc\+\+\.so\.6 /{print $NF; exit}')"
        [ -s "$work/log/nvidia-smi.txt" ] && head -n 14 "$work/log/nvidia-smi.txt"
        echo '```'
        echo
        echo "## What was found"
        echo '```'
        cat "$work/found.txt"
        echo '```'
        echo
        echo "## Steps"
        echo
        echo "| step | kind | result | exit | s | note | command |"
        echo "| --- | --- | --- | --- | --- | --- | --- |"
        awk -F'\t' '{ gsub(/\|/, "\\|", $6); gsub(/\|/, "\\|", $7);
            printf "| %s | %s | %s | %s | %s | %s | `%s` |\n", $1, $2, $3, $4, $5, $6, $7 }' "$work/steps.tsv"
        echo
        echo "## End to end: each GPU mode's exported weights evaluated by PyTorch"
        echo
        echo "The engine trains with \`--out\`; bench/gpu_torch.py loads experiment.json and"
        echo "weights.safetensors (checked equal to weights.npz) into torch.nn modules and evaluates the"
        echo "same held-out rows (the engine's split reproduced); agreement: accuracy within 0.5 points,"
        echo "loss within 1e-3 of the run's own last test evaluation."
        echo
        if [ -s "$work/e2e.tsv" ]; then
            echo "| run | mode | model | engine accuracy | torch accuracy | engine loss | torch loss | npz = safetensors | agree |"
            echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
            cat "$work/e2e.tsv"
        else
            echo "(no evaluation: see the steps e2e-*)"
        fi
        echo
        echo "## GPU: R data-parallel replicas of the blog's MLP on one GPU, batch 32 each (samples/s)"
        echo
        echo "Engine: \`--mode data-parallel --device cuda --workers R --replicas-per-gpu R\`, mlp:100-256-10,"
        echo "random:262144x100:10 (R = 256: random:1048576x100:10), SGD lr 0.01, momentum 0 (its summary's"
        echo "training samples/s). PyTorch"
        echo "(bench/gpu_torch.py replicas): parameters stacked along a replica axis, vmap(grad(functional_call))"
        echo "for every replica's gradient at once, the replicas' mean applied to each (as DDP and the engine),"
        echo "eager and in one CUDA graph; \"one model, batch R*B\" is the same arithmetic without replicas."
        echo
        render_table gpu R "engine|torch vmap, eager|torch vmap, CUDA graph|torch one model, batch R*B, eager|torch one model, batch R*B, CUDA graph|engine: device waited for rows (s)" "1/2|1/3|1/5"
        echo
        echo "\"device waited for rows\": the seconds the engine's device stood idle between epochs for the"
        echo "host to deal the next epoch's rows (its summary line; the epochs are dealt several at a time)."
        echo
        echo "## GPU: R data-parallel replicas of mnist_hogwild's CNN on one GPU, batch 32 each (samples/s)"
        echo
        echo "Engine: \`--model cnn:mnist\` (dropout 0.5, momentum 0.5) on random:65536x784:10, as above."
        echo "PyTorch: the example's Net written over stacked parameters (bench/gpu_torch.py cnn_forward),"
        echo "vmap(grad) over the replicas with each replica's dropout masks drawn outside vmap; and one"
        echo "Net at batch R*B."
        echo
        render_table gpu-cnn R "engine|torch vmap, eager|torch vmap, CUDA graph|torch one model, batch R*B, eager|torch one model, batch R*B, CUDA graph" "1/2|1/3|1/5"
        echo
        echo "## CPU: $(nproc) cores, samples/s summed over the workers"
        echo
        echo "Blog's MLP: mlp:100-256-10 on random:10000x100:10, batch 32, lr 0.01, momentum 0; threads and"
        echo "processes (forkserver) with --split replicate (every worker walks all rows, as the blog's"
        echo "recipe); data-parallel shards, so it runs workers x as many epochs (each rank the same"
        echo "samples). PyTorch: bench/pytorch_recipes.py fork (the blog's mp recipe, share_memory(), 1"
        echo "intra-op thread per worker), replicate. Ceiling: N independent serial runs of the engine at"
        echo "once (their samples/s summed), the most N of these cores give; \"/ ceiling\" is the share of it."
        echo "Every run trains at least 2 s: its epochs come from the 1-worker rate (steps.tsv has each command)."
        echo
        render_table cpu-mlp workers "$cpu_cols" "$cpu_ratios"
        echo
        echo "Embedding bag: embedding-bag:5000-32-4 on sparse-bow:20000x5000:4:20, batch 32, lr 0.5,"
        echo "(data-parallel workers x the epochs); PyTorch: bench/gpu_torch.py cpu-bag (fork, nn.EmbeddingBag"
        echo "with sparse gradients, share_memory(), every worker walking all rows)."
        echo
        render_table cpu-bag workers "$cpu_cols" "$cpu_ratios"
        echo
        echo "## Key lines of each step"
        local id kind stt
        while IFS=$'\t' read -r id kind stt _; do
            case "$id" in cpu-*) [ "$stt" = PASS ] && continue ;; esac
            [ -s "$work/log/$id.txt" ] || continue
            echo
            echo "### $id: $stt"
            echo '```'
            if [ "$id" = tst_gpu ]; then
                echo "$(grep -c '^PASS' "$work/log/$id.txt") PASS lines"
                grep -E '^(FAIL|SKIP|XFAIL|Totals)|^   Loc|Actual|Expected' "$work/log/$id.txt" | cut -c1-400 | head -n 60
            else
                keylines "$work/log/$id.txt" 30
            fi
            echo '```'
        done <"$work/steps.tsv"
        echo
        echo "Raw output of every step: raw-logs.txt; the step table: steps.tsv; every figure: figures.tsv."
    } | relative_paths >"$out/REPORT.md.tmp" && mv -f "$out/REPORT.md.tmp" "$out/REPORT.md"
    cp -f "$work/steps.tsv" "$out/steps.tsv"
    cp -f "$work/figures.tsv" "$out/figures.tsv"
}

# The report names paths relative to the bundle, the work folder and the
# report's folder ($B, $W, $OUT): REPORT.md is committed, and no absolute
# path of the machine that ran it (or built the bundle) belongs there.
relative_paths() {
    awk -v b="$bundle" -v w="$work" -v o="$out" '
    BEGIN { # the longest first: one folder may lie inside another
        n = 0; from[++n] = w; to[n] = "$W"; from[++n] = b; to[n] = "$B"; from[++n] = o; to[n] = "$OUT"
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (length(from[j]) > length(from[i])) {
            t = from[i]; from[i] = from[j]; from[j] = t; t = to[i]; to[i] = to[j]; to[j] = t }
    }
    function swap(s, a, z,   i, r) {
        if (a == "" || a == "/") return s
        r = ""
        while ((i = index(s, a)) > 0) { r = r substr(s, 1, i - 1) z; s = substr(s, i + length(a)) }
        return r s
    }
    { line = $0; for (i = 1; i <= n; i++) line = swap(line, from[i], to[i]); print line }'
}

# FAILED, PASSED or PASSED WITHOUT A GPU; then every comparison that could
# not run, by name and why (a PASSED never stands for a check that lacked
# what it exists to show), and a word when the evaluator failed its own
# controls (then the end-to-end runs were not judged).
final_verdict() {
    local v without
    if awk -F'\t' '$3=="LOADER" || (($2=="test" || $2=="compare") && ($3=="FAIL" || $3=="TIMEOUT")) {bad=1} END{exit !bad}' "$work/steps.tsv"; then
        v="FAILED"
    elif awk -F'\t' '$1 ~ /^list-devices/ && $3 == "PASS"' "$work/steps.tsv" | grep -q .; then
        v="PASSED"
    else
        v="PASSED WITHOUT A GPU (nothing failed; every GPU step SKIPPED, see why)"
    fi
    # A skipped comparison's note is "WHAT: WHY": "without WHAT (WHY)".
    without=$(awk -F'\t' '$2 == "compare" && $3 == "SKIP" && !seen[$6]++ {
        i = index($6, ": "); what = i ? substr($6, 1, i - 1) : $6; why = i ? substr($6, i + 2) : ""
        printf "%s%s%s", sep, what, why == "" ? "" : " (" why ")"; sep = "; without " }' "$work/steps.tsv")
    [ -n "$without" ] && v="$v, without $without"
    if awk -F'\t' '$1 == "e2e-agreement" && $2 == "bench" && $3 == "FAIL"' "$work/steps.tsv" | grep -q .; then
        v="$v; the PyTorch evaluator disagrees with its CPU controls, so it is wrong and judged no GPU run (e2e-agreement)"
    fi
    echo "$v"
}

