package natsjs_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

	"github.com/ouroagent/ouro/internal/natsjs"
)

func serve(t *testing.T, o *server.Options) string {
	o.Host, o.Port, o.JetStream, o.StoreDir, o.NoLog, o.NoSigs = "127.0.0.1", -1, true, t.TempDir(), true, true
	s, err := server.NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("the server did not start")
	}
	t.Cleanup(s.Shutdown)
	return s.Addr().String()
}

func connect(raw string) error {
	cfg, err := natsjs.Parse(raw)
	if err != nil {
		return err
	}
	c, err := natsjs.Connect(context.Background(), cfg, "test")
	if err != nil {
		return err
	}
	c.Close()
	return nil
}

// A server that authorizes by nkey lets in the holder of the seed file, and refuses
// others with a message that says what to check.
func TestNKeySeedFile(t *testing.T) {
	user, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := user.PublicKey()
	seed, _ := user.Seed()
	addr := serve(t, &server.Options{Nkeys: []*server.NkeyUser{{Nkey: pub}}})
	file := filepath.Join(t.TempDir(), "user.nk")
	os.WriteFile(file, seed, 0o600)
	if err := connect("nats://" + addr + "?nkey=" + file); err != nil {
		t.Fatalf("with the seed: %v", err)
	}
	other, _ := nkeys.CreateUser()
	oseed, _ := other.Seed()
	ofile := filepath.Join(t.TempDir(), "other.nk")
	os.WriteFile(ofile, oseed, 0o600)
	for _, u := range []string{"nats://" + addr + "?nkey=" + ofile, "nats://" + addr} {
		if err := connect(u); err == nil || !strings.Contains(err.Error(), "refused ouro's credentials") {
			t.Errorf("%s: %v, want a refusal", u, err)
		}
	}
	os.WriteFile(ofile, []byte("not a seed"), 0o600)
	if err := connect("nats://" + addr + "?nkey=" + ofile); err == nil || !strings.Contains(err.Error(), "nkey seed file") {
		t.Errorf("a file that is no seed: %v", err)
	}
}

func TestUserAndPasswordAreNotShown(t *testing.T) {
	addr := serve(t, &server.Options{Username: "ouro", Password: "s3cret"})
	if err := connect("nats://ouro:s3cret@" + addr); err != nil {
		t.Fatal(err)
	}
	err := connect("nats://ouro:wrong@" + addr)
	if err == nil || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("a wrong password: %v (the password must not be shown)", err)
	}
	if _, err := natsjs.Parse("http://ouro:s3cret@h:1"); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("a bad URL with a password: %v", err)
	}
}

// TLS: with ca= naming the authority that signed the server's certificate the client
// connects; without it the error says to check ca=.
func TestTLSWithCA(t *testing.T) {
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ouro test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTpl, caTpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "ca.pem")
	os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600)
	kb, _ := x509.MarshalECPrivateKey(key)
	cert, err := tls.X509KeyPair(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}))
	if err != nil {
		t.Fatal(err)
	}
	addr := serve(t, &server.Options{TLS: true, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, TLSTimeout: 2})
	if err := connect("tls://" + addr + "?ca=" + caFile); err != nil {
		t.Fatalf("with ca=: %v", err)
	}
	if err := connect("tls://" + addr + "?timeout=2s"); err == nil || !strings.Contains(err.Error(), "check ca=") {
		t.Fatalf("without the CA: %v", err)
	}
}

func TestBucketNamesDoNotCollide(t *testing.T) {
	c := natsjs.Config{}
	seen := map[string]string{}
	for _, l := range []string{"a.b", "a_b", "a-b", "a_2eb", "A.b", "tasks-x"} {
		n := c.Name("tasks", l)
		if prev, dup := seen[n]; dup {
			t.Fatalf("lists %q and %q share bucket %s", prev, l, n)
		}
		seen[n] = l
	}
	ns := natsjs.Config{Namespace: "team1"}
	if a, b := c.Name("tasks", "x"), ns.Name("tasks", "x"); a == b {
		t.Fatalf("a namespace does not separate buckets: %s", a)
	}
}
