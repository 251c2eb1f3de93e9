#!/bin/sh
# Regenerates commentbench/hbase/pb from the .proto files next to this script.
# Needs protoc (Debian: protobuf-compiler) and protoc-gen-go v1.36.11:
#   go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.11
# The generated files are committed, so ordinary builds never run this.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
PATH="$(go env GOPATH)/bin:$PATH"
export PATH
cd "$root"
rm -f hbase/pb/*.pb.go
protoc -I . --go_out=. --go_opt=module=commentbench hbase/proto/*.proto
