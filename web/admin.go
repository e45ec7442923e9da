package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"hearth/auth"
	"hearth/engine"
	"hearth/engine/backup"
	"hearth/web/metrics"
)

// The admin socket: a Unix socket in the data directory (<data>/admin.sock, mode 0600) through
// which the operator's commands talk to the running server. Whoever can open it can read the
// whole community (a backup holds everything), so it is never on a network: the file's
// permissions, and the data directory's 0700, are its access control.

// AdminSocketName is the socket's name in the data directory.
const AdminSocketName = "admin.sock"

// Admin socket routes. The answers are JSON (AdminStatus, BackupResult), or the backup itself.
const (
	// AdminStatusPath (GET) tells what the server runs and where it listens.
	AdminStatusPath = "/status"
	// AdminBackupPath: POST writes a backup to the backup destination; GET streams one back.
	AdminBackupPath = "/backup"
	// BackupResultTrailer ends a streamed backup: "ok", or what went wrong (the body is then
	// cut short and must be thrown away).
	BackupResultTrailer = "Hearth-Backup-Result"
	// AdminResetLinkPath (POST ?username=NAME[&remove_two_step=1]) makes a password reset link
	// for the account (ResetLinkResult); 404 when there is none.
	AdminResetLinkPath = "/reset-link"
)

// ResetLinkResult is the answer of POST /reset-link.
type ResetLinkResult struct {
	URL         string `json:"url"`
	ExpiresAtMs int64  `json:"expires_at_ms"`
	Username    string `json:"username"`
}

// AdminStatus is the answer of GET /status.
type AdminStatus struct {
	Version string `json:"version"`
	// Addr is the address the main port listens on, and TLS whether it serves TLS; empty
	// until the server listens.
	Addr string `json:"addr"`
	TLS  bool   `json:"tls"`
	Seq  int64  `json:"seq"`
	// Healthy is false, with Problem, when the database does not answer.
	Healthy bool   `json:"healthy"`
	Problem string `json:"problem,omitempty"`
}

// BackupResult is the answer of POST /backup.
type BackupResult struct {
	Location string `json:"location"`
	// Seq is the newest event in the backup.
	Seq       int64    `json:"seq"`
	Bytes     int64    `json:"bytes"`
	DBBytes   int64    `json:"db_bytes"`
	Files     int      `json:"files"`
	FileBytes int64    `json:"file_bytes"`
	HasFiles  bool     `json:"has_files"`
	Bucket    string   `json:"bucket"`
	Removed   []string `json:"removed,omitempty"`
	TookMs    int64    `json:"took_ms"`
}

// adminServer serves the admin socket.
type adminServer struct {
	path string
	ln   net.Listener
	srv  *http.Server

	mu   sync.Mutex
	addr string
	tls  bool
}

// listenAdmin starts serving the admin socket of dataDir. A socket left by a server that
// did not stop cleanly is replaced: the database's lock, taken before, says no other server
// runs on this directory.
func listenAdmin(dataDir string, eng *engine.Engine, backups *backup.Service, signIn *auth.Provider, version string, log *slog.Logger) (*adminServer, error) {
	path := filepath.Join(dataDir, AdminSocketName)
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("admin socket %s: %w", path, err)
	}
	// Go removes the file when the listener closes.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("admin socket %s: %w", path, err)
	}
	a := &adminServer{path: path, ln: ln}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+AdminStatusPath, func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		st := AdminStatus{Version: version, Addr: a.addr, TLS: a.tls, Seq: eng.Seq(), Healthy: true}
		a.mu.Unlock()
		if err := eng.Healthy(); err != nil {
			st.Healthy, st.Problem = false, engineMessage(err)
		}
		writeJSON(w, http.StatusOK, st)
	})
	mux.HandleFunc("POST "+AdminBackupPath, func(w http.ResponseWriter, r *http.Request) {
		res, err := backups.Run(r.Context())
		if err != nil {
			log.Error("backup failed", "to", backups.Destination().String(), "err", err)
			http.Error(w, err.Error(), backupStatus(err))
			return
		}
		log.Info("backup written", "to", res.Location, "seq", res.Seq, "bytes", res.Bytes, "files", res.Files, "removed", len(res.Removed), "took", res.Took.Round(time.Millisecond))
		writeJSON(w, http.StatusOK, BackupResult{
			Location: res.Location, Seq: res.Seq, Bytes: res.Bytes, DBBytes: res.DBBytes, Files: res.Files, FileBytes: res.FileBytes,
			HasFiles: res.Manifest.Files, Bucket: res.Manifest.Bucket, Removed: res.Removed, TookMs: res.Took.Milliseconds(),
		})
	})
	mux.HandleFunc("GET "+AdminBackupPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Trailer", BackupResultTrailer)
		w.Header().Set("Content-Type", "application/gzip")
		start := time.Now()
		sw := metrics.NewStatusWriter(w)
		sum, err := backups.WriteTo(r.Context(), sw)
		if err != nil && !errors.Is(err, backup.ErrRunning) && !errors.Is(err, backup.ErrClosed) {
			log.Error("backup failed", "to", "the admin socket", "err", err)
		}
		if err != nil && !sw.Wrote {
			// Failed before its first byte (another backup runs, the server stops): a status.
			http.Error(w, err.Error(), backupStatus(err))
			return
		}
		if err != nil {
			w.Header().Set(BackupResultTrailer, err.Error())
			return
		}
		log.Info("backup written", "to", "the admin socket", "seq", sum.Seq, "db_bytes", sum.DBBytes, "files", sum.Files, "took", time.Since(start).Round(time.Millisecond))
		w.Header().Set(BackupResultTrailer, "ok")
	})
	mux.HandleFunc("POST "+AdminResetLinkPath, func(w http.ResponseWriter, r *http.Request) {
		if signIn == nil {
			http.Error(w, "this server has no accounts of its own (-no-local-issuer)", http.StatusNotFound)
			return
		}
		username := r.URL.Query().Get("username")
		link, err := signIn.CreateResetLinkFor(r.Context(), username, r.URL.Query().Get("remove_two_step") == "1")
		if errors.Is(err, auth.ErrNoAccount) {
			http.Error(w, fmt.Sprintf("no account is named %q", username), http.StatusNotFound)
			return
		}
		if err != nil {
			log.Error("make a reset link", "err", err)
			http.Error(w, "the reset link could not be made", http.StatusInternalServerError)
			return
		}
		if m, ok := eng.MemberForLogin(engine.Login{Issuer: signIn.IssuerURL(), Subject: link.Subject}); ok {
			if err := eng.AuditPasswordResetLink("", m.ID); err != nil {
				log.Error("record a reset link in the audit log", "err", err)
				http.Error(w, "the reset link could not be recorded in the audit log", http.StatusInternalServerError)
				return
			}
		}
		log.Info("the operator made a password reset link", "username", link.Username)
		writeJSON(w, http.StatusOK, ResetLinkResult{URL: link.URL, ExpiresAtMs: link.Expires.UnixMilli(), Username: link.Username})
	})
	routeImports(mux, eng)
	a.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		if err := a.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("admin socket stopped", "err", err)
		}
	}()
	return a, nil
}

// backupStatus is the status of a failed backup: busy and shutting down are no server faults.
func backupStatus(err error) int {
	switch {
	case errors.Is(err, backup.ErrRunning):
		return http.StatusConflict
	case errors.Is(err, backup.ErrClosed):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

func (a *adminServer) listening(addr string, tls bool) {
	a.mu.Lock()
	a.addr, a.tls = addr, tls
	a.mu.Unlock()
}

// close stops serving; a backup being streamed is cancelled by the backup service's Close.
func (a *adminServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if a.srv.Shutdown(ctx) != nil {
		a.srv.Close()
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
