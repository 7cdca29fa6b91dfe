// Command benchserver runs benchserver on a loopback address for the
// side-by-side client benchmarks in loadgen/BENCHMARKS.md.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"os"

	"github.com/shutdownlab/shutdownlab/loadgen/internal/benchserver"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18080", "listen address (loopback only)")
	delay := flag.Duration("delay", 0, "delay before each response")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(os.Stderr, "benchserver: -addr %q must be a loopback host:port\n", *addr)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "benchserver: listening on %s, delay %v\n", ln.Addr(), *delay)
	log.Fatal(benchserver.Serve(ln, *delay))
}
