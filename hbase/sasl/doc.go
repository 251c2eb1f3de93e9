// Package sasl is Kerberos security for HBase RPC connections: the SASL
// GSSAPI exchange as HBase's RPC server runs it (auth byte 0x51 in the
// preamble, then length-prefixed tokens, the server's prefixed by a status
// word), the RFC 4752 security-layer negotiation, and for integrity and
// privacy the RFC 4121 wrap tokens around every later byte, in both
// directions. It holds both ends: the client side for the hbase package and
// the server side for the test cluster, written to the RFCs rather than to
// each other so either interoperates with HBase's Java side.
//
// It owns the Kerberos credentials of a client (a keytab and principal, or
// a ticket cache after kinit) and their renewal, and turns Kerberos
// failures into errors that say what was tried and what to change. It must
// never put key material, tickets or session keys into an error, a log or
// any output.
package sasl
