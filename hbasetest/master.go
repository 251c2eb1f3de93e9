package hbasetest

import (
	"bytes"
	"errors"
	"regexp"
	"slices"
	"strconv"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store"
	"commentbench/store/embedded"

	"google.golang.org/protobuf/proto"
)

// Admin procedures run synchronously: precondition failures are thrown by
// the call itself (as HBase 2 does) and every procedure id handed out is
// FINISHED by the time the client polls it.

func (c *Cluster) masterCall(method string, param []byte) (proto.Message, []byte, error) {
	var resp proto.Message
	var err error
	switch method {
	case "CreateTable":
		resp, err = handle(param, &pb.CreateTableRequest{}, func(r *pb.CreateTableRequest) (proto.Message, error) {
			id, err := c.createTable(r)
			return &pb.CreateTableResponse{ProcId: proto.Uint64(id)}, err
		})
	case "DisableTable":
		resp, err = handle(param, &pb.DisableTableRequest{}, func(r *pb.DisableTableRequest) (proto.Message, error) {
			id, err := c.setEnabled(r.GetTableName(), false)
			return &pb.DisableTableResponse{ProcId: proto.Uint64(id)}, err
		})
	case "EnableTable":
		resp, err = handle(param, &pb.EnableTableRequest{}, func(r *pb.EnableTableRequest) (proto.Message, error) {
			id, err := c.setEnabled(r.GetTableName(), true)
			return &pb.EnableTableResponse{ProcId: proto.Uint64(id)}, err
		})
	case "DeleteTable":
		resp, err = handle(param, &pb.DeleteTableRequest{}, func(r *pb.DeleteTableRequest) (proto.Message, error) {
			id, err := c.deleteTable(r.GetTableName())
			return &pb.DeleteTableResponse{ProcId: proto.Uint64(id)}, err
		})
	case "GetTableNames":
		resp, err = handle(param, &pb.GetTableNamesRequest{}, c.tableNames)
	case "getProcedureResult":
		resp, err = handle(param, &pb.GetProcedureResultRequest{}, func(r *pb.GetProcedureResultRequest) (proto.Message, error) {
			return c.procResult(r.GetProcId()), nil
		})
	default:
		resp, err = c.clusterCall(method, param)
	}
	if err != nil {
		return nil, nil, err
	}
	return resp, nil, nil
}

// handle decodes a request into req and answers it with f.
func handle[Q proto.Message](param []byte, req Q, f func(Q) (proto.Message, error)) (proto.Message, error) {
	if err := decode(param, req); err != nil {
		return nil, err
	}
	return f(req)
}

// exists reports whether the engine has the table.
func (c *Cluster) exists(table string) bool {
	_, err := c.eng.Family(table)
	return err == nil
}

func userTable(tn *pb.TableName) (string, error) {
	if tn == nil || len(tn.GetQualifier()) == 0 {
		return "", excf(wire.ExcDoNotRetryIO, "missing table name")
	}
	if string(tn.GetNamespace()) == wire.SystemNamespace {
		return "", excf(wire.ExcDoNotRetryIO, "system tables cannot be changed")
	}
	return wire.TableText(tn), nil
}

func (c *Cluster) createTable(req *pb.CreateTableRequest) (uint64, error) {
	schema := req.GetTableSchema()
	name, err := userTable(schema.GetTableName())
	if err != nil {
		return 0, err
	}
	spec, opts, err := familySpecs(name, schema.GetColumnFamilies())
	if err != nil {
		return 0, err
	}
	keys := slices.Clone(req.GetSplitKeys())
	slices.SortFunc(keys, bytes.Compare)
	for i, k := range keys {
		if len(k) == 0 {
			return 0, excf(wire.ExcDoNotRetryIO, "table %s: empty split key", name)
		}
		if i > 0 && bytes.Equal(keys[i-1], k) {
			return 0, excf(wire.ExcDoNotRetryIO, "table %s: duplicate split key %q", name, k)
		}
	}
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	if c.exists(name) {
		return 0, excf(wire.ExcTableExists, "%s", name)
	}
	spec.SplitKeys = keys
	err = c.eng.CreateTableWith(c.ctx, spec, opts)
	if errors.Is(err, store.ErrTableExists) {
		return 0, excf(wire.ExcTableExists, "%s", name)
	}
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	delete(c.disabled, name)
	c.mu.Unlock()
	return c.newProc(), nil
}

// familySpecs turns a table schema's column families into the engine's
// spec: every family, each with its VERSIONS (HBase's default, 1, when
// absent), and cells that can carry a TTL.
func familySpecs(name string, fams []*pb.ColumnFamilySchema) (store.TableSpec, embedded.TableOptions, error) {
	spec := store.TableSpec{Name: name}
	opts := embedded.TableOptions{MaxVersions: map[string]int{}, CellTTL: true}
	if len(fams) == 0 {
		return spec, opts, excf(wire.ExcDoNotRetryIO, "table %s: no column family", name)
	}
	for _, f := range fams {
		fam := string(f.GetName())
		if _, dup := opts.MaxVersions[fam]; dup || fam == "" {
			return spec, opts, excf(wire.ExcDoNotRetryIO, "table %s: bad or repeated column family %q", name, fam)
		}
		versions := 1
		for _, a := range f.GetAttributes() {
			if string(a.GetFirst()) == "VERSIONS" {
				v, err := strconv.Atoi(string(a.GetSecond()))
				if err != nil || v < 1 {
					return spec, opts, excf(wire.ExcDoNotRetryIO, "table %s: family %s: bad VERSIONS %q", name, fam, a.GetSecond())
				}
				versions = v
			}
		}
		opts.MaxVersions[fam] = versions
		spec.Families = append(spec.Families, fam)
	}
	return spec, opts, nil
}

func (c *Cluster) setEnabled(tn *pb.TableName, enable bool) (uint64, error) {
	name, err := userTable(tn)
	if err != nil {
		return 0, err
	}
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	if !c.exists(name) {
		return 0, excf(wire.ExcTableNotFound, "%s", name)
	}
	c.mu.Lock()
	disabled := c.disabled[name]
	switch {
	case enable && !disabled:
		c.mu.Unlock()
		return 0, excf(wire.ExcTableNotDisabled, "%s", name)
	case !enable && disabled:
		c.mu.Unlock()
		return 0, excf(wire.ExcTableNotEnabled, "%s", name)
	}
	if enable {
		delete(c.disabled, name)
	} else {
		c.disabled[name] = true
		for id, s := range c.scanners {
			if !s.t.meta && s.t.reg.Table == name {
				delete(c.scanners, id)
			}
		}
	}
	c.mu.Unlock()
	return c.newProc(), nil
}

func (c *Cluster) deleteTable(tn *pb.TableName) (uint64, error) {
	name, err := userTable(tn)
	if err != nil {
		return 0, err
	}
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	if !c.exists(name) {
		return 0, excf(wire.ExcTableNotFound, "%s", name)
	}
	if !c.isDisabled(name) {
		return 0, excf(wire.ExcTableNotDisabled, "%s", name)
	}
	if err := c.eng.DropTable(c.ctx, name); err != nil {
		return 0, err
	}
	c.mu.Lock()
	delete(c.disabled, name)
	c.mu.Unlock()
	return c.newProc(), nil
}

// tableNames follows HMaster.listTableNames: the regex must match the whole
// name (or "default:<name>" for default-namespace tables); hbase:meta only
// with include_sys_tables.
func (c *Cluster) tableNames(req *pb.GetTableNamesRequest) (proto.Message, error) {
	pat := ".*"
	if req.Regex != nil {
		pat = req.GetRegex()
	}
	re, err := regexp.Compile("^(?:" + pat + ")$")
	if err != nil {
		return nil, excf(wire.ExcDoNotRetryIO, "bad regex %q: %v", pat, err)
	}
	specs, err := c.eng.ListTables(c.ctx)
	if err != nil {
		return nil, err
	}
	names := []string{}
	for _, s := range specs {
		names = append(names, s.Name)
	}
	if req.GetIncludeSysTables() {
		names = append(names, wire.MetaTable)
	}
	slices.Sort(names)
	resp := &pb.GetTableNamesResponse{}
	for _, n := range names {
		tn := wire.TableFromText(n)
		ns := string(tn.GetNamespace())
		if req.GetNamespace() != "" && req.GetNamespace() != ns {
			continue
		}
		full := ns + ":" + string(tn.GetQualifier())
		if !re.MatchString(n) && !re.MatchString(full) {
			continue
		}
		if ns == wire.SystemNamespace && !req.GetIncludeSysTables() {
			continue
		}
		resp.TableNames = append(resp.TableNames, tn)
	}
	return resp, nil
}

func (c *Cluster) procResult(id uint64) proto.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.procs[id]; ok {
		return proto.Clone(r)
	}
	return &pb.GetProcedureResultResponse{State: pb.GetProcedureResultResponse_NOT_FOUND.Enum()}
}

// registryCall serves ClientMetaService (§5.3) with non-empty answers.
func (c *Cluster) registryCall(method string, param []byte) (proto.Message, []byte, error) {
	var resp proto.Message
	switch method {
	case "GetClusterId":
		resp = &pb.GetClusterIdResponse{ClusterId: proto.String(c.clusterID())}
	case "GetActiveMaster":
		resp = &pb.GetActiveMasterResponse{ServerName: c.master.serverName()}
	case "GetMetaRegionLocations":
		host := c.byName[c.MetaServer()]
		resp = &pb.GetMetaRegionLocationsResponse{MetaLocations: []*pb.RegionLocation{{
			RegionInfo: &pb.RegionInfo{
				RegionId:  proto.Uint64(1),
				TableName: wire.TableFromText(wire.MetaTable),
				StartKey:  []byte{},
				EndKey:    []byte{},
			},
			ServerName: host.serverName(),
			SeqNum:     proto.Int64(1),
		}}}
	case "GetBootstrapNodes":
		r := &pb.GetBootstrapNodesResponse{ServerName: []*pb.ServerName{c.master.serverName()}}
		for _, n := range c.liveServers() {
			r.ServerName = append(r.ServerName, n.serverName())
		}
		resp = r
	case "GetMasters":
		resp = &pb.GetMastersResponse{MasterServers: []*pb.GetMastersResponseEntry{{
			ServerName: c.master.serverName(), IsActive: proto.Bool(true),
		}}}
	default:
		return nil, nil, unknownMethod(wire.ServiceClientMeta, method)
	}
	if err := decode(param, &pb.GetClusterIdRequest{}); err != nil {
		return nil, nil, err
	}
	return resp, nil, nil
}
