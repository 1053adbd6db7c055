package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// BenchmarkVerify measures what checking a call's signature costs the
// engine, by body size (a GetItem is about 100 bytes, a BatchWriteItem up to
// a few hundred KB):
//
//	go test ./internal/engine -run XXX -bench Verify -benchmem
func BenchmarkVerify(b *testing.B) {
	a := newAuthenticator()
	for _, size := range []int{100, 10 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("body=%d", size), func(b *testing.B) {
			body := strings.Repeat("x", size)
			r, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:4567/", strings.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			r.Header.Set("Content-Type", "application/x-amz-json-1.0")
			r.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
			r.Header.Set("Amz-Sdk-Invocation-Id", "8a1e0b0c-8f7a-4d55-9f6e-2d1c7e1d3a11")
			r.Header.Set("Amz-Sdk-Request", "attempt=1; max=3")
			sum := sha256.Sum256([]byte(body))
			if err := v4.NewSigner().SignHTTP(context.Background(), a.creds, r, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", time.Now()); err != nil {
				b.Fatal(err)
			}
			r.Host = r.URL.Host
			raw := []byte(body)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if err := a.verify(r, raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
