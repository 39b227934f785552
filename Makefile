# pecheck: one plain Makefile.  `make` builds build/pecheck; `make check`
# runs the TAP tests under prove; `make demo` checks every built-in.
# SANITIZE=1 builds into build-san/ with ASan+UBSan (make check SANITIZE=1).

CC      ?= cc
PYTHON  ?= /usr/bin/python3
WARN    = -Wall -Wextra -Wshadow -Wconversion -Wdouble-promotion
# -ffp-contract=off: the built-ins imitate binary32 formulations operation by
# operation; a fused multiply-add would change what they compute.
# -fno-math-errno: no code reads errno after a libm call, so sqrt inlines and
# a call whose argument does not change in a loop (log(base) of a
# div_term) is made once, as the formulations themselves compute it once;
# the values are the same bits (libm's results do not depend on errno).
CFLAGS  ?= -O2 -g
override CFLAGS += -std=c11 -D_GNU_SOURCE -ffp-contract=off -fno-math-errno $(WARN) -I. -Iinclude
LDLIBS  = -lmpfi -lmpfr -lgmp -lm -ldl -lpthread

ifeq ($(SANITIZE),1)
BUILD   = build-san
override CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
override LDFLAGS += -fsanitize=address,undefined
else
BUILD   = build
endif

# Every .c of these folders is part of the library, except the CLI's main.
LIB_SRC = $(filter-out harness/cli/main.c,$(wildcard harness/*/*.c reference/*.c properties/*.c families/*.c families/*/*.c))
LIB_OBJ = $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC = $(wildcard tests/*_test.c)
TEST_BIN = $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
PECHECK = $(BUILD)/pecheck

.PHONY: all check demo bench clean deps deps-demo deps-check fuzz fuzz-replay prove prove-broken install uninstall wheel
# The example plugins (docs/plugins.md): build/examples/plugin_good.so, and
# plugin_rope_half.so (ABI v2, a half-precision RoPE kernel)
EXAMPLES = $(BUILD)/examples/plugin_good.so $(BUILD)/examples/plugin_rope_half.so
# The demonstration family (tests/family_demo/, docs/architecture.md) is
# registered by a second build of the registry into a test-only binary,
# build/tests/pecheck_demo; build/pecheck never contains it.
DEMO_OBJ = $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/family_demo/*.c)) $(BUILD)/tests/family_demo/registry.o
PECHECK_DEMO = $(BUILD)/tests/pecheck_demo
all: $(PECHECK) $(TEST_BIN) $(EXAMPLES) $(PECHECK_DEMO)

$(BUILD)/examples/%.so: examples/%.c include/pecheck_plugin.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -fPIC $< -o $@ -lm

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libpecheck.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(PECHECK): $(BUILD)/harness/cli/main.o $(BUILD)/libpecheck.a
	$(CC) $(LDFLAGS) -rdynamic $^ $(LDLIBS) -o $@

$(BUILD)/tests/family_demo/registry.o: families/registry.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -D'PC_FAMILIES_EXTRA(X)=X(demo)' -MMD -MP -c $< -o $@

# the demo registry comes before the library, so the library's is not linked
$(PECHECK_DEMO): $(BUILD)/harness/cli/main.o $(DEMO_OBJ) $(BUILD)/libpecheck.a
	$(CC) $(LDFLAGS) -rdynamic $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(BUILD)/libpecheck.a
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# Install missing Debian packages (prints what it does; no-op when present):
# `make demo` only the demo's, `make check` the tests', `make deps` all.
deps:
	@scripts/install-deps.sh all
deps-demo:
	@scripts/install-deps.sh demo
deps-check:
	@scripts/install-deps.sh check

# The tests run in parallel, JOBS at a time (default: the machine's cores);
# each works in its own temporary folder.  The sanitizer pass (SANITIZE=1)
# runs what drives pecheck's C code; it leaves out the tests whose subject
# is something else: the Python package's own suite and its install into a
# virtualenv (they call the same commands the .t files drive), the browser's
# screenshot and gnuplot's layout of the report, the Frama-C proofs (no
# pecheck code runs), `make install`'s layout and the Debian package lists.
# The three audits (rotation_audit.t, audit_blind.t, diagnosis_audit.t) are
# left out too: their subject is the verdicts and causes, which the plain pass
# checks, and their code paths (the ranking of causes, rank*.c) are the
# sanitizers' in tests/rope_causes_*.t; audit_blind.t's 129 caches (137 s CPU
# on 2 cores) and diagnosis_audit.t's 45 (44 s CPU under the sanitizers,
# measured) would take many times the plain pass's.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SAN_SKIP = tests/python.t tests/python_venv.t tests/report_browser.t tests/report_layout.t \
           tests/prove.t tests/install.t tests/install_deps.t tests/rotation_audit.t \
           tests/audit_blind.t tests/diagnosis_audit.t
ifeq ($(SANITIZE),1)
CHECK_T = $(filter-out $(SAN_SKIP),$(wildcard tests/*.t))
else
CHECK_T = $(wildcard tests/*.t)
endif

check: deps-check
	@$(MAKE) --no-print-directory all
	PECHECK_REGRESSIONS=off PECHECK=$(abspath $(PECHECK)) BUILD=$(abspath $(BUILD)) prove -j$(JOBS) --exec '' $(TEST_BIN) $(CHECK_T)

demo: deps-demo
	@$(MAKE) --no-print-directory all
	PECHECK_REGRESSIONS=off $(PECHECK) demo
	PECHECK_REGRESSIONS=off $(PECHECK) report --impl all --out report

bench: deps-check
	@$(MAKE) --no-print-directory all
	scripts/bench_goals.sh $(PECHECK)
	scripts/bench.sh $(PECHECK)
	scripts/properties_bench.sh $(PECHECK)
	$(PYTHON) scripts/bench_python.py $(PECHECK)

# libFuzzer targets (clang) of the .npy reader, of the JSON reader behind
# `merge` and of the regression file's line reader; fuzz-replay runs each
# committed corpus once, then fuzzes each for FUZZ_SECONDS (default 20) from
# a scratch copy.
FUZZ_SECONDS ?= 20
FUZZ_TARGETS = npy json regress shard
$(BUILD)/fuzz/npy_fuzz: fuzz/npy_fuzz.c harness/io/npy.c harness/io/input.c harness/io/output.c harness/base/status.c harness/io/npy.h
	@mkdir -p $(dir $@)
	clang -g -O1 -fsanitize=fuzzer,address,undefined -I. $(filter %.c,$^) -o $@
$(BUILD)/fuzz/json_fuzz: fuzz/json_fuzz.c harness/io/jsonread.c harness/io/input.c harness/base/status.c harness/io/jsonread.h
	@mkdir -p $(dir $@)
	clang -g -O1 -fsanitize=fuzzer,address,undefined -I. $(filter %.c,$^) -o $@
# merge's shard validation on parsed JSON: the reader and the validation are
# instrumented, the rest of the library (the engine's block split, metrics)
# comes from $(BUILD)/libpecheck.a (a default, non-sanitizer build)
$(BUILD)/fuzz/shard_fuzz: fuzz/shard_fuzz.c harness/shard/shard.c harness/shard/check_shard.c harness/shard/check_shard_fit.c harness/shard/slot.c harness/io/jsonread.c harness/shard/shard.h harness/shard/check_shard.h $(BUILD)/libpecheck.a
	@mkdir -p $(dir $@)
	clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -Iinclude \
	    $(filter %.c,$^) $(BUILD)/libpecheck.a $(LDLIBS) -o $@
# the regression file's line reader (fuzz/README.md)
$(BUILD)/fuzz/regress_fuzz: fuzz/regress_fuzz.c properties/regress_read.c properties/regress_read.h
	@mkdir -p $(dir $@)
	clang -g -O1 -fsanitize=fuzzer,address,undefined -I. $(filter %.c,$^) -o $@
fuzz: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%_fuzz)
# one rule a target, so that `make -jN fuzz-replay` fuzzes N at a time
# (each fuzzer is one process on one core: the same FUZZ_SECONDS of fuzzing
# each, in less wall time)
fuzz-replay: $(FUZZ_TARGETS:%=fuzz-replay-%)
fuzz-replay-%: $(BUILD)/fuzz/%_fuzz
	@$(BUILD)/fuzz/$*_fuzz -runs=0 fuzz/corpus/$*/ >$(BUILD)/fuzz/replay-$* 2>&1 \
	    || { tail -40 $(BUILD)/fuzz/replay-$*; exit 1; }
	@echo "$*: corpus replayed: $$(tail -1 $(BUILD)/fuzz/replay-$*)"
	@rm -rf $(BUILD)/fuzz/work-$* && mkdir -p $(BUILD)/fuzz/work-$*
	@$(BUILD)/fuzz/$*_fuzz -max_total_time=$(FUZZ_SECONDS) -dict=fuzz/$*.dict \
	    -artifact_prefix=$(BUILD)/fuzz/$*- $(BUILD)/fuzz/work-$* fuzz/corpus/$*/ \
	    >$(BUILD)/fuzz/log-$* 2>&1 || { tail -40 $(BUILD)/fuzz/log-$*; exit 1; }
	@echo "$*: $$(tail -1 $(BUILD)/fuzz/log-$*)"

# Frama-C WP + Eva on the ACSL contracts (docs/proofs.md); report in build/prove/.
prove: deps-check
	scripts/prove.sh
# The same proof on deliberately broken variants (ACSL/broken/): it must fail.
prove-broken: deps-check
	@scripts/prove.sh --broken; rc=$$?; if [ $$rc -eq 1 ]; then echo "prove-broken: every broken variant fails the proof, as it must"; else echo "prove-broken: expected the proof to fail (exit 1), got exit $$rc" >&2; exit 1; fi

clean:
	rm -rf build build-san build-clang

# `make install PREFIX=/usr/local`: the binary, the plugin header, the
# report's gnuplot scripts (reports/*.gp and families/*/*.gp, which the
# binary finds in PREFIX/share/pecheck/ beside its own folder) and the Python
# package (DESTDIR for staged installs; `pip install ./python` installs the
# package as a distribution, python/README.md).
PREFIX ?= /usr/local
SHARE   = $(DESTDIR)$(PREFIX)/share/pecheck
PY_SRC  = $(wildcard python/pecheck/*.py)
GP_FAM  = $(wildcard families/*/*.gp)
install: $(PECHECK)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include $(SHARE)/python/pecheck $(SHARE)/reports
	install -m 755 $(PECHECK) $(DESTDIR)$(PREFIX)/bin/pecheck
	install -m 644 include/pecheck_plugin.h $(DESTDIR)$(PREFIX)/include/pecheck_plugin.h
	install -m 644 reports/*.gp $(SHARE)/reports/
	for f in $(GP_FAM); do install -D -m 644 $$f $(SHARE)/$$f || exit 1; done
	install -m 644 $(PY_SRC) $(SHARE)/python/pecheck/
# `make wheel`: the Python package with the binary and the report's scripts
# bundled, for this platform, in $(BUILD)/wheel/ (pip install the .whl it
# prints; the binary needs the system's MPFR, MPFI and GMP libraries)
wheel: $(PECHECK)
	$(PYTHON) python/backend/pecheck_backend.py --bundle $(PECHECK) --out $(BUILD)/wheel
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/pecheck $(DESTDIR)$(PREFIX)/include/pecheck_plugin.h
	rm -rf $(DESTDIR)$(PREFIX)/share/pecheck

-include $(LIB_OBJ:.o=.d) $(BUILD)/harness/cli/main.d $(TEST_BIN:=.d) $(DEMO_OBJ:.o=.d)
.SECONDARY:
