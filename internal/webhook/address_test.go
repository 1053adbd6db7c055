package webhook_test

import (
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/webhook"
)

func TestCheckURL(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", webhook.MaxURLBytes)
	tests := []struct {
		url          string
		allowPrivate bool
		refused      string // part of the reason; "" when allowed
	}{
		{"https://hooks.example.com/calgraph", false, ""},
		{"http://93.184.216.34:8080/in", false, ""},
		{"https://[2606:4700::1111]/in", false, ""},
		{"file:///etc/passwd", false, "only http and https"},
		{"ftp://example.com/x", false, "only http and https"},
		{"javascript:alert(1)", false, "only http and https"},
		{"gopher://example.com/", false, "only http and https"},
		{"example.com/hook", false, "only http and https"},
		{"https:///nohost", false, "no host"},
		{"https://user:pass@example.com/", false, "user name or password"},
		{"https://example.com/#x", false, "fragment"},
		{long, false, "longer than 2048"},
		{"http://localhost:8080/", false, "localhost"},
		{"http://LOCALHOST./", false, "localhost"},
		{"http://api.localhost/", false, "localhost"},
		{"http://127.0.0.1/", false, "loopback"},
		{"http://127.9.9.9/", false, "loopback"},
		{"http://[::1]/", false, "loopback"},
		{"http://[::ffff:127.0.0.1]/", false, "loopback"},
		{"http://10.1.2.3/", false, "private"},
		{"http://172.16.0.1/", false, "private"},
		{"http://192.168.1.1/", false, "private"},
		{"http://[fd00::1]/", false, "private"},
		{"http://100.64.0.1/", false, "shared"},
		{"http://169.254.169.254/latest/meta-data/", false, "link-local"},
		{"http://[fe80::1]/", false, "link-local"},
		{"http://[fe80::1%25eth0]/", false, "link-local"},
		{"http://[::1%25lo]/", false, "loopback"},
		{"http://[64:ff9b::a9fe:a9fe]/", false, "link-local"},
		{"http://[2002:7f00:1::]/", false, "loopback"},
		{"http://0.0.0.0/", false, "unspecified"},
		{"http://[::]/", false, "unspecified"},
		{"http://224.0.0.1/", false, "multicast"},
		{"http://[ff02::1]/", false, "multicast"},
		{"http://255.255.255.255/", false, "broadcast"},
		// An operator's private receivers, allowed; the metadata service never.
		{"http://127.0.0.1:9000/", true, ""},
		{"http://localhost/", true, ""},
		{"http://10.0.0.7/", true, ""},
		{"http://169.254.169.254/", true, "link-local"},
		{"http://0.0.0.0/", true, "unspecified"},
		{"file:///etc/passwd", true, "only http and https"},
	}
	for _, tt := range tests {
		err := webhook.Policy{AllowPrivate: tt.allowPrivate}.CheckURL(tt.url)
		switch {
		case tt.refused == "" && err != nil:
			t.Errorf("CheckURL(%.60q, allowPrivate %v) = %v, want allowed", tt.url, tt.allowPrivate, err)
		case tt.refused != "" && (err == nil || !strings.Contains(err.Error(), tt.refused)):
			t.Errorf("CheckURL(%.60q, allowPrivate %v) = %v, want refused: %s", tt.url, tt.allowPrivate, err, tt.refused)
		}
	}
}
