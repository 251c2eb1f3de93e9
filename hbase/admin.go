package hbase

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// masterCall sends one MasterService call with retries for retryable and
// server errors (a lost master is looked up again in the registry).
func (c *Client) masterCall(ctx context.Context, method string, req, resp proto.Message) error {
	rt := retrier{c: c}
	for {
		addr, err := c.master(ctx)
		if err == nil {
			_, err = c.rpc(ctx, addr, wire.ServiceMaster, method, req, nil, resp)
			if err == nil {
				return nil
			}
		}
		if err := rt.handle(ctx, err, nil, addr, wire.ServiceMaster); err != nil {
			return err
		}
	}
}

// waitProcedure polls getProcedureResult until FINISHED (§6.6).
func (c *Client) waitProcedure(ctx context.Context, what string, procID uint64) error {
	for n := 0; ; n++ {
		var resp pb.GetProcedureResultResponse
		if err := c.masterCall(ctx, "getProcedureResult", &pb.GetProcedureResultRequest{ProcId: proto.Uint64(procID)}, &resp); err != nil {
			return err
		}
		switch resp.GetState() {
		case pb.GetProcedureResultResponse_FINISHED:
			if ex := resp.GetException(); ex != nil {
				ge := ex.GetGenericException()
				class := ge.GetClassName()
				if class == "" {
					class = wire.ExcDoNotRetryIO
				}
				e := newError(class, ge.GetMessage())
				e.Group = wire.Surface
				return e
			}
			return nil
		case pb.GetProcedureResultResponse_RUNNING:
			if err := sleep(ctx, backoff(n+1)); err != nil {
				return err
			}
		default:
			return fmt.Errorf("hbase: %s: procedure %d not found", what, procID)
		}
	}
}

func tableName(table string) *pb.TableName { return wire.TableFromText(table) }

// FamilySchema is a column family to create: its name and VERSIONS (0:
// HBase's default, 1).
type FamilySchema struct {
	Name     string
	Versions int
}

// CreateTable creates table with the given families and split keys.
func (c *Client) CreateTable(ctx context.Context, table string, families []string, splitKeys [][]byte) error {
	fams := make([]FamilySchema, len(families))
	for i, f := range families {
		fams[i] = FamilySchema{Name: f}
	}
	return c.CreateTableSchema(ctx, table, fams, splitKeys)
}

// CreateTableSchema creates table with the given families, each with its
// options, and split keys.
func (c *Client) CreateTableSchema(ctx context.Context, table string, families []FamilySchema, splitKeys [][]byte) error {
	if len(families) == 0 {
		return errors.New("hbase: CreateTable needs at least one family")
	}
	schema := &pb.TableSchema{TableName: tableName(table)}
	for _, f := range families {
		fs := &pb.ColumnFamilySchema{Name: []byte(f.Name)}
		if f.Versions > 0 {
			fs.Attributes = append(fs.Attributes, &pb.BytesBytesPair{First: []byte("VERSIONS"), Second: []byte(strconv.Itoa(f.Versions))})
		}
		schema.ColumnFamilies = append(schema.ColumnFamilies, fs)
	}
	var resp pb.CreateTableResponse
	if err := c.masterCall(ctx, "CreateTable", &pb.CreateTableRequest{TableSchema: schema, SplitKeys: splitKeys}, &resp); err != nil {
		return err
	}
	c.cache.removeTable(normTable(table))
	return c.waitProcedure(ctx, "CreateTable", resp.GetProcId())
}

// DisableTable disables table (its regions stop serving).
func (c *Client) DisableTable(ctx context.Context, table string) error {
	var resp pb.DisableTableResponse
	if err := c.masterCall(ctx, "DisableTable", &pb.DisableTableRequest{TableName: tableName(table)}, &resp); err != nil {
		return err
	}
	defer c.cache.removeTable(normTable(table))
	return c.waitProcedure(ctx, "DisableTable", resp.GetProcId())
}

// EnableTable re-enables a disabled table.
func (c *Client) EnableTable(ctx context.Context, table string) error {
	var resp pb.EnableTableResponse
	if err := c.masterCall(ctx, "EnableTable", &pb.EnableTableRequest{TableName: tableName(table)}, &resp); err != nil {
		return err
	}
	defer c.cache.removeTable(normTable(table))
	return c.waitProcedure(ctx, "EnableTable", resp.GetProcId())
}

// DeleteTable deletes a disabled table.
func (c *Client) DeleteTable(ctx context.Context, table string) error {
	var resp pb.DeleteTableResponse
	if err := c.masterCall(ctx, "DeleteTable", &pb.DeleteTableRequest{TableName: tableName(table)}, &resp); err != nil {
		return err
	}
	defer c.cache.removeTable(normTable(table))
	return c.waitProcedure(ctx, "DeleteTable", resp.GetProcId())
}

// ListTables returns the user tables whose whole textual name matches the
// Java regex (empty = all), sorted.
func (c *Client) ListTables(ctx context.Context, regex string) ([]string, error) {
	if regex == "" {
		regex = ".*"
	}
	var resp pb.GetTableNamesResponse
	req := &pb.GetTableNamesRequest{Regex: proto.String(regex), IncludeSysTables: proto.Bool(false), Namespace: proto.String("")}
	if err := c.masterCall(ctx, "GetTableNames", req, &resp); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(resp.GetTableNames()))
	for _, tn := range resp.GetTableNames() {
		out = append(out, wire.TableText(tn))
	}
	sort.Strings(out)
	return out, nil
}
