# statx() study: kernels, guest runs, benchmarks, traces, report.
# `make bench` is the main job; `make test` is what CI runs.  Every target
# calls a script that can also be run by hand.

SHELL := /bin/bash
KCACHE ?= $(or $(HOME),/root)/.cache/statx-study
export KCACHE
VARIANT ?= patched
MODE ?= cost
CMD ?= uname -r
# The guest command reaches the guest as typed: unexpanded by make ($ and
# quotes included), through the environment.
export SXS_CMD := $(value CMD)
TIMEOUT ?= 600
APPEND ?=
# make vm-run: its run directory (empty: vm/run.sh's own under
# results/vm-run/), and BOOT_ONLY=1 to boot only what is built.
OUT ?=
BOOT_ONLY ?= 0
QUICK ?= 0
# Traces and the probe study are part of a full run; QUICK=1 leaves them
# out unless TRACE=1 is given.
TRACE ?= $(if $(filter 1,$(QUICK)),0,1)
# Guests at once (bench/run.sh -j): empty for one per core in cost mode.
JOBS ?=
# Time mode under TCG (KVM unusable) is refused unless this is 1.
ALLOW_TCG_TIME ?= 0
export ALLOW_TCG_TIME
# The kernels the tables compare, from vm/variants/*.conf (vm/variants.sh):
# the base, the partial series, the whole series.
MEASURED := $(shell vm/variants.sh measured)
# The other kernel bases (6.12) make bench sets beside 6.1: their base and
# series kernels.
OTHER_BASES := $(shell vm/variants.sh bases)
OTHER_MEASURED := $(foreach b,$(OTHER_BASES),$(shell vm/variants.sh measured $(b)))
BASE ?= $(firstword $(MEASURED))
NEW ?= $(lastword $(MEASURED))
# The gate's threshold in percent; empty: analysis/targets.py's.
THRESHOLD ?=
RUN ?= results/latest
CQUICK ?= 0
LABELS ?=
FUZZ ?= 100000
N ?= 20
# make uml-timing: timed boots of each UML kernel and setting; the bases.
BOOTS ?= 12
UML_BASES ?= 6.1 6.12
UML ?= 1
STEPS ?=
PY := /usr/bin/python3

.PHONY: all deps kernel kernels vm-run bench-bin bench report report-reference hostcal mix names afs afs-6.12 probes nfs4-delegation nfs4-sites events-cost behaviour \
	compare conformance soak test clean help

help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## make deps                 install the Debian packages the project needs
deps:
	@vm/deps.sh

## make kernel VARIANT=v     build one kernel variant (stock, patched, ...)
kernel: deps
	@vm/kbuild.sh $(VARIANT)

kernels: deps
	@for v in $(MEASURED) $(OTHER_MEASURED); do vm/kbuild.sh "$$v" || exit; done
	@$(if $(filter 1,$(QUICK)),true,vm/kbuild.sh afs && vm/kbuild.sh afs0)

## make vm-run VARIANT=v MODE=cost|check|time CMD='...'   run CMD in a guest
##   [OUT=dir]                the run directory (console.log, output, status;
##                            the guest's $IO), relative to the repository;
##                            default: a new one under results/vm-run/
##   [BOOT_ONLY=1]            build no kernel: a missing or stale one is
##                            refused in one line (vm/kbuild.sh --check)
##                            A CMD that names a host file the guest cannot
##                            see (under /tmp, /root, /run, ...) is refused
VM_RUN = vm/run.sh $(if $(filter 1,$(BOOT_ONLY)),-b) -v $(VARIANT) -m $(MODE) -t $(TIMEOUT) \
	$(if $(APPEND),-a "$(APPEND)") $(if $(OUT),-o "$(OUT)")
# vm/run.sh -n first: a bad mode or command, or with BOOT_ONLY=1 a missing
# or stale kernel, is refused before anything is built.
vm-run: deps
	@$(VM_RUN) -n -- "$$SXS_CMD"
	@$(if $(filter 1,$(BOOT_ONLY)),true,vm/kbuild.sh $(VARIANT))
	@$(MAKE) -s bench-bin
	@$(VM_RUN) -- "$$SXS_CMD"

bench-bin: deps
	@$(MAKE) -s -C bench
	@$(MAKE) -s -C tests/guest KSELFTEST="$$(tests/kselftest-dir.sh)"

## make bench [QUICK=1] [TRACE=0]   the base kernel, the partial series and
##                            the whole series (vm/variants.sh), every file system;
##                            beside them 6.12's base and series
##   [MODE=time [ALLOW_TCG_TIME=1]] [JOBS=n] [UML=0]
##                            first, alone, make uml-timing (UML=0: not)
bench: kernels
	@if [ "$(UML)" != 0 ]; then $(MAKE) -s uml-timing || \
		echo "bench: make uml-timing failed (its lines above; a failed method verdict is in its JSON); the guests' runs go on"; fi
	@$(MAKE) -s bench-bin
	@bench/run.sh -q $(QUICK) -t $(TRACE) -m $(MODE) $(if $(JOBS),-j $(JOBS)) \
		$(if $(OTHER_MEASURED),-x "$(OTHER_MEASURED)") $(MEASURED)

## make uml-timing [BOOTS=12] [UML_BASES="6.1 6.12"]   the stat path's kernel
##                            code timed natively on this CPU: the statx_timing
##                            KUnit suite (patches/uml/) in UML kernels of stock
##                            and the series, pinned, alone, interleaved boots
##                            (bench/uml-timing.sh); results/uml-timing/,
##                            analysis/reference/uml_timing.json and the
##                            small struct filename messages' measured table, also when the method fails (marked so)
uml-timing: deps
	@rc=0; bench/uml-timing.sh -n $(BOOTS) -o results/uml-timing $(UML_BASES) || rc=$$?; \
	if [ -f results/uml-timing/uml_timing.json ]; then \
		cp results/uml-timing/uml_timing.json analysis/reference/uml_timing.json && \
		$(PY) analysis/uml_timing.py --fill patches; \
	fi; exit $$rc

## make report [RUN=dir]      figures and report for a results directory
report: deps
	@$(PY) analysis/report.py $(RUN)/results.json -o $(RUN)/report

## make report-reference RUN=dir   make RUN the committed reference run:
##                            analysis/reference/, REPORT.md's numbers and
##                            the patch messages' tables
report-reference: deps
	@mkdir -p analysis/reference
	@$(PY) analysis/summarize.py $(RUN)/results.json -o analysis/reference/summary.json
	@set -o pipefail; if [ -d $(RUN)/mix ]; then $(PY) analysis/mix.py $(RUN)/mix \
		--keep analysis/reference/mix.json -o analysis/reference/mix.json | \
		{ grep -v '^mix: .*instructions, cost mode' || true; }; fi
	@if [ -d $(RUN)/mix ]; then $(PY) analysis/insn_diff.py $(RUN)/mix --run "$$(basename "$$(readlink -f $(RUN))")" \
		-o analysis/reference/insn_diff.json || echo "report-reference: no instruction-by-instruction comparison kept"; fi
	@if [ -d $(RUN)/names ]; then $(PY) analysis/name_mix.py $(RUN)/names -o analysis/reference/name_lengths.json; fi
	@if [ -d $(RUN)/afs ]; then $(PY) analysis/afs.py $(RUN)/afs -o analysis/reference/afs.json \
		--fill patches/afs/$(AFS_SYMLINK_PATCH); fi
	@$(PY) analysis/patch_numbers.py analysis/reference/summary.json --fill patches | grep '^filled' || true
	@$(PY) analysis/report.py analysis/reference/summary.json --update REPORT.md \
		--config-diff analysis/reference/config-diff.txt --tables analysis/reference/tables.md \
		--figures analysis/reference/figures
	@for d in $(RUN)/traces/*/profiles; do \
		v=$$(basename "$$(dirname "$$d")"); \
		for f in "$$d"/flame.ext4.*.svg "$$d"/flame.nfs3.stat.svg; do \
			[ -f "$$f" ] && cp "$$f" "analysis/reference/figures/$$v.$$(basename "$$f")"; \
		done; \
	done; true

## make nfs4-delegation      does a read delegation explain NFSv4's GETATTR counts?
##                            one guest (VARIANT), its verdict in
##                            analysis/reference/nfs4_delegation.json
## make names [VARIANT=stock]   how long the names real programs pass are
##                            (traces/guest-names.sh on the base kernel):
##                            analysis/reference/name_lengths.json
names: VARIANT := $(if $(filter command line,$(origin VARIANT)),$(VARIANT),$(BASE))
names: kernel bench-bin
	@rm -rf results/names
	@vm/run.sh -q -v $(VARIANT) -m check -t 2400 -o results/names -- "traces/guest-names.sh /mnt/io"
	@$(PY) analysis/name_mix.py results/names -o analysis/reference/name_lengths.json

## make afs                  AFS alone: the guest's OpenAFS cell mounted by
##                            kafs on the afs variant (the whole series with
##                            kafs built in): every case with its file-server
##                            calls and the call after a callback break, then
##                            the conformance suite; the same on afs0 (without
##                            patches/afs); analysis/reference/afs.json and the
##                            symlink table in patches/afs patch 2's message
##                            (make bench runs the same four boots)
# patches/afs's patch whose message carries the symlink table (afs.py --fill).
AFS_SYMLINK_PATCH := 0002-afs-give-symlinks-afs_getattr.patch
# afs_boots SUFFIX: the four boots of make afs on afs$(1) and afs0$(1).
define afs_boots
	@vm/kbuild.sh afs$(1) && vm/kbuild.sh afs0$(1)
	@rm -rf results/afs$(1)
	@vm/run.sh -q -v afs$(1) -m cost -t 3000 -o results/afs$(1) -- "bench/guest-bench.sh /mnt/io/raw afs$(1) cost 0 afs"
	@vm/run.sh -q -v afs$(1) -m check -t 2400 -o results/afs$(1)/conformance -- tests/guest/conformance.sh
	@vm/run.sh -q -v afs0$(1) -m cost -t 3000 -o results/afs$(1)/afs0$(1) -- "bench/guest-bench.sh /mnt/io/raw afs0$(1) cost 0 afs"
	@vm/run.sh -q -v afs0$(1) -m check -t 2400 -o results/afs$(1)/afs0$(1)/conformance -- tests/guest/conformance.sh
	@$(PY) analysis/afs.py results/afs$(1) -o analysis/reference/afs$(1).json \
		--fill patches/afs/$(patsubst -%,%/,$(1))$(AFS_SYMLINK_PATCH)
endef
afs: bench-bin
	$(call afs_boots,)

## make afs-6.12             the same on Debian 13's kernel: afs-6.12 (6.12's
##                            series, kafs and patches/afs/6.12) and afs0-6.12
##                            (without it); analysis/reference/afs-6.12.json
##                            (a tree of its own: not in make bench)
afs-6.12: bench-bin
	$(call afs_boots,-6.12)

## make probes               the probe study's fentry and fexit, which need BTF:
##                            one guest on the btf variant (the whole series with
##                            Debian's debug info and BTF; its own tree, about
##                            30 min cold), kept in analysis/reference/probes.json
##                            (make bench's report reads them from there)
probes: bench-bin
	@vm/kbuild.sh btf
	@set -o pipefail; d=results/probes/$$(date -u +%Y%m%dT%H%M%SZ)-cost; \
		vm/run.sh -q -v btf -m cost -t 3000 -o "$$d/traces/btf" -- \
		"PROBES_ONLY=1 traces/guest-traces.sh /mnt/io btf" 2>&1 | sed -u 's/^/  [probes btf] /' && \
		$(PY) analysis/merge.py "$$d" -o "$$d/results.json" && \
		$(PY) analysis/probes.py keep "$$d/results.json" -o analysis/reference/probes.json

nfs4-delegation: kernel bench-bin
	@rm -rf results/nfs4-delegation
	@vm/run.sh -q -v $(VARIANT) -m cost -t 900 -o results/nfs4-delegation -- \
		"traces/nfs4-delegation.sh /mnt/io $(VARIANT)"
	@$(PY) analysis/delegation.py results/nfs4-delegation -o analysis/reference/nfs4_delegation.json

## make nfs4-sites           which GETATTR of a stat() on NFSv4 (actimeo=0) a
##                            read delegation spares, on 6.1 and on 6.12: the
##                            call-site trace with the file closed and held
##                            open; a guest per kernel (the series' events give
##                            the phase): analysis/reference/nfs4_sites.json
NFS4_SITES_KERNELS ?= patched patched-6.12
nfs4-sites: bench-bin
	@rm -rf results/nfs4-sites
	@for v in $(NFS4_SITES_KERNELS); do vm/kbuild.sh "$$v" || exit; \
		vm/run.sh -q -v "$$v" -m cost -t 1200 -o "results/nfs4-sites/$$v" -- \
		'traces/nfs4-sites.sh $$IO' >/dev/null || exit; done
	@$(PY) analysis/nfs4_sites.py $(addprefix results/nfs4-sites/,$(NFS4_SITES_KERNELS)) \
		-o analysis/reference/nfs4_sites.json

## make events-cost          the tracepoints' disabled cost, boot by boot:
##                            series4 and patched booted alternately, with
##                            hardened usercopy on and off (bench/events-cost.sh):
##                            analysis/reference/events_cost.json and patch 5's table
events-cost: bench-bin
	@bench/events-cost.sh -n 3 -o results/events-cost series4 patched
	@$(PY) analysis/events_cost.py results/events-cost --before series4 --after patched \
		-o analysis/reference/events_cost.json \
		--fill patches/0005-fs-add-tracepoints-for-getattr-and-for-statx-s-resul.patch

## make behaviour [BEHAVIOUR_KERNELS="stock ... patched"]   what the
##                            lookup-free paths change besides cost: audit
##                            records per call, and each call on NFS after the
##                            file is replaced on the server; a guest per
##                            kernel: analysis/reference/behaviour.json
BEHAVIOUR_KERNELS ?= stock series3 series4 patched
behaviour: bench-bin
	@rm -rf results/behaviour
	@for v in $(BEHAVIOUR_KERNELS); do vm/kbuild.sh "$$v" || exit; \
		vm/run.sh -q -v "$$v" -m check -t 900 -o "results/behaviour/$$v" -- \
		'tests/guest/behaviour.sh $$IO' >/dev/null || exit; done
	@$(PY) analysis/behaviour.py $(addprefix results/behaviour/,$(BEHAVIOUR_KERNELS)) \
		-o analysis/reference/behaviour.json

## make mix                  each headline call's instruction stream on the
##                            measured kernels (QEMU's in_asm/exec log, one boot
##                            each), checked against cost mode's count of the
##                            same boot and weighed with analysis/cycle_model.json:
##                            analysis/reference/mix.json
mix: kernels bench-bin
	@rm -rf results/mix
	@for v in $(MEASURED) $(OTHER_MEASURED); do $(PY) traces/mix.py run "$$v" "results/mix/$$v" || exit; done
	@$(PY) analysis/mix.py results/mix -o analysis/reference/mix.json

## make hostcal              time the sequences cost mode weighs wrongly on this
##                            machine's CPU (user space): analysis/reference/hostcal/
##                            <vendor>-f<family>-m<model>.json (one file per CPU model)
hostcal: deps
	@$(MAKE) -s -C bench
	@build/hostcal --out-dir analysis/reference/hostcal

## make compare BASE=a NEW=b [THRESHOLD=pct] [CQUICK=1] [LABELS=ext4,nfs3]
##                            (6.12: BASE=stock-6.12 NEW=patched-6.12)
##                            regression gate: every case on every file
##                            system, each judged by its rule; a verdict
##                            table; exits 1 when NEW regresses
compare: deps bench-bin
	@vm/kbuild.sh $(BASE)
	@vm/kbuild.sh $(NEW)
	@bench/compare.sh -b $(BASE) -n $(NEW) $(if $(THRESHOLD),-x $(THRESHOLD)) -m $(MODE) -q $(CQUICK) $(if $(LABELS),-l $(LABELS))

## make conformance [VARIANT=v] [FUZZ=100000]   the statx conformance suite
##                            in a guest (TAP; fails when a test fails)
conformance: kernel bench-bin
	@set -o pipefail; vm/run.sh -m check -v $(VARIANT) -t 2400 -o results/conformance-$(VARIANT) -- \
		'tests/guest/conformance.sh $(FUZZ)' | sed -n '/^TAP version/,/^# Totals/p'

## make soak [VARIANT="stock patched"] [N=20] [FUZZ=100000]   boot each
##                            variant N times, run the series tests and the
##                            conformance suite on every file system each
##                            time; every failure with its stacks; exit 1
##                            on any failure
soak: bench-bin
	@for v in $(VARIANT); do vm/kbuild.sh $$v; done
	@tests/soak.sh -n $(N) -f $(FUZZ) $(VARIANT)

## make test [STEPS="lint analysis"]   everything CI checks, or the named
##                            steps of tests/run.sh (lint and analysis: the
##                            fast subset, no kernel and no guest)
test: deps
	@tests/run.sh $(STEPS)

clean:
	rm -rf build results
