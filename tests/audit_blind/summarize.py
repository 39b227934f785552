#!/usr/bin/python3
"""Tabulate the audit: per case the expectation, pecheck's exit code, the likely cause of its first FAIL
line (the text before '; checked against', so the schedule description cannot match the cause words),
and an automatic verdict. Manual notes (judgement calls) are in NOTES and printed beside the verdict."""
import json, os, re, sys

CASES = os.environ.get("AUDIT_OUT", "/tmp/audit/cases")
# judgement: a cause word matched only by accident ("frequenc" in "other frequencies ... band or ramp?");
# each judgement holds for the output it was made on (the text it names), not for a later one
JUDGED_WRONG = {"bug_llama31_tf32_matmul": "band or ramp?"}
# judgement: the words matched, but the lead is incomplete or its text is partly wrong
PARTIAL = {"bug_llama2_fp16_cos", "bug_hunyuan_alpha_ignored", "bug_hunyuan_alpha_no_exponent",
           "bug_llama2_32k_ggml_freq_scale_inverted", "bug_llama2_dynamic_vllm_static"}
NOTES = {
    "bug_llama31_tf32_matmul": "leads with 'band or ramp?' (wrong); 2nd candidate 'inv_freq held in float16' (36.2%) is half of it; "
                               "no hypothesis for positions AND frequencies at 11 bits (TF32)",
    "bug_llama31_lowhigh_swapped": "generic: 'pairs 29..34 have other frequencies ... band or ramp?' (does not say the two factors are swapped)",
    "bug_qwen25_yarn_betas_swapped": "generic: 'band or ramp?' (does not say beta_fast/beta_slow swapped)",
    "bug_gptoss_truncate_ignored": "generic: 'band or ramp?' (does not name truncate)",
    "bug_llama31_pi_approx_128k": "benign: the 2*3.14159 error moves frequencies by 1.5e-6 relative (angle 2.4e-4 rad at 131071), "
                                  "below HF's own float32 error there; no element-wise tool can tell",
    "bug_cohere2_half_layout": "documented design: the config's pair layout is printed but not imposed on a cache (docs/schedules.md); with --layout interleaved added: exit 1, first FAIL cache-layout (right)",
    "bug_llama2_interleaved_layout": "documented design: layout not imposed (Meta's original Llama is interleaved with unpermuted weights)",
    "bug_hunyuan_alpha_ignored": "cause right (wrong base, dynamic) but text says 'frequencies are those of base 8.96151' (1e8/base'); "
                                 "alpha not named",
    "bug_hunyuan_alpha_no_exponent": "cause right (wrong base 1e7 found) but text also says 'base 8961.51, not 10000' (rope_theta*cache/base'); "
                                     "alpha/exponent not named",
    "bug_llama2_fp16_cos": "leads with 'float16 storage, rerun with --dtype f16'; rerun with --dtype f16 fails with 'the angle ... held in float16' (right, two steps)",
    "bug_phi2_full_head_cache": "exit 2 with a clear message: 'the rotary dim is 32 (partial rotary) but the cache ... has d = 80'",
    "bug_phi2_partial_wrong_dim": "names head dim vs rotary dim first, then the equivalent base 39.8",
    "bug_dsv3_dim192": "names 'computed over the head dim (192), not the rotary dim (qk_rope_head_dim)'",
    # sixth round (judged on the output of pecheck at 8ef8444)
    "bug_llama2_32k_ggml_freq_scale_inverted": "'frequencies 4.401 times the schedule's: a wrong scaling factor?': the kind is right, the number "
                                               "is not (64: freq_scale 8 for 1/8; pair 0 turns 8 rad a position, above pi, aliased); 'inverse' not said",
    "bug_llama2_dynamic_vllm_static": "leads with 'matches dynamic with max_position_embeddings 2048' (an equivalent fit: the cache was built "
                                      "for sequence length 8192); 'sequence length' only in the parenthesis",
    "bug_llama31_chunk_positions_restart": "first FAIL (accuracy) says 'band or ramp?' (wrong); the 'unique' FAIL further down names it: "
                                           "'the encoding repeats every 2048 positions (the position taken modulo 2048 ...)'",
    "bug_phi35_factors_switch_mid_cache": "'band or ramp?' (wrong): rows 0..4095 hold the short factors, 4096.. the long; not named",
    "bug_qwen25_yarn_mscale_cos_only": "leads with 'sin is evaluated inexactly' (wrong); 2nd candidate 'norm 1.07177 ... a different "
                                       "attention factor' is half of it; cos and sin of different norms not named",
    "bug_cohere2_interleaved_sliced_half": "exit 2: 'the rotary dim is 128 but the cache ... has d = 64': the (n, 64) cache of pairs "
                                           "0,0,1,1,.. read as a d=64 interleaved cache; the message points at the rotary dim, not at the slice",
    "bug_gemma3_linear_twice": "names factor 64 against 8 (does not say 'twice')",
    "bug_qwen3_ggml_yarn_orig_ctx": "names 'original length 39800' (its ramp edges are n_ctx_orig 40960's), not 32768",
}


def first_fail_cause(out):
    for line in out.splitlines():
        if line.startswith("FAIL"):
            m = re.search(r"likely cause: (.*)", line)
            if not m:
                return line[:200], line
            cause = m.group(1).split("; checked against")[0]
            return cause, line
    return "", ""


def case_row(d):
    """The row of one case folder holding case.json and pecheck's rc.txt, out.txt and err.txt."""
    name = os.path.basename(d)
    case = json.load(open(os.path.join(d, "case.json")))
    rc = int(open(os.path.join(d, "rc.txt")).read())
    out = open(os.path.join(d, "out.txt")).read()
    err = open(os.path.join(d, "err.txt")).read().strip()
    cause, line = first_fail_cause(out)
    if rc == 2:
        cause = err.splitlines()[-1] if err else "(exit 2)"
    words = case["cause_words"]
    hit = [w for w in words if w.lower() in cause.lower()]
    if rc == 2:
        verdict = "no verdict (exit 2)"
    elif case["expect"] == "pass":
        verdict = "correct pass" if rc == 0 else "false alarm"
    elif rc == 0:
        verdict = "false pass"
    else:
        verdict = "right cause" if hit else "wrong cause"
    if name in JUDGED_WRONG and verdict == "right cause" and JUDGED_WRONG[name] in cause:
        verdict = "wrong cause (word matched, judged wrong)"
    if name in PARTIAL and verdict == "right cause":
        verdict = "right cause (partial)"
    return dict(case=name, expect=case["expect"] + ("" if case["expect"] == "pass" else " [" + "|".join(words) + "]"),
                rc=rc, cause=cause[:150], hit=hit, verdict=verdict, note=NOTES.get(name, ""),
                args=" ".join(case["args"]), how=case["how"])


def counts(rows):
    """The figures under the table (tests/audit_blind.t asserts on the same ones)."""
    ok = [r for r in rows if r["expect"] == "pass"]
    bugs = [r for r in rows if r["expect"].startswith("fail")]
    return dict(correct=len(ok), passing=sum(r["rc"] == 0 for r in ok), bugs=len(bugs),
                caught=sum(r["rc"] == 1 for r in bugs),
                right=sum(r["verdict"].startswith("right cause") for r in bugs),
                partial=sum(r["verdict"] == "right cause (partial)" for r in bugs),
                exit2=sum(r["rc"] == 2 for r in rows))


def figure_lines(rows):
    c = counts(rows)
    return [f"correct cases passing: {c['passing']}/{c['correct']}",
            f"bugs/usage errors caught (exit 1): {c['caught']}/{c['bugs']}",
            f"right cause first (word match): {c['right']}/{c['bugs']} (of which partial: {c['partial']})",
            f"exit 2: {c['exit2']}"]


def main():
    rows = [case_row(os.path.join(CASES, name)) for name in sorted(os.listdir(CASES))
            if os.path.exists(os.path.join(CASES, name, "rc.txt"))]
    if "--json" in sys.argv:
        json.dump(rows, sys.stdout, indent=1)
        return
    print("| case | expected | extra args | rc | likely cause (first 150 chars) | verdict | note |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['expect']} | {r['args']} | {r['rc']} | {r['cause'].replace('|', '/')} | {r['verdict']} | {r['note']} |")
    print()
    for line in figure_lines(rows):
        print(line)


if __name__ == "__main__":
    main()
