// Command registry serves go-containerregistry's in-process OCI registry (pkg/registry, the one crane's
// `crane registry serve` runs) over TLS, for the suite-artifact tests: push and pull by digest through a real
// registry on loopback. Test-only; built and cached by scripts/build-go-tools.sh.
//
// Usage: registry -address 127.0.0.1:PORT -cert CERT -key KEY [-disk DIR]
//
// It prints "listening on HOST:PORT" on stdout once the socket is bound (the harness waits for that line).
// Blobs are kept in DIR when given (a 50 MB suite stays out of memory), else in memory.
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	address := flag.String("address", "127.0.0.1:0", "host:port to listen on")
	certFile := flag.String("cert", "", "TLS certificate (PEM)")
	keyFile := flag.String("key", "", "TLS private key (PEM)")
	disk := flag.String("disk", "", "directory for blobs (default: memory)")
	flag.Parse()
	if *certFile == "" || *keyFile == "" {
		fmt.Fprintln(os.Stderr, "registry: -cert and -key are required (TLS only)")
		os.Exit(2)
	}
	cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "registry: %v\n", err)
		os.Exit(2)
	}
	options := []registry.Option{registry.Logger(log.New(os.Stderr, "", log.LstdFlags))}
	if *disk != "" {
		options = append(options, registry.WithBlobHandler(registry.NewDiskBlobHandler(*disk)))
	}
	listener, err := net.Listen("tcp", *address)
	if err != nil {
		fmt.Fprintf(os.Stderr, "registry: %v\n", err)
		os.Exit(2)
	}
	fmt.Printf("listening on %s\n", listener.Addr())
	server := &http.Server{
		Handler:   registry.New(options...),
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
	}
	log.Fatal(server.ServeTLS(listener, "", ""))
}
