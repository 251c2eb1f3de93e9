package hbasetest

import (
	"fmt"
	"math"
	"time"

	"commentbench/hbase/wire"
)

// Scanner leases, as a region server keeps them: a scanner lives for
// hbase.client.scanner.timeout.period after the call that last used it
// ended, then its lease expires and it is gone. A call naming it after
// that is answered as one naming a scanner that never was, with
// UnknownScannerException; a client that wants the scanner longer renews
// it (ScanRequest.renew) within the period.

// DefaultScannerTimeout is HBase's hbase.client.scanner.timeout.period.
const DefaultScannerTimeout = 60 * time.Second

// scannerLease checks Options.ScannerTimeout: the lease travels in
// ScanResponse.ttl, whole milliseconds in 32 bits.
func scannerLease(d time.Duration) (time.Duration, error) {
	switch {
	case d == 0:
		return DefaultScannerTimeout, nil
	case d < time.Millisecond || d%time.Millisecond != 0:
		return 0, fmt.Errorf("hbasetest: scanner timeout %v: want a positive whole number of milliseconds (hbase.client.scanner.timeout.period)", d)
	case d.Milliseconds() > math.MaxUint32:
		return 0, fmt.Errorf("hbasetest: scanner timeout %v: want at most %v", d, time.Duration(math.MaxUint32)*time.Millisecond)
	}
	return d, nil
}

// leaseMillis is the lease as ScanResponse.ttl carries it.
func (c *Cluster) leaseMillis() uint32 { return uint32(c.lease.Milliseconds()) }

// unknownScanner is RSRpcServices' answer for a scanner id it does not
// hold, whether it never was or its lease expired.
func unknownScanner(id uint64) error {
	return excf(wire.ExcUnknownScanner, "Unknown scanner '%d'. This can happen due to any of the following reasons: "+
		"a) Scanner id given is wrong, b) Scanner lease expired because of long wait between consecutive client checkins, "+
		"c) Server may be closing down, d) RegionServer restart during upgrade.\n"+
		"If the issue is due to reason (b), a possible fix would be increasing the value of"+
		"'hbase.client.scanner.timeout.period' configuration.", int64(id))
}

// lockScanner finds a scanner of node for a next or renew call and locks
// it; an expired one is dropped and, like a missing one, unknown. Pair a
// success with releaseScanner.
func (c *Cluster) lockScanner(id uint64, node string) (*scanner, error) {
	c.mu.Lock()
	s := c.scanners[id]
	delete(c.expired, id)
	c.mu.Unlock()
	if s == nil || s.node != node {
		return nil, unknownScanner(id)
	}
	s.mu.Lock()
	if time.Since(s.lastUsed) > c.lease {
		s.mu.Unlock()
		c.dropScanner(id)
		return nil, unknownScanner(id)
	}
	return s, nil
}

// releaseScanner starts the scanner's lease afresh: HBase counts it from
// the end of the call, so a long call cannot expire its own scanner.
func releaseScanner(s *scanner) {
	s.lastUsed = time.Now()
	s.mu.Unlock()
}

// closeScanner answers a close call. A scanner closed already (its region
// ran out, or a close came before) is no error, but one whose lease
// expired is unknown, as in HBase, whose lease expiry forgets it.
func (c *Cluster) closeScanner(id uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, expired := c.expired[id]
	delete(c.expired, id)
	if s := c.scanners[id]; s != nil && !expired {
		if s.mu.TryLock() && c.expire(id, s, time.Now()) {
			delete(c.expired, id)
			expired = true
		}
		delete(c.scanners, id)
	}
	if expired {
		return unknownScanner(id)
	}
	return nil
}

// reapScanners forgets the scanners whose lease expired, as HBase's lease
// thread does, remembering their ids so a later close is refused. A
// scanner in use is not expired. The caller holds c.mu.
func (c *Cluster) reapScanners() {
	now := time.Now()
	for id, s := range c.scanners {
		if s.mu.TryLock() {
			c.expire(id, s, now)
		}
	}
}

// expire moves s to the expired ids if its lease ran out by now, reports
// whether it did, and unlocks s. The caller holds c.mu and s.mu.
func (c *Cluster) expire(id uint64, s *scanner, now time.Time) bool {
	defer s.mu.Unlock()
	if now.Sub(s.lastUsed) <= c.lease {
		return false
	}
	delete(c.scanners, id)
	c.expired[id] = struct{}{}
	return true
}
