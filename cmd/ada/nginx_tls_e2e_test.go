package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
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

	"github.com/chromedp/chromedp"
)

// TestNginxTLSLogin runs deploy/nginx/ada.conf with TLS as deploy/README's
// "TLS" section sets it up (certbot adds the same lines): a certificate,
// "listen … ssl", PUBLIC_URL https. In a real Chromium, the operator logs
// in over https, where the Secure cookie holds; the same server's plain
// http port (as before certbot's redirect) tells why a login there cannot
// work and where to go, instead of going round to the login form.
func TestNginxTLSLogin(t *testing.T) {
	bin := findNginx(t)
	// ada.test, not 127.0.0.1: a browser treats loopback as a secure
	// context and keeps Secure cookies there even over http.
	browser := headlessChromium(t, 1280, 900, chromedp.Flag("ignore-certificate-errors", true),
		chromedp.Flag("host-resolver-rules", "MAP ada.test 127.0.0.1"))
	tlsAddr, plainAddr := freeAddr(t), freeAddr(t)
	_, tlsPort, _ := net.SplitHostPort(tlsAddr)
	_, plainPort, _ := net.SplitHostPort(plainAddr)
	public := "https://ada.test:" + tlsPort
	const key = "nginx-tls-login-key-01"
	ada := startAda(t, "serve", testEnv(t, map[string]string{
		"PUBLIC_URL": public, "API_KEY": key, "TRUSTED_PROXIES": "127.0.0.1,::1"}))
	certFile, keyFile := selfSigned(t)
	startNginxAt(t, bin, tlsAddr, ada, nginxExtra{ssl: true, server: "listen " + plainAddr + ";\n" +
		"    ssl_certificate " + certFile + ";\n    ssl_certificate_key " + keyFile + ";"})

	ctx, cancel := context.WithTimeout(browser, 30*time.Second)
	defer cancel()
	var overHTTPS, overHTTP string
	err := chromedp.Run(ctx,
		keyLogin(public+"/ui/", key),
		chromedp.WaitVisible("#q", chromedp.ByID),
		chromedp.Text("main", &overHTTPS, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("the operator's login over https: %v\nada logs:\n%s", err, ada.logs.String())
	}
	err = chromedp.Run(ctx,
		keyLogin("http://ada.test:"+plainPort+"/ui/login", key),
		chromedp.WaitVisible(".error", chromedp.ByQuery),
		chromedp.Text("main", &overHTTP, chromedp.ByQuery),
	)
	if err != nil {
		var where, text string
		sctx, scancel := context.WithTimeout(browser, 5*time.Second)
		_ = chromedp.Run(sctx, chromedp.Location(&where), chromedp.Text("body", &text, chromedp.ByQuery))
		scancel()
		t.Fatalf("the operator's login over plain http: %v\nat %s:\n%s\nada logs:\n%s", err, where, text, ada.logs.String())
	}
	if !strings.Contains(overHTTP, "plain http") || !strings.Contains(overHTTP, public+"/ui/login") {
		t.Errorf("the login over plain http says:\n%s", overHTTP)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and ada.test and its key, for a TLS
// listener in a test.
func selfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"ada.test"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
