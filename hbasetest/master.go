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

	"google.golang.org/protobuf/proto"
)

// Admin procedures run synchronously: precondition failures are thrown by
// the call itself (as HBase 2 does) and every procedure id handed out is
// FINISHED by the time the client polls it.

func (c *Cluster) masterCall(method string, param []byte) (proto.Message, []byte, error) {
	var (
		resp proto.Message
		err  error
	)
	switch method {
	case "CreateTable":
		req := &pb.CreateTableRequest{}
		if err = decode(param, req); err == nil {
			var id uint64
			id, err = c.createTable(req)
			resp = &pb.CreateTableResponse{ProcId: proto.Uint64(id)}
		}
	case "DisableTable":
		req := &pb.DisableTableRequest{}
		if err = decode(param, req); err == nil {
			var id uint64
			id, err = c.setEnabled(req.GetTableName(), false)
			resp = &pb.DisableTableResponse{ProcId: proto.Uint64(id)}
		}
	case "EnableTable":
		req := &pb.EnableTableRequest{}
		if err = decode(param, req); err == nil {
			var id uint64
			id, err = c.setEnabled(req.GetTableName(), true)
			resp = &pb.EnableTableResponse{ProcId: proto.Uint64(id)}
		}
	case "DeleteTable":
		req := &pb.DeleteTableRequest{}
		if err = decode(param, req); err == nil {
			var id uint64
			id, err = c.deleteTable(req.GetTableName())
			resp = &pb.DeleteTableResponse{ProcId: proto.Uint64(id)}
		}
	case "GetTableNames":
		req := &pb.GetTableNamesRequest{}
		if err = decode(param, req); err == nil {
			resp, err = c.tableNames(req)
		}
	case "getProcedureResult":
		req := &pb.GetProcedureResultRequest{}
		if err = decode(param, req); err == nil {
			resp = c.procResult(req.GetProcId())
		}
	default:
		err = unknownMethod(wire.ServiceMaster, method)
	}
	if err != nil {
		return nil, nil, err
	}
	return resp, nil, nil
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
	fams := schema.GetColumnFamilies()
	if len(fams) != 1 || len(fams[0].GetName()) == 0 {
		return 0, excf(wire.ExcDoNotRetryIO, "table %s: exactly one column family is supported, got %d", name, len(fams))
	}
	versions := 1
	for _, a := range fams[0].GetAttributes() {
		if string(a.GetFirst()) == "VERSIONS" {
			v, err := strconv.Atoi(string(a.GetSecond()))
			if err != nil || v < 1 {
				return 0, excf(wire.ExcDoNotRetryIO, "table %s: bad VERSIONS %q", name, a.GetSecond())
			}
			versions = v
		}
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
	err = c.eng.CreateTable(c.ctx, store.TableSpec{Name: name, Family: string(fams[0].GetName()), SplitKeys: keys})
	if errors.Is(err, store.ErrTableExists) {
		return 0, excf(wire.ExcTableExists, "%s", name)
	}
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	c.versions[name] = versions
	delete(c.disabled, name)
	c.mu.Unlock()
	return c.newProc(), nil
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
	delete(c.versions, name)
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
