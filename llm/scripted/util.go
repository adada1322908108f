package scripted

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// Signature is the signature a scripted thinking block carries: a digest of its text,
// so a fake server can tell a block passed back unchanged from one altered or made up,
// as the real API does with its own signatures.
func Signature(thinking string) string {
	sum := sha256.Sum256([]byte("ouro-scripted-thinking\x00" + thinking))
	return "sig_" + hex.EncodeToString(sum[:12])
}
