#!/usr/bin/python3
"""Tabulate the audit: per case the expectation, pecheck's exit code, the likely cause of its first FAIL
line (the text before '; checked against', so the schedule description cannot match the cause words),
and an automatic verdict. Manual notes (judgement calls) are in NOTES and printed beside the verdict."""
import json, os, re, sys

CASES = os.environ.get("AUDIT_OUT", "/tmp/audit/cases")
# judgement: a cause word matched only by accident ("frequenc" in "other frequencies ... band or ramp?");
# each judgement holds for the output it was made on (the text it names), not for a later one
JUDGED_WRONG = {"bug_llama31_tf32_matmul": "band or ramp?",
                # ninth round: "p-1" matched inside the hex float "(0x1.fe03cp-1)" of a FAIL line without a cause
                "bug_qwen3_decode_seam_repeat": "p-1)"}
# judgement: the words matched, but the lead is incomplete or its text is partly wrong
PARTIAL = {"bug_llama2_fp16_cos", "bug_hunyuan_alpha_ignored", "bug_hunyuan_alpha_no_exponent",
           "bug_llama2_32k_ggml_freq_scale_inverted", "bug_llama2_dynamic_vllm_static",
           "bug_llama2_dynamic_chunk_seq_len", "bug_internlm25_dynamic_no_clamp",
           "bug_qwen25_flash_attn_xpos_scale_base"}
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
    # seventh round (judged on the output of pecheck at 6538ff9; verdicts are the word match, these are notes)
    "bug_llama2_dynamic_chunk_seq_len": "leads with 'matches default, base 10000; the check used dynamic': right kind (no NTK applied); "
                                        "the sequence length (chunk size 4096 for 16384) only in the parenthesis",
    "bug_qwen25_yarn_mscale_twice": "names norm 1.29648 against 1.13863 ('a different attention factor'); does not say 1.29648 = 1.13863^2",
    "bug_qwen25_yarn_ramp_reversed": "generic: '64 of 64 pairs (ratios 0.25..4) ... band or ramp?' (does not say the ramp is reversed)",
    "bug_qwen25_yarn_no_2pi_correction_dim": "equivalent fit: 'matches yarn with original length 223813' (ramp edges of 2 pi x 32768); 2 pi not named",
    "bug_llama31_wavelen_no_2pi": "generic: 'pairs 29..43 ... band or ramp?' (2 pi not named)",
    "bug_qwen25_yarn_blend_periods": "generic: 'pairs 24..39 (the ramp's) ... band or ramp?'",
    "bug_phi35_attn_factor_sin_only": "the cos/sin amplitude cause written after the sixth round's cos-only miss: its mirror, caught",
    "bug_qwen25_cache_tiled": "the period cause written after the sixth round's chunk-restart miss: a tiled cache, caught with its period",
    "bug_phi35_vllm_longrope_boundary": "says 'short factors where the sequence length (4097, original 4096) calls for the long ones: swapped' "
                                        "(the numbers show the boundary; the last row, long row 0, not named)",
    "bug_llama31_decode_cos_first_rows": "word list too narrow: the text 'the cache does not rotate: cos 1 and sin 0 at every position and pair' "
                                         "is right in substance (every row is position 0); counted wrong by the words fixed before",
    "bug_llama31_band_edge_high_wavelen": "'pairs 29..34 have frequencies 0.125 times the schedule's: a wrong scaling factor?': the pairs are the "
                                          "llama3 band's, divided by 8 once more; band/wavelength comparison not named",
    "bug_llama31_jax_gather_clamp": "'pairs 0..63 have frequencies 0.6667 times the schedule's: a wrong scaling factor?' (wrong: a fit "
                                    "over rows 16383..24575 all equal); the unique FAIL below says 'bit-identical rows at positions 16383 and 16384'",
    "bug_llama31_mlx_inv_freq_as_periods": "'pairs 1..63 have frequencies 1.868e+06 times the schedule's: a wrong scaling factor?': "
                                           "the true ratios are 1/omega_i^2 per pair (1.5 at pair 1 to ~1e13: inverted frequencies), not one factor; inversion not named",
    "bug_phi35_factors_multiplied": "generic 'band or ramp?' (ratios 1.166..4204 = the long factors squared); inverted factors not named",
    "bug_llama2_32k_linear_int_div": "'the positions are held in float16 ... above 2048 neighbouring positions share one' (wrong: rows share "
                                     "one position in groups of 8 from position 0, p // 8)",
    "bug_qwen25_cos_via_sin_shift": "no 'likely cause' on the FAIL line (summarize.py shows the line); the detail says 'the pair points "
                                    "the wrong way ...: the angle is wrong (low-precision position or angle)': cos only, shift not named",
    "bug_qwen25_yarn_attn_after_bf16": "caught at 1.69 x the bound; detail 'the pair is not on the circle of the reference (its norm is off) "
                                       "... mismatched frequencies, or an offset' (wrong: two bf16 roundings)",
    "bug_llama2_arange_no_step": "exit 2: 'the rotary dim is 128 but the cache or --d has d = 256': the (n,128) cache read as 128 one-per-pair "
                                 "columns, which they are (base^(-j/128) = the 256-dim schedule); arange not named, no verdict",
    "bug_llama2_cos_half_sin_interleaved": "exit 2: 'the rotary dim is 128 but ... d = 256': cos in the half layout, sin interleaved; "
                                           "the message points at the rotary dim, not at the two layouts",
    # eighth round (judged on the output of pecheck at 87db16d; verdicts are the word match, these are notes)
    "bug_internlm25_dynamic_no_clamp": "'matches default, base 244558.928; the check used dynamic ... a wrong base': the base is exactly "
                                       "1e6 * 0.25^(128/126) (the NTK formula at 20480 < 32768), but the words match only in 'the check "
                                       "used dynamic' and the parenthesis; the missing max(seq_len, max_position_embeddings) not named",
    "bug_llama2_static_ntk_aware": "'base 20221.3, not 30527.7: a wrong base': right (10000 * 2^(128/126)); NTK-aware alpha = factor not named",
    "bug_gptoss_concentration_in_angle": "'norm 1 but attention factor 1.34657: missing; and pairs fit frequencies 1.347 times': both halves "
                                         "of the factor moved into the angle, the move itself not named",
    "bug_mistral_nemo_head_dim_hidden": "'the cache has 160 columns ... schedule computed over 160 dims ... rotary dim ignored "
                                        "(partial_rotary_factor, --rotary-dim)': dims right; head_dim vs hidden_size/heads not named",
    "bug_llama31_llama3_no_smooth": "'matches yarn ... beta_fast 1, beta_slow 1' (an equivalent step) then 'pairs 29..34 ... band or ramp?': the band's pairs, right",
    "bug_llama2_angle_accumulated_f32": "no cause on the FAIL line; the detail says 'the angle is wrong (low-precision position or angle, "
                                        "or error accumulated along the positions)': right in substance, below the FAIL line",
    "bug_qwen25_rotation_recurrence_f32": "leads with 'norm 1.00001 ... a different attention factor' (wrong: the recurrence's norm drift); "
                                          "a later FAIL: 'errors grow with the absolute position ... angle computed in low precision'",
    "bug_llama2_dynamic_per_row_base": "'pairs 1..63 fit frequencies -0.008306 times ... no single scaling factor explains the rows' (wrong: "
                                       "each row has its own base)",
    "bug_llama2_exponent_from_1": "equivalent fit: 'matches linear, factor 1.07460782' (= 10000^(1/128)); the exponent (2i+1)/d not named",
    "bug_llama2_int_div_exponent": "'the frequencies are those of base 1': right in substance (exponent 0: every inv_freq 1), "
                                   "the integer division not named; counted wrong by the words fixed before",
    "bug_qwen25_linspace_exponent": "equivalent fit: 'base 1245198.88' (= 1e6^(128/126)); the exponent over d-2 (linspace) not named",
    "bug_llama31_bf16_bits_truncated": "no cause on the FAIL line (max err/bound 1.4); the detail: 'the pair is not on the circle ... "
                                       "(its norm is off)' (wrong: bfloat16 by truncation, not round-to-nearest)",
    "bug_qwen3_sin_bf16_cos_f32": "leads with 'norm 1.00001 ... a different attention factor' (wrong); a later FAIL: 'cos and sin are held "
                                  "in low precision (a bfloat16 cache ...)': half of it (only sin is bfloat16)",
    "bug_mistral_rolling_buffer_order": "'the rows are those of positions p+2048 ... pass --pos-start 4096': true of rows 0..2047 only; "
                                        "the other half are 2048..4095 (a ring buffer in slot order); the advice is wrong",
    "bug_qwen25_sin_via_sqrt": "no cause on the FAIL line; the detail: 'the angle is wrong (low-precision position or angle ...)' "
                               "(wrong: sin = sqrt(1 - cos^2) loses the small angles; sin 0 where cos rounds to 1)",
    "bug_llama2_sin_signed_cache": "exit 2: 'cos.npy: ... no column repeats another ... 128 pairs, d = 256': cos does repeat (cat); "
                                   "sin's halves differ in sign (cat(-sin, sin)); the message names cos.npy",
    "bug_qwen25_invfreq_pow_f16_overflow": "exit 2: 'the rotary dim is 128 but ... d = 64': 63 of the 64 columns are cos 1 (inv_freq 0 "
                                           "after the float16 overflow), read as repeated columns; overflow not named",
    "bug_qwen25_cache_transposed": "exit 2: '8192 columns give d = 16384; RoPE needs an even d in [2, 8192]': transposition not named",
    # ninth round (judged on the output of pecheck at f5996c8; verdicts are the word match, these are notes)
    "bug_qwen3_decode_seam_repeat": "judged wrong: the word 'p-1' matched inside '(0x1.fe03cp-1)' of a FAIL line with no cause; the detail "
                                    "says 'the angle is wrong (low-precision position or angle ...)'; rows 4096.. hold positions p-1 (not named)",
    "bug_qwen25_flash_attn_xpos_scale_base": "'norm 1.66639 but the schedule's attention factor is 1': the amplitude is wrong, but it varies with "
                                             "the position and the pair (xPos, scale ** ((t - 2048) / 512)); a constant factor is named",
    "bug_glm4_identity_padded_passthrough": "'columns 32..63 are cos 1 and sin 0 at every row': right",
    "bug_llama31_yarn_instead_of_llama3": "'this cache matches yarn, base 500000, factor 8, original 8192, attention factor 1.208; the check used llama3': right",
    "bug_mistral03_exp_log_div_term": "false pass: max err/bound 0.432; pecheck notes that --strict (the hf class) fails these rows (3.01): "
                                      "exp(-ln(base) 2i/d) in float32 moves inv_freq by up to 5.5e-7 relative (2e-3 rad at 32767)",
    "bug_llama4_scout_nan_mask_blend": "exit 2: 'the rotary dim is 128 but the cache ... has d = 64': every value NaN; NaN not named",
    "usage_glm4_half_as_bf16": "exit 2: '--dtype bf16: cos.npy holds <f4 values that are not bfloat16 numbers ... drop --dtype bf16': "
                               "right to refuse; float16 (the values are) not named",
    "bug_mistral_nemo_bf16_bits_viewed_f16": "exit 2: 'a <f2 table is float16, not --dtype bf16': the bf16 bits saved through .view(float16) not named",
    "bug_gemma2_cos_copy_of_sin": "'cos and sin are evaluated inexactly: the error depends on the angle alone' (wrong: cos is a copy of sin)",
    "bug_llama32_te_fused_cos_as_freqs": "'cos is evaluated inexactly: the error depends on the angle alone' (wrong: cos(cos theta), the cos "
                                         "table used as the angle)",
    "bug_olmo2_rope_applied_twice": "'cos and sin are evaluated inexactly' (wrong); fitted-model below: 'frequency ... relative +1' (twice the "
                                    "frequency: the rotation applied twice), not on the first line",
    "bug_qwen25_yarn_mscale_interp_pairs_only": "'cos and sin are evaluated inexactly' (wrong); fitted-model below: 'amplitude ... the norm "
                                                "varies by pair' (right in substance), not on the first line",
    "bug_internlm25_dynamic_stale_sin": "'norm 0.960692 ... a different attention factor' (wrong: sin has the old base, cos the new one)",
    "bug_mistral7b_cos_offset_sin_not": "'norm 0.948063 ... a different attention factor' (wrong: sin rows are positions 0..4095, cos 8192..)",
    "bug_yi6b_trtllm_float2_as_halves": "'norm 0.986244 ... a different attention factor' (wrong: (cos, sin) float2 pairs read as halves)",
    "bug_llama31_prefill_f32_decode_bf16_rows": "'norm 1.00001 ... a different attention factor' (wrong: rows 4096.. are bfloat16)",
    "bug_llama31_megatron_cp_zigzag": "'pairs 34..63 fit frequencies 3 times ... no single scaling factor explains the rows' (wrong: two "
                                      "chunks, 4096..8191 and 24576..28671)",
    "bug_llama31_input_ids_as_positions": "'frequencies 374.6 times ... no single scaling factor'; the unique FAIL below: bit-identical rows "
                                          "(repeated token ids): the positions not named",
    "usage_qwen25_eagle_tree_positions": "'frequencies 0.188 times ... no single scaling factor'; the unique FAIL below: 'bit-identical rows at "
                                         "16385 and 16386' (tree nodes of one depth); --position-ids not suggested",
    "bug_pythia69b_linspace_positions": "'pairs 0..15 fit frequencies 1 times ... reproduces 0.1%'; fitted-model below: 'frequency relative "
                                        "+0.000489' (= 2048/2047 - 1, the stretch), not named",
    "bug_qwen25_ggml_yarn_ext_factor_half": "generic: '40 of 64 resolved pairs (0..39) ... band or ramp?' (ext_factor not named)",
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
