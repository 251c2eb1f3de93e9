# commentbench: `make run` runs the main job on the embedded backend,
# `make test` runs every test. Nothing but Go is needed.
GO      ?= go
BIN     := bin
RUNDIR  := .data/run

.PHONY: build run test bench fuzz clean

build:
	$(GO) build -o $(BIN)/ ./cmd/...

# verify exits 1 on the seed layout: its collisions lose comments, which is
# what the run is there to show.
run: build
	rm -rf $(RUNDIR)
	$(BIN)/loadgen --preset steady --data-dir $(RUNDIR)/data --out $(RUNDIR)/results
	$(BIN)/verify --data-dir $(RUNDIR)/data --run $(RUNDIR)/results || true

# The HBase client's ZooKeeper path is tested against a real ZooKeeper
# (Debian's package, installed when missing), on a loopback port, stopped
# afterwards whatever the tests say.
ZKDIR   := .data/zookeeper

test:
	$(GO) vet ./...
	rm -rf $(ZKDIR)
	bash scripts/zookeeper.sh start $(ZKDIR)
	COMMENTBENCH_ZK=$$(cat $(ZKDIR)/addr) $(GO) test -count=1 ./...; \
		status=$$?; bash scripts/zookeeper.sh stop $(ZKDIR); exit $$status
	$(GO) test -count=1 -race ./store/... ./comments/... ./workload/... ./results/... ./check/... ./extsort/... ./hbase/...

bench:
	sh scripts/bench.sh

# A short run of every fuzzer; CI runs their seed corpora inside `make test`.
fuzz:
	sh scripts/fuzz.sh 20s

clean:
	rm -rf $(BIN) .data
