package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/client"
)

// TestGatewayCommandServesTLS: with -tls-cert and -tls-key the gateway
// serves HTTPS, HTTP/2 offered, and refuses a key that is not the
// certificate's.
func TestGatewayCommandServesTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}}
	defer hc.CloseIdleConnections()

	config := gatewayConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, exited := startGatewayCommand(t, ctx, "-config", config, "-http", "127.0.0.1:0", "-tls-cert", certFile, "-tls-key", keyFile, "-log-format", "json")
	if !strings.HasPrefix(base, "https://") {
		t.Fatalf("serving %s, want https", base)
	}
	resp, err := hc.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
		t.Errorf("/readyz over TLS: %d %s, want 200 over HTTP/2", resp.StatusCode, resp.Proto)
	}
	c, err := client.Connect(ctx, client.HTTP(base+"/mcp", hc))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, "fixture_echo", json.RawMessage(`{"text":"over tls"}`))
	c.Close()
	if err != nil || res.Text() != "over tls" {
		t.Fatalf("fixture_echo over TLS = %v, %v", res, err)
	}
	cancel()
	if code := <-exited; code != exitOK {
		t.Errorf("exit code %d", code)
	}

	// A key that is not the certificate's is refused before serving.
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	otherDER, _ := x509.MarshalECPrivateKey(other)
	wrongKey := filepath.Join(dir, "wrong.pem")
	if err := os.WriteFile(wrongKey, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: otherDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	r := sakeRun(t, "", nil, "gateway", "-config", config, "-http", "127.0.0.1:0", "-tls-cert", certFile, "-tls-key", wrongKey, "-watch=false")
	if r.code != exitFail || !strings.Contains(r.stderr, "-tls-cert and -tls-key") {
		t.Errorf("a key that is not the certificate's: %+v", r)
	}
}
