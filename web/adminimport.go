package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"hearth/engine"
)

// The import routes of the admin socket: `hearth import` reads an export and sends it here,
// piece by piece (see engine/imports.go). The answers are JSON; a failure is
// {"error": "..."} with the status of the engine's error.
const (
	// AdminImportPeoplePath (POST ImportPeopleRequest) answers ImportPeopleResponse.
	AdminImportPeoplePath = "/import/people"
	// AdminImportChannelPath (POST engine.ImportChannel) answers engine.ImportedChannel.
	AdminImportChannelPath = "/import/channel"
	// AdminImportFilePath (POST ?key=&owner=&name=[&avatar=1], the file as the body) answers
	// ImportFileResponse.
	AdminImportFilePath = "/import/file"
	// AdminImportEmojiPath (POST ?name=, the image as the body) answers ImportEmojiResponse.
	AdminImportEmojiPath = "/import/emoji"
	// AdminImportMessagesPath (POST ImportMessagesRequest) answers engine.ImportBatchResult.
	AdminImportMessagesPath = "/import/messages"
	// AdminImportFinishPath (POST ImportFinishRequest) opens an imported channel again.
	AdminImportFinishPath = "/import/finish"
	// AdminImportLookupPath (POST ImportLookupRequest) answers ImportLookupResponse.
	AdminImportLookupPath = "/import/lookup"
)

// maxImportJSON bounds a JSON request of the import routes: a batch of 1,000 messages of
// 8,000 characters each, with room for their fields.
const maxImportJSON = 64 << 20

type ImportPeopleRequest struct {
	People []engine.ImportPerson `json:"people"`
}

type ImportPeopleResponse struct {
	// IDs maps each person's key to their member id.
	IDs map[string]string `json:"ids"`
}

type ImportFileResponse struct {
	ID string `json:"id"`
}

type ImportEmojiResponse struct {
	// Name is the emoji's name (`:name:` in messages) when it was added or existed already.
	Name   string `json:"name"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

type ImportMessagesRequest struct {
	ChannelKey string                 `json:"channel_key"`
	Messages   []engine.ImportMessage `json:"messages"`
}

type ImportFinishRequest struct {
	ChannelKey string `json:"channel_key"`
}

type ImportLookupRequest struct {
	Keys []string `json:"keys"`
}

type ImportLookupResponse struct {
	// IDs holds the keys imported before, with what they became.
	IDs map[string]string `json:"ids"`
}

// routeImports adds the import routes to the admin socket's mux.
func routeImports(mux *http.ServeMux, eng *engine.Engine) {
	mux.HandleFunc("POST "+AdminImportPeoplePath, importJSON(func(r *http.Request, req *ImportPeopleRequest) (any, error) {
		ids, err := eng.ImportPeople(r.Context(), req.People)
		return ImportPeopleResponse{IDs: ids}, err
	}))
	mux.HandleFunc("POST "+AdminImportChannelPath, importJSON(func(r *http.Request, req *engine.ImportChannel) (any, error) {
		return eng.ImportChannel(r.Context(), *req)
	}))
	mux.HandleFunc("POST "+AdminImportMessagesPath, importJSON(func(r *http.Request, req *ImportMessagesRequest) (any, error) {
		return eng.ImportMessages(r.Context(), req.ChannelKey, req.Messages)
	}))
	mux.HandleFunc("POST "+AdminImportFinishPath, importJSON(func(r *http.Request, req *ImportFinishRequest) (any, error) {
		return struct{}{}, eng.FinishImport(r.Context(), req.ChannelKey)
	}))
	mux.HandleFunc("POST "+AdminImportLookupPath, importJSON(func(r *http.Request, req *ImportLookupRequest) (any, error) {
		ids, err := eng.ImportedIDs(req.Keys)
		return ImportLookupResponse{IDs: ids}, err
	}))
	mux.HandleFunc("POST "+AdminImportFilePath, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		id, err := eng.ImportFile(r.Context(), q.Get("key"), q.Get("owner"), q.Get("name"), r.Body, q.Get("avatar") == "1")
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, ImportFileResponse{ID: id})
	})
	mux.HandleFunc("POST "+AdminImportEmojiPath, func(w http.ResponseWriter, r *http.Request) {
		data, err := io.ReadAll(io.LimitReader(r.Body, engine.EmojiMaxBytes+1))
		if err != nil {
			writeError(w, err)
			return
		}
		res, err := eng.ImportEmoji(r.Context(), r.URL.Query().Get("name"), data)
		if err != nil {
			writeError(w, err)
			return
		}
		out := ImportEmojiResponse{Status: res.GetStatus().String(), Error: res.GetError()}
		if res.GetError() == "" {
			out.Name = res.GetName()
		}
		writeJSON(w, http.StatusOK, out)
	})
}

// importJSON decodes a JSON request of at most maxImportJSON bytes into a new Req, calls fn and
// writes its answer.
func importJSON[Req any](fn func(r *http.Request, req *Req) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		req := new(Req)
		body := http.MaxBytesReader(w, r.Body, maxImportJSON)
		if err := json.NewDecoder(body).Decode(req); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				http.Error(w, "the request is larger than 64 MiB", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "the request is not valid JSON: "+err.Error(), http.StatusBadRequest)
			return
		}
		out, err := fn(r, req)
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, out)
	}
}
