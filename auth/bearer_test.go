package auth_test

import (
	"net/http"
	"testing"

	"hearth/auth"
)

func TestBearerToken(t *testing.T) {
	tests := []struct {
		name    string
		values  []string
		want    string
		wantErr string
	}{
		{"bearer", []string{"Bearer abc.def.ghi"}, "abc.def.ghi", ""},
		{"scheme is case-insensitive", []string{"bearer hb_x"}, "hb_x", ""},
		{"no header", nil, "", `no Authorization header; send "Authorization: Bearer <token>"`},
		{"not bearer", []string{"Basic YWxpY2U6cHc="}, "", `the Authorization header must use the Bearer scheme: "Authorization: Bearer <token>"`},
		{"scheme alone", []string{"Bearer"}, "", "the Authorization header has an empty bearer token"},
		{"empty token", []string{"Bearer   "}, "", "the Authorization header has an empty bearer token"},
		{"two headers", []string{"Bearer a", "Bearer b"}, "", "more than one Authorization header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tt.values {
				h.Add("Authorization", v)
			}
			got, err := auth.BearerToken(h)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("BearerToken = %q, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("BearerToken = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
