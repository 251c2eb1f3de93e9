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

test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -race ./store/... ./comments/... ./workload/... ./results/... ./check/... ./extsort/...

bench:
	sh scripts/bench.sh

# A short run of every fuzzer; CI runs their seed corpora inside `make test`.
fuzz:
	sh scripts/fuzz.sh 20s

clean:
	rm -rf $(BIN) .data
