// Command registry serves go-containerregistry's in-process OCI registry (pkg/registry, the one crane's
// `crane registry serve` runs) over TLS, for the suite-artifact tests: push and pull by digest through a real
// registry on loopback. Test-only; built and cached by scripts/build-go-tools.sh.
//
// Usage: registry -address 127.0.0.1:PORT -cert CERT -key KEY [-disk DIR [-serve-as-stored]]
//
// It prints "listening on HOST:PORT" on stdout once the socket is bound (the harness waits for that line).
// Blobs are kept in DIR when given (a 50 MB suite stays out of memory), else in memory. pkg/registry's disk
// handler re-hashes a blob before serving it (a changed file is "blob unknown"); with -serve-as-stored it
// serves the file as it is, as a registry on a plain filesystem does, so the image tests can change one byte
// of a stored layer and see the client refuse it.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// asStored is the disk handler without its re-hashing Stat: a blob's size is its file's size.
type asStored struct {
	registry.BlobHandler
	dir string
}

func (a asStored) Stat(_ context.Context, _ string, h v1.Hash) (int64, error) {
	info, err := os.Stat(fmt.Sprintf("%s/%s/%s", a.dir, h.Algorithm, h.Hex))
	if err != nil {
		return 0, registry.ErrNotFound
	}
	return info.Size(), nil
}

func (a asStored) Put(ctx context.Context, repo string, h v1.Hash, rc io.ReadCloser) error {
	return a.BlobHandler.(registry.BlobPutHandler).Put(ctx, repo, h, rc)
}

func main() {
	address := flag.String("address", "127.0.0.1:0", "host:port to listen on")
	certFile := flag.String("cert", "", "TLS certificate (PEM)")
	keyFile := flag.String("key", "", "TLS private key (PEM)")
	disk := flag.String("disk", "", "directory for blobs (default: memory)")
	asIs := flag.Bool("serve-as-stored", false, "serve disk blobs without re-hashing them (tests of a changed layer)")
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
	if *disk != "" && *asIs {
		options = append(options, registry.WithBlobHandler(asStored{registry.NewDiskBlobHandler(*disk), *disk}))
	} else if *disk != "" {
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
