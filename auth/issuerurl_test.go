package auth_test

import (
	"testing"

	"hearth/auth"
)

func TestValidateIssuerURL(t *testing.T) {
	const rule = " must be an absolute https URL (http only for the loopback hosts 127.0.0.1, ::1 and localhost)"
	tests := []struct {
		url     string
		wantErr string
	}{
		{"https://accounts.example.com", ""},
		{"https://example.com/realms/chat/", ""},
		{"https://example.com:8443", ""},
		{"http://127.0.0.1:8080", ""},
		{"http://[::1]:8080", ""},
		{"http://localhost:8080", ""},
		{"http://LOCALHOST", ""},
		{"http://example.com", `issuer URL "http://example.com"` + rule},
		{"http://10.0.0.1", `issuer URL "http://10.0.0.1"` + rule},
		{"http://localhost.example.com", `issuer URL "http://localhost.example.com"` + rule},
		{"ftp://example.com", `issuer URL "ftp://example.com"` + rule},
		{"example.com", `issuer URL "example.com"` + rule},
		{"/relative", `issuer URL "/relative"` + rule},
		{"", `issuer URL ""` + rule},
		{"https:opaque", `issuer URL "https:opaque"` + rule},
		{"https://example.com?tenant=1", `issuer URL "https://example.com?tenant=1" must not have a query or fragment`},
		{"https://example.com?", `issuer URL "https://example.com?" must not have a query or fragment`},
		{"https://example.com#top", `issuer URL "https://example.com#top" must not have a query or fragment`},
		{"https://user:pw@example.com", `issuer URL "https://user:pw@example.com" must not carry a user name or password`},
		{"https://exa mple.com", `issuer URL "https://exa mple.com" is not a URL: parse "https://exa mple.com": invalid character " " in host name`},
	}
	for _, tt := range tests {
		err := auth.ValidateIssuerURL(tt.url)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("ValidateIssuerURL(%q) = %v, want nil", tt.url, err)
		case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
			t.Errorf("ValidateIssuerURL(%q) = %v, want %q", tt.url, err, tt.wantErr)
		}
	}
}
