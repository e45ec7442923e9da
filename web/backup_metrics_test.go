package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hearth/engine"
	"hearth/web"
	"hearth/web/webtest"
)

// TestMetricsCountBackups: a backup `hearth backup` asks for (over the admin socket, into
// -backup-to) counts as ok and sets when the last one succeeded and its size; one whose
// destination fails counts as failed and leaves both as they were.
func TestMetricsCountBackups(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	data := t.TempDir()
	folder := filepath.Join(t.TempDir(), "backups")
	s, err := web.Open(context.Background(), web.Config{
		Data:        data,
		Engine:      engine.Options{BaseURL: "http://127.0.0.1", Clock: clock},
		Metrics:     true,
		AdminSocket: true,
		Backups:     web.BackupConfig{To: folder, Keep: 7},
		Log:         webtest.Logger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	backupNow := func() (int, web.BackupResult) {
		t.Helper()
		resp, err := adminClient(data).Post("http://hearth"+web.AdminBackupPath, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res web.BackupResult
		json.NewDecoder(resp.Body).Decode(&res)
		return resp.StatusCode, res
	}
	metrics := func() string {
		rec := httptest.NewRecorder()
		s.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.String()
	}
	wantMetrics := func(when string, want ...string) {
		t.Helper()
		text := metrics()
		for _, w := range want {
			if !strings.Contains(text, w+"\n") {
				t.Errorf("%s, metrics lack %s:\n%s", when, w, grep(text, "hearth_backup"))
			}
		}
	}

	wantMetrics("before any backup",
		`hearth_backups_total{result="ok"} 0`,
		`hearth_backups_total{result="failed"} 0`,
		`hearth_backup_last_success_timestamp_seconds 0`)

	status, res := backupNow()
	if status != http.StatusOK || res.Bytes == 0 {
		t.Fatalf("POST /backup: %d %+v", status, res)
	}
	okAt := clock.Now().Unix()
	wantMetrics("after a backup",
		`hearth_backups_total{result="ok"} 1`,
		`hearth_backups_total{result="failed"} 0`,
		"hearth_backup_last_success_timestamp_seconds "+promFloat(okAt),
		"hearth_backup_last_bytes "+promFloat(res.Bytes))

	// The destination folder is now a file: the next backup cannot be written there.
	if err := os.RemoveAll(folder); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(folder, []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	if status, res := backupNow(); status == http.StatusOK {
		t.Fatalf("POST /backup into a file: %d %+v", status, res)
	}
	wantMetrics("after a failed backup",
		`hearth_backups_total{result="ok"} 1`,
		`hearth_backups_total{result="failed"} 1`,
		"hearth_backup_last_success_timestamp_seconds "+promFloat(okAt),
		"hearth_backup_last_bytes "+promFloat(res.Bytes))
}

// promFloat is a number as the Prometheus text format writes it.
func promFloat(n int64) string { return strconv.FormatFloat(float64(n), 'g', -1, 64) }
