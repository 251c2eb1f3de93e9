# commentbench: `make run` runs the main job on the embedded backend,
# `make test` runs every test. `make run` needs Go alone. `make test` also
# needs Debian's zookeeper, chromium, nodejs and npm: as root (CI) it
# installs what is missing with apt; otherwise it names all of it in one
# message and stops before running anything (scripts/prereqs.sh).
GO      ?= go
BIN     := bin
RUNDIR  := .data/run

.PHONY: build run test race bench fuzz mutation clean

build:
	$(GO) build -o $(BIN)/ ./cmd/...

# The seed's design on trial: the same scenario and seed run as the seed
# wrote it, then fixed, each verified, then the two compared in one HTML
# page (its path printed) and one line per flaw. verify exits 1 on the
# seed's run: its collisions lose comments, which is what the run is there
# to show.
run: build
	rm -rf $(RUNDIR)
	$(BIN)/loadgen --preset trial --system seed --data-dir $(RUNDIR)/seed/data --out $(RUNDIR)/seed/results
	$(BIN)/verify --data-dir $(RUNDIR)/seed/data --run $(RUNDIR)/seed/results --out $(RUNDIR)/seed/results || true
	$(BIN)/loadgen --preset trial --system fixed --data-dir $(RUNDIR)/fixed/data --out $(RUNDIR)/fixed/results
	$(BIN)/verify --data-dir $(RUNDIR)/fixed/data --run $(RUNDIR)/fixed/results --out $(RUNDIR)/fixed/results
	@$(BIN)/loadgen report $(RUNDIR)/seed/results >/dev/null   # again, now with verify's findings
	@$(BIN)/loadgen report $(RUNDIR)/fixed/results >/dev/null
	@$(BIN)/loadgen report -o $(RUNDIR)/compare.html $(RUNDIR)/seed/results $(RUNDIR)/fixed/results
	@echo
	@$(BIN)/loadgen flaws $(RUNDIR)/seed/results $(RUNDIR)/fixed/results

# Every test, once (scripts/test.sh): go vet; then the end-to-end package
# (a line per test, about five minutes) beside every other package (a
# line per package as it finishes), whatever fails in full, and each
# failure again in a few lines at the end (a CI page shows a log's tail).
# The HBase client's ZooKeeper path runs against a real ZooKeeper on a
# loopback port, stopped afterwards whatever the tests say; the
# percentiles and interval logs are checked against HdrHistogram's
# JavaScript port (npm, into .data/hdrjs); chromium opens the HTML
# reports headless (screenshots in .data/artifacts).
HDRJS_VERSION := 3.0.1

test:
	HDRJS_VERSION=$(HDRJS_VERSION) bash scripts/test.sh

# The race detector over the packages whose goroutines share state: their
# tests again, instrumented (two to three minutes). CI runs it after
# make test.
race:
	HDRJS_VERSION=$(HDRJS_VERSION) bash scripts/test.sh race

# The performance goals, one line each: two figures side by side, their
# ratio and the goal, medians of 5 interleaved rounds (scripts/bench.sh).
bench:
	bash scripts/bench.sh

# A short run of every fuzzer; CI runs their seed corpora inside `make test`.
fuzz:
	sh scripts/fuzz.sh 20s

# Mutation testing (gremlins) of the core packages: each package's own tests
# against mutants of its code, efficacy per package, the survivors listed.
# Not part of `make test`: it takes most of an hour. `make mutation
# PKGS="check keys"` runs some; REV=HEAD tests a commit instead of the
# working tree. Equivalent survivors: docs/mutation.md.
mutation:
	bash scripts/mutation.sh $(PKGS)

clean:
	rm -rf $(BIN) .data
