// Command mirror copies images and OCI artifacts by digest from one registry to another, keeping every digest,
// together with what verifies them: cosign's signature, attestation and SBOM tags (`sha256-<hex>.sig`,
// `.att`, `.sbom`) and the OCI referrers of each copied manifest (the referrers API, or its fallback tag),
// followed recursively. It is what a disconnected install runs before the source registry goes out of reach.
//
// The copy itself is go-containerregistry's (crane.Copy: indexes with their children, blobs the destination
// already holds skipped, manifests written byte for byte); crane's own CLI copies one reference and none of
// its referrers or signature tags, hence this small command. Built and cached by scripts/build-go-tools.sh.
//
// Usage: mirror -to HOST[:PORT][/PREFIX] [-ca FILE]... REPOSITORY@sha256:HEX...
//
// Each REPOSITORY keeps its path under the destination: registry-a:5000/assay/runner@sha256:X goes to
// HOST/PREFIX/assay/runner@sha256:X. For each reference given it prints "SOURCE DESTINATION" on stdout, the
// source as given, both by digest; every manifest copied (the references' and their signatures',
// attestations' and referrers') is logged on stderr. A tag reference is refused (a mirror maps digests), and
// so is a destination that answers with another digest than the source's. Credentials: the docker config
// (~/.docker/config.json or $DOCKER_CONFIG), as crane reads it. -ca adds a PEM CA to the system's trust
// store (repeatable).
package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/crane"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

type caFiles []string

func (c *caFiles) String() string     { return strings.Join(*c, ",") }
func (c *caFiles) Set(v string) error { *c = append(*c, v); return nil }

// cosign's tag scheme: a signature, attestation or SBOM of sha256:HEX is the tag sha256-HEX.sig/.att/.sbom.
var cosignTag = regexp.MustCompile(`^sha256-([0-9a-f]{64})\.(sig|att|sbom)$`)

type mirror struct {
	to      string
	options []remote.Option
	crane   []crane.Option
	copied  map[string]bool // destination references already written
	tags    map[string][]string
}

func main() {
	var cas caFiles
	to := flag.String("to", "", "destination registry, HOST[:PORT][/PREFIX]")
	flag.Var(&cas, "ca", "a PEM CA file trusted besides the system's (repeatable)")
	flag.Parse()
	if *to == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: mirror -to HOST[:PORT][/PREFIX] [-ca FILE]... REPOSITORY@sha256:HEX...")
		os.Exit(2)
	}
	transport, err := transportTrusting(cas)
	if err != nil {
		fail(err)
	}
	m := &mirror{
		to:      strings.TrimSuffix(*to, "/"),
		options: []remote.Option{remote.WithTransport(transport), remote.WithAuthFromKeychain(authn.DefaultKeychain)},
		crane:   []crane.Option{crane.WithTransport(transport), crane.WithAuthFromKeychain(authn.DefaultKeychain)},
		copied:  map[string]bool{},
		tags:    map[string][]string{},
	}
	for _, arg := range flag.Args() {
		source, err := name.NewDigest(arg, name.StrictValidation)
		if err != nil {
			fail(fmt.Errorf("%s: a mirror copies references by digest (REPOSITORY@sha256:HEX): %w", arg, err))
		}
		destination, err := m.copyWithReferrers(source)
		if err != nil {
			fail(err)
		}
		fmt.Printf("%s %s\n", arg, destination)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "mirror: %v\n", err)
	os.Exit(1)
}

func transportTrusting(cas []string) (http.RoundTripper, error) {
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	for _, file := range cas {
		pem, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no PEM certificate", file)
		}
	}
	transport := remote.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	// HTTP/1.1, a connection per concurrent blob: over HTTP/2 every upload shares one connection's flow-control
	// window, and a registry that serialises uploads (go-containerregistry's own holds one lock while it reads
	// a PATCH body) then stalls for good: the upload holding the lock waits for window that the waiting
	// uploads' unread data has taken. Measured: the operator image's copy hung over HTTP/2, took 0.9 s without.
	transport.ForceAttemptHTTP2 = false
	transport.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	return transport, nil
}

// destinationOf keeps the repository's path under the destination prefix.
func (m *mirror) destinationOf(repo name.Repository) (name.Repository, error) {
	return name.NewRepository(m.to+"/"+repo.RepositoryStr(), name.StrictValidation)
}

// copyWithReferrers copies one manifest by digest, then its cosign tags and its referrers, each in turn with
// theirs (a signature of an attestation follows too).
func (m *mirror) copyWithReferrers(source name.Digest) (name.Digest, error) {
	repo, err := m.destinationOf(source.Context())
	if err != nil {
		return name.Digest{}, err
	}
	destination := repo.Digest(source.DigestStr())
	if m.copied[destination.String()] {
		return destination, nil
	}
	if err := crane.Copy(source.String(), destination.String(), m.crane...); err != nil {
		return name.Digest{}, fmt.Errorf("copying %s: %w", source, err)
	}
	written, err := remote.Head(destination, m.options...)
	if err != nil {
		return name.Digest{}, fmt.Errorf("checking %s: %w", destination, err)
	}
	if written.Digest.String() != source.DigestStr() {
		return name.Digest{}, fmt.Errorf("%s answers %s, not the source's digest", destination, written.Digest)
	}
	m.copied[destination.String()] = true
	fmt.Fprintf(os.Stderr, "copied %s -> %s\n", source, destination)

	tags, err := m.listTags(source.Context())
	if err != nil {
		return name.Digest{}, err
	}
	hex := strings.TrimPrefix(source.DigestStr(), "sha256:")
	for _, tag := range tags {
		if match := cosignTag.FindStringSubmatch(tag); match == nil || match[1] != hex {
			continue
		}
		if err := m.copyTag(source.Context().Tag(tag), repo.Tag(tag)); err != nil {
			return name.Digest{}, err
		}
	}

	referrers, err := remote.Referrers(source, m.options...)
	if err != nil {
		return name.Digest{}, fmt.Errorf("listing the referrers of %s: %w", source, err)
	}
	index, err := referrers.IndexManifest()
	if err != nil {
		return name.Digest{}, err
	}
	for _, referrer := range index.Manifests {
		if _, err := m.copyWithReferrers(source.Context().Digest(referrer.Digest.String())); err != nil {
			return name.Digest{}, err
		}
	}
	return destination, nil
}

// copyTag copies a cosign tag (its manifest, and what refers to that manifest) and tags it alike.
func (m *mirror) copyTag(source name.Tag, destination name.Tag) error {
	described, err := remote.Head(source, m.options...)
	if err != nil {
		return fmt.Errorf("reading %s: %w", source, err)
	}
	if _, err := m.copyWithReferrers(source.Context().Digest(described.Digest.String())); err != nil {
		return err
	}
	if err := crane.Copy(source.Context().Digest(described.Digest.String()).String(), destination.String(), m.crane...); err != nil {
		return fmt.Errorf("tagging %s: %w", destination, err)
	}
	fmt.Fprintf(os.Stderr, "tagged %s\n", destination)
	return nil
}

func (m *mirror) listTags(repo name.Repository) ([]string, error) {
	if tags, ok := m.tags[repo.String()]; ok {
		return tags, nil
	}
	tags, err := remote.List(repo, m.options...)
	if err != nil {
		return nil, fmt.Errorf("listing the tags of %s: %w", repo, err)
	}
	m.tags[repo.String()] = tags
	return tags, nil
}
