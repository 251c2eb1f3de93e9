# commentbench: `make run` runs the main job on the embedded backend,
# `make test` runs every test. `make run` needs Go alone; `make test` also
# installs ZooKeeper and Chromium (apt) and HdrHistogram's JavaScript port
# (npm).
GO      ?= go
BIN     := bin
RUNDIR  := .data/run

.PHONY: build run test bench fuzz mutation clean

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

# The HBase client's ZooKeeper path is tested against a real ZooKeeper
# (Debian's package, installed when missing), on a loopback port, stopped
# afterwards whatever the tests say.
ZKDIR   := .data/zookeeper
# HdrHistogram's JavaScript port, from npm, to check the harness's
# percentiles and interval logs against an independent implementation.
# Debian's chromium (installed when missing) opens the HTML reports headless:
# no console error, no request, rendered in time; screenshots go to
# .data/artifacts.
HDRJS   := .data/hdrjs
HDRJS_VERSION := 3.0.1

test: $(HDRJS)/node_modules/hdr-histogram-js
	$(GO) vet ./...
	rm -rf $(ZKDIR)
	bash scripts/chromium.sh >/dev/null
	bash scripts/zookeeper.sh start $(ZKDIR)
	COMMENTBENCH_ZK=$$(cat $(ZKDIR)/addr) COMMENTBENCH_HDRJS=$(CURDIR)/$(HDRJS)/node_modules \
	COMMENTBENCH_CHROMIUM=$$(bash scripts/chromium.sh) $(GO) test -count=1 ./...; \
		status=$$?; bash scripts/zookeeper.sh stop $(ZKDIR); exit $$status
	$(GO) test -count=1 -race ./store/... ./comments/... ./workload/... ./results/... ./check/... ./extsort/... ./hbase/...

$(HDRJS)/node_modules/hdr-histogram-js:
	mkdir -p $(HDRJS)
	npm install --prefix $(HDRJS) --no-audit --no-fund --loglevel=error hdr-histogram-js@$(HDRJS_VERSION)

bench:
	sh scripts/bench.sh

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
