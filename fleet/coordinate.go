package fleet

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// coordinateForm is what ParseCoordinate accepts, for its errors.
const coordinateForm = "want HOST:PORT[,HOST:PORT...]/PATH, e.g. zk1:2181,zk2:2181/commentbench"

// ParseCoordinate splits a ZooKeeper coordinate, "HOST:PORT[,HOST:PORT...]/PATH",
// into its servers and the path under which runs live (Config.Servers and
// Config.Root). Every server needs a port (1 to 65535; an IPv6 host is
// bracketed, "[::1]:2181"); the path needs at least one segment, and no
// segment may be empty, "." or "..". An error names the value and what is
// allowed.
func ParseCoordinate(s string) (servers []string, root string, err error) {
	fail := func(format string, args ...any) ([]string, string, error) {
		return nil, "", fmt.Errorf("zookeeper coordinate %q: %s (%s)", s, fmt.Sprintf(format, args...), coordinateForm)
	}
	if strings.TrimSpace(s) == "" {
		return fail("empty")
	}
	slash := strings.IndexByte(s, '/')
	if slash < 0 {
		return fail("no path after the servers")
	}
	list, root := s[:slash], s[slash:]
	if list == "" {
		return fail("no servers before the path")
	}
	for _, srv := range strings.Split(list, ",") {
		if srv == "" {
			return fail("an empty server in the list")
		}
		host, port, err := net.SplitHostPort(srv)
		if err != nil || host == "" {
			return fail("server %q is not HOST:PORT", srv)
		}
		if strings.ContainsAny(host, " \t") {
			return fail("server %q has a space in its host", srv)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fail("server %q: port %q is not a number from 1 to 65535", srv, port)
		}
		servers = append(servers, srv)
	}
	if root == "/" {
		return fail("the path after the servers is empty")
	}
	if err := checkPath(root); err != nil {
		return fail("%v", err)
	}
	return servers, root, nil
}

// checkPath reports what makes p no znode path for a run's root.
func checkPath(p string) error {
	if p == "/" {
		return fmt.Errorf("path \"/\" has no segment; runs need a path of their own")
	}
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("path %q does not begin with /", p)
	}
	if strings.HasSuffix(p, "/") {
		return fmt.Errorf("path %q ends in /", p)
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if err := checkName(seg); err != nil {
			return fmt.Errorf("path %q: %v", p, err)
		}
	}
	return nil
}

// checkName reports what makes seg no znode name.
func checkName(seg string) error {
	switch seg {
	case "":
		return fmt.Errorf("an empty segment")
	case ".", "..":
		return fmt.Errorf("a segment %q", seg)
	}
	for _, r := range seg {
		if r < 0x20 || r == 0x7f || r == '/' {
			return fmt.Errorf("a control character or / in %q", seg)
		}
	}
	return nil
}
